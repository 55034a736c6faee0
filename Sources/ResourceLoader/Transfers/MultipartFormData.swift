import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields, in-memory data, files read from disk as
/// they are sent, and streams. Send it with ``RequestBody/multipart(_:)``.
///
/// ```swift
/// var body: RequestBody? {
///     get throws {
///         var form = MultipartFormData()
///         form.append("Holiday", named: "album")
///         try form.appendFile(at: photoURL, named: "photo", contentType: "image/jpeg")
///         return try .multipart(form)
///     }
/// }
/// ```
///
/// - **Streaming**: nothing is assembled in memory or copied to a temporary file: the part
///   headers are made when the form is, and a file part is read from disk while it is sent.
/// - **Length**: when every part's length is known (a stream part of unknown length is the only
///   exception), the request declares the total in `Content-Length`; otherwise it is sent
///   chunked. A part with a negative length, or parts that add up to more than `Int64.max`, make
///   the form refused with ``ResourceError/invalidRequest(reason:)``.
/// - **Names** and file names are escaped by the WHATWG form-submission rule: `"` becomes `%22`,
///   CR `%0D` and LF `%0A`, and backslashes that end a name `%5C`, so no name can end its quoted
///   string or add a header line, whether the server reads quoted strings as browsers send them
///   or by RFC 9110's quoted pairs; any other character, non-ASCII included, is sent as UTF-8
///   inside the quotes.
/// - **Boundary**: random, 47 characters of RFC 2046's `bchars`, and checked not to occur in any
///   part held in memory or in a part's header lines (a new one is drawn if it does; a given one,
///   see ``init(boundary:)``, is refused). A file or a stream cannot be checked
///   before it is sent; a random boundary of that length occurs in one by chance with a
///   vanishing probability.
/// - **Checks**: the boundary and the part content types (no CR, LF or NUL) are checked however
///   the form is made a body, ``RequestBody/init(content:contentType:)`` included, when it is
///   sent (``RequestBody/makeReader()``); a form made a body that way names its boundary in the
///   content type given, so a boundary that occurs in a part is refused there, never replaced.
public struct MultipartFormData: Sendable, Hashable {
    /// One part of a form.
    public struct Part: Sendable, Hashable {
        /// The field name, as given (escaped only when it is sent).
        public var name: String
        /// The file name, for a part sent as a file.
        public var fileName: String?
        /// The part's `Content-Type`; `nil` sends none, which means `text/plain` (a text field).
        public var contentType: String?
        /// The part's bytes.
        public var content: Content

        /// Creates a part.
        public init(name: String, fileName: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.fileName = fileName
            self.contentType = contentType
            self.content = content
        }

        /// What a part's bytes come from.
        public enum Content: Sendable, Hashable {
            /// Bytes in memory.
            case bytes(Data)
            /// The first `length` bytes of a file, read from disk as they are sent.
            case file(URL, length: Int64)
            /// A stream's chunks, sent as they are produced (once).
            case stream(RequestBodyStream)
        }
    }

    /// The boundary between parts.
    public private(set) var boundary: String
    /// Whether the boundary was given rather than drawn at random.
    private let boundaryIsGiven: Bool
    /// The parts, in the order they are sent.
    public private(set) var parts: [Part] = []

    /// Creates an empty form with a random boundary.
    public init() {
        boundary = Self.randomBoundary()
        boundaryIsGiven = false
    }

    /// Creates an empty form with the given boundary.
    ///
    /// When the form is made a body (``RequestBody/multipart(_:)``) or sent, a given boundary is
    /// refused with ``ResourceError/invalidRequest(reason:)`` if it occurs anywhere, as plain
    /// text, in a part held in memory or in the header lines the form writes for a part:
    /// `Content-Disposition: form-data; name="…"`, `; filename="…"` and `Content-Type: …`, with
    /// the part's escaped name, file name and content type. The check is by substring, not by
    /// delimiter line, so a short boundary is refused even where it could not end a part: `data`
    /// (in `form-data`), `name`, `e`, or a field's own name. A random boundary is drawn again
    /// instead. File and stream parts are not read to check them.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` unless `boundary` has 1 to 70
    ///   characters of RFC 2046's `bchars` (letters, digits and `'()+_,-./:=?` and space) and does
    ///   not end with a space.
    public init(boundary: String) throws(ResourceError) {
        guard Self.isValidBoundary(boundary) else {
            throw .invalidRequest(reason: "the multipart boundary must be 1 to 70 of RFC 2046's bchars, not ending in a space")
        }
        self.boundary = boundary
        boundaryIsGiven = true
    }

    /// The form's `Content-Type`: `multipart/form-data` with its boundary.
    ///
    /// The boundary is quoted only when it has a character a header token cannot (`()/:=?,` or
    /// space).
    public var contentType: String {
        let needsQuotes = boundary.contains { "()/:=?, ".contains($0) }
        return needsQuotes ? "multipart/form-data; boundary=\"\(boundary)\"" : "multipart/form-data; boundary=\(boundary)"
    }

    // MARK: - Adding parts

    /// Appends a part.
    public mutating func append(_ part: Part) {
        parts.append(part)
    }

    /// Appends a text field, sent as UTF-8 without a `Content-Type`.
    public mutating func append(_ value: String, named name: String) {
        parts.append(Part(name: name, content: .bytes(Data(value.utf8))))
    }

    /// Appends bytes in memory, as a file when `fileName` is given.
    ///
    /// - Parameters:
    ///   - data: The part's bytes.
    ///   - name: The field name.
    ///   - fileName: The file name the server sees, or `nil` for a plain field.
    ///   - contentType: The part's `Content-Type`, or `nil` for none.
    public mutating func append(_ data: Data, named name: String, fileName: String? = nil, contentType: String? = nil) {
        parts.append(Part(name: name, fileName: fileName, contentType: contentType, content: .bytes(data)))
    }

    /// Appends a file, read from disk while the body is sent. Its size is taken now.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - name: The field name.
    ///   - fileName: The file name the server sees. Default: `url`'s last path component.
    ///   - contentType: The part's `Content-Type`. Default: `application/octet-stream`.
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` if `url` is not a regular file that can
    ///   be read. A symbolic link counts as what it points to.
    public mutating func appendFile(
        at url: URL, named name: String, fileName: String? = nil, contentType: String = "application/octet-stream"
    ) throws(ResourceError) {
        let length = try RequestBody.fileLength(of: url)
        parts.append(Part(name: name, fileName: fileName ?? url.lastPathComponent, contentType: contentType, content: .file(url, length: length)))
    }

    /// Appends a stream's chunks, sent as they are produced. A form with a stream part is sent
    /// once (see ``RequestBodyStream``), and chunked unless the stream's length is known.
    ///
    /// - Parameters:
    ///   - stream: The part's bytes.
    ///   - name: The field name.
    ///   - fileName: The file name the server sees, or `nil` for a plain field.
    ///   - contentType: The part's `Content-Type`. Default: `application/octet-stream`.
    public mutating func append(
        _ stream: RequestBodyStream, named name: String, fileName: String? = nil, contentType: String? = "application/octet-stream"
    ) {
        parts.append(Part(name: name, fileName: fileName, contentType: contentType, content: .stream(stream)))
    }

    // MARK: - Encoding

    /// The number of bytes the form sends, when every part's length is known.
    ///
    /// `nil` also for a form that cannot be sent as it declares itself: a part with a negative
    /// length, or parts whose lengths add up to more than `Int64.max`. Such a form is refused
    /// with ``ResourceError/invalidRequest(reason:)`` when it is made a body
    /// (``RequestBody/multipart(_:)``) and when it is sent.
    public var length: Int64? {
        try? RequestBody.declaredLength(of: segments)
    }

    /// Whether the form can be sent more than once: it has no stream part.
    public var isRepeatable: Bool {
        !parts.contains { if case .stream = $0.content { true } else { false } }
    }

    /// The form's bytes, when every part is held in memory (no file or stream part); `nil`
    /// otherwise. For tests and small forms: send a form with ``RequestBody/multipart(_:)``.
    public var encodedData: Data? {
        var data = Data()
        for segment in segments {
            guard case .bytes(let bytes) = segment else { return nil }
            data.append(bytes)
        }
        return data
    }

    /// The pieces the form is read from, in order, with neighbouring bytes joined.
    var segments: [RequestBody.Segment] {
        var segments: [RequestBody.Segment] = []
        var pending = Data()
        for (index, part) in parts.enumerated() {
            if index > 0 { pending.append(contentsOf: Self.lineBreak) }
            pending.append(head(of: part))
            switch part.content {
            case .bytes(let data):
                pending.append(data)
            case .file(let url, let length):
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.file(url, length: length))
            case .stream(let stream):
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.stream(stream))
            }
        }
        if !parts.isEmpty { pending.append(contentsOf: Self.lineBreak) }
        pending.append(Data("--\(boundary)--\r\n".utf8))
        segments.append(.bytes(pending))
        return segments
    }

    /// The delimiter line and header fields that open `part`, up to the empty line.
    func head(of part: Part) -> Data {
        var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
        if let fileName = part.fileName {
            head += "; filename=\"\(Self.escaped(fileName))\""
        }
        head += "\r\n"
        if let contentType = part.contentType {
            head += "Content-Type: \(contentType)\r\n"
        }
        head += "\r\n"
        return Data(head.utf8)
    }

    /// The form, checked and ready to send: part lengths that are not negative and add up
    /// within `Int64`, part content types without CR, LF or NUL, and a boundary that occurs in no
    /// part held in memory (a random one is drawn again if it does).
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` for a negative length or a total over
    ///   `Int64.max`, a content type with a line break, or a given boundary that occurs in a part.
    func withBoundaryNotInParts() throws(ResourceError) -> MultipartFormData {
        _ = try RequestBody.declaredLength(of: segments)
        try checkContentTypes()
        var form = self
        for _ in 0..<16 {
            guard form.memoryPartsContain(form.boundary) else { return form }
            guard !boundaryIsGiven else {
                throw .invalidRequest(reason: "the multipart boundary occurs in one of the form's parts")
            }
            form.boundary = Self.randomBoundary()
        }
        throw .invalidRequest(reason: "no multipart boundary could be found that occurs in no part")
    }

    /// Checks the form as it is sent, whichever way it was made a body: part content types
    /// without CR, LF or NUL, and a boundary that occurs in no part held in memory nor in a
    /// part's header lines. The boundary is not drawn again here: the body's content type names it.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` for a content type with a line break,
    ///   or a boundary that occurs in a part.
    func checkParts() throws(ResourceError) {
        try checkContentTypes()
        guard !memoryPartsContain(boundary) else {
            throw .invalidRequest(reason: "the multipart boundary occurs in one of the form's parts")
        }
    }

    /// Checks that no part's content type contains CR, LF or NUL, which would end its header line.
    private func checkContentTypes() throws(ResourceError) {
        for part in parts {
            if let contentType = part.contentType, contentType.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                throw .invalidRequest(reason: "a multipart part's content type contains CR, LF or NUL")
            }
        }
    }

    /// Whether `boundary` occurs in a part held in memory or in a part's header fields.
    func memoryPartsContain(_ boundary: String) -> Bool {
        let needle = Data(boundary.utf8)
        return parts.contains { part in
            if case .bytes(let data) = part.content, data.range(of: needle) != nil { return true }
            return head(of: part).dropFirst(needle.count + 2).range(of: needle) != nil
        }
    }

    // MARK: - Rules

    private static let lineBreak: [UInt8] = [0x0D, 0x0A]

    /// The bytes of RFC 2046's `bchars`, all ASCII: a boundary is made of these.
    static let boundaryBytes = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)

    /// The characters a random boundary is drawn from: `bchars` without the space and the ones
    /// that need quoting in a header.
    private static let randomCharacters = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")

    /// Whether `boundary` is 1 to 70 `bchars` not ending in a space (RFC 2046, 5.1.1). Checked
    /// on its UTF-8 bytes, as it is sent: a character that `String` only treats as equal to a
    /// `bchar` (U+212A KELVIN SIGN and `K`) is not one.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = boundary.utf8
        return (1...70).contains(bytes.count) && bytes.allSatisfy { boundaryBytes.contains($0) } && bytes.last != UInt8(ascii: " ")
    }

    /// A new random boundary: `ResourceLoader-` and 32 random characters.
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        return "ResourceLoader-" + String((0..<32).map { _ in randomCharacters.randomElement(using: &generator)! })
    }

    /// `name` escaped for a quoted `name` or `filename` parameter by the WHATWG rule: `"` as
    /// `%22`, CR as `%0D`, LF as `%0A`; everything else as it is (UTF-8), but the backslashes
    /// that end a name, each as `%5C`: a parser that reads RFC 9110 quoted pairs would take the
    /// last one with the closing quote, and read what follows as more parameters.
    public static func escaped(_ name: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(name.unicodeScalars.count)
        let scalars = Array(name.unicodeScalars)
        let trailing = scalars.count - scalars.reversed().prefix { $0 == "\\" }.count
        for (offset, scalar) in scalars.enumerated() {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            case "\\" where offset >= trailing: result += "%5C"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
