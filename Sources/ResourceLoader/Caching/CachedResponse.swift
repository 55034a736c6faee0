import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as a cache keeps it: its head, its whole body, when it was requested and received,
/// and the request header fields its `Vary` names.
///
/// The dates are the ones RFC 9111 (section 4.2.3) calls `request_time` and `response_time`,
/// read from the cache's clock; a `304` that revalidates the response moves them on.
public struct CachedResponse: Sendable {
    /// The response's HTTP status code.
    public var statusCode: Int
    /// The URL of the response (the last redirect's, if it was redirected).
    public var url: URL?
    /// The header fields, in the order received; a name may repeat.
    public var headerFields: [(name: String, value: String)]
    /// The whole body.
    public var body: Data
    /// When the request that got this response was sent.
    public var requestDate: Date
    /// When the response was received.
    public var responseDate: Date
    /// The request header fields named by the response's `Vary`, by lowercased name, each with
    /// its normalised value (``CachePolicy/normalizedFieldValue(_:)``); a field the request did
    /// not carry is absent.
    public var varyingRequestFields: [String: String]

    /// Creates a stored response.
    public init(
        statusCode: Int,
        url: URL?,
        headerFields: [(name: String, value: String)],
        body: Data,
        requestDate: Date,
        responseDate: Date,
        varyingRequestFields: [String: String] = [:]
    ) {
        self.statusCode = statusCode
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.requestDate = requestDate
        self.responseDate = responseDate
        self.varyingRequestFields = varyingRequestFields
    }

    /// The value of the header field `name` (matched without regard to ASCII case), the values
    /// of a repeated field joined with `", "`; `nil` without one.
    public func value(forHTTPHeaderField name: String) -> String? {
        var joined: String?
        for field in headerFields where ResponseHead.sameFieldName(field.name, name) {
            joined = joined.map { $0 + ", " + field.value } ?? field.value
        }
        return joined
    }

    /// The head a receiver is given for this response.
    public var head: ResponseHead {
        ResponseHead(statusCode: statusCode, url: url, headerFields: headerFields)
    }

    /// The response's `Cache-Control` directives.
    public var cacheControl: CacheControl {
        CacheControl(value(forHTTPHeaderField: "Cache-Control") ?? "")
    }

    /// About how many bytes the response takes: its body and header fields.
    public var cost: Int {
        body.count + headerFields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            + (url?.absoluteString.utf8.count ?? 0) + 64
    }
}
