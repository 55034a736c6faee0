import Foundation

/// ResourceLoader's JSON parser: RFC 8259, strictly, in one pass over UTF-8 bytes that checks
/// the grammar, the strings' UTF-8 and escapes, repeated keys and the ``JSONParsingOptions``
/// limits, and builds a ``JSONTree``.
///
/// It is iterative (no recursion, however deep the text), never traps on any input, and stops at
/// the first error with a ``JSONParsingError`` that says where; no tree is returned then. Every
/// loop advances through the bytes, so parsing takes time linear in the body's length, except
/// that the keys of an object are compared with each other: pair by pair up to
/// ``pairwiseLimit`` keys, then through a hash set, so no object makes it quadratic.
enum JSONParser {
    /// Objects with at most this many keys are checked for a repeated key pair by pair; larger
    /// ones with a set.
    static let pairwiseLimit = 16

    /// Parses `data` into a tree.
    ///
    /// RFC 8259 only says that an object's keys *should* be unique; the resource types refuse a
    /// repeated key (``JSONParsingError/duplicateKey(path:offset:)``), and so does this unless
    /// `refusingDuplicateKeys` is `false` (for the conformance tests, which then take the grammar
    /// alone).
    static func parse(
        _ data: Data, options: JSONParsingOptions, refusingDuplicateKeys: Bool = true
    ) throws(JSONParsingError) -> JSONTree {
        let count = data.count
        let byteLimit = min(options.maximumByteCount, JSONParsingOptions.defaultMaximumByteCount)
        guard count <= byteLimit else { throw .tooLarge(limit: byteLimit) }
        // The copy has four zero bytes after the text: a zero ends every run of digits, letters
        // or string bytes the parser reads, so its inner loops look ahead without checking the
        // end first.
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: count + 4)
        data.copyBytes(to: bytes, count: count)
        (bytes + count).initialize(repeating: 0, count: 4)
        var parser = Parser(bytes: bytes, count: count, options: options, refusingDuplicateKeys: refusingDuplicateKeys)
        do {
            try parser.run()
        } catch {
            parser.deallocate(keepingNodes: false)
            bytes.deallocate()
            throw error
        }
        parser.deallocate(keepingNodes: true)
        return JSONTree(bytes: bytes, byteCount: count, nodes: parser.nodes, nodeCount: parser.nodeCount)
    }

    /// The value of a hexadecimal digit, or 0xFF.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: 0xFF
        }
    }

    /// Which bytes end a run of plain string bytes: `"`, `\`, control characters and every
    /// non-ASCII byte. Built once and never written again, so sharing it is safe; lives as long
    /// as the process.
    nonisolated(unsafe) fileprivate static let stopsString: UnsafePointer<Bool> = {
        let table = UnsafeMutablePointer<Bool>.allocate(capacity: 256)
        for byte in 0..<256 {
            table[byte] = byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C
        }
        return UnsafePointer(table)
    }()

    /// An open object or array.
    fileprivate struct Frame {
        /// The container's node.
        var node: Int
        /// Whether it is an object.
        var isObject: Bool
        /// Whether its keys are in ``Parser/keySets`` (an object with many keys).
        var hasKeySet = false
        /// The values (members of an object) read so far, the one being read included.
        var count = 0
        /// Where its keys start in ``Parser/keys``.
        var keysStart: Int
    }

    /// The encoding of a text in UTF-16 or UTF-32, told by its first four bytes (`0xAA` for
    /// those past its end): a byte order mark, or the zero bytes around an ASCII first
    /// character, which UTF-8 never has. Its name, and the `String.Encoding` that reads it (the
    /// byte order mark included); `nil` for any other text.
    static func wideEncoding(
        _ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8
    ) -> (name: String, encoding: String.Encoding)? {
        switch (b0, b1, b2, b3) {
        case (0, 0, 0xFE, 0xFF): ("UTF-32BE", .utf32)
        case (0xFF, 0xFE, 0, 0): ("UTF-32LE", .utf32)
        case (0xFE, 0xFF, _, _): ("UTF-16BE", .utf16)
        case (0xFF, 0xFE, _, _): ("UTF-16LE", .utf16)
        case (0, 0, 0, _) where b3 != 0: ("UTF-32BE", .utf32BigEndian)
        case (_, 0, 0, 0) where b0 != 0: ("UTF-32LE", .utf32LittleEndian)
        case (0, _, _, _) where b1 != 0: ("UTF-16BE", .utf16BigEndian)
        case (_, 0, _, _) where b0 != 0: ("UTF-16LE", .utf16LittleEndian)
        default: nil
        }
    }

    fileprivate struct Parser {
        let bytes: UnsafeMutablePointer<UInt8>
        let count: Int
        let maximumValueCount: Int
        let maximumContainerCount: Int
        let maximumDepth: Int
        let refusingDuplicateKeys: Bool
        let stopsString = JSONParser.stopsString

        private(set) var nodes: UnsafeMutablePointer<JSONTree.Node>
        private(set) var nodeCount = 0
        private var nodeCapacity: Int
        /// The containers around the innermost open one, outermost first.
        private var frames = Stack<Frame>()
        /// The key nodes of every open object, innermost last.
        private var keys = Stack<Int>()
        /// The keys of large objects, by ``Frame/keysStart``.
        private var keySets: [Int: Set<String>] = [:]

        init(bytes: UnsafeMutablePointer<UInt8>, count: Int, options: JSONParsingOptions, refusingDuplicateKeys: Bool) {
            self.bytes = bytes
            self.refusingDuplicateKeys = refusingDuplicateKeys
            self.count = count
            maximumValueCount = options.maximumValueCount
            maximumContainerCount = options.maximumContainerCount
            maximumDepth = options.maximumDepth
            // A value takes at least two bytes in most texts (a digit and a comma); `[0,0,…]`
            // is the densest. Start at a quarter of that and grow by doubling.
            nodeCapacity = min(count / 8, 1 << 20) + 16
            guard let block = malloc(nodeCapacity * MemoryLayout<JSONTree.Node>.stride) else {
                preconditionFailure("JSONParser: out of memory")
            }
            nodes = block.bindMemory(to: JSONTree.Node.self, capacity: nodeCapacity)
        }

        /// Frees the parser's working memory, and its nodes unless a tree keeps them.
        func deallocate(keepingNodes: Bool) {
            if !keepingNodes { free(nodes) }
            frames.deallocate()
            keys.deallocate()
        }

        @inline(__always)
        private mutating func append(_ node: JSONTree.Node) {
            if nodeCount == nodeCapacity { grow() }
            (nodes + nodeCount).initialize(to: node)
            nodeCount &+= 1
        }

        private mutating func grow() {
            let newCapacity = nodeCapacity * 2
            let (size, overflow) = newCapacity.multipliedReportingOverflow(by: MemoryLayout<JSONTree.Node>.stride)
            guard !overflow, let block = realloc(nodes, size) else {
                // As when an array cannot grow: there is no memory left to report anything with.
                preconditionFailure("JSONParser: out of memory for \(newCapacity) nodes")
            }
            nodes = block.bindMemory(to: JSONTree.Node.self, capacity: newCapacity)
            nodeCapacity = newCapacity
        }

        // MARK: The grammar

        /// Parses the whole text. The innermost open container lives in a local, the others in
        /// ``frames``; `depth` counts them all.
        mutating func run() throws(JSONParsingError) {
            var position = try start()
            var top = Frame(node: 0, isObject: false, keysStart: 0)
            var depth = 0
            var values = 0
            var containers = 0
            values: while true {
                // A value starts here.
                position = skippingWhitespace(from: position)
                guard position < count else { throw .unexpectedEnd(offset: count) }
                values &+= 1
                if values > maximumValueCount { throw .tooManyValues(limit: maximumValueCount) }
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    let (end, plain) = try strings.string(openingQuoteAt: position)
                    append(JSONTree.Node(
                        kind: .string, flags: plain ? JSONTree.Node.Flags.plain : 0,
                        length: UInt32(truncatingIfNeeded: end - position - 1),
                        start: UInt32(truncatingIfNeeded: position + 1),
                        end: UInt32(truncatingIfNeeded: nodeCount + 1)))
                    position = end + 1
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    containers &+= 1
                    if containers > maximumContainerCount { throw .tooManyContainers(limit: maximumContainerCount) }
                    if depth >= maximumDepth { throw .tooDeep(limit: maximumDepth) }
                    let isObject = byte == UInt8(ascii: "{")
                    if depth > 0 { frames.append(top) }
                    depth &+= 1
                    top = Frame(node: nodeCount, isObject: isObject, keysStart: keys.count)
                    append(JSONTree.Node(
                        kind: isObject ? .object : .array, flags: 0, length: 0,
                        start: UInt32(truncatingIfNeeded: position), end: 0))
                    position = skippingWhitespace(from: position + 1)
                    guard position < count else { throw .unexpectedEnd(offset: count) }
                    if bytes[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        // Empty: closed below, as after a value.
                    } else {
                        top.count = 1
                        if isObject { position = try key(at: position, in: &top, depth: depth) }
                        continue values
                    }
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let (end, integer) = try number(at: position)
                    append(JSONTree.Node(
                        kind: .number, flags: integer ? JSONTree.Node.Flags.integer : 0,
                        length: UInt32(truncatingIfNeeded: end - position),
                        start: UInt32(truncatingIfNeeded: position),
                        end: UInt32(truncatingIfNeeded: nodeCount + 1)))
                    position = end
                case UInt8(ascii: "t"):
                    position = try literal("true", at: position)
                    append(scalar(.true, at: position - 4))
                case UInt8(ascii: "f"):
                    position = try literal("false", at: position)
                    append(scalar(.false, at: position - 5))
                case UInt8(ascii: "n"):
                    position = try literal("null", at: position)
                    append(scalar(.null, at: position - 4))
                default:
                    throw .unexpectedCharacter(offset: position)
                }
                // After a value (or at an empty container's closing bracket): closing brackets,
                // then a comma and the next value, or the end.
                while true {
                    position = skippingWhitespace(from: position)
                    guard depth > 0 else {
                        guard position == count else { throw .unexpectedCharacter(offset: position) }
                        return
                    }
                    guard position < count else { throw .unexpectedEnd(offset: count) }
                    let byte = bytes[position]
                    if byte == UInt8(ascii: ",") {
                        top.count &+= 1
                        position += 1
                        if top.isObject { position = try key(at: position, in: &top, depth: depth) }
                        continue values
                    }
                    guard byte == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                        throw .unexpectedCharacter(offset: position)
                    }
                    nodes[top.node].length = UInt32(truncatingIfNeeded: top.count)
                    nodes[top.node].end = UInt32(truncatingIfNeeded: nodeCount)
                    if top.isObject {
                        if top.hasKeySet { keySets[top.keysStart] = nil }
                        keys.removeLast(keys.count - top.keysStart)
                    }
                    depth &-= 1
                    if depth > 0 { top = frames.removeLast() }
                    position += 1
                }
            }
        }

        /// Where the value starts: after a UTF-8 byte order mark, if there is one. Throws for a
        /// UTF-16 or UTF-32 text.
        private func start() throws(JSONParsingError) -> Int {
            if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { return 3 }
            guard count >= 2 else { return 0 }
            // A JSON text starts with an ASCII character, and UTF-8 has no zero byte before it,
            // nor FE or FF bytes at all. Past the end, the bytes read are zeros.
            let (b0, b1, b2, b3) = (bytes[0], bytes[1], count > 2 ? bytes[2] : 0xAA, count > 3 ? bytes[3] : 0xAA)
            if let wide = JSONParser.wideEncoding(b0, b1, b2, b3) { throw .unsupportedEncoding(wide.name) }
            return 0
        }

        @inline(__always)
        private func scalar(_ kind: JSONTree.Kind, at position: Int) -> JSONTree.Node {
            JSONTree.Node(
                kind: kind, flags: 0, length: 0, start: UInt32(truncatingIfNeeded: position),
                end: UInt32(truncatingIfNeeded: nodeCount + 1))
        }

        @inline(__always)
        private func skippingWhitespace(from start: Int) -> Int {
            var position = start
            while true {
                // Past the end, the zero bytes stop the loop.
                let byte = bytes[position]
                guard byte <= 0x20,
                    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
                else { return position }
                position &+= 1
            }
        }

        /// Reads `true`, `false` or `null` at `start`; returns the position after it.
        @inline(__always)
        private func literal(_ word: StaticString, at start: Int) throws(JSONParsingError) -> Int {
            let length = word.utf8CodeUnitCount
            for index in 0..<length where bytes[start + index] != word.utf8Start[index] {
                // Past the end, the zero bytes differ from every letter.
                if start + index >= count { throw .unexpectedEnd(offset: count) }
                throw .unexpectedCharacter(offset: start + index)
            }
            return start + length
        }

        /// Reads a number at `start`; returns the position after it and whether it is written as
        /// an integer.
        @inline(__always)
        private func number(at start: Int) throws(JSONParsingError) -> (end: Int, integer: Bool) {
            var position = start
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            let first = bytes[position]
            if first == UInt8(ascii: "0") {
                position += 1
                // A leading zero.
                if isDigit(bytes[position]) { throw .invalidNumber(offset: start) }
            } else if isDigit(first) {
                position += 1
                while isDigit(bytes[position]) { position += 1 }
            } else {
                throw .invalidNumber(offset: start)
            }
            var integer = true
            if bytes[position] == UInt8(ascii: ".") {
                integer = false
                position += 1
                guard isDigit(bytes[position]) else { throw .invalidNumber(offset: start) }
                while isDigit(bytes[position]) { position += 1 }
            }
            if bytes[position] | 0x20 == UInt8(ascii: "e") {
                integer = false
                position += 1
                if bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard isDigit(bytes[position]) else { throw .invalidNumber(offset: start) }
                while isDigit(bytes[position]) { position += 1 }
            }
            return (position, integer)
        }

        @inline(__always)
        private func isDigit(_ byte: UInt8) -> Bool {
            byte &- UInt8(ascii: "0") < 10
        }

        /// Reads a string's bytes: a value of three words, so that the scan is handed them in
        /// registers rather than a copy of the parser.
        private struct StringScanner {
            let bytes: UnsafeMutablePointer<UInt8>
            let count: Int
            let stopsString: UnsafePointer<Bool>

            /// Reads the string whose opening quote is at `start`; returns the position of its
            /// closing quote and whether it is plain ASCII without escapes.
            @inline(__always)
            func string(openingQuoteAt start: Int) throws(JSONParsingError) -> (end: Int, plain: Bool) {
                var position = start + 1
                var plain = true
                while true {
                    // Eight plain bytes at a time while there are eight left.
                    while position + 8 <= count {
                        let word = UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self)
                        let ones: UInt64 = 0x0101_0101_0101_0101
                        let highs: UInt64 = 0x8080_8080_8080_8080
                        // Whether any byte is below 0x20, a quote, a backslash or non-ASCII: a
                        // zero byte `z` of `y` shows in `(y - ones) & ~y & highs`, a byte below
                        // 0x20 in `(x - 0x20…) & ~x & highs`. Neither misses one; a false alarm
                        // only sends the bytes to the loop below.
                        let quotes = word ^ (ones &* 0x22)
                        let backslashes = word ^ (ones &* 0x5C)
                        let controls = (word &- ones &* 0x20) & ~word
                        let stops = controls | ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | word
                        if stops & highs != 0 { break }
                        position &+= 8
                    }
                    // Past the end, the zero bytes stop the loop.
                    while !stopsString[Int(bytes[position])] { position &+= 1 }
                    let byte = bytes[position]
                    if byte == UInt8(ascii: "\"") { return (position, plain) }
                    guard position < count else { throw .unexpectedEnd(offset: count) }
                    if byte == UInt8(ascii: "\\") {
                        plain = false
                        position = try escape(at: position)
                    } else if byte < 0x20 {
                        throw .unescapedControlCharacter(offset: position)
                    } else {
                        plain = false
                        position = try utf8Sequence(at: position)
                    }
                }
            }

            /// Checks the escape whose backslash is at `start`; returns the position after it.
            private func escape(at start: Int) throws(JSONParsingError) -> Int {
                guard start + 1 < count else { throw .unexpectedEnd(offset: count) }
                switch bytes[start + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    return start + 2
                case UInt8(ascii: "u"):
                    let unit = try hexQuad(at: start + 2, escapeAt: start)
                    switch unit {
                    case 0xD800..<0xDC00:
                        // A high surrogate: a low one's escape must follow.
                        let next = start + 6
                        guard next + 1 < count, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                            throw .loneSurrogate(offset: start)
                        }
                        let low = try hexQuad(at: next + 2, escapeAt: next)
                        guard low >= 0xDC00, low < 0xE000 else { throw .loneSurrogate(offset: start) }
                        return next + 6
                    case 0xDC00..<0xE000:
                        throw .loneSurrogate(offset: start)
                    default:
                        return start + 6
                    }
                default:
                    throw .invalidEscape(offset: start)
                }
            }

            /// The four hexadecimal digits at `start`, of the escape at `escape`.
            @inline(__always)
            private func hexQuad(at start: Int, escapeAt escape: Int) throws(JSONParsingError) -> UInt16 {
                guard start + 4 <= count else { throw .unexpectedEnd(offset: count) }
                var value: UInt16 = 0
                for offset in 0..<4 {
                    let digit = JSONParser.hexDigit(bytes[start + offset])
                    guard digit != 0xFF else { throw .invalidEscape(offset: escape) }
                    value = value << 4 | UInt16(digit)
                }
                return value
            }

            /// Checks the UTF-8 sequence that starts with the non-ASCII byte at `start`
            /// (Unicode's table 3-7 of well-formed sequences); returns the position after it.
            /// Past the end, the zero bytes are not continuation bytes.
            @inline(__always)
            private func utf8Sequence(at start: Int) throws(JSONParsingError) -> Int {
                let lead = bytes[start]
                let second = bytes[start + 1]
                @inline(__always) func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }
                switch lead {
                case 0xC2...0xDF:
                    if isContinuation(second) { return start + 2 }
                case 0xE0...0xEF:
                    let secondOK = switch lead {
                    case 0xE0: second >= 0xA0 && second <= 0xBF
                    case 0xED: second >= 0x80 && second <= 0x9F
                    default: isContinuation(second)
                    }
                    if secondOK, isContinuation(bytes[start + 2]) { return start + 3 }
                case 0xF0...0xF4:
                    let secondOK = switch lead {
                    case 0xF0: second >= 0x90 && second <= 0xBF
                    case 0xF4: second >= 0x80 && second <= 0x8F
                    default: isContinuation(second)
                    }
                    if secondOK, isContinuation(bytes[start + 2]), isContinuation(bytes[start + 3]) { return start + 4 }
                default:
                    break
                }
                throw .invalidUTF8(offset: start)
            }
        }

        /// The scanner of this text's strings.
        @inline(__always)
        private var strings: StringScanner { StringScanner(bytes: bytes, count: count, stopsString: stopsString) }

        // MARK: Keys

        /// Reads the key at `start` (after any white space), checks it against its object's
        /// others, and reads the colon after it; returns the position after the colon.
        private mutating func key(at start: Int, in object: inout Frame, depth: Int) throws(JSONParsingError) -> Int {
            let position = skippingWhitespace(from: start)
            guard position < count else { throw .unexpectedEnd(offset: count) }
            guard bytes[position] == UInt8(ascii: "\"") else { throw .unexpectedCharacter(offset: position) }
            let (end, plain) = try strings.string(openingQuoteAt: position)
            let node = nodeCount
            append(JSONTree.Node(
                kind: .string, flags: plain ? JSONTree.Node.Flags.plain : 0,
                length: UInt32(truncatingIfNeeded: end - position - 1),
                start: UInt32(truncatingIfNeeded: position + 1),
                end: UInt32(truncatingIfNeeded: nodeCount + 1)))
            if refusingDuplicateKeys, keys.count > object.keysStart, isRepeated(node, in: &object) {
                throw .duplicateKey(path: path(to: node, in: object), offset: position)
            }
            keys.append(node)
            let colon = skippingWhitespace(from: end + 1)
            guard colon < count else { throw .unexpectedEnd(offset: count) }
            guard bytes[colon] == UInt8(ascii: ":") else { throw .unexpectedCharacter(offset: colon) }
            return colon + 1
        }

        /// Whether `object` already has the key `node`; remembers the key in the object's set
        /// once the object is large.
        private mutating func isRepeated(_ node: Int, in object: inout Frame) -> Bool {
            let start = object.keysStart
            if !object.hasKeySet {
                guard keys.count - start >= JSONParser.pairwiseLimit else {
                    let key = nodes[node]
                    for index in start..<keys.count where equal(nodes[keys[index]], key) { return true }
                    return false
                }
                keySets[start] = Set((start..<keys.count).map { string(nodes[keys[$0]]) })
                object.hasKeySet = true
            }
            return !keySets[start, default: []].insert(string(nodes[node])).inserted
        }

        @inline(__always)
        private func equal(_ a: JSONTree.Node, _ b: JSONTree.Node) -> Bool {
            if a.isPlain, b.isPlain {
                return a.length == b.length
                    && (a.length == 0 || memcmp(bytes + Int(a.start), bytes + Int(b.start), Int(a.length)) == 0)
            }
            return string(a) == string(b)
        }

        private func string(_ node: JSONTree.Node) -> String {
            let buffer = UnsafeBufferPointer(start: bytes + Int(node.start), count: Int(node.length))
            return node.isPlain ? String(decoding: buffer, as: UTF8.self) : JSONTree.unescaped(buffer)
        }

        /// A dotted path like ``ResourceError/ParsingFailure/codingPath``'s to the key `node` of
        /// the innermost object, each key cut to 64 characters.
        private func path(to node: Int, in innermost: Frame) -> String {
            var text = ""
            let open = (0..<frames.count).map { frames[$0] } + [innermost]
            for (index, frame) in open.enumerated().dropLast() {
                if !frame.isObject {
                    text += "[\(frame.count - 1)]"
                } else {
                    let currentKey = keys[open[index + 1].keysStart - 1]
                    text += (text.isEmpty ? "" : ".") + shortened(string(nodes[currentKey]))
                }
            }
            return text + (text.isEmpty ? "" : ".") + shortened(string(nodes[node]))
        }

        private func shortened(_ key: String) -> String {
            key.count <= 64 ? key : key.prefix(64) + "…"
        }
    }

    /// A stack of plain values in memory of its own, freed by ``deallocate()``: pushing and
    /// popping cost no reference counting or uniqueness checks, as an array's would.
    fileprivate struct Stack<Element> {
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
            precondition(index >= 0 && index < count, "JSONParser.Stack: index out of range")
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
        mutating func removeLast() -> Element {
            precondition(count > 0, "JSONParser.Stack: empty")
            count -= 1
            return (elements + count).move()
        }

        @inline(__always)
        mutating func removeLast(_ k: Int) {
            precondition(k >= 0 && k <= count, "JSONParser.Stack: removing too many")
            (elements + count - k).deinitialize(count: k)
            count -= k
        }
    }
}
