import Foundation

/// An ``HTTPCacheStore`` in memory: the least recently used responses go first once the
/// responses' bytes (``CachedResponse/cost``) pass ``byteLimit``.
///
/// Lookups, stores and removals take constant time.
public final class MemoryCacheStore: HTTPCacheStore, @unchecked Sendable {
    /// One entry of the recency list.
    private final class Node {
        let key: String
        var response: CachedResponse
        var cost: Int
        // Both links are weak: `nodes` owns every node, so that dropping a long list never
        // releases it node after node down the stack.
        weak var newer: Node?
        weak var older: Node?

        init(key: String, response: CachedResponse) {
            self.key = key
            self.response = response
            self.cost = response.cost
        }
    }

    /// The most bytes the stored responses take.
    public let byteLimit: Int
    // `lock` guards `nodes`, `oldest`, `newest` and `totalCost`.
    private let lock = NSLock()
    private var nodes: [String: Node] = [:]
    /// The least recently used entry: evicted first.
    private weak var oldest: Node?
    private weak var newest: Node?
    private var totalCost = 0

    /// Creates an empty store that holds up to `byteLimit` bytes of responses.
    public init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// The bytes the stored responses take.
    public var totalBytes: Int { lock.withLock { totalCost } }

    /// The number of stored responses.
    public var count: Int { lock.withLock { nodes.count } }

    /// The response stored under `key`, made the most recently used.
    public func cachedResponse(forKey key: String) -> CachedResponse? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            unlink(node)
            append(node)
            return node.response
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
            let node = Node(key: key, response: response)
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
