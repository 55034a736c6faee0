/// The XML declaration at the start of a document (`<?xml version="1.0" encoding="…"?>`), read
/// completely and strictly, as XML 1.0 (production 23, `XMLDecl`) defines it.
///
/// The declaration decides how the rest of the document is decoded, so it is read once, here,
/// by the transcoder and the tokenizer alike: no two readers can disagree about the encoding,
/// and a declaration padded past ``maximumLength`` is refused rather than read. This reader
/// accepts exactly
///
/// ```
/// '<?xml' S 'version' Eq ('"1.' [0-9]+ '"' | "'1." [0-9]+ "'")
///         (S 'encoding' Eq quoted EncName)? (S 'standalone' Eq quoted ('yes' | 'no'))? S? '?>'
/// ```
///
/// (`Eq` is `S? '=' S?`; `EncName` is `[A-Za-z] [A-Za-z0-9._-]*`), in that order, each
/// pseudo-attribute at most once, within ``maximumLength`` code units. Anything else that starts
/// with `<?xml` and white space is malformed.
///
/// The declaration is ASCII in every encoding the parser accepts, so it is read from a buffer of
/// ASCII code units: the document's bytes for UTF-8, US-ASCII and ISO-8859-1, and a copy of its
/// first code units (non-ASCII ones replaced by `0xFF`) for UTF-16. Offsets count those units.
struct XMLDeclaration {
    /// The longest declaration read, in code units: `<?xml` to `?>` inclusive. Real declarations
    /// are under 100; white space past this bound is refused rather than read.
    static let maximumLength = 4096

    /// The offset of the declaration's `<?xml`.
    var start = 0
    /// The offset just after the declaration's `?>`.
    var end: Int
    /// The declared encoding name, as written (`nil` when the declaration names none).
    var encoding: String?
    /// The `encoding` pseudo-attribute, from the white space before it to its closing quote:
    /// the units to blank out so that the declaration no longer names an encoding.
    var encodingAttribute: Range<Int>?
    /// Whether the declaration says `standalone="yes"`.
    var standalone = false

    /// Whether `encoding` names UTF-8 (`UTF-8` or `UTF8`, in any case).
    var declaresUTF8: Bool {
        guard let encoding else { return false }
        return Self.name(encoding, is: "utf-8") || Self.name(encoding, is: "utf8")
    }

    /// Whether `name`, compared without regard to case, is one of `names` (given in lowercase).
    static func name(_ name: String, isOneOf names: [String]) -> Bool {
        let lowercased = name.lowercased()
        return names.contains(lowercased)
    }

    /// Whether `name` is `lowercase` (ASCII), compared without regard to ASCII case: no string
    /// made, for the one test every UTF-8 document's declaration goes through.
    static func name(_ name: String, is lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard name.utf8.count == count else { return false }
        let expected = lowercase.utf8Start
        var index = 0
        for unit in name.utf8 {
            let folded = unit >= UInt8(ascii: "A") && unit <= UInt8(ascii: "Z") ? unit | 0x20 : unit
            guard folded == expected[index] else { return false }
            index += 1
        }
        return true
    }

    /// Reads the declaration at `start` in `units`.
    ///
    /// - Returns: `nil` when no declaration starts there (the units there are not `<?xml`
    ///   followed by white space; `<?xml?>` and `<?xml-stylesheet …?>` are processing
    ///   instructions, for the tokenizer to judge).
    /// - Throws: ``XMLParsingError/malformed(line:column:)`` at the first unit that does not fit
    ///   the grammar, or where the declaration passes ``maximumLength`` or the input ends.
    static func read(_ units: UnsafeRawBufferPointer, from start: Int) throws(XMLParsingError) -> XMLDeclaration? {
        var reader = Reader(units: units, start: start)
        return try reader.read()
    }
}

/// Reads one declaration; every read is bounded by `limit`.
private struct Reader {
    let units: UnsafeRawBufferPointer
    let start: Int
    let limit: Int
    var index: Int

    init(units: UnsafeRawBufferPointer, start: Int) {
        self.units = units
        self.start = start
        self.limit = min(units.count, start + XMLDeclaration.maximumLength)
        self.index = start
    }

    mutating func read() throws(XMLParsingError) -> XMLDeclaration? {
        guard matches("<?xml"), start + 5 < units.count, isWhitespace(units[start + 5]) else { return nil }
        index += 5

        // VersionInfo: S 'version' Eq quoted '1.' digits
        try requireWhitespace()
        try expect("version")
        try equals()
        let versionQuote = try openingQuote()
        try expect("1.")
        let digitsStart = index
        while index < limit, isDigit(units[index]) { index += 1 }
        guard index > digitsStart else { throw malformed() }
        try closingQuote(versionQuote)

        var declaration = XMLDeclaration(start: start, end: 0)
        var sawWhitespace = skipWhitespace()
        if matches("?>") { return finish(declaration) }

        // EncodingDecl: S 'encoding' Eq quoted EncName
        if sawWhitespace, matches("encoding") {
            let attributeStart = lastWhitespaceRunStart
            index += 8
            try equals()
            let quote = try openingQuote()
            let nameStart = index
            guard index < limit, isLetter(units[index]) else { throw malformed() }
            index += 1
            while index < limit, isEncodingNameUnit(units[index]) { index += 1 }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: units[nameStart..<index]), as: UTF8.self)
            try closingQuote(quote)
            declaration.encoding = name
            declaration.encodingAttribute = attributeStart..<index
            sawWhitespace = skipWhitespace()
            if matches("?>") { return finish(declaration) }
        }

        // SDDecl: S 'standalone' Eq quoted ('yes' | 'no')
        if sawWhitespace, matches("standalone") {
            index += 10
            try equals()
            let quote = try openingQuote()
            if matches("yes") {
                index += 3
                declaration.standalone = true
            } else if matches("no") {
                index += 2
            } else {
                throw malformed()
            }
            try closingQuote(quote)
            _ = skipWhitespace()
            if matches("?>") { return finish(declaration) }
        }
        // An unknown, repeated or misplaced pseudo-attribute, a missing space, or no `?>` in time.
        throw malformed()
    }

    /// Where the white space that `skipWhitespace` last skipped began.
    private var lastWhitespaceRunStart = 0

    private func finish(_ declaration: XMLDeclaration) -> XMLDeclaration {
        var declaration = declaration
        declaration.end = index + 2
        return declaration
    }

    // MARK: Grammar pieces

    /// Skips white space; returns whether there was any.
    private mutating func skipWhitespace() -> Bool {
        lastWhitespaceRunStart = index
        while index < limit, isWhitespace(units[index]) { index += 1 }
        return index > lastWhitespaceRunStart
    }

    private mutating func requireWhitespace() throws(XMLParsingError) {
        guard skipWhitespace() else { throw malformed() }
    }

    /// `Eq`: `S? '=' S?`.
    private mutating func equals() throws(XMLParsingError) {
        _ = skipWhitespace()
        try expect("=")
        _ = skipWhitespace()
    }

    private mutating func openingQuote() throws(XMLParsingError) -> UInt8 {
        guard index < limit, units[index] == UInt8(ascii: "\"") || units[index] == UInt8(ascii: "'") else {
            throw malformed()
        }
        index += 1
        return units[index - 1]
    }

    private mutating func closingQuote(_ quote: UInt8) throws(XMLParsingError) {
        guard index < limit, units[index] == quote else { throw malformed() }
        index += 1
    }

    private mutating func expect(_ literal: StaticString) throws(XMLParsingError) {
        guard matches(literal) else { throw malformed() }
        index += literal.utf8CodeUnitCount
    }

    /// Whether `literal` is at `index`, entirely within `limit`.
    private func matches(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= limit else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where units[index + offset] != pointer[offset] {
            return false
        }
        return true
    }

    // MARK: Characters

    private func isWhitespace(_ unit: UInt8) -> Bool {
        unit == 0x20 || unit == 0x09 || unit == 0x0A || unit == 0x0D
    }

    private func isDigit(_ unit: UInt8) -> Bool {
        unit >= UInt8(ascii: "0") && unit <= UInt8(ascii: "9")
    }

    private func isLetter(_ unit: UInt8) -> Bool {
        (unit | 0x20) >= UInt8(ascii: "a") && (unit | 0x20) <= UInt8(ascii: "z")
    }

    private func isEncodingNameUnit(_ unit: UInt8) -> Bool {
        isLetter(unit) || isDigit(unit) || unit == UInt8(ascii: ".") || unit == UInt8(ascii: "_")
            || unit == UInt8(ascii: "-")
    }

    /// Malformed at `index` (or where reading stopped), with the line and column counted from
    /// the start of the buffer.
    private func malformed() -> XMLParsingError {
        let (line, column) = XMLLineEnds.position(
            of: min(index, units.count), in: units.assumingMemoryBound(to: UInt8.self))
        return .malformed(line: line, column: column)
    }
}
