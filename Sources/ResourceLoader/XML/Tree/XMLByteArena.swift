import Foundation

/// The bytes of a tree's text: one block of memory that grows while the document is parsed and
/// is only read afterwards. (The sink also uses one as the stack where text that comes in
/// several pieces is gathered.)
///
/// An `[UInt8]` would do, but appending a short text to one costs about 200 instructions (a
/// uniqueness check, then a generic copy), once per element with text; here an append is one
/// capacity check and a `memcpy`. The block doubles with `realloc`, which for large blocks
/// remaps pages instead of copying them.
///
/// `@unchecked Sendable`: the sink that builds a tree is the only writer, on one thread, and the
/// tree it then hands out (``XMLTree/Storage``) only reads.
final class XMLByteArena: @unchecked Sendable {
    @exclusivity(unchecked) private(set) var base: UnsafeMutablePointer<UInt8>?
    /// The number of bytes appended.
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity = 0

    /// An arena with room for `capacity` bytes before it first grows.
    init(capacity: Int = 0) {
        if capacity > 0 { reserve(capacity) }
    }

    deinit {
        free(base)
    }

    /// Appends `bytes`.
    @inline(__always)
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count &+ bytes.count > capacity { reserve(Swift.max(count + bytes.count, capacity * 2, 64)) }
        // `reserve` has made room: `base` is set.
        (base.unsafelyUnwrapped + count).update(from: source, count: bytes.count)
        count &+= bytes.count
    }

    /// Forgets the last `k` bytes appended (keeping the memory): the arena used as a stack.
    @inline(__always)
    func removeLast(_ k: Int) {
        precondition(k >= 0 && k <= count, "XMLByteArena: removing more bytes than there are")
        count &-= k
    }

    /// The `count` bytes from `offset`, which must lie within the bytes appended.
    @inline(__always)
    func bytes(from offset: Int, count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base.map { UnsafePointer($0 + offset) }, count: count)
    }

    /// A copy of every byte appended (for tests).
    var allBytes: [UInt8] { Array(bytes(from: 0, count: count)) }

    private func reserve(_ newCapacity: Int) {
        guard let block = realloc(base, newCapacity) else {
            // As when an array cannot grow: there is no memory left to report anything with.
            preconditionFailure("XMLByteArena: out of memory for \(newCapacity) bytes")
        }
        base = block.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
    }
}
