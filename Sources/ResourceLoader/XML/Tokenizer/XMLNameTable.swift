import Foundation

/// A name as the tokenizer hands it on: the qualified name as written, and its parts.
///
/// Every distinct name of a document is made once, by ``XMLNameTable`` (or once per process,
/// by ``XMLSharedNames``), so the strings of a name repeated a million times share one
/// storage. Within a document, equal names are the same object (compare them with `===`). A
/// class: handing a name on (in a start tag, an attribute, a declaration) retains one object
/// instead of copying three strings.
final class XMLName: Sendable {
    /// The name as written: `soap:Envelope`.
    let qualified: String
    /// The part before the colon, when the name is a qualified name with a prefix.
    let prefix: String?
    /// The part after the colon, or the whole name.
    let local: String
    /// Whether the name is a `QName` of Namespaces 1.0: an `NCName`, or two joined by one colon.
    let isQualifiedName: Bool
    /// Whether the name is a `QName` without a prefix (an `NCName`): a flag, so the namespace
    /// resolver's common case reads one byte instead of the optional ``prefix`` string.
    let isUnprefixedQualifiedName: Bool
    /// Whether the prefix is `xmlns` (a prefixed namespace declaration, or a name no element
    /// may have).
    let hasXMLNSPrefix: Bool
    /// Whether the prefix is `xml`.
    let hasXMLPrefix: Bool
    /// Whether, as an attribute's name with namespaces on, the name declares a namespace:
    /// `xmlns` or `xmlns:p`.
    let declaresNamespace: Bool
    /// A hash of ``local``'s bytes (the process's seed): equal local parts, whatever their
    /// prefixes, have equal hashes. The decoder's look-ups filter siblings by it
    /// (``XMLTree/Storage/localNameBit(of:)``).
    let localHash: UInt32

    init(qualified: String, prefix: String?, local: String, isQualifiedName: Bool, localHash: UInt32) {
        self.qualified = qualified
        self.prefix = prefix
        self.local = local
        self.isQualifiedName = isQualifiedName
        self.localHash = localHash
        isUnprefixedQualifiedName = isQualifiedName && prefix == nil
        hasXMLNSPrefix = prefix == "xmlns"
        hasXMLPrefix = prefix == "xml"
        declaresNamespace = hasXMLNSPrefix || (prefix == nil && qualified == "xmlns")
    }
}

/// Interns names: the bytes of a name in, an ``XMLName`` out, without making a string for a
/// name seen before.
///
/// An open-addressing hash table over the bytes, whose entries point into one arena of name
/// bytes. A look-up hashes the bytes a word at a time (seeded per process, so that which names
/// collide cannot be chosen from outside) and compares them with at most a few stored names.
///
/// **Successors.** Documents repeat their element names in the same order (a record's fields,
/// record after record), so each entry remembers the name of the start tag that followed the
/// last one of its name (``setSuccessor(of:to:)``); ``successor(of:at:available:)`` checks that
/// guess with one byte comparison instead of reading and hashing the name.
///
/// **Kept between documents.** A tokenizer takes a table from a small process-wide pool
/// (``checkOut()``) and gives it back when it is done (``checkIn()``), so the next document of
/// the same service finds its names, and the successors of its start tags, there already: no
/// table to build, no name to enter, per document. The pool is bounded: at most
/// ``pooledTables`` tables, each kept only while it holds at most ``largestPooledTable`` names
/// of at most ``largestPooledArena`` bytes in all (a larger one is dropped, as it would be
/// without the pool). Name numbers therefore count the names of every document the table has
/// read, not only the current one's.
///
/// A class: the tokenizer holds one and reaches it through one reference. One tokenizer at a
/// time owns it: the pool hands each table to one caller, and takes it back once.
final class XMLNameTable {
    /// Per entry (by name number): where its bytes are in `arena`, their count, hash, and the
    /// number of the name that followed it last (-1: none yet).
    private struct Entry {
        var offset: Int
        var count: Int32
        var hash: UInt32
        var successor: Int32
    }

    /// The names, by number.
    @exclusivity(unchecked) private(set) var names: [XMLName] = []
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var arena: [UInt8] = []
    /// Slot → entry index + 1; 0 is empty. A power of two, at most half full.
    @exclusivity(unchecked) private var slots: [Int32]
    private let seed: UInt64

    /// The process's hash seed, drawn once.
    static let processSeed = UInt64.random(in: 0...UInt64.max) | 1

    /// A table for a document; the first slots suit a small one (the table grows with its
    /// names, not with the document).
    init() {
        slots = [Int32](repeating: 0, count: 64)
        names.reserveCapacity(32)
        entries.reserveCapacity(32)
        arena.reserveCapacity(512)
        seed = Self.processSeed
    }

    /// The number of the name made of `count` bytes at `input`, or -1.
    @inline(__always)
    private func find(_ input: UnsafePointer<UInt8>, _ count: Int, hash: UInt32) -> (entry: Int, slot: Int) {
        let mask = slots.count &- 1
        var slot = Int(hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                while true {
                    let entry = Int(slots[slot])
                    if entry == 0 { return (-1, slot) }
                    let stored = entries[entry &- 1]
                    if stored.hash == hash && Int(stored.count) == count && storedBytes(stored.offset, equal: input, count: count) {
                        return (entry &- 1, slot)
                    }
                    slot = (slot &+ 1) & mask
                }
            }
        }
    }

    /// The number of the name made of `bytes[range]` (its index in ``names``), entered on first
    /// sight: equal names, equal numbers.
    func id(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        let input = (bytes.baseAddress ?? XMLCharacters.noBytes) + range.lowerBound
        let count = range.count
        let hash = Self.hash(input, count, seed: seed)
        let (entry, slot) = find(input, count, hash: hash)
        if entry >= 0 { return entry }
        let name = XMLSharedNames.name(bytes, range, hash: hash)
        entries.append(Entry(offset: arena.count, count: Int32(count), hash: hash, successor: -1))
        arena.append(contentsOf: UnsafeBufferPointer(start: input, count: count))
        names.append(name)
        slots[slot] = Int32(names.count)
        if names.count &* 2 > slots.count { grow() }
        return names.count &- 1
    }

    // MARK: The pool

    /// How many tables the pool keeps at most.
    static let pooledTables = 4
    /// The most names a table may hold and still go back to the pool.
    static let largestPooledTable = 1_024
    /// The most name bytes a table may hold and still go back to the pool.
    static let largestPooledArena = 32 * 1_024

    /// The tables no tokenizer is using, the most recently returned last.
    private static let pool = Locked<[XMLNameTable]>([])

    /// A table for one tokenizer: one from the pool, or a new one.
    static func checkOut() -> XMLNameTable {
        pool.withLock { $0.popLast() } ?? XMLNameTable()
    }

    /// Gives the table back to the pool, unless it has grown past the pool's bounds or the pool
    /// is full. The caller must not use the table afterwards.
    func checkIn() {
        guard names.count <= Self.largestPooledTable, arena.count <= Self.largestPooledArena else { return }
        Self.pool.withLock { tables in
            if tables.count < Self.pooledTables { tables.append(self) }
        }
    }

    /// The last tokenizer's emptied working storage, handed to the next one with the table
    /// (see ``XMLTokenizerBuffers``).
    var spareBuffers: XMLTokenizerBuffers?

    /// The number of tables in the pool (for tests).
    static var pooledTableCount: Int { pool.withLock { $0.count } }

    /// The number of names in the table.
    var count: Int { names.count }

    // MARK: Names

    /// The name made of `bytes[range]`, entered on first sight.
    func name(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> XMLName {
        names[id(bytes, range)]
    }

    /// The name made of `string`'s UTF-8.
    func name(_ string: String) -> XMLName {
        var string = string
        return string.withUTF8 { name($0, 0..<$0.count) }
    }

    /// Whether the name numbered `id` is made of `bytes[range]`: an end tag's check against its
    /// start tag, without hashing.
    func name(_ id: Int, isMadeOf bytes: UnsafePointer<UInt8>, _ range: Range<Int>) -> Bool {
        let entry = entries[id]
        return Int(entry.count) == range.count && storedBytes(entry.offset, equal: bytes + range.lowerBound, count: range.count)
    }

    /// The byte count of the name numbered `id` when its bytes are at `input`, followed by a
    /// byte within `available` for which `isEnd` holds; otherwise 0.
    @inline(__always)
    func length(of id: Int, at input: UnsafePointer<UInt8>, available: Int, followedBy isEnd: (UInt8) -> Bool) -> Int {
        let entry = entries[id]
        let count = Int(entry.count)
        guard count < available, isEnd(input[count]), storedBytes(entry.offset, equal: input, count: count) else { return 0 }
        return count
    }

    /// The number of the name that followed the last start tag named `id`, and its byte count,
    /// when the bytes at `input` (of which `available` may be read) are that name followed by
    /// white space, `>` or `/`: the name of a start tag read without reading it.
    @inline(__always)
    func successor(of id: Int, at input: UnsafePointer<UInt8>, available: Int) -> (id: Int, count: Int)? {
        guard id >= 0 else { return nil }
        let next = Int(entries[id].successor)
        guard next >= 0 else { return nil }
        let count = length(of: next, at: input, available: available) { byte in
            byte == 0x3E || byte == 0x20 || byte == 0x0A || byte == 0x2F || byte == 0x09 || byte == 0x0D
        }
        return count > 0 ? (next, count) : nil
    }

    /// Records that a start tag named `next` followed one named `id` (-1: the first start tag).
    @inline(__always)
    func setSuccessor(of id: Int, to next: Int) {
        guard id >= 0 else { return }
        entries[id].successor = Int32(truncatingIfNeeded: next)
    }

    /// Whether `count` bytes of the arena from `offset` equal `bytes`.
    @inline(__always)
    private func storedBytes(_ offset: Int, equal bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        guard count > 0 else { return true }
        return arena.withUnsafeBufferPointer { stored in
            Self.equal(stored.baseAddress.unsafelyUnwrapped + offset, bytes, count: count)
        }
    }

    /// Whether `count` bytes at `first` equal those at `second`: eight at a time, then four,
    /// two and one, inline (a name is short: a call to `memcmp` costs more than comparing it).
    /// Reads no byte past either run.
    @inline(__always)
    static func equal(_ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, count: Int) -> Bool {
        let a = UnsafeRawPointer(first)
        let b = UnsafeRawPointer(second)
        var index = 0
        while index &+ 8 <= count {
            guard a.loadUnaligned(fromByteOffset: index, as: UInt64.self) == b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            else { return false }
            index &+= 8
        }
        if index &+ 4 <= count {
            guard a.loadUnaligned(fromByteOffset: index, as: UInt32.self) == b.loadUnaligned(fromByteOffset: index, as: UInt32.self)
            else { return false }
            index &+= 4
        }
        if index &+ 2 <= count {
            guard a.loadUnaligned(fromByteOffset: index, as: UInt16.self) == b.loadUnaligned(fromByteOffset: index, as: UInt16.self)
            else { return false }
            index &+= 2
        }
        return index == count || first[index] == second[index]
    }

    /// The hash of `count` bytes at `input`: eight bytes at a time, then the rest, mixed by
    /// multiplication and shifts.
    @inline(__always)
    static func hash(_ input: UnsafePointer<UInt8>, _ count: Int, seed: UInt64) -> UInt32 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var state = seed ^ UInt64(truncatingIfNeeded: count)
        let raw = UnsafeRawPointer(input)
        var index = 0
        while index &+ 8 <= count {
            state = (state ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* multiplier
            state ^= state >> 32
            index &+= 8
        }
        if index < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while index < count {
                tail |= UInt64(input[index]) << shift
                shift &+= 8
                index &+= 1
            }
            state = (state ^ tail) &* multiplier
        }
        state ^= state >> 29
        state = state &* multiplier
        state ^= state >> 32
        return UInt32(truncatingIfNeeded: state)
    }

    private func grow() {
        var newSlots = [Int32](repeating: 0, count: slots.count &* 2)
        let mask = newSlots.count &- 1
        for (index, entry) in entries.enumerated() {
            var slot = Int(entry.hash) & mask
            while newSlots[slot] != 0 { slot = (slot &+ 1) & mask }
            newSlots[slot] = Int32(index &+ 1)
        }
        slots = newSlots
    }

    /// A new name made of `bytes[range]`.
    static func make(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> XMLName {
        let qualified = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        var colon = -1
        var colons = 0
        for index in range where bytes[index] == UInt8(ascii: ":") {
            if colon < 0 { colon = index }
            colons += 1
        }
        /// The hash of `bytes[part]`.
        func hash(_ part: Range<Int>) -> UInt32 {
            Self.hash((bytes.baseAddress ?? XMLCharacters.noBytes) + part.lowerBound, part.count, seed: processSeed)
        }
        guard colons == 1, colon > range.lowerBound, colon + 1 < range.upperBound else {
            return XMLName(
                qualified: qualified, prefix: nil, local: qualified, isQualifiedName: colons == 0, localHash: hash(range))
        }
        // The local part must start as a name does (`a:1b` and `a:-b` are not QNames).
        var isQualifiedName = true
        let first = bytes[colon + 1]
        if first < 0x80 {
            isQualifiedName = XMLCharacters.asciiNameTable[Int(first)] & 1 != 0
        } else if case .scalar(let scalar, _) = XMLCharacters.decode(bytes, at: colon + 1, end: range.upperBound) {
            isQualifiedName = XMLCharacters.isNameStart(scalar)
        }
        let prefix = String(decoding: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<colon]), as: UTF8.self)
        let local = String(decoding: UnsafeBufferPointer(rebasing: bytes[(colon + 1)..<range.upperBound]), as: UTF8.self)
        return XMLName(
            qualified: qualified, prefix: prefix, local: local, isQualifiedName: isQualifiedName,
            localHash: hash((colon + 1)..<range.upperBound))
    }
}

/// The names earlier documents of the process used, so that a document of names seen before
/// (the next response of the same service) makes none of its names again: no strings, no
/// objects, one look-up under a lock for each name the document's own table has not seen.
///
/// Bounded: at most ``capacity`` names of at most ``longestName`` bytes are kept, the first
/// ones seen; past that, names are made per document as without it. Names only (never text or
/// attribute values), and never removed.
struct XMLSharedNames {
    /// How many names are kept at most.
    static let capacity = 4_096
    /// The longest name kept, in bytes.
    static let longestName = 64

    private static let shared = Locked(XMLSharedNames())

    private var names: [XMLName] = []
    /// Per entry: where its bytes are in `arena`, their count and hash.
    private var entries: [(offset: Int, count: Int, hash: UInt32)] = []
    private var arena: [UInt8] = []
    /// Slot → entry index + 1; 0 is empty. Twice ``capacity``: never more than half full.
    private var slots = [Int32](repeating: 0, count: 2 * capacity)

    /// The shared name made of `bytes[range]`, whose hash (``XMLNameTable/hash(_:_:seed:)``
    /// with the process's seed) is `hash`; made and kept on first sight while there is room.
    static func name(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, hash: UInt32) -> XMLName {
        // A long name is made without taking the lock.
        guard range.count <= longestName else { return XMLNameTable.make(bytes, range) }
        return shared.withLock { $0.name(bytes, range, hash: hash) }
    }

    /// The number of names kept.
    var count: Int { names.count }

    /// The number of names the process's table keeps (for tests): ``capacity`` once it is full.
    static var sharedCount: Int { shared.withLock { $0.count } }

    /// The name made of `bytes[range]` from this table (the process's table, for
    /// ``name(_:_:hash:)``; a table of their own, for tests), kept on first sight while there
    /// is room.
    mutating func name(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, hash: UInt32) -> XMLName {
        guard range.count <= Self.longestName else { return XMLNameTable.make(bytes, range) }
        let input = (bytes.baseAddress ?? XMLCharacters.noBytes) + range.lowerBound
        let count = range.count
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { break }
            let stored = entries[entry - 1]
            if stored.hash == hash && stored.count == count
                && arena.withUnsafeBufferPointer({ count == 0 || memcmp($0.baseAddress! + stored.offset, input, count) == 0 })
            {
                return names[entry - 1]
            }
            slot = (slot + 1) & mask
        }
        let name = XMLNameTable.make(bytes, range)
        guard names.count < Self.capacity else { return name }
        entries.append((arena.count, count, hash))
        arena.append(contentsOf: UnsafeBufferPointer(start: input, count: count))
        names.append(name)
        slots[slot] = Int32(names.count)
        return name
    }
}

/// A tokenizer's working storage (open elements, a start tag's attributes, the namespace
/// bindings), emptied, kept with its name table in the pool so that the next document's
/// tokenizer allocates none of it. Kept only while small (``isSmall``).
struct XMLTokenizerBuffers {
    var open: [Int]
    var attributes: [XMLAttributeEvent]
    var attributeTags: [Int]
    var namespaces: XMLNamespaceResolver

    /// Whether the buffers are small enough to keep between documents: a document that needed
    /// large ones (deep, or with many attributes or names) does not leave them behind.
    var isSmall: Bool {
        open.capacity <= 1_024 && attributes.capacity <= 256 && attributeTags.capacity <= 4_096 && namespaces.isSmall
    }
}
