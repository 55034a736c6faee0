import Foundation

/// An HTTP cache that follows RFC 9111: a store, the rules that decide what it keeps and when a
/// stored response answers, and how long a stale response may stand in for an error.
///
/// Give it to a ``ResourcePipeline`` to share it among the pipeline's services, or wrap any
/// transport with a ``CachingTransport`` yourself:
///
/// ```swift
/// let cache = HTTPCache(store: try DiskCacheStore(directory: cachesURL, byteLimit: 50 << 20), policy: CachePolicy(mode: .private))
/// let pipeline = ResourcePipeline(cache: cache)
/// ```
///
/// See <doc:Caching> for what is stored and why.
public final class HTTPCache: Sendable {
    /// Where the responses are kept.
    public let store: any HTTPCacheStore
    /// ``store``, when its entries keep the models made of them (``ReusableModelResource``).
    let modelKeepingStore: (any ModelKeepingCacheStore)?
    /// The rules: shared or private, and the heuristic.
    public let policy: CachePolicy
    /// How long past its freshness a stored response may answer in place of a network failure
    /// or a `500`, `502`, `503` or `504` (RFC 5861's `stale-if-error`); `nil`, the default, never.
    /// A response's or request's own `stale-if-error` can only shorten it.
    public let staleIfErrorLimit: Duration?
    /// The largest body the cache keeps, in bytes: a larger response is passed on whole but not
    /// stored (``CachePolicy/NotStoredReason/tooLarge``), and what was stored for its request is
    /// removed (unless its status is a `5xx`, which never removes it). While a body arrives, the
    /// cache's copy never grows past this, nor past the transfer's
    /// ``TransferOptions/maximumResponseBytes``. Default: 32 MiB
    /// (``TransferOptions/defaultMaximumResponseBytes``).
    public let maximumBodyBytes: Int
    /// The keys whose stored response is being validated in the background
    /// (`stale-while-revalidate`), each with its validation's token: one validation per key at a
    /// time.
    private let revalidating = Locked<[String: UUID]>([:])

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - store: Where the responses are kept. Default: a ``MemoryCacheStore`` of 16 MiB.
    ///   - policy: The rules. Default: a shared cache (``CachePolicy/Mode/shared``), which never
    ///     hands one user's `private` response to another, nor an authorised one that does not
    ///     say it may be shared.
    ///   - staleIfErrorLimit: How long past its freshness a response may stand in for an error.
    ///     Default: `nil`, never.
    ///   - maximumBodyBytes: The largest body the cache keeps. Default: 32 MiB.
    public init(
        store: any HTTPCacheStore = MemoryCacheStore(byteLimit: 16 << 20),
        policy: CachePolicy = CachePolicy(),
        staleIfErrorLimit: Duration? = nil,
        maximumBodyBytes: Int = TransferOptions.defaultMaximumResponseBytes
    ) {
        self.maximumBodyBytes = max(0, maximumBodyBytes)
        self.store = store
        self.modelKeepingStore = store as? any ModelKeepingCacheStore
        self.policy = policy
        self.staleIfErrorLimit = staleIfErrorLimit
    }

    /// The most body bytes the cache keeps of a transfer with `options`: ``maximumBodyBytes``, or
    /// the transfer's size limit when smaller.
    func bodyLimit(for options: TransferOptions) -> Int {
        min(options.maximumResponseBytes, maximumBodyBytes)
    }

    /// Removes every stored response.
    public func removeAll() {
        store.removeAll()
    }

    /// Marks `key` as being validated in the background, and returns the validation's token;
    /// `nil` when it already is.
    func beginRevalidation(ofKey key: String) -> UUID? {
        revalidating.withLock { keys in
            guard keys[key] == nil else { return nil }
            let token = UUID()
            keys[key] = token
            return token
        }
    }

    /// Marks the background validation `token` of `key` as over (once: a later validation of
    /// the key has a token of its own).
    func endRevalidation(ofKey key: String, token: UUID) {
        revalidating.withLock { keys in
            if keys[key] == token { keys[key] = nil }
        }
    }

    /// The stale-if-error limit in seconds.
    var staleIfErrorSeconds: TimeInterval? {
        staleIfErrorLimit.map { limit in
            let (seconds, attoseconds) = limit.components
            return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        }
    }
}
