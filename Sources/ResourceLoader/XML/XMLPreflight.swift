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
/// It also keeps libxml2 within what it can do in time linear in the document's size, and within
/// its fixed limits (see ``maximumTagLength``, ``maximumNameLength`` and ``Split``): it follows
/// start tags (their attributes, quoted values that may hold `>`, `/>`), end tags and the depth,
/// counts attributes and namespace declarations per element and the declarations in scope, and
/// refuses a document past ``XMLParsingOptions``' limits before libxml2, whose duplicate-attribute
/// check and prefix look-ups are quadratic, sees it. Where the document is not well-formed the
/// scan reads on as content (checked at least as strictly) and libxml2 reports the error.
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

        /// Where long comments, CDATA sections and processing instructions are cut in two, in
        /// document order (see ``Split``).
        var splits: [Split] = []

        /// Whether an element's start tag begins somewhere.
        var hasStartTag: Bool { startTagCount > 0 }
    }

    /// A place where the bytes handed to `XMLParser` close a comment, CDATA section or
    /// processing instruction and open another of the same kind.
    ///
    /// libxml2 (without its "huge" option, which Foundation does not set) stops with an internal
    /// error when one piece of markup it must see whole is longer than about 10,000,000 bytes.
    /// A CDATA section that long (a base64 payload, say) is ordinary, so it is handed over as
    /// consecutive sections of at most ``XMLPreflight/pieceLength`` bytes, whose text the tree
    /// builder joins; comments and processing instructions, which the builder ignores, are cut
    /// the same way. The cut never falls inside a UTF-8 sequence, between a CR and an LF, or
    /// after a `-` in a comment.
    struct Split {
        /// What is cut.
        enum Kind {
            case comment, cdata, processingInstruction
        }

        /// The offset in the document of the first byte after the cut.
        var offset: Int
        var kind: Kind

        /// The bytes inserted at the cut.
        var separator: StaticString {
            switch kind {
            case .comment: "--><!--"
            case .cdata: "]]><![CDATA["
            case .processingInstruction: "?><?piece "
            }
        }
    }

    /// The longest piece of a comment, CDATA section or processing instruction handed to
    /// `XMLParser` in one (see ``Split``): 4 MiB, well under libxml2's limit.
    static let pieceLength = 4 * 1024 * 1024

    /// The longest start or end tag accepted, attributes included: 8 MiB. libxml2 needs a tag
    /// whole, and fails with an internal error (reported at a meaningless position) for one of
    /// about 10,000,000 bytes; longer tags are refused with ``XMLParsingError/tagTooLong(limit:)``.
    static let maximumTagLength = 8 * 1024 * 1024

    /// The longest name (of an element, attribute or processing instruction target) accepted:
    /// 50,000 bytes, libxml2's own limit; longer names are refused with
    /// ``XMLParsingError/nameTooLong(limit:)``.
    static let maximumNameLength = 50_000

    /// The bytes to hand to `XMLParser`: `data` without its byte order mark, with a space
    /// before the `?>` of each processing instruction that has no data, and with long comments,
    /// CDATA sections and processing instructions cut into pieces (see ``Split``).
    ///
    /// The added bytes shift the columns libxml2 reports later on the same line.
    static func parserInput(_ data: Data, report: Report) -> Data {
        let start = data.startIndex + report.byteOrderMarkLength
        guard !report.instructionsWithoutData.isEmpty || !report.splits.isEmpty else {
            return report.byteOrderMarkLength == 0 ? data : Data(data[start...])
        }
        var result = Data(capacity: data.count - report.byteOrderMarkLength + report.instructionsWithoutData.count
            + report.splits.count * 16)
        var copied = start
        // Both lists are in document order and never share an offset: merge them.
        var spaces = report.instructionsWithoutData[...]
        var splits = report.splits[...]
        while true {
            let nextSpace = spaces.first
            let nextSplit = splits.first
            let offset: Int
            let separator: StaticString
            if let nextSpace, nextSplit.map({ nextSpace < $0.offset }) ?? true {
                offset = nextSpace
                separator = " "
                spaces.removeFirst()
            } else if let nextSplit {
                offset = nextSplit.offset
                separator = nextSplit.separator
                splits.removeFirst()
            } else {
                break
            }
            let end = data.startIndex + offset
            result.append(data[copied..<end])
            result.append(separator.utf8Start, count: separator.utf8CodeUnitCount)
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
            var scanner = Scanner(bytes: buffer, options: options)
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
    private enum State: Int, CaseIterable {
        case content, comment, cdata, processingInstruction
        /// In a start tag's element name.
        case tagName
        /// In a start tag, after its name and outside attribute values.
        case tag
        /// In an attribute value quoted with `"` or `'`.
        case doubleQuoted, singleQuoted
        /// In an end tag.
        case endTag
        /// Not a state: the row of ``Scanner/quiet`` that holds the ASCII bytes names are made
        /// of, which the tags without attributes are skipped over with.
        case nameCharacters

        /// The bytes that need action in this state besides line feeds, other control
        /// characters and non-ASCII bytes.
        var specials: String {
            switch self {
            case .content: "<&"
            case .comment: "-"
            case .cdata: "]"
            case .processingInstruction: "?"
            // Whitespace ends the name; `<` and `&` cannot be in a tag outside a value.
            case .tagName: " \t\r/><&"
            case .tag: "=\"'/><&"
            case .doubleQuoted: "\"<&"
            case .singleQuoted: "'<&"
            case .endTag: "><&"
            case .nameCharacters: ""
            }
        }
    }

    /// For each state (256 entries each, in `State` order), the bytes that need no action in it:
    /// printable ASCII and space, tab and CR, except the state's ``State/specials``.
    /// Line feeds, other control characters and non-ASCII bytes always need action.
    private static let quiet: [Bool] = {
        var table = [Bool](repeating: false, count: State.allCases.count * 256)
        for state in State.allCases where state != .nameCharacters {
            let base = state.rawValue * 256
            for byte in 0x20...0x7E {
                table[base + byte] = true
            }
            table[base + 0x09] = true
            table[base + 0x0D] = true
            for special in state.specials.utf8 {
                table[base + Int(special)] = false
            }
        }
        let names = State.nameCharacters.rawValue * 256
        for byte in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:".utf8 {
            table[names + Int(byte)] = true
        }
        return table
    }()

    let bytes: UnsafeRawBufferPointer
    private var line = 1
    private var lineStart = 0
    private var instructionsWithoutData: [Int] = []
    /// The offset of the XML declaration's `<?xml`, when the document starts with one.
    private var declarationStart = -1
    private var splits: [XMLPreflight.Split] = []

    // Tags, counted so that libxml2 never sees a document whose attributes or namespace
    // declarations would make it quadratic (see `XMLParsingOptions`).

    private let maximumAttributes: Int
    private let maximumDeclarationsPerElement: Int
    private let maximumDeclarationsInScope: Int
    /// The offset of the `<` of the tag being read, or of the opener's end of the comment,
    /// CDATA section or processing instruction being read.
    private var tokenStart = 0
    /// The attributes and namespace declarations of the start tag being read so far.
    private var attributeCount = 0
    private var declarationCount = 0
    /// The number of elements open (as far as the tags tell, outside comments and the like).
    private var depth = 0
    /// The namespace declarations of the open elements.
    private var declarationsInScope = 0
    /// For each open element that declares namespaces, outermost first, its depth and how many
    /// it declares.
    private var declaringElements: [(depth: Int, count: Int)] = []
    /// The depth of the last of `declaringElements`, or -1.
    private var innermostDeclaringDepth = -1
    /// Whether the processing instruction being read may be cut in pieces: not an XML
    /// declaration.
    private var instructionMayBeSplit = false

    init(bytes: UnsafeRawBufferPointer, options: XMLParsingOptions) {
        self.bytes = bytes
        maximumAttributes = options.maximumAttributesPerElement
        maximumDeclarationsPerElement = options.maximumNamespaceDeclarationsPerElement
        maximumDeclarationsInScope = options.maximumNamespaceDeclarationsInScope
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
                    // The most frequent stops, handled here: line feeds, in content the `<` of an
                    // ordinary start or end tag (not `<!` or `<?`), and the `>` ending a tag.
                    let byte = base[index]
                    if byte == 0x0A {
                        if state == .tagName {
                            try checkNameLength(index &- tokenStart &- 1)
                            state = .tag
                        }
                        line &+= 1
                        index &+= 1
                        lineStart = index
                        continue
                    }
                    if byte == UInt8(ascii: "<"), state == .content, index &+ 1 < count {
                        let next = base[index &+ 1]
                        // Tags are skipped here up to the end of an ASCII name; only what
                        // follows another kind of name, or attributes, goes through the states.
                        let nameCharacters = quiet + State.nameCharacters.rawValue &* 256
                        if next == UInt8(ascii: "/") {
                            closeElement()
                            var end = index &+ 2
                            while end < count, nameCharacters[Int(base[end])] { end &+= 1 }
                            if end < count, base[end] == UInt8(ascii: ">"), end &- index < XMLPreflight.maximumTagLength {
                                index = end &+ 1
                                continue
                            }
                            tokenStart = index
                            state = .endTag
                            index = end
                            continue
                        }
                        if next != UInt8(ascii: "!"), next != UInt8(ascii: "?") {
                            guard Self.canStartName(next) else {
                                index &+= 1
                                continue
                            }
                            startTagCount &+= 1
                            tokenStart = index
                            var end = index &+ 1
                            while end < count, nameCharacters[Int(base[end])] { end &+= 1 }
                            if end < count, base[end] == UInt8(ascii: ">") {
                                try checkNameLength(end &- index &- 1)
                                depth &+= 1
                                index = end &+ 1
                                continue
                            }
                            attributeCount = 0
                            declarationCount = 0
                            state = .tagName
                            index = end
                            continue
                        }
                    }
                    if byte == UInt8(ascii: ">") {
                        if state == .tag || state == .tagName {
                            try endStartTag(at: index, state: state, isEmpty: false)
                            state = .content
                            index &+= 1
                            continue
                        }
                        if state == .endTag {
                            try checkTagLength(end: index)
                            state = .content
                            index &+= 1
                            continue
                        }
                    }
                    try slowStep(&index, state: &state, startTagCount: &startTagCount)
                }
                // A tag the document does not finish is still held whole by libxml2.
                if state == .tagName || state == .tag || state == .doubleQuoted || state == .singleQuoted
                    || state == .endTag
                {
                    try checkTagLength(end: count)
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
            byteOrderMarkLength: start, startTagCount: startTagCount, instructionsWithoutData: instructionsWithoutData,
            splits: splits)
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
            if state == .tagName {
                try checkNameLength(index - tokenStart - 1)
                state = .tag
            }
            line += 1
            lineStart = index + 1
            index += 1
            return
        case 0x09, 0x0D, 0x20:
            if state == .tagName {
                // Whitespace ends the element's name.
                try checkNameLength(index - tokenStart - 1)
                state = .tag
            }
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
                    tokenStart = index
                    return
                }
                if matches("<![CDATA[", at: index) {
                    state = .cdata
                    index += 9
                    tokenStart = index
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
                    tokenStart = index
                    instructionMayBeSplit = !matchesXMLTarget(at: index)
                    if let end = try endOfDatalessInstruction(targetStart: index) {
                        instructionsWithoutData.append(end)
                    }
                    return
                }
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                    closeElement()
                    tokenStart = index
                    state = .endTag
                    index += 2
                    return
                }
                if index + 1 < bytes.count, Self.canStartName(bytes[index + 1]) {
                    startTagCount += 1
                    tokenStart = index
                    attributeCount = 0
                    declarationCount = 0
                    state = .tagName
                }
            } else if byte == UInt8(ascii: "&") {
                index = try checkReference(at: index)
                return
            }
        case .comment:
            if matches("-->", at: index) {
                split(.comment, end: index)
                state = .content
                index += 3
                return
            }
        case .cdata:
            if matches("]]>", at: index) {
                split(.cdata, end: index)
                state = .content
                index += 3
                return
            }
        case .processingInstruction:
            if matches("?>", at: index) {
                if instructionMayBeSplit { split(.processingInstruction, end: index) }
                state = .content
                index += 2
                return
            }
        case .tagName, .tag:
            if state == .tagName, byte != UInt8(ascii: "<"), byte != UInt8(ascii: "&") {
                // Whitespace, `/` or `>`: the element's name ends here.
                try checkNameLength(index - tokenStart - 1)
                state = .tag
            }
            switch byte {
            case UInt8(ascii: "="):
                try countAttribute(equalsSign: index)
            case UInt8(ascii: "\""):
                state = .doubleQuoted
            case UInt8(ascii: "'"):
                state = .singleQuoted
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: ">"):
                try endStartTag(at: index + 1, state: state, isEmpty: true)
                state = .content
                index += 2
                return
            case UInt8(ascii: ">"):
                try endStartTag(at: index, state: state, isEmpty: false)
                state = .content
            case UInt8(ascii: "<"), UInt8(ascii: "&"):
                // Not well-formed, and libxml2 will say so here; read on as content, which is
                // checked at least as strictly.
                state = .content
                return
            default:
                break
            }
        case .doubleQuoted, .singleQuoted:
            switch byte {
            case UInt8(ascii: "&"):
                index = try checkReference(at: index)
                return
            case UInt8(ascii: "<"):
                // Not allowed in a value (libxml2 stops here): read on as content.
                state = .content
                return
            default:
                state = .tag
            }
        case .endTag:
            if byte == UInt8(ascii: ">") {
                try checkTagLength(end: index)
            }
            // `>` ends the tag; `<` or `&` are not well-formed (read on as content).
            state = .content
            if byte != UInt8(ascii: ">") { return }
        case .nameCharacters:
            // Never the scanner's state.
            state = .content
        }
        index += 1
    }

    // MARK: Tags

    /// Handles the end of the start tag whose `>` is at `end`.
    private mutating func endStartTag(at end: Int, state: State, isEmpty: Bool) throws(XMLParsingError) {
        if state == .tagName {
            try checkNameLength(end - tokenStart - (isEmpty ? 2 : 1))
        }
        try checkTagLength(end: end)
        guard !isEmpty else { return }
        depth += 1
        if declarationCount > 0 {
            declaringElements.append((depth, declarationCount))
            declarationsInScope += declarationCount
            innermostDeclaringDepth = depth
        }
    }

    /// Handles an end tag: the innermost open element closes.
    @inline(__always)
    private mutating func closeElement() {
        if depth == innermostDeclaringDepth { closeDeclaringElement() }
        if depth > 0 { depth &-= 1 }
    }

    private mutating func closeDeclaringElement() {
        let closed = declaringElements.removeLast()
        declarationsInScope -= closed.count
        innermostDeclaringDepth = declaringElements.last?.depth ?? -1
    }

    /// Counts the attribute whose `=` is at `equalsSign`, and checks its name.
    private mutating func countAttribute(equalsSign: Int) throws(XMLParsingError) {
        // The name ends before any whitespace preceding the `=` and starts after whitespace.
        var nameEnd = equalsSign
        while nameEnd > tokenStart, Self.isWhitespace(bytes[nameEnd - 1]) { nameEnd -= 1 }
        var nameStart = nameEnd
        while nameStart > tokenStart, !Self.endsAttributeName(bytes[nameStart - 1]) { nameStart -= 1 }
        try checkNameLength(nameEnd - nameStart)
        let isDeclaration = nameEnd - nameStart == 5 ? matches("xmlns", at: nameStart) : matches("xmlns:", at: nameStart)
        if isDeclaration {
            declarationCount += 1
            guard declarationCount <= maximumDeclarationsPerElement else {
                throw .tooManyNamespaceDeclarations(limit: maximumDeclarationsPerElement)
            }
            guard declarationsInScope + declarationCount <= maximumDeclarationsInScope else {
                throw .tooManyNamespacesInScope(limit: maximumDeclarationsInScope)
            }
        } else {
            attributeCount += 1
            guard attributeCount <= maximumAttributes else {
                throw .tooManyAttributes(limit: maximumAttributes)
            }
        }
    }

    private static func endsAttributeName(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "=")
            || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "/")
    }

    private func checkTagLength(end: Int) throws(XMLParsingError) {
        guard end - tokenStart < XMLPreflight.maximumTagLength else {
            throw .tagTooLong(limit: XMLPreflight.maximumTagLength)
        }
    }

    private func checkNameLength(_ length: Int) throws(XMLParsingError) {
        guard length <= XMLPreflight.maximumNameLength else {
            throw .nameTooLong(limit: XMLPreflight.maximumNameLength)
        }
    }

    // MARK: Long sections

    /// Notes where to cut the comment, CDATA section or processing instruction that started at
    /// `tokenStart` and whose closing delimiter is at `end`, if it is longer than a piece.
    private mutating func split(_ kind: XMLPreflight.Split.Kind, end: Int) {
        var pieceStart = tokenStart
        while end - pieceStart > XMLPreflight.pieceLength {
            var cut = pieceStart + XMLPreflight.pieceLength
            // Back off a UTF-8 continuation byte (at most three), the LF of a CRLF, or a byte
            // following a `-` (a comment piece must not end in `-`; `--` never occurs in one).
            while bytes[cut] & 0xC0 == 0x80 || (bytes[cut - 1] == 0x0D && bytes[cut] == 0x0A)
                || (kind == .comment && bytes[cut - 1] == UInt8(ascii: "-"))
            {
                cut -= 1
            }
            splits.append(XMLPreflight.Split(offset: cut, kind: kind))
            pieceStart = cut
        }
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
    /// Refuses a target longer than a name may be.
    private func endOfDatalessInstruction(targetStart: Int) throws(XMLParsingError) -> Int? {
        var index = targetStart
        while index < bytes.count, !Self.isWhitespace(bytes[index]), bytes[index] != UInt8(ascii: "?") {
            index += 1
        }
        try checkNameLength(index - targetStart)
        return index > targetStart && matches("?>", at: index) ? index : nil
    }

    /// Whether an XML declaration's `xml` target, in any case, starts at `index`.
    private func matchesXMLTarget(at index: Int) -> Bool {
        guard index + 3 <= bytes.count else { return false }
        return bytes[index] | 0x20 == UInt8(ascii: "x") && bytes[index + 1] | 0x20 == UInt8(ascii: "m")
            && bytes[index + 2] | 0x20 == UInt8(ascii: "l")
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
