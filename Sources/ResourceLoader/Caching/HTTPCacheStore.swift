import Foundation

/// Where an ``HTTPCache`` keeps its responses: a map from keys
/// (``CachePolicy/key(method:url:)``) to ``CachedResponse`` values.
///
/// ``MemoryCacheStore`` and ``DiskCacheStore`` conform. A store decides what it keeps within its
/// limits: it may drop any entry at any time (a lookup then misses), but it never returns a
/// response other than one stored under the key, nor part of one. Calls come from any thread,
/// at the same time: a store guards its own state, and keeps each call short (a disk store
/// reads or writes one entry).
public protocol HTTPCacheStore: Sendable {
    /// The response stored under `key`, or `nil`. A lookup counts as a use for the store's
    /// eviction order.
    func cachedResponse(forKey key: String) -> CachedResponse?

    /// Stores `response` under `key`, replacing what was there, and evicts what it must to stay
    /// within its limit. A response larger than the store holds is not stored (and the old one
    /// under `key` is removed).
    func store(_ response: CachedResponse, forKey key: String)

    /// Removes the response stored under `key`, if any.
    func removeResponse(forKey key: String)

    /// Removes every response.
    func removeAll()
}
