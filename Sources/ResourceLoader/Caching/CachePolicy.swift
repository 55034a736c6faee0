import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rules of RFC 9111 an HTTP cache follows, as pure functions: whether a response may be
/// stored, how long it stays fresh, whether a stored response answers a request, the
/// conditional request that validates it, the merge of a `304`, `Vary`, and what an unsafe
/// request invalidates.
///
/// Nothing here reads a clock: every function that needs the time takes it as `now`, so the
/// same inputs always give the same answer. ``CachingTransport`` applies these rules with the
/// date of its clock (a ``ResourcePipeline``'s ``ResourcePipeline/currentDate`` when the
/// pipeline makes it).
///
/// ## Heuristic freshness
///
/// A response with no explicit freshness (`max-age`, `s-maxage`, `Expires`) but a status that is
/// cacheable by default (or `public`) and a `Last-Modified` date is fresh for a fraction of the
/// time between `Last-Modified` and its `Date` (section 4.2.2): ``heuristicFraction`` (10%, the
/// figure the RFC cites and browsers and OkHttp use), capped at ``heuristicLimit`` (seven days by
/// default) so that a document unchanged for years is not reused for months without a check.
/// OkHttp applies no cap; set ``heuristicLimit`` to `.infinity` to do the same.
public struct CachePolicy: Sendable {
    /// Whose cache it is: it decides what may be stored and which directives apply.
    public enum Mode: Sendable, Hashable {
        /// A cache shared by many users, such as a server's (RFC 9111's "shared cache"): a
        /// `private` response is never stored, nor one to a request with credentials
        /// (``TransferRules/credentialHeaderFields``: `Authorization`, `Proxy-Authorization`,
        /// `Cookie`) unless it says it may be (`public`, `s-maxage` or `must-revalidate`), and
        /// `s-maxage` and `proxy-revalidate` apply. An authorised answer reaches another user only
        /// when it says it may.
        case shared
        /// A cache that serves one user, such as an app's: `private` and authorised responses
        /// are stored, and `s-maxage` and `proxy-revalidate` are ignored.
        case `private`
    }

    /// Why a response was not stored.
    public enum NotStoredReason: String, Sendable, Hashable {
        /// The request's method is neither `GET` nor `HEAD`.
        case method
        /// The status is not cacheable by default and the response gave no explicit freshness,
        /// nor `public` with a validator (or it is a `206` or a `304`, which are never stored as
        /// such); or the response said `must-understand` and its status is not one the cache
        /// understands (``CachePolicy/heuristicallyCacheableStatuses``).
        case status
        /// The request said `no-store`.
        case requestNoStore
        /// The response said `no-store`, without `must-understand` (with it, a response whose
        /// status the cache understands is stored all the same).
        case responseNoStore
        /// The response said `private`, and the cache is shared.
        case privateResponse
        /// The request carried credentials (``TransferRules/credentialHeaderFields``:
        /// `Authorization`, `Proxy-Authorization`, `Cookie`), the cache is shared, and the
        /// response did not say `public`, `s-maxage` or `must-revalidate` (section 3.5).
        case authorization
        /// The response said `Vary: *`: no later request can match it.
        case varyAll
        /// The response has neither a freshness lifetime nor a validator (`ETag`,
        /// `Last-Modified`): it could never be used again.
        case noFreshnessOrValidator
        /// The request carried its own preconditions or a `Range`: its answer is the caller's
        /// and is neither served from nor stored in the cache.
        case conditionalRequest
        /// The transfer did not deliver the whole body (an error, a cancellation, a limit).
        case incompleteBody
        /// The body is larger than the cache keeps (``HTTPCache/maximumBodyBytes``, or the
        /// transfer's ``TransferOptions/maximumResponseBytes``).
        case tooLarge
    }

    /// What a stored response can do for a request.
    public enum Use: Sendable, Equatable {
        /// Answer it without contacting the origin: fresh, or stale within the request's
        /// `max-stale`.
        case serve
        /// Answer it only after the origin confirms it, with these preconditions (`If-None-Match`
        /// or `If-Modified-Since`); with none, the response has no validator and is fetched again.
        case validate(conditions: [String: String])
    }

    /// Whose cache this is.
    public var mode: Mode
    /// The fraction of the time since `Last-Modified` a response is heuristically fresh for.
    public var heuristicFraction: Double
    /// The longest heuristic freshness lifetime, in seconds.
    public var heuristicLimit: TimeInterval

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - mode: Whose cache it is. Default: ``Mode/shared``.
    ///   - heuristicFraction: The fraction of the time since `Last-Modified` a response without
    ///     explicit freshness stays fresh. Default: `0.1`.
    ///   - heuristicLimit: The cap on that lifetime, in seconds. Default: seven days.
    public init(mode: Mode = .shared, heuristicFraction: Double = 0.1, heuristicLimit: TimeInterval = 7 * 86_400) {
        self.mode = mode
        self.heuristicFraction = heuristicFraction
        self.heuristicLimit = heuristicLimit
    }

    // MARK: - Storing (section 3)

    /// The statuses a response may be stored with without explicit freshness (RFC 9110, section
    /// 15.1), but `206`, which a cache that does not combine ranges does not store. They are also
    /// the statuses the cache understands for `must-understand` (RFC 9111, section 5.2.2.3).
    public static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Why `response`, the answer to a request with `method`, `requestDirectives` and (when
    /// `requestHasAuthorization`) credentials, may not be stored; `nil` when it may.
    ///
    /// ``CachingTransport`` reads a request as authorised when it carries any of the
    /// ``TransferRules/credentialHeaderFields`` (`Authorization`, `Proxy-Authorization`,
    /// `Cookie`), or when the transport it wraps adds some to every request (a
    /// ``URLSessionTransport`` whose configuration's `httpAdditionalHeaders` name them).
    ///
    /// A response that says `must-understand` is stored only when its status is one the cache
    /// understands (``heuristicallyCacheableStatuses``), and then its `no-store` is ignored
    /// (sections 3 and 5.2.2.3); the other rules still apply.
    public func reasonNotToStore(
        method: String,
        requestDirectives: CacheControl,
        requestHasAuthorization: Bool,
        response: ResponseHead
    ) -> NotStoredReason? {
        let method = method.uppercased()
        guard method == "GET" || method == "HEAD" else { return .method }
        if requestDirectives.noStore { return .requestNoStore }
        let directives = CacheControl(response)
        let status = response.statusCode
        if directives.mustUnderstand {
            guard Self.heuristicallyCacheableStatuses.contains(status) else { return .status }
        } else if directives.noStore {
            return .responseNoStore
        }
        guard status >= 200, status != 206, status != 304 else { return .status }
        if mode == .shared, directives.isPrivate { return .privateResponse }
        if mode == .shared, requestHasAuthorization,
            !(directives.mustRevalidate || directives.isPublic || directives.sharedMaxAge != nil)
        {
            return .authorization
        }
        if Self.varyingFieldNames(response.value(forHTTPHeaderField: "Vary")) == nil { return .varyAll }
        let explicit = directives.maxAge != nil || (mode == .shared && directives.sharedMaxAge != nil)
            || response.value(forHTTPHeaderField: "Expires") != nil
        let validator = response.value(forHTTPHeaderField: "ETag") != nil
            || response.value(forHTTPHeaderField: "Last-Modified") != nil
        if Self.heuristicallyCacheableStatuses.contains(status) {
            return explicit || validator ? nil : .noFreshnessOrValidator
        }
        // Any other final status needs explicit freshness, or `public` with something to use.
        if explicit { return nil }
        if directives.isPublic { return validator ? nil : .noFreshnessOrValidator }
        return .status
    }

    // MARK: - Freshness and age (section 4.2)

    /// How long `response` stays fresh after it was generated, in seconds (section 4.2.1):
    /// `s-maxage` (shared mode), else `max-age`, else `Expires` minus `Date`, else the heuristic.
    ///
    /// An `Expires` that is not a valid date means already expired.
    public func freshnessLifetime(of response: CachedResponse) -> TimeInterval {
        let directives = response.cacheControl
        if mode == .shared, let shared = directives.sharedMaxAge { return TimeInterval(shared) }
        if let maxAge = directives.maxAge { return TimeInterval(maxAge) }
        let date = Self.dateValue(of: response)
        if let expires = response.value(forHTTPHeaderField: "Expires") {
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        return heuristicFreshnessLifetime(of: response)
    }

    /// The heuristic freshness lifetime of `response` (section 4.2.2): ``heuristicFraction`` of
    /// the time from its `Last-Modified` to its `Date`, at most ``heuristicLimit``; zero without
    /// a `Last-Modified` date, and for a status that is not cacheable by default unless the
    /// response says `public` (which section 4.2.2 allows a heuristic for).
    public func heuristicFreshnessLifetime(of response: CachedResponse) -> TimeInterval {
        guard Self.heuristicallyCacheableStatuses.contains(response.statusCode) || response.cacheControl.isPublic,
            let lastModified = response.value(forHTTPHeaderField: "Last-Modified").flatMap(HTTPDate.parse)
        else { return 0 }
        let interval = Self.dateValue(of: response).timeIntervalSince(lastModified)
        guard interval > 0 else { return 0 }
        return min(interval * heuristicFraction, heuristicLimit)
    }

    /// The age of `response` at `now`, in seconds (section 4.2.3): the larger of the apparent age
    /// (`responseDate` minus `Date`) and the `Age` it arrived with plus the time the request
    /// took, plus the time it has been stored.
    public func currentAge(of response: CachedResponse, now: Date) -> TimeInterval {
        let apparentAge = max(0, response.responseDate.timeIntervalSince(Self.dateValue(of: response)))
        let responseDelay = max(0, response.responseDate.timeIntervalSince(response.requestDate))
        let ageValue = response.value(forHTTPHeaderField: "Age").flatMap { CacheControl.seconds($0.trimmingOWS) } ?? 0
        let correctedAgeValue = TimeInterval(ageValue) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(response.responseDate))
        return correctedInitialAge + residentTime
    }

    /// An `Age` field's value for `age` seconds: whole seconds, at most
    /// ``CacheControl/largestDeltaSeconds`` (RFC 9111, section 1.2.2, which no sender exceeds).
    static func ageFieldValue(_ age: TimeInterval) -> String {
        let largest = CacheControl.largestDeltaSeconds
        guard age < Double(largest) else { return String(largest) }
        return age >= 0 ? String(Int(age.rounded(.down))) : "0"
    }

    /// The response's `Date`, or when it was received when it has no valid one.
    static func dateValue(of response: CachedResponse) -> Date {
        response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) ?? response.responseDate
    }

    // MARK: - Using a stored response (section 4)

    /// Whether `response` may answer a request with `requestDirectives` at `now`, or must be
    /// validated first (sections 4.2, 4.3, 5.2).
    ///
    /// The request's `no-cache`, or the response's, always asks for validation. A request's
    /// `max-age` shortens the lifetime, its `min-fresh` asks for that much freshness left, and its
    /// `max-stale` accepts that much staleness, unless the response says `must-revalidate` (or,
    /// in shared mode, `proxy-revalidate` or `s-maxage`).
    public func use(of response: CachedResponse, for requestDirectives: CacheControl, now: Date) -> Use {
        let directives = response.cacheControl
        let validation = Use.validate(conditions: Self.conditions(toValidate: response))
        if requestDirectives.noCache || directives.noCache { return validation }
        let age = currentAge(of: response, now: now)
        var lifetime = freshnessLifetime(of: response)
        if let maxAge = requestDirectives.maxAge { lifetime = min(lifetime, TimeInterval(maxAge)) }
        let minFresh = TimeInterval(requestDirectives.minFresh ?? 0)
        var maxStale: TimeInterval = 0
        if let requested = requestDirectives.maxStale, !mustRevalidate(directives) {
            maxStale = requested == Int.max ? .infinity : TimeInterval(requested)
        }
        return age + minFresh < lifetime + maxStale ? .serve : validation
    }

    /// Whether `response` may answer in place of an error at `now` (RFC 5861's
    /// `stale-if-error`), at most `limit` seconds past its freshness: when the response or the
    /// request gives `stale-if-error`, within the smallest of theirs and `limit`. Never for a
    /// response that must be revalidated once stale.
    public func mayAnswerError(
        with response: CachedResponse,
        for requestDirectives: CacheControl,
        now: Date,
        limit: TimeInterval
    ) -> Bool {
        let directives = response.cacheControl
        if requestDirectives.noCache || directives.noCache || mustRevalidate(directives) { return false }
        var window = limit
        for stated in [directives.staleIfError, requestDirectives.staleIfError].compactMap({ $0 }) {
            window = min(window, TimeInterval(stated))
        }
        let staleness = currentAge(of: response, now: now) - freshnessLifetime(of: response)
        return staleness <= window
    }

    /// Whether `response`, which ``use(of:for:now:)`` says must be validated, may answer a
    /// request with `requestDirectives` at once while the cache validates it in the background
    /// (RFC 5861's `stale-while-revalidate`): when the response says `stale-while-revalidate`
    /// and is stale by no more than that many seconds at `now`.
    ///
    /// Never when the request or the response says `no-cache`, when the response must be
    /// revalidated once stale (`must-revalidate`, and in shared mode `proxy-revalidate` or
    /// `s-maxage`: RFC 9111, section 4.2.4), or when the request asks for a fresher response
    /// (`max-age`, `min-fresh`).
    public func mayServeWhileRevalidating(_ response: CachedResponse, for requestDirectives: CacheControl, now: Date) -> Bool {
        let directives = response.cacheControl
        guard let window = directives.staleWhileRevalidate,
            !requestDirectives.noCache, !directives.noCache, !mustRevalidate(directives),
            requestDirectives.maxAge == nil, requestDirectives.minFresh == nil
        else { return false }
        let staleness = currentAge(of: response, now: now) - freshnessLifetime(of: response)
        return staleness <= TimeInterval(window)
    }

    private func mustRevalidate(_ directives: CacheControl) -> Bool {
        directives.mustRevalidate || (mode == .shared && (directives.proxyRevalidate || directives.sharedMaxAge != nil))
    }

    /// The preconditions that validate `response` (section 4.3.1): `If-None-Match` with its
    /// `ETag`, or else `If-Modified-Since` with its `Last-Modified`; none without a validator.
    public static func conditions(toValidate response: CachedResponse) -> [String: String] {
        if let tag = response.value(forHTTPHeaderField: "ETag") { return ["If-None-Match": tag] }
        if let date = response.value(forHTTPHeaderField: "Last-Modified") { return ["If-Modified-Since": date] }
        return [:]
    }

    /// The header fields that make a request conditional or partial: a request that carries one
    /// is its caller's business, not the cache's.
    public static let preconditionFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    // MARK: - Updating with a 304 (section 4.3.4)

    /// The fields a `304` never replaces in a stored response: `Content-Length` (section 3.2),
    /// `Content-Encoding` (the stored body is kept as the transport decoded it, so its coding is
    /// the stored one), `Content-Digest` and `Repr-Digest` (they describe the stored body as it
    /// was kept, and a decoded body is kept without those of the coded bytes), and the
    /// hop-by-hop fields. Every other field of the `304`, `Content-Type` included, replaces the
    /// stored one, as the `cache-tests` suite expects.
    public static let fieldsKeptOnUpdate: Set<String> = [
        "content-length", "content-encoding", "content-digest", "repr-digest", "connection", "keep-alive",
        "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// `stored` updated with the header fields of `notModified`, a `304` that validated it
    /// (section 4.3.4): each field of the `304` replaces the stored fields of that name (but
    /// ``fieldsKeptOnUpdate``), the body is kept, and the dates become those of the validation.
    ///
    /// The request fields it keeps for `Vary` (``CachedResponse/varyingRequestFields``) are the
    /// stored response's: a cache storing the result records those of the request that was
    /// validated, for the `Vary` of the result (``varyingRequestFields(of:for:)``), as
    /// ``CachingTransport`` does.
    public static func merging(
        _ stored: CachedResponse,
        with notModified: ResponseHead,
        requestDate: Date,
        responseDate: Date
    ) -> CachedResponse {
        let updates = notModified.headerFields.filter {
            !fieldsKeptOnUpdate.contains($0.key.lowercased()) && mayStoreField($0.key, of: notModified)
        }
        var merged = stored
        merged.headerFields = stored.headerFields.filter { field in
            !updates.keys.contains { ResponseHead.sameFieldName($0, field.name) }
        }
        for (name, value) in updates.sorted(by: { $0.key < $1.key }) {
            merged.headerFields.append((name, value))
        }
        merged.requestDate = requestDate
        merged.responseDate = responseDate
        return merged
    }

    /// The fields of a response that are never stored (section 3.1): `Connection` and the fields
    /// it names, the other hop-by-hop fields (RFC 9110, section 7.6.1), and the fields that
    /// belong to a proxy on the way (`Proxy-Authenticate`, `Proxy-Authentication-Info`).
    public static let fieldsNeverStored: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// Whether the field `name` of `head` may be kept in a stored response (section 3.1): it is
    /// neither one of ``fieldsNeverStored`` nor named by the response's `Connection` field.
    public static func mayStoreField(_ name: String, of head: ResponseHead) -> Bool {
        mayStoreField(name, connectionOptions: connectionOptions(of: head))
    }

    /// The field names the `Connection` field of `head` lists, which are never stored.
    static func connectionOptions(of head: ResponseHead) -> [String] {
        guard let connection = head.value(forHTTPHeaderField: "Connection") else { return [] }
        return connection.split(separator: ",").map(\.trimmingOWS)
    }

    /// ``mayStoreField(_:of:)`` for a head whose ``connectionOptions(of:)`` are
    /// `connectionOptions`, read once for all its fields.
    static func mayStoreField(_ name: String, connectionOptions: [String]) -> Bool {
        !fieldsNeverStored.contains { ResponseHead.sameFieldName(name, $0) }
            && !connectionOptions.contains { ResponseHead.sameFieldName(name, $0) }
    }

    /// Whether the `200` answer to a `HEAD` request can freshen `stored`, the stored answer to a
    /// `GET` of the same URL (section 4.3.5): each validator it has (`ETag`, `Last-Modified`)
    /// equals the stored response's, and its `Content-Length`, when it has one (a list of equal
    /// values counts as one), is the stored body's length. A `HEAD` answer of the stored
    /// response's content coding without validators or length freshens the stored response, as
    /// the RFC reads. When it cannot, the stored response is to be considered stale.
    ///
    /// A `HEAD` answer whose `Content-Encoding` is not the stored response's (a body stored
    /// decoded, without its coding) describes a body coded otherwise, whose length says nothing
    /// of the stored one: its validators decide, and one of them must be there, with a
    /// `Content-Length` or without one.
    public static func headResponse(_ head: ResponseHead, freshens stored: CachedResponse) -> Bool {
        var matchedValidator = false
        for field in ["ETag", "Last-Modified"] {
            guard let value = head.value(forHTTPHeaderField: field) else { continue }
            guard stored.value(forHTTPHeaderField: field)?.trimmingOWS == value.trimmingOWS else { return false }
            matchedValidator = true
        }
        if contentCoding(of: head.value(forHTTPHeaderField: "Content-Encoding"))
            != contentCoding(of: stored.value(forHTTPHeaderField: "Content-Encoding"))
        {
            return matchedValidator
        }
        guard let length = head.value(forHTTPHeaderField: "Content-Length") else { return true }
        // One length, or a list of equal ones (RFC 9112 §6.3).
        return TransferRules.declaredContentLength(length) == Int64(stored.body.count)
    }

    /// The codings a `Content-Encoding` value names, lower-cased, without `identity`.
    private static func contentCoding(of value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",").map { $0.trimmingOWS.lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
    }

    /// Whether a `304` can update `stored` (section 4.3.4), the one response stored under its
    /// key, whose validators the conditional request carried:
    /// - a `304` with a strong `ETag` selects the stored response with that strong entity tag:
    ///   `stored` has it, strong as well (a weak tag with the same opaque value is another
    ///   validator); a `304` with a weak `ETag` selects the stored response whose tag matches it
    ///   by the weak comparison;
    /// - else a `304` with a `Last-Modified` selects the stored response last modified then:
    ///   `stored` has the same `Last-Modified` date;
    /// - a `304` with neither validator selects `stored`, the only response the request named
    ///   (the RFC asks, more strictly, that `stored` have no validator either).
    ///
    /// A `304` that selects nothing must not update `stored`, and says nothing of the body it
    /// stands for: ``CachingTransport`` then sends the request again without its validators.
    public static func notModified(_ head: ResponseHead, validates stored: CachedResponse) -> Bool {
        if let tag = head.value(forHTTPHeaderField: "ETag") {
            guard let storedTag = stored.value(forHTTPHeaderField: "ETag") else { return false }
            return isWeak(tag) ? weakComparison(storedTag, tag) : !isWeak(storedTag) && weakComparison(storedTag, tag)
        }
        if let lastModified = head.value(forHTTPHeaderField: "Last-Modified") {
            return stored.value(forHTTPHeaderField: "Last-Modified").map { sameDate($0, lastModified) } ?? false
        }
        return true
    }

    /// Whether two HTTP-dates name the same second; two values that are not dates are compared
    /// as text.
    private static func sameDate(_ lhs: String, _ rhs: String) -> Bool {
        if let left = HTTPDate.parse(lhs.trimmingOWS), let right = HTTPDate.parse(rhs.trimmingOWS) { return left == right }
        return lhs.trimmingOWS == rhs.trimmingOWS
    }

    /// Whether an entity tag is weak (`W/` before its opaque value).
    private static func isWeak(_ tag: String) -> Bool {
        tag.trimmingOWS.hasPrefix("W/")
    }

    private static func weakComparison(_ lhs: String, _ rhs: String) -> Bool {
        func opaque(_ tag: String) -> Substring {
            let trimmed = tag.trimmingOWS
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
        }
        return opaque(lhs) == opaque(rhs)
    }

    // MARK: - Vary (section 4.1)

    /// The lowercased field names a `Vary` value lists; `nil` for `*`, which no request matches.
    public static func varyingFieldNames(_ vary: String?) -> [String]? {
        guard let vary else { return [] }
        var names: [String] = []
        for member in vary.split(separator: ",") {
            let name = String(member).trimmingOWS.lowercased()
            if name == "*" { return nil }
            if !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// A field value normalised for comparing under `Vary`: its list members trimmed of white
    /// space and joined with `,`, and runs of white space inside a member made one space.
    public static func normalizedFieldValue(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false).map { member in
            member.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }.joined(separator: ",")
    }

    /// The values `request` has for the fields `response`'s `Vary` names, normalised; `nil` when
    /// the response says `Vary: *`.
    public static func varyingRequestFields(of request: URLRequest, for response: ResponseHead) -> [String: String]? {
        guard let names = varyingFieldNames(response.value(forHTTPHeaderField: "Vary")) else { return nil }
        var fields: [String: String] = [:]
        for name in names {
            if let value = request.value(forHTTPHeaderField: name) { fields[name] = normalizedFieldValue(value) }
        }
        return fields
    }

    /// Whether `request` matches the request `stored` was the answer to, on every field its
    /// `Vary` names (section 4.1). A stored `Vary: *` never matches.
    public static func request(_ request: URLRequest, matchesVaryOf stored: CachedResponse) -> Bool {
        guard let names = varyingFieldNames(stored.value(forHTTPHeaderField: "Vary")) else { return false }
        for name in names where request.value(forHTTPHeaderField: name).map(normalizedFieldValue) != stored.varyingRequestFields[name] {
            return false
        }
        return true
    }

    // MARK: - Invalidation (section 4.4)

    /// The methods that never invalidate.
    public static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The URLs whose stored responses an answer to an unsafe request for `url` invalidates
    /// (section 4.4): none for a safe method or an error status; otherwise the target URI, and
    /// the `Location` and `Content-Location` of the response when they have its origin.
    ///
    /// The target URI is the URL that answered (the response's ``ResponseHead/url``: the last
    /// redirect's when the transport resent the request after a `307` or `308`), which also
    /// resolves a relative `Location` or `Content-Location`; `url`, when the response came from
    /// another URL, is invalidated as well.
    public static func invalidatedURLs(method: String, url: URL, response: ResponseHead) -> [URL] {
        guard !safeMethods.contains(method.uppercased()), (200..<400).contains(response.statusCode) else { return [] }
        let target = response.url ?? url
        var urls = [target]
        if key(method: "GET", url: url) != key(method: "GET", url: target) { urls.append(url) }
        for field in ["Location", "Content-Location"] {
            guard let value = response.value(forHTTPHeaderField: field),
                let location = URL(string: value.trimmingOWS, relativeTo: target)?.absoluteURL,
                sameOrigin(location, target)
            else { continue }
            urls.append(location)
        }
        return urls
    }

    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }

    // MARK: - Keys

    /// The key a response to `method` on `url` is stored under: the method and the whole URL
    /// (scheme and host lowercased, the default port dropped, the fragment left out), such as
    /// `GET https://example.com/cities?continent=europe`. The `Vary`'d request fields are kept in
    /// the entry and compared on lookup (``request(_:matchesVaryOf:)``), so one variant per URL is
    /// stored, the latest, as OkHttp does.
    public static func key(method: String, url: URL) -> String {
        let absolute = url.absoluteString
        if isNormalizedHTTPURL(absolute) { return method.uppercased() + " " + absolute }
        return normalizedKey(method: method, url: url)
    }

    /// ``key(method:url:)`` through `URLComponents`, for a URL that may need normalizing.
    static func normalizedKey(method: String, url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return method.uppercased() + " " + url.absoluteString
        }
        components.fragment = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if let port = components.port, (components.scheme == "http" && port == 80) || (components.scheme == "https" && port == 443) {
            components.port = nil
        }
        // The path as written: a decoded one is empty when its escapes are not UTF-8 (`/a%ff`).
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        return method.uppercased() + " " + (components.string ?? url.absoluteString)
    }

    /// Whether `url` is an `http` or `https` URL that normalizing leaves as it is: a lowercase
    /// scheme and host, no user, no IPv6 literal, no percent sign or non-ASCII byte in the host,
    /// no default, empty or zero-led port, a path that starts with `/`, and no fragment. Most
    /// URLs are, and their key is then made without `URLComponents`.
    static func isNormalizedHTTPURL(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes -> Bool in
            let schemeEnd: Int
            if bytes.starts(with: "http://".utf8) {
                schemeEnd = 4
            } else if bytes.starts(with: "https://".utf8) {
                schemeEnd = 5
            } else {
                return false
            }
            var index = schemeEnd + 3
            var portStart: Int?
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") { break }
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "%"),
                    UInt8(ascii: "?"), UInt8(ascii: "#"), 0x80...:
                    return false
                case UInt8(ascii: ":"):
                    guard portStart == nil else { return false }
                    portStart = index + 1
                default:
                    break
                }
                index += 1
            }
            // A path that starts with `/`, after a host that is not empty.
            guard index < bytes.count, index > schemeEnd + 3, portStart != schemeEnd + 4 else { return false }
            if let portStart {
                let port = bytes[portStart..<index]
                guard !port.isEmpty, port.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                    port.first != UInt8(ascii: "0"),
                    !port.elementsEqual((schemeEnd == 4 ? "80" : "443").utf8)
                else { return false }
            }
            return !bytes[index...].contains(UInt8(ascii: "#"))
        }
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (HTTP's optional white space).
    var trimmingOWS: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
