import Foundation

/// A tree's nodes (``XMLTree/Node``), in document order: one block of memory that the sink
/// appends to while the document is parsed and that is only read afterwards.
///
/// An `[XMLTree.Node]` would do, but the sink changes it at every tag (a node appended at the
/// start tag, its `end` and text recorded at the end tag), and each change of an array held
/// in a struct checks that its buffer is not shared first: about a fifth of the sink's work.
/// Here a change is a store through the block's pointer. The block grows by doubling with
/// `realloc`, which for large blocks remaps pages instead of copying them, so growing near
/// the end of a large document does not hold two copies of the nodes.
///
/// Every index is checked against ``count``, as an array's would be.
///
/// `@unchecked Sendable`: the sink that builds a tree is the only writer, on one thread, and the
/// tree it then hands out (``XMLTree/Storage``) only reads.
final class XMLTreeNodes: @unchecked Sendable {
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<XMLTree.Node>?
    /// The number of nodes appended.
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity = 0

    /// The most nodes a list reserves up front: as many as a node's 32-bit indices can name.
    static let maximumReservation = Int(UInt32.max)

    /// An empty list with room for `capacity` nodes before it first grows.
    ///
    /// The capacity is an estimate (see ``XMLTreeSink/expectedNodes(_:)``): when it is over
    /// ``maximumReservation``, or that much memory cannot be had, the list starts empty and grows
    /// as nodes are appended.
    init(capacity: Int = 0) {
        if capacity > 0, capacity <= Self.maximumReservation { _ = tryReserve(capacity) }
    }

    deinit {
        free(base)
    }

    /// Whether there are no nodes.
    var isEmpty: Bool { count == 0 }

    /// The node at `index`, which must be below ``count``.
    @inline(__always)
    subscript(index: Int) -> XMLTree.Node {
        unsafeAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "XMLTreeNodes: index out of range")
            return UnsafePointer(base.unsafelyUnwrapped + index)
        }
        unsafeMutableAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "XMLTreeNodes: index out of range")
            return base.unsafelyUnwrapped + index
        }
    }

    /// Appends `node`.
    @inline(__always)
    func append(_ node: XMLTree.Node) {
        if count == capacity { reserve(Swift.max(capacity * 2, 16)) }
        // `reserve` has made room: `base` is set.
        (base.unsafelyUnwrapped + count).initialize(to: node)
        count &+= 1
    }

    /// A copy of every node (for tests).
    var allNodes: [XMLTree.Node] {
        (0..<count).map { self[$0] }
    }

    /// Grows the block to `newCapacity` nodes, for a node about to be appended: each node is an
    /// element the document holds (4 bytes or more of it), so this fails only where an array
    /// of them would.
    private func reserve(_ newCapacity: Int) {
        guard tryReserve(newCapacity) else {
            // As when an array cannot grow: there is no memory left to report anything with.
            preconditionFailure("XMLTreeNodes: out of memory for \(newCapacity) nodes")
        }
    }

    /// Resizes the block to `newCapacity` nodes; `false`, the block unchanged, when that
    /// much memory cannot be had.
    private func tryReserve(_ newCapacity: Int) -> Bool {
        let (bytes, overflow) = newCapacity.multipliedReportingOverflow(by: MemoryLayout<XMLTree.Node>.stride)
        guard !overflow, let block = realloc(base, bytes) else { return false }
        // `Node` is a trivial type: its bytes move with the block.
        base = block.bindMemory(to: XMLTree.Node.self, capacity: newCapacity)
        capacity = newCapacity
        return true
    }
}
