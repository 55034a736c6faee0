import Foundation

/// An HTTP Archive (HAR) 1.2 document: recorded HTTP exchanges, in the format browsers, `curl`,
/// Charles and mitmproxy export.
///
/// ``RecordingTransport`` writes one, ``ReplayTransport`` answers from one. The model follows the
/// [HAR 1.2 specification](http://www.softwareishard.com/blog/har-12-spec/): the fields it
/// requires are non-optional here, the optional ones are optionals, and the fields of other tools
/// that this model does not name (`pages`, `_initiator`, …) are ignored when reading.
///
/// ```swift
/// let har = try HAR(contentsOf: URL(fileURLWithPath: "Fixtures/cities.har"))
/// print(har.log.entries.map(\.request.url))
/// ```
public struct HAR: Codable, Sendable, Equatable {
    /// The archive's only root field.
    public var log: Log

    /// Creates an archive from its log.
    public init(log: Log) {
        self.log = log
    }

    /// Reads a HAR document from JSON.
    ///
    /// - Throws: `DecodingError` when the JSON is not a HAR 1.2 document.
    public init(data: Data) throws {
        self = try JSONDecoder().decode(HAR.self, from: data)
    }

    /// Reads a HAR file.
    ///
    /// - Throws: the file system's error when the file cannot be read, `DecodingError` when it is
    ///   not a HAR 1.2 document.
    public init(contentsOf url: URL) throws {
        try self.init(data: Data(contentsOf: url))
    }

    /// The archive as JSON: pretty-printed with sorted keys, so that a committed file changes only
    /// where the traffic did.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Writes ``jsonData()`` to `url`, atomically.
    public func write(to url: URL) throws {
        try jsonData().write(to: url, options: .atomic)
    }

    /// The value that stands in a HAR for every redacted field's value: `[redacted]`.
    public static let redactedValue = "[redacted]"
}

extension HAR {
    /// The root of a HAR document: who made it and the recorded entries.
    public struct Log: Codable, Sendable, Equatable {
        /// The format's version: `1.2`.
        public var version: String
        /// The tool that wrote the archive.
        public var creator: Creator
        /// The browser that made the requests, when a browser did.
        public var browser: Creator?
        /// The exchanges, in the order they started.
        public var entries: [Entry]
        /// A comment.
        public var comment: String?

        /// Creates a log.
        public init(version: String = "1.2", creator: Creator, browser: Creator? = nil, entries: [Entry], comment: String? = nil) {
            self.version = version
            self.creator = creator
            self.browser = browser
            self.entries = entries
            self.comment = comment
        }
    }

    /// The tool (or browser) that wrote an archive.
    public struct Creator: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its version.
        public var version: String
        /// A comment.
        public var comment: String?

        /// Creates a creator.
        public init(name: String, version: String, comment: String? = nil) {
            self.name = name
            self.version = version
            self.comment = comment
        }
    }

    /// One recorded exchange: a request and its response.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the request started, as an ISO 8601 date with fractional seconds and a time zone.
        public var startedDateTime: String
        /// The exchange's total time in milliseconds.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response.
        public var response: Response
        /// The cache's part in the exchange (always present, usually empty).
        public var cache: Cache
        /// How the time was spent.
        public var timings: Timings
        /// The server's IP address, when known.
        public var serverIPAddress: String?
        /// The connection's identifier, when known.
        public var connection: String?
        /// A comment.
        public var comment: String?

        /// Creates an entry.
        public init(
            startedDateTime: String, time: Double, request: Request, response: Response,
            cache: Cache = Cache(), timings: Timings, serverIPAddress: String? = nil,
            connection: String? = nil, comment: String? = nil
        ) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.cache = cache
            self.timings = timings
            self.serverIPAddress = serverIPAddress
            self.connection = connection
            self.comment = comment
        }
    }

    /// A recorded request.
    public struct Request: Codable, Sendable, Equatable {
        /// The method, such as `GET`.
        public var method: String
        /// The absolute URL, query included.
        public var url: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies sent.
        public var cookies: [Cookie]
        /// The header fields sent, in order; a name may repeat.
        public var headers: [Header]
        /// The URL's query parameters, in order.
        public var queryString: [QueryParameter]
        /// The body, when there is one.
        public var postData: PostData?
        /// The size of the head in bytes, or `-1` when unknown.
        public var headersSize: Int
        /// The size of the body in bytes, or `-1` when unknown.
        public var bodySize: Int
        /// A comment.
        public var comment: String?

        /// Creates a request.
        public init(
            method: String, url: String, httpVersion: String = "HTTP/1.1", cookies: [Cookie] = [],
            headers: [Header] = [], queryString: [QueryParameter] = [], postData: PostData? = nil,
            headersSize: Int = -1, bodySize: Int = -1, comment: String? = nil
        ) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.queryString = queryString
            self.postData = postData
            self.headersSize = headersSize
            self.bodySize = bodySize
            self.comment = comment
        }
    }

    /// A recorded response.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code.
        public var status: Int
        /// The reason phrase, such as `OK` (may be empty).
        public var statusText: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies set.
        public var cookies: [Cookie]
        /// The header fields received, in order; a name may repeat.
        public var headers: [Header]
        /// The body.
        public var content: Content
        /// The `Location` of a redirect, or empty.
        public var redirectURL: String
        /// The size of the head in bytes, or `-1` when unknown.
        public var headersSize: Int
        /// The size of the body as received in bytes, or `-1` when unknown.
        public var bodySize: Int
        /// A comment.
        public var comment: String?

        /// Creates a response.
        public init(
            status: Int, statusText: String = "", httpVersion: String = "HTTP/1.1", cookies: [Cookie] = [],
            headers: [Header] = [], content: Content, redirectURL: String = "", headersSize: Int = -1,
            bodySize: Int = -1, comment: String? = nil
        ) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            self.headersSize = headersSize
            self.bodySize = bodySize
            self.comment = comment
        }
    }

    /// A header field.
    public struct Header: Codable, Sendable, Equatable {
        /// The field name, as sent.
        public var name: String
        /// The field value.
        public var value: String
        /// A comment.
        public var comment: String?

        /// Creates a header field.
        public init(name: String, value: String, comment: String? = nil) {
            self.name = name
            self.value = value
            self.comment = comment
        }
    }

    /// A query parameter of a request's URL, decoded.
    public struct QueryParameter: Codable, Sendable, Equatable {
        /// The parameter's name.
        public var name: String
        /// The parameter's value (empty when it has none).
        public var value: String
        /// A comment.
        public var comment: String?

        /// Creates a query parameter.
        public init(name: String, value: String, comment: String? = nil) {
            self.name = name
            self.value = value
            self.comment = comment
        }
    }

    /// A cookie sent or set.
    public struct Cookie: Codable, Sendable, Equatable {
        /// The cookie's name.
        public var name: String
        /// The cookie's value.
        public var value: String
        /// The path it applies to.
        public var path: String?
        /// The domain it applies to.
        public var domain: String?
        /// When it expires, as an ISO 8601 date.
        public var expires: String?
        /// Whether it is hidden from scripts.
        public var httpOnly: Bool?
        /// Whether it is sent only over TLS.
        public var secure: Bool?
        /// A comment.
        public var comment: String?

        /// Creates a cookie.
        public init(
            name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
            httpOnly: Bool? = nil, secure: Bool? = nil, comment: String? = nil
        ) {
            self.name = name
            self.value = value
            self.path = path
            self.domain = domain
            self.expires = expires
            self.httpOnly = httpOnly
            self.secure = secure
            self.comment = comment
        }
    }

    /// A request's body.
    ///
    /// HAR 1.2 stores request bodies as text only; a body that is not UTF-8 text is written as
    /// base64 with the custom field `_encoding` set to `base64` (custom fields start with an
    /// underscore, as the specification asks), which ``data`` reads back.
    public struct PostData: Codable, Sendable, Equatable {
        /// The body's media type (may be empty).
        public var mimeType: String
        /// The body as text, or as base64 when ``encoding`` is `base64`.
        public var text: String?
        /// The form parameters of a `application/x-www-form-urlencoded` or multipart body, as
        /// some tools write them instead of ``text``.
        public var params: [Param]?
        /// `base64` when ``text`` is the base64 of a binary body.
        public var encoding: String?
        /// A comment.
        public var comment: String?

        /// Creates a request body.
        public init(mimeType: String, text: String?, params: [Param]? = nil, encoding: String? = nil, comment: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.params = params
            self.encoding = encoding
            self.comment = comment
        }

        private enum CodingKeys: String, CodingKey {
            case mimeType, text, params, comment
            case encoding = "_encoding"
        }
    }

    /// A parameter of a posted form.
    public struct Param: Codable, Sendable, Equatable {
        /// The parameter's name.
        public var name: String
        /// Its value.
        public var value: String?
        /// The name of a posted file.
        public var fileName: String?
        /// The media type of a posted file.
        public var contentType: String?
        /// A comment.
        public var comment: String?

        /// Creates a form parameter.
        public init(name: String, value: String?, fileName: String? = nil, contentType: String? = nil, comment: String? = nil) {
            self.name = name
            self.value = value
            self.fileName = fileName
            self.contentType = contentType
            self.comment = comment
        }
    }

    /// A response's body, decoded from any `Content-Encoding`.
    public struct Content: Codable, Sendable, Equatable {
        /// The body's length in bytes.
        public var size: Int
        /// The bytes saved by compression, when known.
        public var compression: Int?
        /// The body's media type (may be empty).
        public var mimeType: String
        /// The body as text, or as base64 when ``encoding`` is `base64`; absent when not recorded.
        public var text: String?
        /// `base64` when ``text`` is the base64 of a binary body.
        public var encoding: String?
        /// A comment.
        public var comment: String?

        /// Creates a response body.
        public init(size: Int, compression: Int? = nil, mimeType: String, text: String?, encoding: String? = nil, comment: String? = nil) {
            self.size = size
            self.compression = compression
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.comment = comment
        }
    }

    /// The cache's part in an exchange. Recorders here leave it empty.
    public struct Cache: Codable, Sendable, Equatable {
        /// A comment.
        public var comment: String?

        /// Creates an empty cache record.
        public init(comment: String? = nil) {
            self.comment = comment
        }
    }

    /// How an exchange's time was spent, in milliseconds; `-1` where a phase does not apply.
    public struct Timings: Codable, Sendable, Equatable {
        /// Waiting for a connection.
        public var blocked: Double?
        /// Resolving the host name.
        public var dns: Double?
        /// Opening the connection, TLS included.
        public var connect: Double?
        /// Sending the request.
        public var send: Double
        /// Waiting for the first byte of the response.
        public var wait: Double
        /// Receiving the response.
        public var receive: Double
        /// The TLS handshake.
        public var ssl: Double?
        /// A comment.
        public var comment: String?

        /// Creates timings.
        public init(
            blocked: Double? = nil, dns: Double? = nil, connect: Double? = nil, send: Double, wait: Double,
            receive: Double, ssl: Double? = nil, comment: String? = nil
        ) {
            self.blocked = blocked
            self.dns = dns
            self.connect = connect
            self.send = send
            self.wait = wait
            self.receive = receive
            self.ssl = ssl
            self.comment = comment
        }
    }
}
