import Foundation

/// An ``HTTPCacheStore`` in memory: the least recently used responses go first once the
/// responses' bytes (``CachedResponse/cost``) pass ``byteLimit``.
///
/// Lookups, stores and removals take constant time.
public final class MemoryCacheStore: HTTPCacheStore, @unchecked Sendable {
    /// One entry of the recency list.
    private final class Node {
        let key: String
        let response: CachedResponse
        let cost: Int
        /// The models resources made of ``response``.
        let models: KeptModels
        // Both links are weak: `nodes` owns every node, so that dropping a long list never
        // releases it node after node down the stack.
        weak var newer: Node?
        weak var older: Node?

        init(key: String, response: CachedResponse, modelsKept: Int) {
            self.key = key
            self.response = response
            self.cost = response.cost
            self.models = KeptModels(limit: modelsKept)
        }
    }

    /// The most bytes the stored responses take.
    public let byteLimit: Int

    /// The most models an entry keeps for resources that adopt ``ReusableModelResource``: one
    /// for each of this many unequal resources, the least recently used replaced first.
    public let modelsKeptPerEntry: Int
    // `lock` guards `nodes`, `oldest`, `newest` and `totalCost`.
    private let lock = NSLock()
    private var nodes: [String: Node] = [:]
    /// The least recently used entry: evicted first.
    private weak var oldest: Node?
    private weak var newest: Node?
    private var totalCost = 0

    /// Creates an empty store that holds up to `byteLimit` bytes of responses.
    ///
    /// - Parameters:
    ///   - byteLimit: The most bytes the stored responses take (``CachedResponse/cost``).
    ///   - modelsKeptPerEntry: The most models an entry keeps for resources that adopt
    ///     ``ReusableModelResource``; `0` keeps none, so that every hit parses. Kept models are
    ///     not counted against `byteLimit`. Default: 4.
    public init(byteLimit: Int, modelsKeptPerEntry: Int = 4) {
        self.byteLimit = byteLimit
        self.modelsKeptPerEntry = max(0, modelsKeptPerEntry)
    }

    /// The bytes the stored responses take.
    public var totalBytes: Int { lock.withLock { totalCost } }

    /// The number of stored responses.
    public var count: Int { lock.withLock { nodes.count } }

    /// The response stored under `key`, made the most recently used.
    public func cachedResponse(forKey key: String) -> CachedResponse? {
        entry(forKey: key)?.response
    }

    /// The response stored under `key` and the models kept with it, made the most recently used.
    func entry(forKey key: String) -> (response: CachedResponse, models: KeptModels?)? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            unlink(node)
            append(node)
            return (node.response, modelsKeptPerEntry > 0 ? node.models : nil)
        }
    }

    /// Stores `response` under `key` as the most recently used, then evicts the least recently
    /// used until the store is within ``byteLimit``.
    public func store(_ response: CachedResponse, forKey key: String) {
        lock.withLock {
            if let node = nodes.removeValue(forKey: key) {
                unlink(node)
                totalCost -= node.cost
            }
            let node = Node(key: key, response: response, modelsKept: modelsKeptPerEntry)
            guard node.cost <= byteLimit else { return }
            nodes[key] = node
            append(node)
            totalCost += node.cost
            while totalCost > byteLimit, let victim = oldest {
                unlink(victim)
                nodes[victim.key] = nil
                totalCost -= victim.cost
            }
        }
    }

    /// Removes the response stored under `key`.
    public func removeResponse(forKey key: String) {
        lock.withLock {
            guard let node = nodes.removeValue(forKey: key) else { return }
            unlink(node)
            totalCost -= node.cost
        }
    }

    /// Removes every response.
    public func removeAll() {
        lock.withLock {
            nodes = [:]
            oldest = nil
            newest = nil
            totalCost = 0
        }
    }

    // MARK: - The recency list (called with `lock` held)

    private func unlink(_ node: Node) {
        let older = node.older
        let newer = node.newer
        if let older { older.newer = newer } else { oldest = newer }
        if let newer { newer.older = older } else { newest = older }
        node.newer = nil
        node.older = nil
    }

    private func append(_ node: Node) {
        if let newest {
            newest.newer = node
            node.older = newest
        } else {
            oldest = node
        }
        newest = node
    }
}
