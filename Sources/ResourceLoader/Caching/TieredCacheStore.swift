import Foundation

/// An ``HTTPCacheStore`` with a memory tier in front of another store, as `URLCache` has a memory
/// capacity in front of its disk capacity: hits come from memory while the response is there,
/// and from the other store (a ``DiskCacheStore``, say) after it has left memory or the process
/// has started again.
///
/// Every response is stored in both tiers, each evicting by its own limit. A lookup that memory
/// misses reads the other store, and a response found there is put back in memory. Removals
/// clear both tiers. A response kept only in memory (the other store having evicted it) is
/// still served from memory; a removal never leaves one behind in either tier.
///
/// ```swift
/// let store = TieredCacheStore(
///     memory: MemoryCacheStore(byteLimit: 8 << 20),
///     disk: try DiskCacheStore(directory: cachesDirectory.appendingPathComponent("http"), byteLimit: 256 << 20))
/// let cache = HTTPCache(store: store, policy: CachePolicy(mode: .private))
/// ```
///
/// The memory tier keeps the models of resources that adopt ``ReusableModelResource``, as a
/// ``MemoryCacheStore`` of its own does.
public final class TieredCacheStore: HTTPCacheStore, @unchecked Sendable {
    /// The tier looked up first.
    public let memory: MemoryCacheStore
    /// The tier behind it.
    public let disk: any HTTPCacheStore
    // `lock` orders what writes to the tiers (stores, removals, and a response read from `disk`
    // being put back in memory), so that a removal is never undone by a lookup that read the
    // other store before it. Memory hits do not take it.
    private let lock = NSLock()

    /// Creates a store that keeps each response in `memory` and in `disk`.
    ///
    /// - Parameters:
    ///   - memory: The tier looked up first; its byte limit is usually the smaller.
    ///   - disk: The tier behind it, usually a ``DiskCacheStore``.
    public init(memory: MemoryCacheStore, disk: any HTTPCacheStore) {
        self.memory = memory
        self.disk = disk
    }

    /// The response stored under `key`: from memory when it is there, else from the other
    /// store, and then put back in memory.
    public func cachedResponse(forKey key: String) -> CachedResponse? {
        entry(forKey: key)?.response
    }

    /// Stores `response` under `key` in both tiers.
    public func store(_ response: CachedResponse, forKey key: String) {
        lock.withLock {
            disk.store(response, forKey: key)
            memory.store(response, forKey: key)
        }
    }

    /// Removes the response stored under `key` from both tiers.
    public func removeResponse(forKey key: String) {
        lock.withLock {
            memory.removeResponse(forKey: key)
            disk.removeResponse(forKey: key)
        }
    }

    /// Removes every response from both tiers.
    public func removeAll() {
        lock.withLock {
            memory.removeAll()
            disk.removeAll()
        }
    }
}

extension TieredCacheStore: ModelKeepingCacheStore {
    /// The response stored under `key` and the models its memory entry keeps.
    func entry(forKey key: String) -> (response: CachedResponse, models: KeptModels?)? {
        if let entry = memory.entry(forKey: key) { return entry }
        return lock.withLock {
            // Another lookup may have put it back while this one waited.
            if let entry = memory.entry(forKey: key) { return entry }
            guard let response = disk.cachedResponse(forKey: key) else { return nil }
            memory.store(response, forKey: key)
            return memory.entry(forKey: key) ?? (response, nil)
        }
    }
}

/// A store whose entries can keep the models resources made of them (see
/// ``ReusableModelResource``).
protocol ModelKeepingCacheStore: HTTPCacheStore {
    /// The response stored under `key` and the models kept with it, made the most recently used.
    func entry(forKey key: String) -> (response: CachedResponse, models: KeptModels?)?
}

extension MemoryCacheStore: ModelKeepingCacheStore {}
