import Foundation

/// Turns a document into the UTF-8 that ``XMLTokenizer`` reads.
///
/// The parser accepts:
///
/// - UTF-8, with or without a byte order mark, declared as `UTF-8` (or `UTF8`) or not declared:
///   handed on unchanged, after reading only the XML declaration;
/// - US-ASCII (declared `US-ASCII`, `ASCII` or another IANA alias): every byte is checked to be
///   below 0x80;
/// - ISO-8859-1 (declared `ISO-8859-1`, `latin1` or another IANA alias), transcoded;
/// - UTF-16 with a byte order mark (declared `UTF-16`, the matching `UTF-16LE`/`UTF-16BE`, or not
///   declared), and UTF-16LE or UTF-16BE without one when the document starts with an XML
///   declaration (`<?` in that byte order) that names exactly that encoding. XML requires a byte
///   order mark for `UTF-16`, so a declared `UTF-16` without one is refused.
///
/// Every other encoding (windows-1252, UTF-7, Shift_JIS, UTF-32, EBCDIC, …) is refused with
/// ``XMLParsingError/unsupportedEncoding(_:)``.
///
/// A document in any encoding but UTF-8 leaves here as UTF-8 without a byte order mark, its
/// declaration's `encoding` pseudo-attribute overwritten with spaces (so the declaration keeps
/// its length and names no encoding): the tokenizer then reads UTF-8 only, and checks the
/// declaration's syntax as written. The size limit applies to the bytes before and
/// after transcoding; UTF-16 is measured in a first pass, so the copy is allocated once, at its
/// final size (at most 1.5 times the input's). A lone surrogate or an odd byte at the end of a
/// UTF-16 document is ``XMLParsingError/invalidCharacter(line:column:)``, as is a byte above 0x7F
/// in a US-ASCII document; positions count bytes of the UTF-8 form, and LF, CR LF and a lone CR
/// each end a line.
enum XMLTranscoder {
    /// IANA's names for US-ASCII (lowercased), and the common `ascii`.
    static let usASCIINames = [
        "us-ascii", "ascii", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso-ir-6", "iso_646.irv:1991", "iso646-us",
        "us", "ibm367", "cp367", "csascii",
    ]
    /// IANA's names for ISO-8859-1 (lowercased), and the common `iso8859-1`. (IANA's
    /// `ISO_8859-1:1987` cannot be declared: XML's encoding names have no `:`.)
    static let latin1Names = [
        "iso-8859-1", "iso_8859-1", "iso-ir-100", "latin1", "l1", "ibm819", "cp819", "csisolatin1", "iso8859-1",
    ]

    /// `data` as UTF-8: `data` itself when it is UTF-8 already, or a transcoded copy.
    ///
    /// - Returns: The UTF-8 bytes, and the XML declaration when it was read from those very
    ///   bytes (a UTF-8 document's own), so that the tokenizer need not read it again.
    static func utf8Document(
        _ data: Data, options: XMLParsingOptions
    ) throws(XMLParsingError) -> (data: Data, declaration: XMLDeclaration?) {
        guard data.count <= options.maximumDocumentSize else {
            throw .tooLarge(limit: options.maximumDocumentSize)
        }
        let result: Result<Transcoding, XMLParsingError> = data.withUnsafeBytes { bytes in
            do throws(XMLParsingError) {
                return .success(try transcoded(bytes, limit: options.maximumDocumentSize))
            } catch {
                return .failure(error)
            }
        }
        switch try result.get() {
        case .utf8(let declaration): return (data, declaration)
        case .transcoded(let copy): return (copy, nil)
        }
    }

    /// What ``transcoded(_:limit:)`` found.
    private enum Transcoding {
        /// The bytes are UTF-8 already; their declaration, if any.
        case utf8(XMLDeclaration?)
        /// The document in UTF-8.
        case transcoded(Data)
    }

    /// `text`'s UTF-8, as the parser reads it: its characters are decoded already, so its bytes
    /// are never sniffed for another encoding (a NUL is a character XML does not allow), and a
    /// declaration that names another encoding describes bytes the text no longer has. That
    /// name is overwritten with spaces (the declaration must still be well-formed).
    ///
    /// - Returns: The UTF-8 bytes, and the XML declaration when it was read from those very
    ///   bytes, unchanged, so that the tokenizer need not read it again.
    static func utf8Text(
        _ text: String, options: XMLParsingOptions
    ) throws(XMLParsingError) -> (data: Data, declaration: XMLDeclaration?) {
        var data = Data(text.utf8)
        guard data.count <= options.maximumDocumentSize else {
            throw .tooLarge(limit: options.maximumDocumentSize)
        }
        let start = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let result: Result<XMLDeclaration?, XMLParsingError> = data.withUnsafeBytes { bytes in
            do throws(XMLParsingError) {
                return .success(try XMLDeclaration.read(bytes, from: start))
            } catch {
                return .failure(error)
            }
        }
        let declaration = try result.get()
        if let declaration, declaration.encoding != nil, !declaration.declaresUTF8 {
            blankEncoding(of: declaration, in: &data, offset: 0)
            return (data, nil)
        }
        return (data, declaration)
    }

    /// The transcoded document, or `bytes`' own declaration when they are UTF-8 already.
    private static func transcoded(_ bytes: UnsafeRawBufferPointer, limit: Int) throws(XMLParsingError) -> Transcoding {
        let count = bytes.count
        let b0: UInt8 = count > 0 ? bytes[0] : 0xAA
        let b1: UInt8 = count > 1 ? bytes[1] : 0xAA
        let b2: UInt8 = count > 2 ? bytes[2] : 0xAA
        let b3: UInt8 = count > 3 ? bytes[3] : 0xAA

        // XML 1.0 appendix F: what the first four bytes say about the encoding.
        if count >= 4 {
            if (b0 == 0 && b1 == 0) || (b2 == 0 && b3 == 0 && (b0 == 0 || b1 == 0 || (b0 == 0xFF && b1 == 0xFE))) {
                throw .unsupportedEncoding("UTF-32")
            }
            if b0 == 0x4C && b1 == 0x6F && b2 == 0xA7 && b3 == 0x94 { throw .unsupportedEncoding("EBCDIC") }
        }
        if b0 == 0xFE && b1 == 0xFF { return .transcoded(try utf16(bytes, bigEndian: true, byteOrderMark: true, limit: limit)) }
        if b0 == 0xFF && b1 == 0xFE { return .transcoded(try utf16(bytes, bigEndian: false, byteOrderMark: true, limit: limit)) }
        if b0 == 0x00 && b1 == 0x3C && b2 == 0x00 && b3 == 0x3F {
            return .transcoded(try utf16(bytes, bigEndian: true, byteOrderMark: false, limit: limit))
        }
        if b0 == 0x3C && b1 == 0x00 && b2 == 0x3F && b3 == 0x00 {
            return .transcoded(try utf16(bytes, bigEndian: false, byteOrderMark: false, limit: limit))
        }
        if count >= 2 && (b0 == 0 || b1 == 0) { throw .unsupportedEncoding("UTF-16") }

        // An ASCII-compatible encoding: the declaration is read from the bytes themselves.
        let hasByteOrderMark = b0 == 0xEF && b1 == 0xBB && b2 == 0xBF
        let declaration = try XMLDeclaration.read(bytes, from: hasByteOrderMark ? 3 : 0)
        guard let declaration, let name = declaration.encoding, !declaration.declaresUTF8 else {
            return .utf8(declaration)
        }
        if !hasByteOrderMark {
            if XMLDeclaration.name(name, isOneOf: usASCIINames) {
                try checkASCII(bytes)
                return .transcoded(rewritten(bytes, declaration: declaration))
            }
            if XMLDeclaration.name(name, isOneOf: latin1Names) {
                return .transcoded(try latin1(bytes, declaration: declaration, limit: limit))
            }
        }
        // Any other name, or a UTF-8 byte order mark with a declaration of something else.
        throw .unsupportedEncoding(name)
    }

    // MARK: US-ASCII and ISO-8859-1

    private static func checkASCII(_ bytes: UnsafeRawBufferPointer) throws(XMLParsingError) {
        for index in 0..<bytes.count where bytes[index] >= 0x80 {
            let (line, column) = XMLLineEnds.position(of: index, in: bytes.assumingMemoryBound(to: UInt8.self))
            throw .invalidCharacter(line: line, column: column)
        }
    }

    /// A copy of `bytes` whose declaration names no encoding.
    private static func rewritten(_ bytes: UnsafeRawBufferPointer, declaration: XMLDeclaration) -> Data {
        var data = Data(bytes)
        blankEncoding(of: declaration, in: &data, offset: 0)
        return data
    }

    private static func latin1(
        _ bytes: UnsafeRawBufferPointer, declaration: XMLDeclaration, limit: Int
    ) throws(XMLParsingError) -> Data {
        var high = 0
        for byte in bytes where byte >= 0x80 { high += 1 }
        guard bytes.count + high <= limit else { throw .tooLarge(limit: limit) }
        var data = Data(count: bytes.count + high)
        data.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) in
            var out = 0
            for byte in bytes {
                if byte < 0x80 {
                    output[out] = byte
                    out += 1
                } else {
                    // U+0080…U+00FF: two bytes, 110000xx 10xxxxxx.
                    output[out] = 0xC0 | (byte >> 6)
                    output[out + 1] = 0x80 | (byte & 0x3F)
                    out += 2
                }
            }
        }
        // The declaration is ASCII, so it sits at the same offsets in the copy.
        blankEncoding(of: declaration, in: &data, offset: 0)
        return data
    }

    // MARK: UTF-16

    private static func utf16(
        _ bytes: UnsafeRawBufferPointer, bigEndian: Bool, byteOrderMark: Bool, limit: Int
    ) throws(XMLParsingError) -> Data {
        let first = byteOrderMark ? 2 : 0
        let unitCount = (bytes.count - first) / 2
        @inline(__always) func unit(_ index: Int) -> UInt16 {
            let offset = first + 2 * index
            let high = bigEndian ? bytes[offset] : bytes[offset + 1]
            let low = bigEndian ? bytes[offset + 1] : bytes[offset]
            return UInt16(high) << 8 | UInt16(low)
        }

        // The declaration, read from an ASCII copy of the first units.
        let viewCount = min(unitCount, XMLDeclaration.maximumLength + 1)
        let view = (0..<viewCount).map { index -> UInt8 in
            let value = unit(index)
            return value < 0x80 ? UInt8(value) : 0xFF
        }
        let read: Result<XMLDeclaration?, XMLParsingError> = view.withUnsafeBytes { units in
            do throws(XMLParsingError) {
                return .success(try XMLDeclaration.read(units, from: 0))
            } catch {
                return .failure(error)
            }
        }
        let declaration = try read.get()
        let encoding = declaration?.encoding
        let named = bigEndian ? "utf-16be" : "utf-16le"
        if byteOrderMark {
            if let encoding, !XMLDeclaration.name(encoding, isOneOf: ["utf-16", named]) {
                throw .unsupportedEncoding(encoding)
            }
        } else {
            // Without a byte order mark, only a declaration of this exact byte order will do.
            guard let encoding else { throw .unsupportedEncoding("UTF-16") }
            guard XMLDeclaration.name(encoding, isOneOf: [named]) else { throw .unsupportedEncoding(encoding) }
        }

        // U+FEFF after the byte order mark is a character where none may stand; in UTF-8 it
        // would read as a byte order mark, and the document as empty.
        if unitCount > 0 && unit(0) == 0xFEFF { throw .malformed(line: 1, column: 1) }

        // First pass: validate and measure, with positions in UTF-8 bytes.
        var length = 0
        var line = 1
        var lineStart = 0
        var index = 0
        while index < unitCount {
            let value = unit(index)
            switch value {
            case 0x0A:
                // One line end with a CR right before it (XML 1.0 §2.11).
                length += 1
                if index == 0 || unit(index - 1) != 0x0D { line += 1 }
                lineStart = length
            case 0x0D:
                length += 1
                line += 1
                lineStart = length
            case ..<0x80:
                length += 1
            case ..<0x800:
                length += 2
            case 0xD800...0xDBFF:
                guard index + 1 < unitCount, (0xDC00...0xDFFF).contains(unit(index + 1)) else {
                    throw .invalidCharacter(line: line, column: length - lineStart + 1)
                }
                length += 4
                index += 1
            case 0xDC00...0xDFFF:
                throw .invalidCharacter(line: line, column: length - lineStart + 1)
            default:
                length += 3
            }
            index += 1
        }
        guard (bytes.count - first) % 2 == 0 else {
            throw .invalidCharacter(line: line, column: length - lineStart + 1)
        }
        guard length <= limit else { throw .tooLarge(limit: limit) }

        // Second pass: write.
        var data = Data(count: length)
        data.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) in
            var out = 0
            var index = 0
            while index < unitCount {
                var scalar = UInt32(unit(index))
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    scalar = 0x1_0000 + ((scalar - 0xD800) << 10 | (UInt32(unit(index + 1)) - 0xDC00))
                    index += 1
                }
                index += 1
                switch scalar {
                case ..<0x80:
                    output[out] = UInt8(scalar)
                    out += 1
                case ..<0x800:
                    output[out] = UInt8(0xC0 | scalar >> 6)
                    output[out + 1] = UInt8(0x80 | scalar & 0x3F)
                    out += 2
                case ..<0x1_0000:
                    output[out] = UInt8(0xE0 | scalar >> 12)
                    output[out + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    output[out + 2] = UInt8(0x80 | scalar & 0x3F)
                    out += 3
                default:
                    output[out] = UInt8(0xF0 | scalar >> 18)
                    output[out + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                    output[out + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    output[out + 3] = UInt8(0x80 | scalar & 0x3F)
                    out += 4
                }
            }
        }
        // The declaration is ASCII: its units are the copy's first bytes, one each.
        if let declaration { blankEncoding(of: declaration, in: &data, offset: 0) }
        return data
    }

    // MARK: Helpers

    /// Overwrites the declaration's `encoding` pseudo-attribute with spaces.
    private static func blankEncoding(of declaration: XMLDeclaration, in data: inout Data, offset: Int) {
        guard let range = declaration.encodingAttribute else { return }
        data.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) in
            for index in range { output[offset + index] = UInt8(ascii: " ") }
        }
    }
}
