import Foundation

/// Finds an object that has the same key twice in a JSON text.
///
/// `JSONSerialization` keeps the last of two equal keys and `JSONDecoder` (on Linux) the first,
/// so the same body could mean two different things depending on how a resource reads it. The
/// JSON resource types refuse such bodies instead, with a parsing error naming the key's path.
///
/// The scan is iterative (no recursion, however deep the text) and runs after a parser has
/// accepted the text. It never traps: on anything it does not understand it stops and reports
/// no duplicate. Keys are equal when they are equal as Swift strings, as both parsers compare
/// them — after unescaping, and up to canonical equivalence (`"K"` and `"\u212A"`, KELVIN SIGN,
/// are the same key).
///
/// It runs on every JSON body, so the common case allocates nothing: key ranges live in one
/// reused array, plain ASCII keys are compared byte for byte, and only keys with escapes or
/// non-ASCII bytes are turned into strings. Objects with more than ``pairwiseLimit`` keys are
/// checked with a hash set, so no object makes the scan quadratic.
enum JSONDuplicateKeyScanner {
    /// Objects with at most this many keys are checked pair by pair; larger ones with a set.
    static let pairwiseLimit = 16

    /// What each byte means to the scan, looked up instead of compared case by case: the low
    /// three bits outside strings (``Outside``), bit 3 inside them (a quote, a backslash or a
    /// non-ASCII byte). Built once and never written again, so sharing it is safe; lives as long
    /// as the process.
    nonisolated(unsafe) private static let byteTable: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        table[Int(UInt8(ascii: "{"))] = Outside.openObject
        table[Int(UInt8(ascii: "["))] = Outside.openArray
        table[Int(UInt8(ascii: "}"))] = Outside.close
        table[Int(UInt8(ascii: "]"))] = Outside.close
        table[Int(UInt8(ascii: ","))] = Outside.comma
        table[Int(UInt8(ascii: "\""))] = Outside.quote | insideStringStop
        table[Int(UInt8(ascii: "\\"))] = insideStringStop
        for byte in 0x80...0xFF { table[byte] = insideStringStop }
        return UnsafePointer(table)
    }()

    /// The classes of bytes outside strings; 0 is anything the scan skips (whitespace, `:`,
    /// numbers, `true`, `false`, `null`).
    private enum Outside {
        static var openObject: UInt8 { 1 }
        static var openArray: UInt8 { 2 }
        static var close: UInt8 { 3 }
        static var comma: UInt8 { 4 }
        static var quote: UInt8 { 5 }
        static var mask: UInt8 { 0b111 }
    }

    /// Set for the bytes a string scan must stop at.
    private static var insideStringStop: UInt8 { 0b1000 }

    /// The path of the first repeated key, such as `cities[0].name`, or `nil` if there is none.
    static func firstDuplicateKeyPath(in data: Data) -> String? {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            var scan = Scan(base: base.assumingMemoryBound(to: UInt8.self), count: raw.count)
            return scan.firstDuplicateKeyPath()
        }
    }

    /// A key: the bytes between its quotes.
    private struct Key {
        let range: Range<Int>
        /// ASCII without escapes: equal to another such key exactly when the bytes are equal.
        let isPlain: Bool
    }

    /// An open object or array. Plain values only, so that pushing and popping frames costs no
    /// reference counting.
    private struct Frame {
        let isObject: Bool
        /// Where this object's keys start in `Scan.keys`; unique among open objects, because an
        /// object inside another is the value of one of the outer object's keys.
        let keysStart: Int
        var expectsKey: Bool
        /// The index of the current element, for arrays.
        var index = 0
        /// The index in `Scan.keys` of the key whose value is being read, for objects.
        var currentKey = -1
        /// Whether `Scan.keySets[keysStart]` holds the object's keys (it has more than
        /// `pairwiseLimit` of them).
        var hasKeySet = false

        init(isObject: Bool, keysStart: Int) {
            self.isObject = isObject
            self.keysStart = keysStart
            self.expectsKey = isObject
        }
    }

    private struct Scan {
        let base: UnsafePointer<UInt8>
        let count: Int
        let table = JSONDuplicateKeyScanner.byteTable
        /// The containers around the innermost one, outermost first; the first is the document.
        var enclosing: [Frame] = []
        /// The keys of every open object, innermost last: the first `keyCount` elements. Slots
        /// past them are reused rather than removed.
        var keys: [Key] = []
        var keyCount = 0
        /// The keys of large objects, by `Frame.keysStart`.
        var keySets: [Int: Set<String>] = [:]

        init(base: UnsafePointer<UInt8>, count: Int) {
            self.base = base
            self.count = count
        }

        /// The hot loop keeps the innermost container in a local: it runs on every JSON body the
        /// library parses.
        mutating func firstDuplicateKeyPath() -> String? {
            // The document itself acts as a one-element array around the top-level value.
            var innermost = Frame(isObject: false, keysStart: 0)
            var position = 0
            while position < count {
                switch table[Int(base[position])] & Outside.mask {
                case Outside.openObject:
                    enclosing.append(innermost)
                    innermost = Frame(isObject: true, keysStart: keyCount)
                case Outside.openArray:
                    enclosing.append(innermost)
                    innermost = Frame(isObject: false, keysStart: keyCount)
                case Outside.close:
                    guard let outer = enclosing.popLast() else { return nil }
                    if innermost.hasKeySet { keySets[innermost.keysStart] = nil }
                    keyCount = innermost.keysStart
                    innermost = outer
                case Outside.comma:
                    if innermost.isObject {
                        innermost.expectsKey = true
                    } else {
                        innermost.index += 1
                    }
                case Outside.quote:
                    guard let (end, isPlain) = endOfString(openingQuoteAt: position) else { return nil }
                    if innermost.expectsKey {
                        let key = Key(range: position + 1..<end, isPlain: isPlain)
                        if keyCount > innermost.keysStart, isRepeated(key, in: &innermost) {
                            enclosing.append(innermost)
                            return path(to: key)
                        }
                        if keyCount < keys.count {
                            keys[keyCount] = key
                        } else {
                            keys.append(key)
                        }
                        innermost.currentKey = keyCount
                        keyCount += 1
                        innermost.expectsKey = false
                    }
                    position = end
                default:
                    break  // whitespace, ':', numbers, true, false, null (`Outside` 0)
                }
                position += 1
            }
            return nil
        }

        /// The index of the quote that closes the string opened at `start`, and whether the
        /// string is plain ASCII without escapes. (Skipping eight bytes at a time was tried: on
        /// the short strings of typical bodies it cost more than it saved.)
        private func endOfString(openingQuoteAt start: Int) -> (end: Int, isPlain: Bool)? {
            var position = start + 1
            var isPlain = true
            while position < count {
                let byte = base[position]
                if table[Int(byte)] & JSONDuplicateKeyScanner.insideStringStop == 0 {
                    position += 1
                    continue
                }
                if byte == UInt8(ascii: "\"") { return (position, isPlain) }
                if byte == UInt8(ascii: "\\") {
                    isPlain = false
                    position += 2
                    continue
                }
                if byte >= 0x80 { isPlain = false }
                position += 1
            }
            return nil
        }

        /// Whether `object` already has `key`; remembers it in the object's set once the object
        /// is large.
        private mutating func isRepeated(_ key: Key, in object: inout Frame) -> Bool {
            let start = object.keysStart
            if !object.hasKeySet {
                guard keyCount - start >= pairwiseLimit else {
                    for index in start..<keyCount where equal(keys[index], key) { return true }
                    return false
                }
                keySets[start] = Set(keys[start..<keyCount].map(string))
                object.hasKeySet = true
            }
            return !keySets[start, default: []].insert(string(key)).inserted
        }

        private func equal(_ a: Key, _ b: Key) -> Bool {
            if a.isPlain, b.isPlain {
                return a.range.count == b.range.count
                    && memcmp(base + a.range.lowerBound, base + b.range.lowerBound, a.range.count) == 0
            }
            return string(a) == string(b)
        }

        /// The key as a Swift string, escapes resolved.
        private func string(_ key: Key) -> String {
            let inner = UnsafeBufferPointer(start: base + key.range.lowerBound, count: key.range.count)
            guard !key.isPlain, inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
            let quoted = Data(bytes: base + key.range.lowerBound - 1, count: key.range.count + 2)
            let fragment = try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])
            return fragment as? String ?? String(decoding: inner, as: UTF8.self)
        }

        /// A dotted path like `ParsingFailure/codingPath`'s, each key cut to 64 characters. The
        /// object holding `key` is the last of ``enclosing``.
        private func path(to key: Key) -> String {
            var text = ""
            for frame in enclosing.dropFirst().dropLast() {
                if !frame.isObject {
                    text += "[\(frame.index)]"
                } else if frame.currentKey >= 0 {
                    text += (text.isEmpty ? "" : ".") + shortened(string(keys[frame.currentKey]))
                }
            }
            return text + (text.isEmpty ? "" : ".") + shortened(string(key))
        }

        private func shortened(_ key: String) -> String {
            key.count <= 64 ? key : key.prefix(64) + "…"
        }
    }
}
