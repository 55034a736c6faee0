/// Runs an ``XMLTokenizer`` over a document given whole or in pieces, and turns where it
/// stopped into an ``XMLParsingError`` with a line and column.
///
/// ```swift
/// var parser = XMLStreamParser(sink: sink, options: options)
/// for chunk in chunks { try parser.feed(chunk) }
/// let sink = try parser.finish()
/// ```
///
/// The tokenizer reads only complete tokens; the bytes of an incomplete one are kept and read
/// again once more have come. So that a long token arriving in many small pieces is not read
/// again for every piece (quadratic), another attempt waits until the kept bytes have doubled.
/// ``XMLParsingOptions/maximumDocumentSize`` counts every byte fed.
struct XMLStreamParser<Sink: XMLEventSink> {
    private let tokenizer: XMLTokenizer<Sink>
    /// The bytes fed and not yet consumed.
    private var pending: [UInt8] = []
    /// The document offset of `pending[0]`.
    private var pendingOffset = 0
    /// The lines before `pendingOffset`.
    private var lines = XMLLineEnds()
    /// Another attempt is made once `pending` holds this many bytes.
    private var retryCount = 0
    private var failure: XMLParsingError?

    init(sink: Sink, options: XMLParsingOptions, namespaceAware: Bool = true) {
        tokenizer = XMLTokenizer(sink: sink, options: options, namespaceAware: namespaceAware)
    }

    /// Parses a whole document in one piece, without copying it.
    ///
    /// `sink` is consumed: the tokenizer then holds the only copy, so the arrays the sink
    /// reserved are not copied on their first append. `declaration`, when given, is the XML
    /// declaration ``XMLDeclaration/read(_:from:)`` found in these same bytes (the transcoder
    /// reads it first): the tokenizer takes it instead of reading it again.
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, sink: consuming Sink, options: XMLParsingOptions, namespaceAware: Bool = true,
        declaration: XMLDeclaration? = nil
    ) throws(XMLParsingError) -> Sink {
        guard bytes.count <= options.maximumDocumentSize else { throw .tooLarge(limit: options.maximumDocumentSize) }
        let tokenizer = XMLTokenizer(sink: sink, options: options, namespaceAware: namespaceAware)
        tokenizer.knownDeclaration = declaration
        do throws(XMLScanStop) {
            _ = try tokenizer.parse(bytes, base: 0, isFinal: true)
        } catch {
            throw Self.error(error, in: bytes, startingAt: 0, lines: XMLLineEnds())
        }
        tokenizer.sink.endDocument(names: tokenizer.names.names)
        return tokenizer.sink
    }

    /// Adds the next piece of the document, and reads whatever complete tokens there are.
    mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) throws(XMLParsingError) {
        if let failure { throw failure }
        guard pendingOffset + pending.count + chunk.count <= tokenizer.options.maximumDocumentSize else {
            return try stop(.tooLarge(limit: tokenizer.options.maximumDocumentSize))
        }
        pending.append(contentsOf: chunk)
        guard pending.count >= retryCount else { return }
        try run(isFinal: false)
    }

    /// Ends the document: reads what is left, and hands back the sink.
    mutating func finish() throws(XMLParsingError) -> Sink {
        if let failure { throw failure }
        try run(isFinal: true)
        tokenizer.sink.endDocument(names: tokenizer.names.names)
        return tokenizer.sink
    }

    private mutating func run(isFinal: Bool) throws(XMLParsingError) {
        let outcome: Result<Int, XMLParsingError> = pending.withUnsafeBufferPointer { buffer in
            do throws(XMLScanStop) {
                return .success(try tokenizer.parse(buffer, base: pendingOffset, isFinal: isFinal))
            } catch {
                return .failure(Self.error(error, in: buffer, startingAt: pendingOffset, lines: lines))
            }
        }
        let consumed: Int
        switch outcome {
        case .success(let count): consumed = count
        case .failure(let error): return try stop(error)
        }
        pending.withUnsafeBufferPointer { lines.count($0, upTo: consumed, offset: pendingOffset) }
        pending.removeFirst(consumed)
        pendingOffset += consumed
        retryCount = pending.count * 2
    }

    private mutating func stop(_ error: XMLParsingError) throws(XMLParsingError) {
        failure = error
        throw error
    }

    /// The public error for a tokenizer stop, with the line and column of its offset.
    private static func error(
        _ stop: XMLScanStop, in buffer: UnsafeBufferPointer<UInt8>, startingAt bufferOffset: Int, lines: XMLLineEnds
    ) -> XMLParsingError {
        guard case .failed(let failure, let offset) = stop else { return .truncated }
        var lines = lines
        lines.count(buffer, upTo: min(max(offset - bufferOffset, 0), buffer.count), offset: bufferOffset)
        let line = lines.line
        let column = offset - lines.lineStart + 1
        switch failure {
        case .malformed: return .malformed(line: line, column: column)
        case .invalidUTF8: return .invalidUTF8(line: line, column: column)
        case .invalidCharacter: return .invalidCharacter(line: line, column: column)
        case .contentAfterRoot: return .contentAfterRoot(line: line, column: column)
        case .undeclaredEntity(let name): return .undeclaredEntity(name: name, line: line, column: column)
        case .externalEntity(let name): return .externalEntityNotRead(name: name, line: line, column: column)
        case .error(let error): return error
        }
    }
}
