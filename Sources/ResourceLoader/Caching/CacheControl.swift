import Foundation

/// The directives of a `Cache-Control` header field (RFC 9111, section 5.2), as a request or a
/// response carries them.
///
/// Parsed leniently and safely: directive names are matched without regard to case, values may
/// be tokens or quoted strings (with `\` escapes), unknown directives are ignored, and empty
/// members (`a,,b`) are skipped. Several `Cache-Control` fields read as one list.
///
/// When a directive appears more than once, or its value is not a valid number, the most
/// restrictive reading wins, as RFC 9111 (section 4.2.1) encourages:
/// - `max-age`, `s-maxage`, `max-stale`, `stale-if-error` and `stale-while-revalidate` keep
///   their smallest value; `min-fresh` its largest;
/// - a `max-age` or `s-maxage` whose value is not a non-negative integer reads as `0` (stale);
///   so does a negative one;
/// - a `max-stale`, `min-fresh`, `stale-if-error` or `stale-while-revalidate` whose value is
///   not a number is ignored, except that `max-stale` with no value at all accepts any
///   staleness;
/// - `no-cache` and `private` with a list of field names (`no-cache="Set-Cookie"`) read as the
///   unqualified directive: the whole response is affected, never only those fields;
/// - a number too large for the cache is read as 2,147,483,648 seconds (section 1.2.2).
public struct CacheControl: Sendable, Hashable {
    /// `no-cache`: a stored response must be validated with the origin before each use.
    public var noCache = false
    /// `no-store`: nothing of the request or response is stored.
    public var noStore = false
    /// `must-revalidate`: once stale, the response is never used without validation.
    public var mustRevalidate = false
    /// `must-understand`: the response may be stored only by a cache that understands its
    /// status code, which then ignores the response's `no-store` (RFC 9111, section 5.2.2.3).
    public var mustUnderstand = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches only.
    public var proxyRevalidate = false
    /// `private`: a shared cache does not store the response.
    public var isPrivate = false
    /// `public`: the response may be stored even where it normally would not be (an
    /// authorised request, a status not cacheable by default).
    public var isPublic = false
    /// `immutable` (RFC 8246): the response does not change while fresh.
    public var isImmutable = false
    /// `only-if-cached`: the request is answered only from the cache.
    public var onlyIfCached = false
    /// `max-age`, in seconds: in a response, its freshness lifetime; in a request, the oldest
    /// response the client accepts.
    public var maxAge: Int?
    /// `s-maxage`, in seconds: the freshness lifetime for shared caches.
    public var sharedMaxAge: Int?
    /// `max-stale`, in seconds: how stale a response the client accepts; `Int.max` when the
    /// directive has no value (any staleness).
    public var maxStale: Int?
    /// `min-fresh`, in seconds: how long the response must stay fresh for the client.
    public var minFresh: Int?
    /// `stale-if-error`, in seconds (RFC 5861): how long past its freshness a response may
    /// answer in place of an error.
    public var staleIfError: Int?
    /// `stale-while-revalidate`, in seconds (RFC 5861): how long past its freshness a response
    /// may answer at once while the cache validates it in the background.
    public var staleWhileRevalidate: Int?

    /// The largest number of seconds a directive is read as (RFC 9111, section 1.2.2).
    public static let largestDeltaSeconds = 2_147_483_648

    /// Creates an empty set of directives.
    public init() {}

    /// Reads the directives of one or more `Cache-Control` field values (joined with `,`).
    public init(_ fieldValue: String) {
        for (name, value) in Self.members(of: fieldValue) {
            apply(name: name, value: value)
        }
    }

    /// Reads the `Cache-Control` field of `head`; empty without one.
    public init(_ head: ResponseHead) {
        self.init(head.value(forHTTPHeaderField: "Cache-Control") ?? "")
    }

    // MARK: - Applying a directive

    private mutating func apply(name: String, value: String?) {
        switch name {
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "must-revalidate": mustRevalidate = true
        case "must-understand": mustUnderstand = true
        case "proxy-revalidate": proxyRevalidate = true
        case "private": isPrivate = true
        case "public": isPublic = true
        case "immutable": isImmutable = true
        case "only-if-cached": onlyIfCached = true
        case "max-age": maxAge = Self.smaller(maxAge, Self.seconds(value) ?? 0)
        case "s-maxage": sharedMaxAge = Self.smaller(sharedMaxAge, Self.seconds(value) ?? 0)
        case "max-stale":
            if value == nil {
                maxStale = Self.smaller(maxStale, Int.max)
            } else if let seconds = Self.seconds(value) {
                maxStale = Self.smaller(maxStale, seconds)
            }
        case "min-fresh":
            if let seconds = Self.seconds(value) { minFresh = max(minFresh ?? 0, seconds) }
        case "stale-if-error":
            if let seconds = Self.seconds(value) { staleIfError = Self.smaller(staleIfError, seconds) }
        case "stale-while-revalidate":
            if let seconds = Self.seconds(value) { staleWhileRevalidate = Self.smaller(staleWhileRevalidate, seconds) }
        default: break
        }
    }

    private static func smaller(_ current: Int?, _ new: Int) -> Int {
        current.map { min($0, new) } ?? new
    }

    /// A delta-seconds value: ASCII digits only, capped at ``largestDeltaSeconds``.
    static func seconds(_ value: String?) -> Int? {
        guard let value, !value.isEmpty else { return nil }
        var total = 0
        for byte in value.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            total = min(total * 10 + Int(byte - UInt8(ascii: "0")), largestDeltaSeconds)
        }
        return total
    }

    // MARK: - Splitting a field value

    /// The members of a comma-separated list of directives: lowercased names, and values with
    /// their quotes and escapes taken away (`nil` for a directive without `=`).
    package static func members(of fieldValue: String) -> [(name: String, value: String?)] {
        var members: [(name: String, value: String?)] = []
        let bytes = Array(fieldValue.utf8)
        var index = 0
        func skipWhitespace() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        }
        while index < bytes.count {
            skipWhitespace()
            let nameStart = index
            while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: " "), UInt8(ascii: "\t")].contains(bytes[index]) {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            // No white space around `=` (RFC 9111's grammar has none): `max-age =60` is a
            // `max-age` without its value, and `max-age= 60` one with an empty value.
            var value: String?
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    index += 1
                    var unquoted: [UInt8] = []
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                        unquoted.append(bytes[index])
                        index += 1
                    }
                    index += 1  // The closing quote (or past the end, for an unclosed one).
                    value = String(decoding: unquoted, as: UTF8.self)
                } else {
                    let valueStart = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: " "),
                        bytes[index] != UInt8(ascii: "\t")
                    {
                        index += 1
                    }
                    value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                }
            }
            // Anything else up to the next comma is not part of a valid member: skipped.
            while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
            index += 1
            if !name.isEmpty { members.append((name, value)) }
        }
        return members
    }
}
