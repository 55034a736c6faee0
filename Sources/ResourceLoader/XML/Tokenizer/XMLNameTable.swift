import Foundation

/// A name as the tokenizer hands it on: the qualified name as written, and its parts.
///
/// Every distinct name of a document is made once, by ``XMLNameTable``, so the strings of a
/// name repeated a million times share one storage, and comparing two names compares
/// identifiers.
struct XMLName: Sendable {
    /// The name as written: `soap:Envelope`.
    let qualified: String
    /// The part before the colon, when the name is a qualified name with a prefix.
    let prefix: String?
    /// The part after the colon, or the whole name.
    let local: String
    /// Whether the name is a `QName` of Namespaces 1.0: an `NCName`, or two joined by one colon.
    let isQualifiedName: Bool
    /// The name's number in its table: equal names, equal numbers.
    let id: Int
}

/// Interns names: the bytes of a name in, an ``XMLName`` out, without making a string for a
/// name seen before.
///
/// An open-addressing hash table over the bytes (FNV-1a), whose entries point into one arena
/// of name bytes. A look-up hashes the bytes and compares them with at most a few stored names.
struct XMLNameTable {
    private(set) var names: [XMLName] = []
    private var arena: [UInt8] = []
    /// Per entry: the offset of its bytes in `arena`, their count and hash.
    private var spans: [(offset: Int, count: Int, hash: UInt32)] = []
    /// Slot → entry index + 1; 0 is empty.
    private var slots: [Int32] = Array(repeating: 0, count: 256)

    /// The name made of `bytes[range]`, created on first sight.
    mutating func name(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> XMLName {
        let input = (bytes.baseAddress ?? XMLCharacters.noBytes) + range.lowerBound
        let count = range.count
        var hash: UInt32 = 2_166_136_261
        var index = 0
        while index < count {
            hash = (hash ^ UInt32(input[index])) &* 16_777_619
            index &+= 1
        }
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { break }
            let span = spans[entry - 1]
            if span.hash == hash && span.count == count && storedBytes(span.offset, equal: input, count: count) {
                return names[entry - 1]
            }
            slot = (slot + 1) & mask
        }
        let name = Self.make(bytes, range, id: names.count)
        spans.append((arena.count, count, hash))
        arena.append(contentsOf: UnsafeBufferPointer(start: input, count: count))
        names.append(name)
        slots[slot] = Int32(names.count)
        if names.count * 2 > slots.count { grow() }
        return name
    }

    /// Whether the name numbered `id` is made of `bytes[range]`: an end tag's check against its
    /// start tag, without hashing.
    func name(_ id: Int, isMadeOf bytes: UnsafePointer<UInt8>, _ range: Range<Int>) -> Bool {
        let span = spans[id]
        return span.count == range.count && storedBytes(span.offset, equal: bytes + range.lowerBound, count: span.count)
    }

    /// Whether `count` bytes of the arena from `offset` equal `bytes`.
    private func storedBytes(_ offset: Int, equal bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        guard count > 0 else { return true }
        return arena.withUnsafeBufferPointer { stored in
            memcmp(stored.baseAddress! + offset, bytes, count) == 0
        }
    }

    /// The name made of `string`'s UTF-8.
    mutating func name(_ string: String) -> XMLName {
        var string = string
        return string.withUTF8 { name($0, 0..<$0.count) }
    }

    private mutating func grow() {
        var newSlots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = newSlots.count - 1
        for (index, span) in spans.enumerated() {
            var slot = Int(span.hash) & mask
            while newSlots[slot] != 0 { slot = (slot + 1) & mask }
            newSlots[slot] = Int32(index + 1)
        }
        slots = newSlots
    }

    private static func make(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, id: Int) -> XMLName {
        let qualified = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        var colon = -1
        var colons = 0
        for index in range where bytes[index] == UInt8(ascii: ":") {
            if colon < 0 { colon = index }
            colons += 1
        }
        guard colons == 1, colon > range.lowerBound, colon + 1 < range.upperBound else {
            return XMLName(qualified: qualified, prefix: nil, local: qualified, isQualifiedName: colons == 0, id: id)
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
        return XMLName(qualified: qualified, prefix: prefix, local: local, isQualifiedName: isQualifiedName, id: id)
    }
}
