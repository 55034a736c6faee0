/// Why the tokenizer stopped before the end of its input.
enum XMLScanStop: Error {
    /// The document is refused; the position, if any, is an offset into the document.
    case failed(Failure, offset: Int)
    /// The bytes end inside a token and more may come: the token is read again, whole, later.
    case needsInput

    /// What went wrong.
    enum Failure {
        case malformed
        case invalidUTF8
        case invalidCharacter
        case contentAfterRoot
        case undeclaredEntity(String)
        case externalEntity(String)
        /// An error without a position.
        case error(XMLParsingError)
    }
}

/// The XML 1.0 (fifth edition) and Namespaces 1.0 tokenizer: UTF-8 bytes in, checked events
/// out (``XMLEventSink``).
///
/// A non-validating processor: it checks every well-formedness constraint, reads a DTD's
/// internal subset when ``XMLParsingOptions/documentTypeDeclarations`` allows one (expanding
/// internal entities and applying attribute defaults), and never reads anything outside the
/// document. Each limit of ``XMLParsingOptions`` is checked where the bytes that could exceed it
/// are read.
///
/// **Input in pieces.** ``parse(_:base:isFinal:)`` reads as many complete tokens as the bytes
/// hold and returns where it stopped; the caller keeps the rest and calls again with more bytes
/// after it (see ``XMLStreamParser``). A token is read only once it is complete, so no event is
/// ever delivered twice or in part. The whole document in one piece is the fast path.
///
/// **A class.** The tokenizer is one object driven by one caller: its helpers, called from one
/// another thousands of times per document, then share it instead of copying a large struct
/// (which unoptimised builds do for every non-mutating call). Its state is touched only by its
/// own methods on the caller's thread, never with two accesses overlapping, so the dynamic
/// exclusivity checks are off (`@exclusivity(unchecked)`).
///
/// **Entities.** A general entity's replacement text is read by the same code as the document,
/// over the entity's bytes (``withEntity(_:anchor:_:)``); errors inside it are reported at the
/// reference.
final class XMLTokenizer<Sink: XMLEventSink> {
    /// Where the document is.
    enum Phase {
        /// Nothing read yet: a byte order mark or XML declaration may come.
        case start
        /// Before the root element.
        case prolog
        /// Inside the root element.
        case content
        /// After the root element.
        case epilog
    }

    @exclusivity(unchecked) var sink: Sink
    let options: XMLParsingOptions
    /// Whether names are resolved against namespace declarations (and must be QNames).
    let namespaceAware: Bool

    // The input being read: the document, or an entity's replacement text.
    @exclusivity(unchecked) var bytes: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0)
    /// `bytes`' first byte (never `nil`: an empty input points at ``XMLCharacters/noBytes``).
    ///
    /// The scanning loops read through this pointer, not `bytes`: an `UnsafePointer`
    /// subscript is inlined into a plain load even in unoptimised builds, where a buffer
    /// pointer's subscript is a call into the standard library's generic code for each byte.
    @exclusivity(unchecked) var pointer: UnsafePointer<UInt8> = XMLCharacters.noBytes
    @exclusivity(unchecked) var end = 0
    @exclusivity(unchecked) var isFinal = true
    /// The document offset of `bytes[0]`.
    @exclusivity(unchecked) var base = 0
    /// Inside an entity: the document offset of the outermost reference, where errors are
    /// reported.
    @exclusivity(unchecked) var anchor: Int?

    @exclusivity(unchecked) var phase = Phase.start
    /// Whether the document had anything but white space (for ``XMLParsingError/empty``).
    @exclusivity(unchecked) var sawContent = false
    @exclusivity(unchecked) var sawDoctype = false
    @exclusivity(unchecked) var standalone = false
    /// The document's XML declaration, read already from the same bytes (see
    /// ``XMLStreamParser/parse(_:sink:options:namespaceAware:declaration:)``).
    @exclusivity(unchecked) var knownDeclaration: XMLDeclaration?
    /// The name table, taken from the pool for this tokenizer's life (see
    /// ``XMLNameTable/checkOut()``).
    let names = XMLNameTable.checkOut()
    /// The number of the last start tag's name (-1: none yet), whose successor predicts the next.
    @exclusivity(unchecked) var lastStartName = -1
    /// ``XMLCharacters/nameClasses``, read once per document rather than once per name.
    let nameClasses = XMLCharacters.nameClasses
    @exclusivity(unchecked) var namespaces = XMLNamespaceResolver()
    @exclusivity(unchecked) var documentType: XMLDocumentType?
    /// The name numbers (``XMLNameTable/id(_:_:)``) of the open elements, outermost first: numbers, not
    /// names, so that opening and closing an element retains and releases no string.
    @exclusivity(unchecked) var open: [Int] = []
    /// While reading an entity's content: how many elements were open at its reference.
    @exclusivity(unchecked) var openAtEntityStart = 0

    // Scratch storage, reused token after token.
    /// Start tags read so far, numbering them for ``attributeTags``.
    @exclusivity(unchecked) var startTagNumber = 0
    /// By name number: the number of the last start tag with an attribute of that name.
    @exclusivity(unchecked) var attributeTags: [Int] = []
    @exclusivity(unchecked) var attributes: [XMLAttributeEvent] = []
    @exclusivity(unchecked) var valueBuffer: [UInt8] = []
    @exclusivity(unchecked) var textBuffer: [UInt8] = []
    /// Whether the last section `readUntil` read holds a carriage return (so its line ends need
    /// normalising).
    @exclusivity(unchecked) var sawCarriageReturn = false

    // Entity expansion budget.
    @exclusivity(unchecked) var expandedBytes = 0
    @exclusivity(unchecked) var entityDepth = 0
    @exclusivity(unchecked) var expanding: [String] = []
    /// The bytes of the document read so far, for the expansion ratio.
    @exclusivity(unchecked) var documentSize = 0

    /// The longest tag read whole (8 MiB); see ``XMLParsingError/tagTooLong(limit:)``.
    static var maximumTagLength: Int { 8 * 1024 * 1024 }
    /// The longest name (50,000 bytes); see ``XMLParsingError/nameTooLong(limit:)``.
    static var maximumNameLength: Int { 50_000 }

    init(sink: Sink, options: XMLParsingOptions, namespaceAware: Bool = true) {
        self.sink = sink
        self.options = options
        self.namespaceAware = namespaceAware
        if let spare = names.spareBuffers {
            // Emptied by the tokenizer that used them last.
            names.spareBuffers = nil
            open = spare.open
            attributes = spare.attributes
            attributeTags = spare.attributeTags
            namespaces = spare.namespaces
        } else {
            open.reserveCapacity(16)
        }
    }

    deinit {
        open.removeAll(keepingCapacity: true)
        attributes.removeAll(keepingCapacity: true)
        // The tags are numbered afresh in each document, so old numbers must not stay.
        attributeTags.removeAll(keepingCapacity: true)
        namespaces.reset()
        let buffers = XMLTokenizerBuffers(
            open: open, attributes: attributes, attributeTags: attributeTags, namespaces: namespaces)
        names.spareBuffers = buffers.isSmall ? buffers : nil
        names.checkIn()
    }

    // MARK: - Driving

    /// Reads the complete tokens in `input`, whose first byte is at document offset `base`.
    ///
    /// - Returns: How many bytes were consumed; the rest must be passed again, followed by more.
    /// - Throws: ``XMLScanStop/failed(_:offset:)`` at the first error.
    func parse(_ input: UnsafeBufferPointer<UInt8>, base: Int, isFinal: Bool) throws(XMLScanStop) -> Int {
        bytes = input
        pointer = input.baseAddress ?? XMLCharacters.noBytes
        end = input.count
        documentSize = base + input.count
        self.isFinal = isFinal
        self.base = base
        var pos = 0
        while true {
            let tokenStart = pos
            do throws(XMLScanStop) {
                switch phase {
                case .start:
                    try readStart(&pos)
                case .prolog, .epilog:
                    if try !readMisc(&pos) { return pos }
                case .content:
                    try readContent(&pos)
                }
            } catch .needsInput {
                // Content reads token after token: it leaves `pos` at the start of the
                // incomplete one.
                let resume = phase == .content ? pos : tokenStart
                if isFinal { throw finalStop(resume) }
                return resume
            }
        }
    }

    /// The error for input that ends inside a token: the document is cut short, or after the
    /// root, the markup there is unfinished.
    private func finalStop(_ tokenStart: Int) -> XMLScanStop {
        phase == .epilog ? .failed(.malformed, offset: base + tokenStart) : .failed(.error(.truncated), offset: base + tokenStart)
    }

    /// A byte order mark and the XML declaration.
    private func readStart(_ pos: inout Int) throws(XMLScanStop) {
        if base == 0 && pos == 0 {
            if end < 3 && !isFinal && Self.couldStart(bytes, with: "\u{FEFF}") { throw .needsInput }
            if end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { pos = 3 }
        }
        // `<?xml` and white space: a declaration, read whole.
        if end - pos < 6 && !isFinal && Self.couldStart(UnsafeBufferPointer(rebasing: bytes[pos...]), with: "<?xml") {
            throw .needsInput
        }
        if end - pos >= 6 && matches("<?xml", at: pos) && XMLCharacters.isWhitespace(bytes[pos + 5]) {
            sawContent = true
            let raw = UnsafeRawBufferPointer(bytes)
            let declaration: XMLDeclaration?
            do throws(XMLParsingError) {
                if base == 0, let known = knownDeclaration, known.start == pos {
                    declaration = known
                } else {
                    declaration = try XMLDeclaration.read(raw, from: pos)
                }
            } catch {
                // Perhaps only because the bytes stop early.
                if !isFinal && end - pos < XMLDeclaration.maximumLength { throw .needsInput }
                throw .failed(.error(error), offset: 0)
            }
            if let declaration {
                standalone = declaration.standalone
                pos = declaration.end
            }
        }
        phase = .prolog
    }

    /// Whether `bytes` is a prefix of `literal` (so more bytes could make it start with it).
    private static func couldStart(_ bytes: UnsafeBufferPointer<UInt8>, with literal: StaticString) -> Bool {
        let units = literal.utf8Start
        for index in 0..<min(bytes.count, literal.utf8CodeUnitCount) where bytes[index] != units[index] { return false }
        return true
    }

    /// Reads one item of the prolog or epilog: white space, a comment, a PI, the DOCTYPE or the
    /// root's start tag. Returns `false` when the input is done.
    private func readMisc(_ pos: inout Int) throws(XMLScanStop) -> Bool {
        while pos < end && XMLCharacters.isWhitespace(bytes[pos]) { pos += 1 }
        guard pos < end else {
            guard isFinal else { return false }
            if phase == .epilog { return false }
            throw .failed(.error(sawContent ? .noRoot : .empty), offset: base + pos)
        }
        sawContent = true
        guard bytes[pos] == UInt8(ascii: "<") else {
            if phase == .epilog { throw fail(.contentAfterRoot, pos) }
            throw unexpected(at: pos)
        }
        try need(pos + 2, pos)
        switch bytes[pos + 1] {
        case UInt8(ascii: "?"):
            try readProcessingInstruction(&pos)
        case UInt8(ascii: "!"):
            try need(pos + 4, pos)
            if matches("<!--", at: pos) {
                try readComment(&pos)
            } else if try refusesDoctype(at: pos) {
                throw .failed(.error(.doctypeNotAllowed), offset: base + pos)
            } else if phase == .prolog {
                try need(pos + 9, pos)
                guard matches("<!DOCTYPE", at: pos), !sawDoctype else { throw fail(.malformed, pos) }
                guard options.documentTypeDeclarations == .parseInternalSubset else {
                    throw .failed(.error(.doctypeNotAllowed), offset: base + pos)
                }
                try readDocumentType(&pos)
                sawDoctype = true
            } else {
                throw fail(.contentAfterRoot, pos)
            }
        default:
            if phase == .epilog { throw fail(.contentAfterRoot, pos) }
            try readStartTag(&pos)
            if open.isEmpty { phase = .epilog } else { phase = .content }
        }
        return true
    }

    /// Whether DTDs are refused and `<!DOCTYPE`, in any case, is at `pos`: refused wherever it
    /// stands, so that no spelling of one ever gets further than the DOCTYPE error.
    private func refusesDoctype(at pos: Int) throws(XMLScanStop) -> Bool {
        guard options.documentTypeDeclarations == .refuse else { return false }
        try need(pos + 9, pos, orEndOf: true)
        guard pos + 9 <= end else { return false }
        let word: [UInt8] = Array("DOCTYPE".utf8)
        for index in 0..<7 where bytes[pos + 2 + index] & 0xDF != word[index] { return false }
        return true
    }

    // MARK: - Content

    /// Reads content until the root element closes (then the phase is `.epilog`) or, inside an
    /// entity, until the replacement text ends.
    func readContent(_ pos: inout Int) throws(XMLScanStop) {
        while true {
            guard pos < end else {
                if anchor != nil { return }
                throw isFinal ? .failed(.error(.truncated), offset: base + pos) : .needsInput
            }
            let tokenStart = pos
            do throws(XMLScanStop) {
                let byte = pointer[pos]
                if byte == UInt8(ascii: "<") {
                    try readMarkup(&pos)
                } else if byte == UInt8(ascii: "&") {
                    try readReferenceInContent(&pos)
                } else {
                    // Text, the most frequent token: read here rather than through a call.
                    try readText(&pos)
                }
            } catch .needsInput {
                pos = tokenStart
                throw .needsInput
            }
            if phase == .epilog { return }
            // A token never ends where it began.
            assert(pos > tokenStart)
        }
    }

    /// Reads the markup at `pos` (a `<`): a tag, comment, CDATA section or PI.
    private func readMarkup(_ pos: inout Int) throws(XMLScanStop) {
        try need(pos + 2, pos)
        switch bytes[pos + 1] {
        case UInt8(ascii: "/"):
            try readEndTag(&pos)
            if open.isEmpty { phase = .epilog }
        case UInt8(ascii: "!"):
            try need(pos + 4, pos)
            if matches("<!--", at: pos) {
                try readComment(&pos)
            } else if try refusesDoctype(at: pos) {
                throw fail(.error(.doctypeNotAllowed), pos)
            } else {
                try need(pos + 9, pos)
                guard matches("<![CDATA[", at: pos) else { throw fail(.malformed, pos) }
                try readCDATA(&pos)
            }
        case UInt8(ascii: "?"):
            try readProcessingInstruction(&pos)
        default:
            try readStartTag(&pos)
        }
    }

    /// Reads character data up to the next `<` or `&`.
    ///
    /// The hot loop of most documents: eight bytes at a time while none of them needs a look
    /// (``textStops(_:)``), then byte by byte through ``pointer`` from the first that does; a
    /// byte above 0x7F costs one call to check its scalar. Text without a carriage return goes
    /// to the sink as a slice of the input; with one, the line ends are normalised into
    /// ``textBuffer``.
    @inline(__always)
    private func readText(_ pos: inout Int) throws(XMLScanStop) {
        let start = pos
        let input = pointer
        let end = self.end
        let normalisesLineEnds = anchor == nil
        var index = pos
        var copiedUpTo = start
        var buffered = false
        while index < end {
            // Whole words of plain text; `index + 8 <= end` bounds the load.
            while index &+ 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(input + index).loadUnaligned(as: UInt64.self))
                let stops = Self.textStops(word)
                if stops != 0 {
                    index &+= stops.trailingZeroBitCount &>> 3
                    break
                }
                index &+= 8
            }
            guard index < end else { break }
            let byte = input[index]
            if byte >= 0x20 {
                if byte < 0x80 {
                    if byte != 0x3C && byte != 0x26 && byte != 0x5D {
                        index &+= 1
                        continue
                    }
                    if byte != 0x5D { break }  // `<` or `&`
                    // `]`: `]]>` may not appear in text.
                    if index &+ 2 < end {
                        if input[index &+ 1] == 0x5D && input[index &+ 2] == 0x3E { throw fail(.malformed, index) }
                    } else if !isFinal && anchor == nil {
                        pos = index
                        throw .needsInput
                    }
                    index &+= 1
                    continue
                }
                let length = XMLCharacters.legalScalarLength(input, index, end)
                if length == 0 {
                    index = try scalarEnd(at: index)
                } else {
                    index &+= length
                }
                continue
            }
            if byte == 0x0A || byte == 0x09 {
                index &+= 1
                continue
            }
            guard byte == 0x0D else { throw fail(.invalidCharacter, index) }
            guard normalisesLineEnds else {
                index &+= 1
                continue
            }
            try need(index + 2, index, orEndOf: true)
            if !buffered {
                textBuffer.removeAll(keepingCapacity: true)
                buffered = true
            }
            textBuffer.append(contentsOf: UnsafeBufferPointer(start: input + copiedUpTo, count: index - copiedUpTo))
            textBuffer.append(0x0A)
            index += index + 1 < end && input[index + 1] == 0x0A ? 2 : 1
            copiedUpTo = index
        }
        pos = index
        if index == end && !isFinal { throw .needsInput }
        if buffered {
            textBuffer.append(contentsOf: UnsafeBufferPointer(start: input + copiedUpTo, count: index - copiedUpTo))
            textBuffer.withUnsafeBufferPointer { sink.characters($0) }
        } else {
            sink.characters(UnsafeBufferPointer(start: input + start, count: index - start))
        }
    }

    /// The bytes of `word` (eight bytes of text, the first in the low byte) that text scanning
    /// must look at, as their high bits: a control character (below 0x20), a byte above 0x7F,
    /// `<`, `&` or `]`. The lowest set bit is exact (it marks the first such byte); bits above
    /// it may be set for bytes that are not such (a borrow carries into them), and are not read.
    @inline(__always)
    static func textStops(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// The high bit of each byte of `value` that is zero (exact up to the first).
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let controls = (word &- ones &* 0x20) & ~word & highs
        return (word & highs) | controls | zeroBytes(word ^ (ones &* 0x3C)) | zeroBytes(word ^ (ones &* 0x26))
            | zeroBytes(word ^ (ones &* 0x5D))
    }

    // MARK: - Tags

    /// Reads a start tag or empty-element tag at `pos` (`<` and a name).
    private func readStartTag(_ pos: inout Int) throws(XMLScanStop) {
        let tagStart = pos
        do throws(XMLScanStop) {
            try readStartTagWhole(&pos)
        } catch {
            throw tagStop(error, tagStart: tagStart)
        }
    }

    /// The error for a tag at `tagStart` that stopped with `stop`: a tag cut short (by the end of
    /// the document, or of the bytes fed so far) that already holds more than
    /// ``maximumTagLength`` bytes is too long, however it would have ended.
    private func tagStop(_ stop: XMLScanStop, tagStart: Int) -> XMLScanStop {
        guard anchor == nil, end - tagStart > Self.maximumTagLength else { return stop }
        switch stop {
        case .needsInput, .failed(.error(.truncated), _):
            return .failed(.error(.tagTooLong(limit: Self.maximumTagLength)), offset: base + tagStart)
        default:
            return stop
        }
    }

    /// Throws ``XMLParsingError/tagTooLong(limit:)`` when the tag from `tagStart` to `pos` is
    /// longer than ``maximumTagLength``.
    private func checkTagLength(_ tagStart: Int, _ pos: Int) throws(XMLScanStop) {
        if pos - tagStart > Self.maximumTagLength {
            throw .failed(.error(.tagTooLong(limit: Self.maximumTagLength)), offset: base + tagStart)
        }
    }

    private func readStartTagWhole(_ pos: inout Int) throws(XMLScanStop) {
        let tagStart = pos
        startTagNumber &+= 1
        pos += 1
        let nameID: Int
        if let predicted = names.successor(of: lastStartName, at: pointer + pos, available: end - pos) {
            // The name that followed the last one last time, checked byte for byte.
            nameID = predicted.id
            pos += predicted.count
        } else {
            nameID = names.id(bytes, try readName(&pos))
            names.setSuccessor(of: lastStartName, to: nameID)
        }
        lastStartName = nameID
        // Not retained: the table holds every name for the whole parse.
        unowned(unsafe) let name = names.names[nameID]
        if !attributes.isEmpty { attributes.removeAll(keepingCapacity: true) }
        var plainCount = 0
        var selfClosing = false
        while true {
            let hadSpace = skipWhitespace(&pos)
            try need(pos + 1, pos)
            let byte = bytes[pos]
            if byte == UInt8(ascii: ">") {
                pos += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                try need(pos + 2, pos)
                guard bytes[pos + 1] == UInt8(ascii: ">") else { throw unexpected(at: pos + 1) }
                pos += 2
                selfClosing = true
                break
            }
            try checkTagLength(tagStart, pos)
            guard hadSpace else { throw unexpected(at: pos) }
            let attributeStart = pos
            let attributeID = names.id(bytes, try readName(&pos))
            let attributeName = names.names[attributeID]
            _ = skipWhitespace(&pos)
            try need(pos + 1, pos)
            guard bytes[pos] == UInt8(ascii: "=") else { throw unexpected(at: pos) }
            pos += 1
            _ = skipWhitespace(&pos)
            let value = try readAttributeValue(&pos, expand: true)
            try checkTagLength(tagStart, pos)
            let isDeclaration = namespaceAware && attributeName.declaresNamespace
            if !isDeclaration {
                plainCount += 1
                if plainCount > options.maximumAttributesPerElement {
                    throw .failed(.error(.tooManyAttributes(limit: options.maximumAttributesPerElement)), offset: base + tagStart)
                }
            }
            // Unique attribute names (checked by qualified name here, expanded names below).
            try checkUnique(attributeID, at: attributeStart)
            attributes.append(XMLAttributeEvent(
                name: attributeName, value: value, namespaceURI: nil, isNamespaceDeclaration: isDeclaration))
        }
        try checkTagLength(tagStart, pos)
        if let documentType, documentType.hasAttributeDeclarations {
            let added = documentType.applyDefaults(to: &attributes, of: name, namespaceAware: namespaceAware)
            if added > 0 {
                // Defaults count like written attributes, and like entity expansion.
                try chargeExpansion(added, at: tagStart)
                let count = attributes.reduce(0) { $0 + ($1.isNamespaceDeclaration ? 0 : 1) }
                if count > options.maximumAttributesPerElement {
                    throw .failed(.error(.tooManyAttributes(limit: options.maximumAttributesPerElement)), offset: base + tagStart)
                }
            }
        }
        if open.count >= options.maximumDepth {
            throw .failed(.error(.tooDeep(limit: options.maximumDepth)), offset: base + tagStart)
        }
        var element = XMLStartElement(name: name, nameID: nameID, namespaceURI: nil, binding: XMLStartElement.noBinding)
        if namespaceAware {
            do throws(XMLNamespaceResolver.Failure) {
                try namespaces.startElement(&element, attributes: &attributes, options: options)
            } catch {
                switch error {
                case .limit(let error): throw .failed(.error(error), offset: base + tagStart)
                case .malformed: throw fail(.malformed, tagStart + 1)
                }
            }
        }
        do throws(XMLParsingError) {
            if attributes.isEmpty {
                try sink.startElement(element)
            } else {
                try sink.startElement(element, attributes: attributes)
            }
        } catch {
            throw .failed(.error(error), offset: base + tagStart)
        }
        if selfClosing {
            sink.endElement()
            if namespaceAware { namespaces.endElement() }
        } else {
            open.append(nameID)
        }
    }

    /// Throws if an attribute named `name` is in the current start tag already.
    ///
    /// One look-up per attribute, not a comparison with each attribute before it: the table
    /// holds, for each name number, the number of the last start tag that used it.
    private func checkUnique(_ id: Int, at position: Int) throws(XMLScanStop) {
        if id >= attributeTags.count {
            attributeTags.append(contentsOf: repeatElement(0, count: id + 1 - attributeTags.count))
        }
        if attributeTags[id] == startTagNumber { throw fail(.malformed, position) }
        attributeTags[id] = startTagNumber
    }

    /// Reads an end tag at `pos` (`</`).
    private func readEndTag(_ pos: inout Int) throws(XMLScanStop) {
        let tagStart = pos
        // The common case: the open element's name, as stored, and `>` at once.
        if open.count > openAtEntityStart, let current = open.last {
            let count = names.length(of: current, at: pointer + pos + 2, available: end - pos - 2) { $0 == 0x3E }
            if count > 0 {
                pos += count + 3
                open.removeLast()
                sink.endElement()
                if namespaceAware { namespaces.endElement() }
                return
            }
        }
        pos += 2
        let nameRange = try readName(&pos)
        _ = skipWhitespace(&pos)
        try checkTagLength(tagStart, pos)
        do throws(XMLScanStop) {
            try need(pos + 1, pos)
        } catch {
            throw tagStop(error, tagStart: tagStart)
        }
        guard bytes[pos] == UInt8(ascii: ">") else { throw unexpected(at: pos) }
        pos += 1
        // Its `>` counted, as a start tag's is.
        try checkTagLength(tagStart, pos)
        // Compared with the open element's name as stored, without interning it again.
        guard open.count > openAtEntityStart, let current = open.last,
            names.name(current, isMadeOf: pointer, nameRange)
        else {
            throw fail(.malformed, tagStart)
        }
        open.removeLast()
        sink.endElement()
        if namespaceAware { namespaces.endElement() }
    }

    // MARK: - Names, white space, positions

    /// Reads a `Name` (with `token`, an `Nmtoken`) at `pos`; returns its range.
    ///
    /// The first byte apart (it alone may have to be a name start), then a loop of one table
    /// load and one test per ASCII byte, bounded by the input; the name's length is checked
    /// where the loop stops. An error found past ``maximumNameLength`` bytes is reported as the
    /// name being too long, as it would be had the length been checked byte by byte.
    func readName(_ pos: inout Int, token: Bool = false) throws(XMLScanStop) -> Range<Int> {
        let start = pos
        let input = pointer
        let end = self.end
        let classes = nameClasses
        var index = start
        guard index < end else {
            if isFinal || anchor != nil { throw unexpected(at: start) }
            throw .needsInput
        }
        let firstBits = classes[Int(input[index])]
        if firstBits & (token ? 2 : 1) != 0 {
            index &+= 1
        } else if firstBits & 4 != 0 {
            guard try readNameScalar(&index, start: start, first: !token) else {
                throw unexpected(at: start)
            }
        } else {
            throw unexpected(at: start)
        }
        while index < end {
            let bits = classes[Int(input[index])]
            if bits & 2 != 0 {
                index &+= 1
                continue
            }
            guard bits & 4 != 0, try readNameScalar(&index, start: start, first: false) else { break }
        }
        if index - start > Self.maximumNameLength {
            throw .failed(.error(.nameTooLong(limit: Self.maximumNameLength)), offset: base + start)
        }
        if index == end && !isFinal && anchor == nil { throw .needsInput }
        pos = index
        return start..<index
    }

    /// Decodes the scalar at `index` (a byte above 0x7F) of the name that started at `start`;
    /// when it is a name start character (`first`) or a name character, moves `index` past it
    /// and returns `true`.
    private func readNameScalar(_ index: inout Int, start: Int, first: Bool) throws(XMLScanStop) -> Bool {
        let position = index
        switch XMLCharacters.decode(bytes, at: position, end: end) {
        case .scalar(let scalar, let length):
            guard first ? XMLCharacters.isNameStart(scalar) : XMLCharacters.isNameChar(scalar) else { return false }
            index = position &+ length
            return true
        case .invalid:
            throw nameFailure(.invalidUTF8, at: position, start: start)
        case .truncated:
            if isFinal || anchor != nil { throw nameFailure(.invalidUTF8, at: position, start: start) }
            if position - start > Self.maximumNameLength {
                throw .failed(.error(.nameTooLong(limit: Self.maximumNameLength)), offset: base + start)
            }
            throw .needsInput
        }
    }

    /// The error for `failure` at `position` in a name from `start`: the name is too long if the
    /// failure is past the limit.
    private func nameFailure(_ failure: XMLScanStop.Failure, at position: Int, start: Int) -> XMLScanStop {
        if position - start > Self.maximumNameLength {
            return .failed(.error(.nameTooLong(limit: Self.maximumNameLength)), offset: base + start)
        }
        return fail(failure, position)
    }

    /// Skips white space; returns whether there was any.
    func skipWhitespace(_ pos: inout Int) -> Bool {
        let input = pointer
        let end = self.end
        let start = pos
        var index = pos
        while index < end {
            let byte = input[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D else { break }
            index &+= 1
        }
        pos = index
        return index > start
    }

    /// Throws ``XMLScanStop/needsInput`` (or, at the end of the input, an error at `position`)
    /// unless the bytes reach `count`. With `orEndOf`, the end of final input is fine.
    @inline(__always)
    func need(_ count: Int, _ position: Int, orEndOf: Bool = false) throws(XMLScanStop) {
        guard count > end else { return }
        if isFinal || anchor != nil {
            if orEndOf { return }
            // Inside an entity the replacement text is all there is: a token cut short is
            // malformed. In the document, the document was cut short.
            throw anchor == nil && phase != .epilog
                ? .failed(.error(.truncated), offset: base + position) : fail(.malformed, position)
        }
        throw .needsInput
    }

    /// Whether `literal` is at `position`.
    func matches(_ literal: StaticString, at position: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= end else { return false }
        let expected = literal.utf8Start
        let input = pointer + position
        var offset = 0
        while offset < count {
            if input[offset] != expected[offset] { return false }
            offset &+= 1
        }
        return true
    }

    /// The end of the character at `pos` (a byte above 0x7F), which must be a legal one.
    @inline(__always)
    func scalarEnd(at pos: Int) throws(XMLScanStop) -> Int {
        let length = XMLCharacters.legalScalarLength(pointer, pos, end)
        if length > 0 { return pos &+ length }
        switch XMLCharacters.decode(bytes, at: pos, end: end) {
        case .scalar(let scalar, let length):
            guard XMLCharacters.isChar(scalar) else { throw fail(.invalidCharacter, pos) }
            return pos + length
        case .invalid:
            throw fail(.invalidUTF8, pos)
        case .truncated:
            if isFinal || anchor != nil { throw fail(.invalidUTF8, pos) }
            throw .needsInput
        }
    }

    /// An error at `position` of the current input (at the reference, inside an entity).
    func fail(_ failure: XMLScanStop.Failure, _ position: Int) -> XMLScanStop {
        .failed(failure, offset: anchor ?? (base + position))
    }

    /// The error for an unexpected byte at `position`: a character XML forbids, bytes that are
    /// not UTF-8, or otherwise a well-formedness error.
    func unexpected(at position: Int) -> XMLScanStop {
        guard position < end else { return fail(.malformed, position) }
        let byte = bytes[position]
        if byte < 0x20 && !XMLCharacters.isWhitespace(byte) { return fail(.invalidCharacter, position) }
        if byte >= 0x80 {
            switch XMLCharacters.decode(bytes, at: position, end: end) {
            case .invalid, .truncated: return fail(.invalidUTF8, position)
            case .scalar(let scalar, _): if !XMLCharacters.isChar(scalar) { return fail(.invalidCharacter, position) }
            }
        }
        return fail(.malformed, position)
    }
}
