import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RequestBody {
    /// What a ``RequestBody`` is made of.
    public enum Content: Sendable, Hashable {
        /// Bytes in memory.
        case bytes(Data)
        /// The first `length` bytes of a file, read from disk as they are sent. Repeatable: a
        /// `307` or `308` redirect and a retry send it again.
        case file(URL, length: Int64)
        /// The chunks of an `AsyncSequence`, sent as they are produced. Sent at most once.
        case stream(RequestBodyStream)
        /// A `multipart/form-data` form whose parts are read as they are sent. Repeatable unless
        /// a part is a stream.
        case multipart(MultipartFormData)
    }

    /// One piece of a body as it is read: bytes, a file, or a stream.
    enum Segment: Sendable, Hashable {
        case bytes(Data)
        case file(URL, length: Int64)
        case stream(RequestBodyStream)
    }

    /// A file, read from disk as it is sent: never loaded whole into memory.
    ///
    /// The request declares the file's size (taken now) in `Content-Length`. If the file is
    /// shorter when it is sent, the transfer fails with ``ResourceError/invalidRequest(reason:)``
    /// rather than send less than it declared. A file body is sent again by a `307` or `308`
    /// redirect and by a retry.
    ///
    /// ```swift
    /// var body: RequestBody? {
    ///     get throws { try .file(exportURL, contentType: "application/zip") }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - url: The file's URL.
    ///   - contentType: The `Content-Type` to send. Default: `application/octet-stream`.
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` if `url` is not a regular file that
    ///   can be read. A symbolic link counts as what it points to.
    public static func file(_ url: URL, contentType: String? = "application/octet-stream") throws(ResourceError) -> RequestBody {
        RequestBody(content: .file(url, length: try fileLength(of: url)), contentType: contentType)
    }

    /// The chunks of an `AsyncSequence`, sent as they are produced: with `Content-Length` when
    /// the stream's ``RequestBodyStream/length`` is known, chunked otherwise.
    ///
    /// A stream is sent once: see ``RequestBodyStream`` for redirects and retries.
    ///
    /// - Parameters:
    ///   - stream: The body's bytes.
    ///   - contentType: The `Content-Type` to send. Default: `application/octet-stream`.
    public static func stream(_ stream: RequestBodyStream, contentType: String? = "application/octet-stream") -> RequestBody {
        RequestBody(content: .stream(stream), contentType: contentType)
    }

    /// A `multipart/form-data` form (RFC 7578), streamed part by part as it is sent.
    ///
    /// The content type names the form's boundary. When every part's length is known (no stream
    /// part without a length) the request declares the total in `Content-Length`; otherwise the
    /// body is sent chunked.
    ///
    /// A form made a body with ``init(content:contentType:)`` instead is checked in the same
    /// way when it is sent (see ``makeReader()``), except that a random boundary that occurs in
    /// a part is refused rather than replaced, since the content type given names it.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when a boundary given to the form
    ///   occurs in one of its parts held in memory (a random boundary is replaced instead), a
    ///   part's content type contains CR, LF or NUL, a part declares a negative length, or the
    ///   parts' lengths add up to more than `Int64.max`.
    public static func multipart(_ form: MultipartFormData) throws(ResourceError) -> RequestBody {
        let form = try form.withBoundaryNotInParts()
        return RequestBody(content: .multipart(form), contentType: form.contentType)
    }

    /// The number of bytes the body sends, when it is known before it is sent: `nil` for a
    /// stream of unknown length, or a form with one.
    ///
    /// `nil` also for a body that cannot be sent as it declares itself: a negative length (of a
    /// file, a stream or a part), or a form whose parts add up to more than `Int64.max`. Such a
    /// body is refused with ``ResourceError/invalidRequest(reason:)`` when it is sent (see
    /// ``makeReader()``), and no `Content-Length` is declared for it.
    public var length: Int64? {
        switch content {
        case .bytes(let data): Int64(data.count)
        case .file(_, let length): length >= 0 ? length : nil
        case .stream(let stream): stream.length.flatMap { $0 >= 0 ? $0 : nil }
        case .multipart(let form): form.length
        }
    }

    /// Whether the body can be sent more than once: `true` unless it is, or has a part that is,
    /// a ``RequestBodyStream``.
    public var isRepeatable: Bool {
        switch content {
        case .bytes, .file: true
        case .stream: false
        case .multipart(let form): form.isRepeatable
        }
    }

    /// Whether the body can still be sent: repeatable, or a stream that has not been read yet.
    public var canBeSent: Bool {
        segments.allSatisfy { segment in
            if case .stream(let stream) = segment { return !stream.isConsumed }
            return true
        }
    }

    /// Whether the body is read as it is sent rather than held in memory.
    public var isStreamed: Bool {
        if case .bytes = content { return false }
        return true
    }

    /// Makes a reader of the body's bytes, for one send.
    ///
    /// A transport that sends a streamed body itself (rather than reading the request's
    /// `httpBodyStream`) makes a reader for each request it sends, reads it off the cooperative
    /// pool, and closes it when the transfer ends.
    ///
    /// The body is checked first, however it was made: a negative length, a form whose parts add
    /// up to more than `Int64.max`, a part's content type with CR, LF or NUL, or a form boundary
    /// that occurs in a part held in memory or in a part's header lines makes a reader whose
    /// every read fails with ``ResourceError/invalidRequest(reason:)``, before any byte is read.
    public func makeReader() -> RequestBodyReader {
        let segments = segments
        do throws(ResourceError) {
            return RequestBodyReader(segments: segments, length: try checkedLength(of: segments))
        } catch {
            return RequestBodyReader(refusal: error)
        }
    }

    /// Checks that the body can be sent as it declares itself, and returns its length (`nil`
    /// when unknown): no length is negative, the total fits in `Int64`, and a form passes its
    /// checks of part content types and boundary (`MultipartFormData.checkParts()`).
    ///
    /// - Parameter segments: The body's `segments`.
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` otherwise.
    func checkedLength(of segments: [Segment]) throws(ResourceError) -> Int64? {
        if case .multipart(let form) = content { try form.checkParts() }
        return try Self.declaredLength(of: segments)
    }

    /// The number of bytes `segments` send, `nil` when one of them is a stream of unknown length.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` for a negative length, or lengths that
    ///   add up to more than `Int64.max`.
    static func declaredLength(of segments: [Segment]) throws(ResourceError) -> Int64? {
        var total: Int64? = 0
        for segment in segments {
            let length: Int64?
            switch segment {
            case .bytes(let data): length = Int64(data.count)
            case .file(_, let declared): length = declared
            case .stream(let stream): length = stream.length
            }
            guard let length else {
                total = nil
                continue
            }
            guard length >= 0 else { throw .invalidRequest(reason: "the body declares a negative length (\(length) bytes)") }
            guard let sum = total else { continue }
            let (next, overflow) = sum.addingReportingOverflow(length)
            guard !overflow else { throw .invalidRequest(reason: "the body's length is more than Int64.max bytes") }
            total = next
        }
        return total
    }

    /// The pieces the body is read from, in order.
    var segments: [Segment] {
        switch content {
        case .bytes(let data): [.bytes(data)]
        case .file(let url, let length): [.file(url, length: length)]
        case .stream(let stream): [.stream(stream)]
        case .multipart(let form): form.segments
        }
    }

    /// The size of the regular file at `url`. A symbolic link is followed: a link to a regular
    /// file is that file; a link to anything else is refused as that would be.
    static func fileLength(of url: URL) throws(ResourceError) -> Int64 {
        guard url.isFileURL else { throw .invalidRequest(reason: "the body file URL is not a file URL") }
        // `stat` follows symbolic links (`FileManager.attributesOfItem` does not).
        var status = stat()
        let found = url.withUnsafeFileSystemRepresentation { path in
            path.map { stat($0, &status) == 0 } ?? false
        }
        guard found else {
            throw .invalidRequest(reason: "the body file \(url.lastPathComponent) cannot be read")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .invalidRequest(reason: "the body file \(url.lastPathComponent) is not a regular file")
        }
        let size = Int64(status.st_size)
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw .invalidRequest(reason: "the body file \(url.lastPathComponent) cannot be read")
        }
        return size
    }
}

extension URLRequest {
    /// The streamed ``RequestBody`` the request carries, if any: set by
    /// ``NetworkResourceType/urlRequest()`` for a file, stream or multipart body, as the
    /// request's `httpBodyStream` (a ``RequestBodyInputStream``).
    ///
    /// A transport that streams bodies itself reads it here and makes a
    /// ``RequestBody/makeReader()`` for each request it sends; adapters and wrapper transports
    /// pass it on untouched with the request.
    public var streamedBody: RequestBody? {
        (httpBodyStream as? RequestBodyInputStream)?.body
    }

    /// Gives the request `body` to send: as `httpBody` for bytes in memory; otherwise as a
    /// ``RequestBodyInputStream`` with the body's `Content-Length`, when known and not already set.
    ///
    /// A streamed body that cannot be sent as it is (see ``RequestBody/makeReader()``) is set
    /// all the same, without a `Content-Length` when its declared length is the problem: it
    /// fails the transfer when a transport reads it. ``NetworkResourceType/urlRequest()``
    /// refuses such a body before any request is made.
    public mutating func setBody(_ body: RequestBody) {
        if case .bytes(let data) = body.content {
            httpBody = data
            return
        }
        httpBodyStream = RequestBodyInputStream(body: body)
        if let length = body.length, value(forHTTPHeaderField: "Content-Length") == nil {
            setValue(String(length), forHTTPHeaderField: "Content-Length")
        }
    }

    /// Whether the request's body can be sent again: `true` without a body, with `httpBody`, or
    /// with a repeatable streamed body (a file, a form without stream parts). A plain
    /// `httpBodyStream` cannot.
    public var hasRepeatableBody: Bool {
        guard let stream = httpBodyStream else { return true }
        return (stream as? RequestBodyInputStream)?.body.isRepeatable ?? false
    }

    /// Whether the request sends a body: a non-empty `httpBody`, or an `httpBodyStream`.
    var hasBody: Bool {
        httpBodyStream != nil || httpBody.map { !$0.isEmpty } == true
    }

    /// Whether the request's body can be sent (again) now: a repeatable body, or a stream not
    /// read yet.
    var bodyCanBeSent: Bool {
        guard let stream = httpBodyStream else { return true }
        return (stream as? RequestBodyInputStream)?.body.canBeSent ?? false
    }
}
