import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Conversions between HAR values and the Foundation and ResourceLoader values a transport deals
// in. Nothing here knows how a transport moves bytes: a recorder or replayer for any transport
// goes through these.

extension HAR.Request {
    /// The HAR record of `request`, with `redaction` applied.
    ///
    /// The header fields are those the request carries (sorted by name); fields a transport adds
    /// on the wire (`Host`, `User-Agent`, `Accept-Encoding`) are not seen. The body is
    /// `httpBody`; a body stream is not read (see ``init(_:sentBody:redaction:)``): it is
    /// recorded with an unknown size (`bodySize` `-1`), empty text and a comment that says so.
    public init(_ request: URLRequest, redaction: HARRedaction = .standard) {
        self.init(request, sentBody: nil, redaction: redaction)
    }

    /// The HAR record of `request` whose body was sent as `sentBody`, with `redaction` applied.
    ///
    /// `sentBody` is what a transport sent for the request's streamed body (a file, a stream or
    /// a form, which `httpBody` does not hold); `nil` records `httpBody`. A body whose bytes were
    /// over the recorder's limit, or could not be read (``SentRequestBody/readFailure``), is
    /// recorded with its size (`bodySize`, `-1` when unknown), empty text and a comment that says
    /// so.
    public init(_ request: URLRequest, sentBody: SentRequestBody?, redaction: HARRedaction = .standard) {
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        let headers = fields.map { HAR.Header(name: $0.key, value: redaction.headerValue($0.value, named: $0.key)) }
        let url = redaction.redactedURL(request.url)
        let queryString = (URLComponents(string: url)?.queryItems ?? []).map {
            HAR.QueryParameter(name: $0.name, value: $0.value ?? "")
        }
        let cookies = fields.filter { $0.key.lowercased() == "cookie" }.flatMap { field in
            HAR.Cookie.parseRequestCookies(field.value, redacted: redaction.redactsHeaderField(field.key))
        }
        var postData: HAR.PostData?
        let mimeType = request.value(forHTTPHeaderField: "Content-Type") ?? ""
        let body: Data?
        let bodySize: Int
        if let sentBody {
            (body, bodySize) = (sentBody.bytes, Int(sentBody.byteCount))
        } else if request.httpBody == nil, request.httpBodyStream != nil {
            (body, bodySize) = (Data(), -1)
            postData = HAR.PostData(mimeType: mimeType, text: "", comment: "The body is a stream, which is not read to record it")
        } else {
            (body, bodySize) = (request.httpBody ?? Data(), request.httpBody?.count ?? 0)
        }
        if let body, !body.isEmpty {
            let redacted = redaction.redactedBody(body, mimeType: mimeType)
            postData = HAR.PostData(body: redacted.body, mimeType: mimeType)
            postData?.comment = redacted.comment
        } else if let failure = sentBody?.readFailure {
            postData = HAR.PostData(mimeType: mimeType, text: "", comment: "The body could not be read to record it: \(failure)")
        } else if body == nil {
            postData = HAR.PostData(
                mimeType: mimeType, text: "",
                comment: "The body's \(bodySize) bytes were over the recorder's limit, so they are not recorded")
        }
        self.init(
            method: request.httpMethod ?? "GET", url: url, cookies: cookies, headers: headers, queryString: queryString,
            postData: postData, headersSize: -1, bodySize: bodySize
        )
    }
}

extension HAR.Request {
    /// The record of a live request, as a replayer compares it with the recorded ones: `request`,
    /// whose streamed body was sent as `sentBody`, recorded with `redaction`, whose `entry`
    /// closure then runs on an entry of this request with an empty response.
    init(live request: URLRequest, sentBody: SentRequestBody?, redaction: HARRedaction) {
        self.init(request, sentBody: sentBody, redaction: redaction)
        guard let redactEntry = redaction.entry else { return }
        var entry = HAR.Entry(
            startedDateTime: HAR.dateText(Date()), time: 0, request: self,
            response: HAR.Response(status: 0, content: HAR.Content(size: 0, mimeType: "", text: "")),
            timings: HAR.Timings(send: 0, wait: 0, receive: 0))
        redactEntry(&entry)
        self = entry.request
    }
}

extension HAR.Response {
    /// The HAR record of a response with `head` and `body`, with `redaction` applied.
    ///
    /// - Parameters:
    ///   - head: The response's status and header fields.
    ///   - body: The response's body, decoded from any `Content-Encoding`.
    ///   - receivedBodySize: The body's size as received, before decoding; `nil` when it is the
    ///     size of `body`. When the two differ, ``HAR/Content/compression`` is the difference.
    ///   - redaction: What to hide.
    public init(_ head: ResponseHead, body: Data, receivedBodySize: Int? = nil, redaction: HARRedaction = .standard) {
        let fields = head.headerFields.sorted { $0.key.lowercased() < $1.key.lowercased() }
        let headers = fields.map { HAR.Header(name: $0.key, value: redaction.headerValue($0.value, named: $0.key)) }
        let cookies = fields.filter { $0.key.lowercased() == "set-cookie" }.flatMap { field in
            HAR.Cookie.parseSetCookies(field.value, redacted: redaction.redactsHeaderField(field.key))
        }
        let mimeType = head.value(forHTTPHeaderField: "Content-Type") ?? ""
        let location = head.value(forHTTPHeaderField: "Location").map { redaction.headerValue($0, named: "Location") }
        let redacted = redaction.redactedBody(body, mimeType: mimeType)
        var content = HAR.Content(body: redacted.body, mimeType: mimeType)
        content.comment = redacted.comment
        let received = receivedBodySize ?? body.count
        if received != body.count { content.compression = body.count - received }
        self.init(
            status: head.statusCode, statusText: HAR.reasonPhrase(head.statusCode),
            cookies: cookies, headers: headers, content: content,
            redirectURL: location ?? "", headersSize: -1, bodySize: received
        )
    }

    /// The response as a ``ResourceLoader/ResponseHead`` for `url`, with its header fields in
    /// recorded order.
    public func head(url: URL?) -> ResponseHead {
        ResponseHead(statusCode: status, url: url, headerFields: headers.map { ($0.name, $0.value) })
    }
}

extension HAR.Entry {
    /// The HAR record of one exchange, with `redaction` applied (the named fields, then its
    /// `entry` closure).
    ///
    /// - Parameters:
    ///   - request: The request sent.
    ///   - head: The response's status and header fields.
    ///   - body: The response's body.
    ///   - startedAt: When the request was sent.
    ///   - duration: How long the exchange took, to the end of the body.
    ///   - redaction: What to hide.
    public init(request: URLRequest, head: ResponseHead, body: Data, startedAt: Date, duration: Duration, redaction: HARRedaction = .standard) {
        self.init(request: request, sentBody: nil, head: head, body: body, startedAt: startedAt, duration: duration, redaction: redaction)
    }

    /// The HAR record of one exchange whose request body was sent as `sentBody` (see
    /// ``HAR/Request/init(_:sentBody:redaction:)``), with `redaction` applied.
    ///
    /// `receivedBodySize` is the response body's size as received, before decoding (see
    /// ``HAR/Response/init(_:body:receivedBodySize:redaction:)``); `nil` when it is the size of
    /// `body`.
    public init(
        request: URLRequest, sentBody: SentRequestBody?, head: ResponseHead, body: Data, receivedBodySize: Int? = nil,
        startedAt: Date, duration: Duration, redaction: HARRedaction = .standard
    ) {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        self.init(
            startedDateTime: HAR.dateText(startedAt), time: milliseconds,
            request: HAR.Request(request, sentBody: sentBody, redaction: redaction),
            response: HAR.Response(head, body: body, receivedBodySize: receivedBodySize, redaction: redaction),
            timings: HAR.Timings(blocked: -1, dns: -1, connect: -1, send: 0, wait: milliseconds, receive: 0, ssl: -1)
        )
        redaction.entry?(&self)
    }
}

extension HAR {
    /// `date` as HAR writes it: ISO 8601 with milliseconds, in UTC.
    static func dateText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// The standard reason phrase of `statusCode` (RFC 9110), or empty for a code it does not name.
    static func reasonPhrase(_ statusCode: Int) -> String {
        let phrases = [
            200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 206: "Partial Content",
            301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
            307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 410: "Gone",
            415: "Unsupported Media Type", 422: "Unprocessable Content", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[statusCode] ?? ""
    }

    /// Whether `body` is written as text: UTF-8 without NUL bytes.
    static func isText(_ body: Data) -> Bool {
        !body.contains(0) && String(data: body, encoding: .utf8) != nil
    }
}

extension HAR.Content {
    /// The record of a response body: as text when it is UTF-8, otherwise as base64 with
    /// ``encoding`` `base64`.
    public init(body: Data, mimeType: String) {
        if HAR.isText(body) {
            self.init(size: body.count, mimeType: mimeType, text: String(decoding: body, as: UTF8.self))
        } else {
            self.init(size: body.count, mimeType: mimeType, text: body.base64EncodedString(), encoding: "base64")
        }
    }

    /// The body's bytes: ``text`` decoded from base64 when ``encoding`` is `base64`, otherwise as
    /// UTF-8; empty when no text was recorded. `nil` when the base64 is not valid.
    public var data: Data? {
        HAR.bytes(text: text, encoding: encoding)
    }
}

extension HAR.PostData {
    /// The record of a request body: as text when it is UTF-8, otherwise as base64 with
    /// ``encoding`` `base64`.
    public init(body: Data, mimeType: String) {
        if HAR.isText(body) {
            self.init(mimeType: mimeType, text: String(decoding: body, as: UTF8.self))
        } else {
            self.init(mimeType: mimeType, text: body.base64EncodedString(), encoding: "base64")
        }
    }

    /// The body's bytes: ``text`` decoded from base64 when ``encoding`` is `base64`, otherwise as
    /// UTF-8 (or, for a body recorded only as ``params``, those as a form); `nil` when the base64
    /// is not valid.
    public var data: Data? {
        if text == nil, let params {
            var components = URLComponents()
            components.queryItems = params.map { URLQueryItem(name: $0.name, value: $0.value) }
            return Data((components.percentEncodedQuery ?? "").utf8)
        }
        return HAR.bytes(text: text, encoding: encoding)
    }
}

extension HAR {
    static func bytes(text: String?, encoding: String?) -> Data? {
        guard let text else { return Data() }
        if encoding?.lowercased() == "base64" {
            return Data(base64Encoded: text, options: .ignoreUnknownCharacters)
        }
        return Data(text.utf8)
    }
}

extension HAR.Cookie {
    /// The cookies of a `Cookie` field: `name=value` pairs separated by `;`.
    static func parseRequestCookies(_ field: String, redacted: Bool) -> [HAR.Cookie] {
        field.split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return nil }
            let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            return HAR.Cookie(name: name, value: redacted ? HAR.redactedValue : value)
        }
    }

    /// The cookies of a `Set-Cookie` field, several of which may have been joined with `", "`: a
    /// comma starts a new cookie only when a `name=` follows it (the comma of an `Expires` date is
    /// followed by the day).
    static func parseSetCookies(_ field: String, redacted: Bool) -> [HAR.Cookie] {
        var cookies: [String] = []
        for segment in field.split(separator: ",", omittingEmptySubsequences: false) {
            let head = segment.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            if cookies.isEmpty || (head.contains("=") && !(head.trimmingCharacters(in: .whitespaces).first?.isNumber ?? false)) {
                cookies.append(String(segment))
            } else {
                cookies[cookies.count - 1] += "," + segment
            }
        }
        return cookies.compactMap { cookie in
            var attributes = cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !attributes.isEmpty else { return nil }
            let pair = attributes.removeFirst().split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return nil }
            var result = HAR.Cookie(name: name, value: redacted ? HAR.redactedValue : (pair.count > 1 ? String(pair[1]) : ""))
            for attribute in attributes {
                // An empty or nameless attribute (`; ;`, `; =x`) is ignored, as RFC 6265 §5.2 does.
                let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                switch parts[0].lowercased() {
                case "path": result.path = parts.count > 1 ? parts[1] : nil
                case "domain": result.domain = parts.count > 1 ? parts[1] : nil
                case "httponly": result.httpOnly = true
                case "secure": result.secure = true
                default: break
                }
            }
            return result
        }
    }
}
