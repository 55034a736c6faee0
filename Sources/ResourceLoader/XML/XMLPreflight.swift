import Foundation

/// Checks a document's bytes before they reach `XMLParser`.
///
/// `XMLParser` (libxml2) must never see some inputs: invalid UTF-8 in a name crashes the process
/// on Linux, a DTD opens the door to external entities and entity expansion, and references to
/// undeclared entities drop text without always reporting an error. One pass over the bytes
/// refuses all of these with a typed error:
///
/// - the document must be UTF-8 (with or without a byte order mark), and its XML declaration, if
///   any, must be complete, strictly well-formed (``XMLDeclaration``) and name no encoding but
///   UTF-8; ``XMLTranscoder`` has already turned the other encodings the parser accepts (US-ASCII,
///   ISO-8859-1, UTF-16) into such a document, and refused the rest;
/// - `<?xml` anywhere but at the very start (after the byte order mark) is malformed, so no later
///   declaration can name an encoding;
/// - every character must be valid UTF-8 and allowed by XML 1.0;
/// - `<!DOCTYPE`, in any case, outside comments, CDATA sections and processing instructions is
///   refused (XML only knows the uppercase keyword, so `<!doctype` is malformed anyway; it is
///   reported as the DTD it means);
/// - every `&` outside those must start one of the five predefined entity references or a
///   character reference to a character XML 1.0 allows.
///
/// It also finds what must be changed before `XMLParser` sees an accepted document: a processing
/// instruction without data (`<?target?>`) crashes FoundationXML on Linux (libxml2 hands it a
/// null data pointer, which it reads), so ``parserInput(_:report:)`` adds a space before its `?>`,
/// which means the same thing.
///
/// Nothing here is recursive and no memory is allocated per byte.
enum XMLPreflight {
    /// What the check learnt about a document it accepted.
    struct Report {
        /// How many leading bytes (a UTF-8 byte order mark) to skip.
        var byteOrderMarkLength: Int
        /// How many element start tags begin (outside comments, CDATA and processing
        /// instructions): tells a truncated document from one with no root, and lets the builder
        /// size its node storage once.
        var startTagCount: Int

        /// The offsets of the `?>` of every processing instruction that has a target and no
        /// data, in document order.
        var instructionsWithoutData: [Int] = []

        /// Whether an element's start tag begins somewhere.
        var hasStartTag: Bool { startTagCount > 0 }
    }

    /// The bytes to hand to `XMLParser`: `data` without its byte order mark, and with a space
    /// before the `?>` of each processing instruction that has no data.
    ///
    /// The added spaces shift the columns libxml2 reports later on the same line by one each.
    static func parserInput(_ data: Data, report: Report) -> Data {
        let start = data.startIndex + report.byteOrderMarkLength
        guard !report.instructionsWithoutData.isEmpty else {
            return report.byteOrderMarkLength == 0 ? data : Data(data[start...])
        }
        var result = Data(capacity: data.count - report.byteOrderMarkLength + report.instructionsWithoutData.count)
        var copied = start
        for offset in report.instructionsWithoutData {
            let end = data.startIndex + offset
            result.append(data[copied..<end])
            result.append(UInt8(ascii: " "))
            copied = end
        }
        result.append(data[copied...])
        return result
    }

    /// Checks `data`, throwing the first problem found.
    static func check(_ data: Data, options: XMLParsingOptions) throws(XMLParsingError) -> Report {
        guard data.count <= options.maximumDocumentSize else {
            throw .tooLarge(limit: options.maximumDocumentSize)
        }
        let result: Result<Report, XMLParsingError> = data.withUnsafeBytes { buffer in
            var scanner = Scanner(bytes: buffer)
            do throws(XMLParsingError) {
                return .success(try scanner.scan())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

private struct Scanner {
    private enum State: Int {
        case content, comment, cdata, processingInstruction
    }

    /// For each state (256 entries each, in `State` order), the bytes that need no action in it:
    /// printable ASCII and space, tab and CR, except the state's own markup characters (`<` and
    /// `&` in content, `-` in comments, `]` in CDATA sections, `?` in processing instructions).
    /// Line feeds, other control characters and non-ASCII bytes always need action.
    private static let quiet: [Bool] = {
        var table = [Bool](repeating: false, count: 4 * 256)
        let specials: [UInt8] = [UInt8(ascii: "<"), UInt8(ascii: "-"), UInt8(ascii: "]"), UInt8(ascii: "?")]
        for state in 0..<4 {
            for byte in 0x20...0x7E where byte != Int(specials[state]) {
                table[state * 256 + byte] = true
            }
            table[state * 256 + 0x09] = true
            table[state * 256 + 0x0D] = true
        }
        table[Int(UInt8(ascii: "&"))] = false
        return table
    }()

    let bytes: UnsafeRawBufferPointer
    private var line = 1
    private var lineStart = 0
    private var instructionsWithoutData: [Int] = []
    /// The offset of the XML declaration's `<?xml`, when the document starts with one.
    private var declarationStart = -1

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func scan() throws(XMLParsingError) -> XMLPreflight.Report {
        let start = try checkEncoding()
        var state = State.content
        var startTagCount = 0
        var index = start
        let count = bytes.count
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .empty }
        // The table is read through a pointer: no bounds check or lazy-global check per byte.
        let result: Result<Void, XMLParsingError> = Self.quiet.withUnsafeBufferPointer { quiet in
            let quiet = quiet.baseAddress!
            do throws(XMLParsingError) {
                while index < count {
                    // The hot loop: skip bytes that mean nothing in this state.
                    let table = quiet + state.rawValue &* 256
                    while index < count, table[Int(base[index])] {
                        index &+= 1
                    }
                    guard index < count else { break }
                    // The two most frequent stops, handled here: line feeds, and in content the
                    // `<` of an ordinary start or end tag (not `<!` or `<?`).
                    let byte = base[index]
                    if byte == 0x0A {
                        line &+= 1
                        index &+= 1
                        lineStart = index
                        continue
                    }
                    if byte == UInt8(ascii: "<"), state == .content, index &+ 1 < count {
                        let next = base[index &+ 1]
                        if next == UInt8(ascii: "/") {
                            index &+= 2
                            continue
                        }
                        if next != UInt8(ascii: "!"), next != UInt8(ascii: "?") {
                            if Self.canStartName(next) { startTagCount &+= 1 }
                            index &+= 1
                            continue
                        }
                    }
                    try slowStep(&index, state: &state, startTagCount: &startTagCount)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        // Only a document of nothing but whitespace is empty; this stops at the first other byte.
        var sawContent = false
        var probe = start
        while probe < count {
            if !Self.isWhitespace(base[probe]) {
                sawContent = true
                break
            }
            probe &+= 1
        }
        guard sawContent else { throw .empty }
        return XMLPreflight.Report(
            byteOrderMarkLength: start, startTagCount: startTagCount, instructionsWithoutData: instructionsWithoutData)
    }

    /// Handles the byte at `index`, one the hot loop stopped at, and moves past it (and past any
    /// markup or reference it starts).
    private mutating func slowStep(_ index: inout Int, state: inout State, startTagCount: inout Int) throws(XMLParsingError) {
        let byte = bytes[index]
        if byte >= 0x80 {
            let (scalar, length) = try decodeScalar(at: index)
            guard Self.isXMLCharacter(scalar) else { throw invalidCharacter(at: index) }
            index += length
            return
        }
        switch byte {
        case 0x0A:
            line += 1
            lineStart = index + 1
            index += 1
            return
        case 0x09, 0x0D, 0x20:
            index += 1
            return
        case ..<0x20:
            throw invalidCharacter(at: index)
        default:
            break
        }
        switch state {
        case .content:
            if byte == UInt8(ascii: "<") {
                if matches("<!--", at: index) {
                    state = .comment
                    index += 4
                    return
                }
                if matches("<![CDATA[", at: index) {
                    state = .cdata
                    index += 9
                    return
                }
                if matchesDoctype(at: index) {
                    throw .doctypeNotAllowed
                }
                if matches("<?", at: index) {
                    if index != declarationStart, isReservedInstruction(targetStart: index + 2) {
                        throw malformed(at: index)
                    }
                    state = .processingInstruction
                    index += 2
                    if let end = endOfDatalessInstruction(targetStart: index) {
                        instructionsWithoutData.append(end)
                    }
                    return
                }
                if index + 1 < bytes.count, Self.canStartName(bytes[index + 1]) {
                    startTagCount += 1
                }
            } else if byte == UInt8(ascii: "&") {
                index = try checkReference(at: index)
                return
            }
        case .comment:
            if matches("-->", at: index) {
                state = .content
                index += 3
                return
            }
        case .cdata:
            if matches("]]>", at: index) {
                state = .content
                index += 3
                return
            }
        case .processingInstruction:
            if matches("?>", at: index) {
                state = .content
                index += 2
                return
            }
        }
        index += 1
    }

    // MARK: Encoding

    /// Refuses UTF-16 and UTF-32 documents and declared encodings other than UTF-8 (``XMLTranscoder``
    /// has turned the others the parser accepts into UTF-8 by now); returns the length of a UTF-8
    /// byte order mark, if there is one.
    ///
    /// The XML declaration is read completely and strictly (``XMLDeclaration``), the way libxml2
    /// reads it, so the two always agree on the encoding.
    private mutating func checkEncoding() throws(XMLParsingError) -> Int {
        if bytes.count >= 2 {
            if bytes[0] == 0 && bytes[1] == 0 { throw .unsupportedEncoding("UTF-32") }
            if bytes[0] == 0 || bytes[1] == 0 { throw .unsupportedEncoding("UTF-16") }
            if (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
                throw .unsupportedEncoding("UTF-16")
            }
        }
        let hasByteOrderMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        let start = hasByteOrderMark ? 3 : 0
        if let declaration = try XMLDeclaration.read(bytes, from: start) {
            declarationStart = start
            if let name = declaration.encoding, !declaration.declaresUTF8 {
                throw .unsupportedEncoding(name)
            }
        }
        return start
    }

    /// Whether the processing instruction whose target starts at `targetStart` is named `xml`, in
    /// any case: XML reserves the name for the declaration, which may only open the document.
    /// libxml2 refuses such an instruction anywhere else; refusing it here makes sure no later
    /// `<?xml … encoding=…?>` is ever read as a declaration.
    private func isReservedInstruction(targetStart: Int) -> Bool {
        guard targetStart + 3 <= bytes.count,
            bytes[targetStart] | 0x20 == UInt8(ascii: "x"),
            bytes[targetStart + 1] | 0x20 == UInt8(ascii: "m"),
            bytes[targetStart + 2] | 0x20 == UInt8(ascii: "l")
        else { return false }
        guard targetStart + 3 < bytes.count else { return true }
        let next = bytes[targetStart + 3]
        return Self.isWhitespace(next) || next == UInt8(ascii: "?")
    }

    // MARK: References

    /// Checks the reference starting with the `&` at `start`; returns the index after its `;`.
    private func checkReference(at start: Int) throws(XMLParsingError) -> Int {
        var index = start + 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            index += 1
            var radix: UInt32 = 10
            if index < bytes.count, bytes[index] == UInt8(ascii: "x") {
                radix = 16
                index += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while index < bytes.count, let digit = Self.digit(bytes[index], radix: radix) {
                value = min(value * radix + digit, 0x11_0000)
                digits += 1
                index += 1
            }
            guard digits > 0, index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
                throw malformed(at: start)
            }
            guard Self.isXMLCharacter(value) else { throw invalidCharacter(at: start) }
            return index + 1
        }
        let nameStart = index
        while index < bytes.count, index - nameStart <= 256, !Self.endsReferenceName(bytes[index]) {
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ";"), index > nameStart else {
            throw malformed(at: start)
        }
        let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index])
        for predefined in ["lt", "gt", "amp", "apos", "quot"] where name.elementsEqual(predefined.utf8) {
            return index + 1
        }
        let (line, column) = position(of: start)
        throw .undeclaredEntity(name: String(decoding: name, as: UTF8.self), line: line, column: column)
    }

    private static func endsReferenceName(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || ";<>&\"'/=".utf8.contains(byte)
    }

    private static func digit(_ byte: UInt8, radix: UInt32) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16:
            return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16:
            return UInt32(byte - UInt8(ascii: "A") + 10)
        default:
            return nil
        }
    }

    // MARK: Characters

    /// Decodes the multi-byte UTF-8 sequence at `start` (Unicode table 3-7: no overlong forms,
    /// no surrogates, nothing above U+10FFFF).
    private func decodeScalar(at start: Int) throws(XMLParsingError) -> (UInt32, Int) {
        let lead = bytes[start]
        let length: Int
        var lowerBound: UInt8 = 0x80
        var upperBound: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upperBound = 0x9F
        case 0xF0: length = 4; lowerBound = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upperBound = 0x8F
        default: throw invalidUTF8(at: start)
        }
        guard start + length <= bytes.count else { throw invalidUTF8(at: start) }
        let second = bytes[start + 1]
        guard second >= lowerBound && second <= upperBound else { throw invalidUTF8(at: start) }
        var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        scalar = scalar << 6 | UInt32(second & 0x3F)
        for offset in 2..<length {
            let byte = bytes[start + offset]
            guard byte & 0xC0 == 0x80 else { throw invalidUTF8(at: start) }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        return (scalar, length)
    }

    /// XML 1.0's `Char` production.
    static func isXMLCharacter(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x1_0000...0x10_FFFF: true
        default: false
        }
    }

    /// Whether `byte` can begin an element name (any non-ASCII byte might).
    private static func canStartName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "_"), UInt8(ascii: ":"), 0x80...:
            true
        default:
            false
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    // MARK: Helpers

    /// The offset of the `?>` that directly follows the target of the processing instruction
    /// whose target starts at `targetStart`, or `nil` when the instruction has data, or no target.
    private func endOfDatalessInstruction(targetStart: Int) -> Int? {
        var index = targetStart
        while index < bytes.count, !Self.isWhitespace(bytes[index]), bytes[index] != UInt8(ascii: "?") {
            index += 1
        }
        return index > targetStart && matches("?>", at: index) ? index : nil
    }

    /// Whether `<!DOCTYPE`, in any mix of cases, starts at `index`.
    private func matchesDoctype(at index: Int) -> Bool {
        guard matches("<!", at: index), index + 9 <= bytes.count else { return false }
        for (offset, letter) in "DOCTYPE".utf8.enumerated() where bytes[index + 2 + offset] & 0xDF != letter {
            return false
        }
        return true
    }

    private func matches(_ literal: StaticString, at index: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] {
            return false
        }
        return true
    }

    private func position(of offset: Int) -> (line: Int, column: Int) {
        (line, offset - lineStart + 1)
    }

    private func invalidUTF8(at offset: Int) -> XMLParsingError {
        let (line, column) = position(of: offset)
        return .invalidUTF8(line: line, column: column)
    }

    private func invalidCharacter(at offset: Int) -> XMLParsingError {
        let (line, column) = position(of: offset)
        return .invalidCharacter(line: line, column: column)
    }

    private func malformed(at offset: Int) -> XMLParsingError {
        let (line, column) = position(of: offset)
        return .malformed(line: line, column: column)
    }
}
