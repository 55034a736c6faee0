import Foundation

/// Checks a JSON text before a parser sees it: counts its values and containers against
/// ``JSONParsingOptions``, and finds an object that has the same key twice.
///
/// `JSONSerialization` keeps the last of two equal keys and `JSONDecoder` (on Linux) the first,
/// so the same body could mean two different things depending on how a resource reads it. The
/// JSON resource types refuse such bodies instead, with ``JSONParsingError/duplicateKey(path:offset:)``.
/// And both parsers build the whole document in memory, at a cost per value, so the resource
/// types refuse a body with more values or containers than their options allow, before parsing.
///
/// The scan runs before the parser, so it must bound what any parser could build from the text,
/// valid or not. It follows the JSON grammar (a value, then
/// a comma or closing brackets, then the next key or value), so each kind of byte is met at its
/// own branch and the branches are as predictable as the text is regular. It is iterative (no
/// recursion, however deep the text) and never traps. On anything it does not understand (a
/// broken text, or JSON5) it stops looking for duplicates and bounds the values that may follow
/// by counting the commas and opening brackets left, strings and comments included: a parser
/// cannot build more values than that. Keys are equal when they are equal as Swift strings, as both
/// parsers compare them — after unescaping, and up to canonical equivalence (`"K"` and
/// `"\u212A"`, KELVIN SIGN, are the same key). UTF-16 and UTF-32 texts, which both parsers also
/// accept, are scanned as UTF-8.
///
/// It runs on every JSON body, so the common case allocates little: open containers and key
/// ranges live on two stacks of plain values, plain ASCII keys are compared byte for byte, and
/// only keys with escapes or non-ASCII bytes are turned into strings. Objects with more than
/// ``pairwiseLimit`` keys are checked with a hash set, so no object makes the scan quadratic.
enum JSONDuplicateKeyScanner {
    /// Objects with at most this many keys are checked pair by pair; larger ones with a set.
    static let pairwiseLimit = 16

    /// What each byte means to the scan, looked up instead of compared case by case
    /// (``ByteClass``). Built once and never written again, so sharing it is safe; lives as long
    /// as the process.
    nonisolated(unsafe) private static let byteTable: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        for byte in [0x20, 0x09, 0x0A, 0x0D] { table[byte] = ByteClass.whitespace | ByteClass.endsScalar }
        for byte in ",}]".utf8 { table[Int(byte)] = ByteClass.endsScalar }
        for byte in #""\"#.utf8 { table[Int(byte)] = ByteClass.stopsString }
        for byte in 0x80...0xFF { table[byte] = ByteClass.stopsString }
        return UnsafePointer(table)
    }()

    /// Bits of ``byteTable``.
    private enum ByteClass {
        /// Space, tab, line feed, carriage return.
        static var whitespace: UInt8 { 0b001 }
        /// Whitespace, `,`, `}` and `]`: what ends a number, `true`, `false` or `null`.
        static var endsScalar: UInt8 { 0b010 }
        /// What a string scan stops at: a quote, a backslash or a non-ASCII byte.
        static var stopsString: UInt8 { 0b100 }
    }

    /// Throws if `data` holds more values or containers than `options` allow or, when
    /// `checksDuplicateKeys`, an object with the same key twice; whichever the scan meets first.
    static func check(_ data: Data, options: JSONParsingOptions, checksDuplicateKeys: Bool) throws(JSONParsingError) {
        let outcome = scan(data, options: options, checksDuplicateKeys: checksDuplicateKeys)
        switch outcome {
        case .end, .notUnderstood: return
        case .repeated(let path, let offset): throw .duplicateKey(path: path, offset: offset)
        case .tooManyValues: throw .tooManyValues(limit: options.maximumValueCount)
        case .tooManyContainers: throw .tooManyContainers(limit: options.maximumContainerCount)
        }
    }

    /// The path of the first repeated key, such as `cities[0].name`, or `nil` if there is none.
    static func firstDuplicateKeyPath(in data: Data) -> String? {
        let unlimited = JSONParsingOptions(maximumValueCount: .max, maximumContainerCount: .max)
        if case .repeated(let path, _) = scan(data, options: unlimited, checksDuplicateKeys: true) { return path }
        return nil
    }

    /// What a scan found.
    enum Outcome: Equatable {
        /// The text ended.
        case end
        /// The scan stopped understanding the text; the values and containers it could still
        /// hold are within the limits.
        case notUnderstood
        /// An object has a key twice.
        case repeated(path: String, offset: Int)
        /// There are more values than the limit.
        case tooManyValues
        /// There are more objects and arrays than the limit.
        case tooManyContainers
    }

    /// Scans `data`. Without `checksDuplicateKeys` (for JSON5, which the scan does not read), a
    /// repeated key is not reported: the whole text is then bounded as if not understood, which
    /// keeps the hot loop free of the choice.
    static func scan(_ data: Data, options: JSONParsingOptions, checksDuplicateKeys: Bool) -> Outcome {
        if let utf8 = utf8Transcoding(data) { return scan(utf8, options: options, checksDuplicateKeys: checksDuplicateKeys) }
        return data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return .end }
            var scan = Scan(base: base.assumingMemoryBound(to: UInt8.self), count: raw.count, options: options)
            defer { scan.deallocate() }
            let outcome = scan.run()
            if !checksDuplicateKeys, case .repeated = outcome { return scan.bound(from: 0, values: 0, containers: 0) }
            return outcome
        }
    }

    /// The text as UTF-8 if it is UTF-16 or UTF-32, told by a byte order mark or by where the
    /// zero bytes fall among its first four (a JSON text starts with an ASCII character);
    /// otherwise `nil`.
    private static func utf8Transcoding(_ data: Data) -> Data? {
        guard data.count >= 2 else { return nil }
        func byte(_ offset: Int) -> UInt8 { offset < data.count ? data[data.startIndex + offset] : 0xAA }
        // Nearly every body is UTF-8, which has no zero bytes and no FE or FF bytes at all.
        if byte(0) != 0, byte(1) != 0, byte(0) < 0xFE { return nil }
        let encoding: String.Encoding
        switch (byte(0), byte(1), byte(2), byte(3)) {
        case (0, 0, 0xFE, 0xFF), (0xFF, 0xFE, 0, 0): encoding = .utf32
        case (0xFE, 0xFF, _, _), (0xFF, 0xFE, _, _): encoding = .utf16
        case (0, 0, 0, _): encoding = .utf32BigEndian
        case (_, 0, 0, 0): encoding = .utf32LittleEndian
        case (0, _, _, _): encoding = .utf16BigEndian
        case (_, 0, _, _): encoding = .utf16LittleEndian
        default: return nil
        }
        guard let text = String(data: data, encoding: encoding) else { return nil }
        return Data(text.utf8)
    }

    /// A key: the bytes between its quotes.
    private struct Key {
        let range: Range<Int>
        /// ASCII without escapes: equal to another such key exactly when the bytes are equal.
        let isPlain: Bool
    }

    /// An open object or array.
    private struct Frame {
        let isObject: Bool
        /// Where this object's keys start on `Scan.keys`; unique among open objects, because an
        /// object inside another is the value of one of the outer object's keys.
        let keysStart: Int
        /// The index of the current element, for arrays.
        var index = 0
        /// The index on `Scan.keys` of the key whose value is being read, for objects.
        var currentKey = -1
        /// Whether `Scan.keySets[keysStart]` holds the object's keys (it has more than
        /// `pairwiseLimit` of them).
        var hasKeySet = false

        init(isObject: Bool, keysStart: Int) {
            self.isObject = isObject
            self.keysStart = keysStart
        }
    }

    /// What reading a key and its colon found.
    private enum KeyStep {
        /// The key's value starts at this position (after the colon).
        case value(at: Int)
        /// The object already has this key.
        case repeated(Key)
        /// The object has more keys than there may be values: the scan would otherwise keep
        /// them all.
        case tooManyValues
        /// Something other than a key and a colon.
        case notUnderstood
    }

    private struct Scan {
        let base: UnsafePointer<UInt8>
        let count: Int
        let table = JSONDuplicateKeyScanner.byteTable
        /// The containers around the innermost one, outermost first; the first is the document.
        var enclosing = Stack<Frame>()
        /// The keys of every open object, innermost last.
        var keys = Stack<Key>()
        /// The keys of large objects, by `Frame.keysStart`.
        var keySets: [Int: Set<String>] = [:]
        let maximumValueCount: Int
        let maximumContainerCount: Int

        init(base: UnsafePointer<UInt8>, count: Int, options: JSONParsingOptions) {
            self.base = base
            self.count = count
            self.maximumValueCount = options.maximumValueCount
            self.maximumContainerCount = options.maximumContainerCount
        }

        func deallocate() {
            enclosing.deallocate()
            keys.deallocate()
        }

        /// The hot loop keeps the innermost container and the counts in locals: it runs on every
        /// JSON body the library parses. Values are compared with their limit only where a
        /// container opens and at the end, not at every scalar: the scan itself keeps nothing per
        /// scalar, so reading past the limit to the next container costs it no memory.
        mutating func run() -> Outcome {
            // The document itself acts as a one-element array around the top-level value.
            var innermost = Frame(isObject: false, keysStart: 0)
            var position = 0
            var values = 0
            var containers = 0
            // A UTF-8 byte order mark, which both parsers skip.
            if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { position = 3 }
            while true {
                // A value starts here.
                position = skippingWhitespace(from: position)
                guard position < count else { return values > maximumValueCount ? .tooManyValues : .end }
                values += 1
                switch base[position] {
                case UInt8(ascii: "\""):
                    // An unclosed string runs to the end of the text: no value follows it.
                    guard let (end, _) = endOfString(openingQuoteAt: position) else {
                        return values > maximumValueCount ? .tooManyValues : .end
                    }
                    position = end + 1
                case UInt8(ascii: "{"):
                    containers += 1
                    if containers > maximumContainerCount { return .tooManyContainers }
                    if values > maximumValueCount { return .tooManyValues }
                    enclosing.append(innermost)
                    innermost = Frame(isObject: true, keysStart: keys.count)
                    position = skippingWhitespace(from: position + 1)
                    if position < count, base[position] != UInt8(ascii: "}") {
                        switch readKey(at: position, in: &innermost) {
                        case .value(let start):
                            position = start
                            continue
                        case .repeated(let key):
                            enclosing.append(innermost)
                            return .repeated(path: path(to: key), offset: key.range.lowerBound - 1)
                        case .notUnderstood:
                            return bound(from: position, values: values, containers: containers)
                        case .tooManyValues:
                            return .tooManyValues
                        }
                    }
                case UInt8(ascii: "["):
                    containers += 1
                    if containers > maximumContainerCount { return .tooManyContainers }
                    if values > maximumValueCount { return .tooManyValues }
                    enclosing.append(innermost)
                    innermost = Frame(isObject: false, keysStart: keys.count)
                    position = skippingWhitespace(from: position + 1)
                    if position < count, base[position] != UInt8(ascii: "]") { continue }
                default:
                    // A number, `true`, `false` or `null`.
                    while position < count, table[Int(base[position])] & ByteClass.endsScalar == 0 { position += 1 }
                }
                // After a value: any closing brackets, then a comma and the next value, or the end.
                closing: while true {
                    position = skippingWhitespace(from: position)
                    guard position < count else { return values > maximumValueCount ? .tooManyValues : .end }
                    let byte = base[position]
                    if byte == UInt8(ascii: ",") {
                        guard innermost.isObject else {
                            innermost.index += 1
                            position += 1
                            break closing
                        }
                        switch readKey(at: position + 1, in: &innermost) {
                        case .value(let start):
                            position = start
                            break closing
                        case .repeated(let key):
                            enclosing.append(innermost)
                            return .repeated(path: path(to: key), offset: key.range.lowerBound - 1)
                        case .notUnderstood:
                            return bound(from: position, values: values, containers: containers)
                        case .tooManyValues:
                            return .tooManyValues
                        }
                    }
                    guard byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]"), let outer = enclosing.popLast() else {
                        return bound(from: position, values: values, containers: containers)
                    }
                    if innermost.hasKeySet { keySets[innermost.keysStart] = nil }
                    keys.removeLast(keys.count - innermost.keysStart)
                    innermost = outer
                    position += 1
                }
            }
        }

        /// The outcome when the scan stops understanding the text at `start`, having counted
        /// `values` and `containers` before it. Whatever a parser still reads from there, each
        /// further value is the one at `start`, or follows a comma, or is the first in an object or
        /// array whose opening bracket is also there; so commas and opening brackets, counted
        /// wherever they stand, bound the rest.
        func bound(from start: Int, values: Int, containers: Int) -> Outcome {
            var values = values + 1
            var containers = containers
            for position in start..<count {
                switch base[position] {
                case UInt8(ascii: ","): values += 1
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    containers += 1
                    values += 2
                default: continue
                }
            }
            if values > maximumValueCount { return .tooManyValues }
            if containers > maximumContainerCount { return .tooManyContainers }
            return .notUnderstood
        }

        @inline(__always)
        private func skippingWhitespace(from start: Int) -> Int {
            var position = start
            // Every whitespace byte is at most 0x20: most bytes are ruled out by one comparison.
            while position < count, base[position] <= 0x20, table[Int(base[position])] & ByteClass.whitespace != 0 {
                position += 1
            }
            return position
        }

        /// Reads the key at `start` (after any whitespace) and the colon after it, and checks the
        /// key against the object's others.
        @inline(__always)
        private mutating func readKey(at start: Int, in object: inout Frame) -> KeyStep {
            let position = skippingWhitespace(from: start)
            guard position < count, base[position] == UInt8(ascii: "\""),
                let (end, isPlain) = endOfString(openingQuoteAt: position)
            else { return .notUnderstood }
            let key = Key(range: position + 1..<end, isPlain: isPlain)
            if keys.count > object.keysStart {
                switch check(key, in: &object) {
                case .new: break
                case .repeated: return .repeated(key)
                case .tooMany: return .tooManyValues
                }
            }
            object.currentKey = keys.count
            keys.append(key)
            let colon = skippingWhitespace(from: end + 1)
            guard colon < count, base[colon] == UInt8(ascii: ":") else { return .notUnderstood }
            return .value(at: colon + 1)
        }

        /// The index of the quote that closes the string opened at `start`, and whether the
        /// string is plain ASCII without escapes. One byte per step: skipping eight or four bytes
        /// per step, or finding quotes 64 bytes at a time with SIMD, costs more than it saves on
        /// the short strings of typical bodies.
        @inline(__always)
        private func endOfString(openingQuoteAt start: Int) -> (end: Int, isPlain: Bool)? {
            var position = start + 1
            var isPlain = true
            while position < count {
                let byte = base[position]
                if table[Int(byte)] & ByteClass.stopsString == 0 {
                    position += 1
                    continue
                }
                if byte == UInt8(ascii: "\"") { return (position, isPlain) }
                if byte == UInt8(ascii: "\\") {
                    isPlain = false
                    position += 2
                    continue
                }
                isPlain = false  // non-ASCII
                position += 1
            }
            return nil
        }

        /// What checking a key against its object's others found.
        private enum KeyCheck {
            case new
            case repeated
            /// The open objects hold more keys than the body may hold values. Values are counted
            /// against their limit only where containers open, but a large object's keys are
            /// kept (on the stack and in its set) as the scan reads them: this keeps that
            /// memory within the limit too.
            case tooMany
        }

        /// Whether `object` already has `key`; remembers it in the object's set once the object
        /// is large.
        private mutating func check(_ key: Key, in object: inout Frame) -> KeyCheck {
            let start = object.keysStart
            if !object.hasKeySet {
                guard keys.count - start >= pairwiseLimit else {
                    for index in start..<keys.count where equal(keys[index], key) { return .repeated }
                    return .new
                }
                keySets[start] = Set((start..<keys.count).map { string(keys[$0]) })
                object.hasKeySet = true
            }
            if keys.count >= maximumValueCount { return .tooMany }
            return keySets[start, default: []].insert(string(key)).inserted ? .new : .repeated
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
            for index in 1..<max(1, enclosing.count - 1) {
                let frame = enclosing[index]
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

    /// A stack of plain values in memory of its own, freed by ``deallocate()``. Pushing and popping
    /// cost no reference counting or uniqueness checks: with arrays the scan took half as long
    /// again.
    private struct Stack<Element> {
        private var elements: UnsafeMutablePointer<Element>
        private var capacity = 16
        private(set) var count = 0

        init() {
            elements = .allocate(capacity: capacity)
        }

        func deallocate() {
            elements.deallocate()
        }

        subscript(index: Int) -> Element {
            assert(index >= 0 && index < count)
            return elements[index]
        }

        @inline(__always)
        mutating func append(_ element: Element) {
            if count == capacity {
                let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
                larger.moveInitialize(from: elements, count: count)
                elements.deallocate()
                elements = larger
                capacity *= 2
            }
            (elements + count).initialize(to: element)
            count += 1
        }

        @inline(__always)
        mutating func popLast() -> Element? {
            guard count > 0 else { return nil }
            count -= 1
            return elements[count]
        }

        mutating func removeLast(_ k: Int) {
            assert(k >= 0 && k <= count)
            count -= k
        }
    }
}
