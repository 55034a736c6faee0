import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The status and header fields of an HTTP response, as a transport received them.
///
/// What ``NetworkResourceType/validate(_:data:)`` checks by default, and what a transport hands
/// ``ResourceService`` through ``URLSessionType/send(_:options:completionHandler:)``. It reads
/// like an `HTTPURLResponse`, and makes one only when asked for ``httpURLResponse``: on Linux,
/// Foundation's initialiser tidies every field name, work that a transport such as
/// `AsyncHTTPClientTransport` need not do for a resource that only checks the status.
///
/// Header field names are matched without regard to ASCII case. A field received more than once
/// reads as its values joined with `", "`, in the order received, as `URLSession` joins them.
public struct ResponseHead: Sendable {
    /// The response's HTTP status code.
    public let statusCode: Int

    /// The URL of the response: the request's, or the last redirect's.
    public let url: URL?

    private let storage: Storage

    /// The models kept with the stored response this head was read from, when a
    /// ``CachingTransport`` answers from a ``MemoryCacheStore`` (see ``ReusableModelResource``).
    var keptModels: KeptModels?

    private enum Storage: Sendable {
        /// Received as fields; an `HTTPURLResponse` is built on first use.
        case fields([(name: String, value: String)], Locked<HTTPURLResponse??>)
        /// Received as an `HTTPURLResponse` (from `URLSession`, say), kept as it is.
        case foundation(HTTPURLResponse)
    }

    /// Creates a head from a status and the header fields in the order received.
    ///
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - url: The URL the response came from.
    ///   - headerFields: The fields as received; a name may repeat.
    public init(statusCode: Int, url: URL?, headerFields: [(name: String, value: String)]) {
        self.statusCode = statusCode
        self.url = url
        self.storage = .fields(headerFields, Locked(nil))
    }

    /// Creates a head that reads `response`, and returns it as its ``httpURLResponse``.
    public init(_ response: HTTPURLResponse) {
        self.statusCode = response.statusCode
        self.url = response.url
        self.storage = .foundation(response)
    }

    /// The value of the header field `name` (matched without regard to ASCII case), or `nil`;
    /// the values of a repeated field joined with `", "`.
    public func value(forHTTPHeaderField name: String) -> String? {
        switch storage {
        case .foundation(let response):
            return response.value(forHTTPHeaderField: name)
        case .fields(let fields, _):
            var joined: String?
            for field in fields where Self.sameFieldName(field.name, name) {
                if joined == nil {
                    joined = field.value
                } else {
                    joined! += ", " + field.value
                }
            }
            return joined
        }
    }

    /// Every header field: one entry per name, spelt as it first arrived, with the values of a
    /// repeated field joined with `", "` in the order received. (Names of different bytes that
    /// are one Swift string, which no valid field name is, share an entry.)
    ///
    /// For a head made from an `HTTPURLResponse`, its `allHeaderFields` as strings.
    public var headerFields: [String: String] {
        switch storage {
        case .foundation(let response):
            var fields: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { fields[name] = value }
            }
            return fields
        case .fields(let fields, _):
            return Self.joined(fields)
        }
    }

    /// The head as an `HTTPURLResponse`: the transport's own when it gave one, otherwise one made
    /// from ``statusCode``, ``url`` and ``headerFields`` on first use and kept.
    ///
    /// `nil` only when Foundation cannot make one: the head has no ``url``.
    public var httpURLResponse: HTTPURLResponse? {
        switch storage {
        case .foundation(let response):
            return response
        case .fields(let fields, let made):
            return made.withLock { made in
                if let made { return made }
                let response = url.flatMap { url in
                    HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: Self.joined(fields))
                }
                made = .some(response)
                return response
            }
        }
    }

    /// Whether the head holds an `HTTPURLResponse`: the transport's, or one ``httpURLResponse``
    /// has made.
    var holdsHTTPURLResponse: Bool {
        switch storage {
        case .foundation: true
        case .fields(_, let made): made.withLock { $0 != nil }
        }
    }

    // MARK: - Fields

    /// `fields` with one entry per name (matched without regard to ASCII case), spelt as it first
    /// arrived, values joined with `", "` in order. Names that differ in bytes but are one Swift
    /// string (canonically equivalent) share an entry too.
    ///
    /// Up to ``scanLimit`` fields (every ordinary response) the names are matched by comparing
    /// their bytes; past it through a dictionary of lowercased names, so the work stays linear.
    static func joined(_ fields: [(name: String, value: String)]) -> [String: String] {
        var names: [String] = []
        var values: [String] = []
        names.reserveCapacity(fields.count)
        values.reserveCapacity(fields.count)
        if fields.count <= scanLimit {
            next: for (name, value) in fields {
                for index in names.indices where sameFieldName(names[index], name) {
                    values[index] += ", " + value
                    continue next
                }
                names.append(name)
                values.append(value)
            }
        } else {
            var indexOfName: [String: Int] = [:]
            for (name, value) in fields {
                // Lowercased as ASCII, as `sameFieldName` compares: no other letter is folded.
                let key = String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
                if let index = indexOfName[key] {
                    values[index] += ", " + value
                } else {
                    indexOfName[key] = names.count
                    names.append(name)
                    values.append(value)
                }
            }
        }
        // Two names of different bytes may be one Swift string (canonically equivalent, as the
        // Kelvin sign and `K`): the dictionary holds them as one key, their values joined.
        return Dictionary(zip(names, values)) { $0 + ", " + $1 }
    }

    /// The most fields ``joined(_:)`` matches by scanning the names seen so far.
    static let scanLimit = 24

    /// Whether two field names (or URL schemes) are the same without regard to ASCII case.
    /// Field names are tokens, ASCII by RFC 9110.
    package static func sameFieldName(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        for (l, r) in zip(left, right) where l != r {
            // Equal only as the two cases of one ASCII letter.
            guard l ^ r == 0x20, case 0x61...0x7A = l | 0x20 else { return false }
        }
        return true
    }
}
