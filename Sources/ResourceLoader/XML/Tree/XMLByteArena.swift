import Foundation

/// The bytes of a tree's text: one block of memory that grows while the document is parsed and
/// is only read afterwards. (The sink also uses one as the stack where text that comes in
/// several pieces is gathered.)
///
/// An `[UInt8]` would do, but appending a short text to one costs a uniqueness check and a
/// generic copy, once per element with text; here an append is one capacity check and a
/// `memcpy`. The block doubles with `realloc`, which for large blocks
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
        Self.copy(source, to: base.unsafelyUnwrapped + count, count: bytes.count)
        count &+= bytes.count
    }

    /// Copies `count` bytes from `source` to `target` (runs that do not overlap). Most runs
    /// are a few bytes of text (a value, the indentation between two tags), for which a call to
    /// `memcpy` costs more than the copy: up to 16 bytes are copied inline, as two loads and two
    /// stores that may overlap, reading and writing no byte outside either run.
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        if count >= 8 {
            guard count <= 16 else {
                target.update(from: source, count: count)
                return
            }
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: count &- 4, as: UInt32.self)
        } else if count >= 2 {
            let head = from.loadUnaligned(as: UInt16.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self)
            to.storeBytes(of: head, as: UInt16.self)
            to.storeBytes(of: tail, toByteOffset: count &- 2, as: UInt16.self)
        } else if count == 1 {
            target.pointee = source.pointee
        }
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
