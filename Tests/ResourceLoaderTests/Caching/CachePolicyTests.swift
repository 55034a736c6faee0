import Foundation
@testable import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cache policy: RFC 9111's rules as pure functions of an injected date")
struct CachePolicyTests {
    let shared = CachePolicy(mode: .shared)
    let privateCache = CachePolicy(mode: .private)
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func reason(
        _ policy: CachePolicy, method: String = "GET", request: String = "", authorization: Bool = false,
        status: Int = 200, headers: [String: String]
    ) -> CachePolicy.NotStoredReason? {
        policy.reasonNotToStore(
            method: method, requestDirectives: CacheControl(request), requestHasAuthorization: authorization,
            response: CacheTesting.head(status: status, headers: headers))
    }

    // MARK: - Storing (section 3)

    @Test("§3, §5.2.2.3: with must-understand, only a status the cache understands is stored, and then the response's no-store is ignored")
    func mustUnderstand() {
        let understood = ["Cache-Control": "must-understand, no-store, max-age=60"]
        #expect(reason(shared, headers: understood) == nil)
        #expect(reason(shared, status: 404, headers: understood) == nil)
        #expect(reason(shared, status: 299, headers: understood) == .status)
        #expect(reason(shared, status: 299, headers: ["Cache-Control": "must-understand, max-age=60"]) == .status)
        #expect(reason(shared, status: 206, headers: understood) == .status)
        #expect(reason(shared, request: "no-store", headers: understood) == .requestNoStore)
        #expect(reason(shared, headers: ["Cache-Control": "must-understand, no-store, private, max-age=60"]) == .privateResponse)
        #expect(reason(shared, headers: ["Cache-Control": "no-store, max-age=60"]) == .responseNoStore)
    }

    @Test("§1.2.2: an Age value is whole seconds within 0...2^31, whatever the age computed")
    func ageFieldValues() {
        #expect(CachePolicy.ageFieldValue(0) == "0")
        #expect(CachePolicy.ageFieldValue(59.9) == "59")
        #expect(CachePolicy.ageFieldValue(-3) == "0")
        #expect(CachePolicy.ageFieldValue(2_147_483_647.5) == "2147483647")
        #expect(CachePolicy.ageFieldValue(1e12) == "2147483648")
        #expect(CachePolicy.ageFieldValue(.infinity) == "2147483648")
        #expect(CachePolicy.ageFieldValue(.nan) == "2147483648")
    }

    @Test("§3: only GET and HEAD responses are stored")
    func methods() {
        #expect(reason(shared, method: "POST", headers: ["Cache-Control": "max-age=60"]) == .method)
        #expect(reason(shared, method: "HEAD", headers: ["Cache-Control": "max-age=60"]) == nil)
        #expect(reason(shared, method: "get", headers: ["Cache-Control": "max-age=60"]) == nil)
    }

    @Test("§3, §5.2.1.5, §5.2.2.5: no-store in the request or the response is never stored")
    func noStore() {
        #expect(reason(shared, request: "no-store", headers: ["Cache-Control": "max-age=60"]) == .requestNoStore)
        #expect(reason(shared, headers: ["Cache-Control": "max-age=60, no-store"]) == .responseNoStore)
    }

    @Test("§3, §5.2.2.7: private is stored by a private cache, never by a shared one")
    func privateDirective() {
        #expect(reason(shared, headers: ["Cache-Control": "private, max-age=60"]) == .privateResponse)
        #expect(reason(privateCache, headers: ["Cache-Control": "private, max-age=60"]) == nil)
    }

    @Test("§3.5: a shared cache stores an authorised response only with public, s-maxage or must-revalidate")
    func authorization() {
        #expect(reason(shared, authorization: true, headers: ["Cache-Control": "max-age=60"]) == .authorization)
        #expect(reason(shared, authorization: true, headers: ["Cache-Control": "public, max-age=60"]) == nil)
        #expect(reason(shared, authorization: true, headers: ["Cache-Control": "s-maxage=60"]) == nil)
        #expect(reason(shared, authorization: true, headers: ["Cache-Control": "must-revalidate, max-age=60"]) == nil)
        #expect(reason(privateCache, authorization: true, headers: ["Cache-Control": "max-age=60"]) == nil)
    }

    @Test("§3, RFC 9110 §15.1: heuristically cacheable statuses need a validator or freshness; others explicit freshness")
    func statuses() {
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            #expect(reason(shared, status: status, headers: ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]) == nil)
            #expect(reason(shared, status: status, headers: [:]) == .noFreshnessOrValidator)
        }
        for status in [302, 307, 400, 403, 500, 503] {
            #expect(reason(shared, status: status, headers: ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]) == .status)
            #expect(reason(shared, status: status, headers: ["Cache-Control": "max-age=60"]) == nil)
            #expect(reason(shared, status: status, headers: ["Expires": "Sun, 06 Nov 1994 08:49:37 GMT"]) == nil)
        }
        #expect(reason(shared, status: 206, headers: ["Cache-Control": "max-age=60"]) == .status)
        #expect(reason(shared, status: 304, headers: ["Cache-Control": "max-age=60"]) == .status)
        #expect(reason(shared, status: 100, headers: ["Cache-Control": "max-age=60"]) == .status)
    }

    @Test("§4.1: Vary: * is never stored")
    func varyStar() {
        #expect(reason(shared, headers: ["Cache-Control": "max-age=60", "Vary": "Accept, *"]) == .varyAll)
    }

    // MARK: - Freshness (section 4.2.1)

    @Test("§4.2.1: s-maxage wins in a shared cache, max-age in a private one")
    func sharedMaxAge() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60, s-maxage=600"], requestDate: t0)
        #expect(shared.freshnessLifetime(of: response) == 600)
        #expect(privateCache.freshnessLifetime(of: response) == 60)
    }

    @Test("§4.2.1: max-age wins over Expires")
    func maxAgeOverExpires() {
        let response = CacheTesting.response(
            headers: ["Cache-Control": "max-age=60", "Expires": CacheTesting.httpDate(t0 + 3600), "Date": CacheTesting.httpDate(t0)],
            requestDate: t0)
        #expect(shared.freshnessLifetime(of: response) == 60)
    }

    @Test("§4.2.1: Expires minus Date; without Date, minus the time received")
    func expiresMinusDate() {
        let withDate = CacheTesting.response(
            headers: ["Expires": CacheTesting.httpDate(t0 + 3600), "Date": CacheTesting.httpDate(t0 - 600)], requestDate: t0)
        #expect(shared.freshnessLifetime(of: withDate) == 4200)
        let withoutDate = CacheTesting.response(headers: ["Expires": CacheTesting.httpDate(t0 + 3600)], requestDate: t0)
        #expect(shared.freshnessLifetime(of: withoutDate) == 3600)
    }

    @Test("§5.3: an invalid Expires (such as 0) means already expired")
    func invalidExpires() {
        let response = CacheTesting.response(headers: ["Expires": "0", "Last-Modified": CacheTesting.httpDate(t0 - 86_400)], requestDate: t0)
        #expect(shared.freshnessLifetime(of: response) == 0)
    }

    @Test("§4.2.2: heuristic freshness is 10% of Date minus Last-Modified, capped at the limit")
    func heuristic() {
        let tenDays = CacheTesting.response(
            headers: ["Date": CacheTesting.httpDate(t0), "Last-Modified": CacheTesting.httpDate(t0 - 10 * 86_400)], requestDate: t0)
        #expect(shared.freshnessLifetime(of: tenDays) == 86_400)
        let years = CacheTesting.response(
            headers: ["Date": CacheTesting.httpDate(t0), "Last-Modified": CacheTesting.httpDate(t0 - 1000 * 86_400)], requestDate: t0)
        #expect(shared.freshnessLifetime(of: years) == 7 * 86_400)
        #expect(CachePolicy(heuristicLimit: .infinity).freshnessLifetime(of: years) == 100 * 86_400)
        let notHeuristic = CacheTesting.response(
            status: 302, headers: ["Date": CacheTesting.httpDate(t0), "Last-Modified": CacheTesting.httpDate(t0 - 10 * 86_400)], requestDate: t0)
        #expect(shared.freshnessLifetime(of: notHeuristic) == 0)
    }

    // MARK: - Age (section 4.2.3)

    @Test("§4.2.3: current age = max(apparent age, Age + response delay) + resident time")
    func currentAge() {
        // Sent at t0, received 2 s later, Date 10 s before receipt, Age 30: corrected initial age 32.
        let response = CacheTesting.response(
            headers: ["Date": CacheTesting.httpDate(t0 - 8), "Age": "30"], requestDate: t0, responseDate: t0 + 2)
        #expect(shared.currentAge(of: response, now: t0 + 2) == 32)
        #expect(shared.currentAge(of: response, now: t0 + 102) == 132)
        // The apparent age wins when the Date is older than Age says.
        let old = CacheTesting.response(headers: ["Date": CacheTesting.httpDate(t0 - 100), "Age": "5"], requestDate: t0)
        #expect(shared.currentAge(of: old, now: t0) == 100)
        // A Date in the future counts as zero apparent age.
        let future = CacheTesting.response(headers: ["Date": CacheTesting.httpDate(t0 + 100)], requestDate: t0)
        #expect(shared.currentAge(of: future, now: t0 + 10) == 10)
    }

    // MARK: - Use (sections 4.2, 5.2.1)

    @Test("§4.2: fresh is served, stale is validated")
    func freshAndStale() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""], requestDate: t0)
        #expect(shared.use(of: response, for: CacheControl(), now: t0 + 59) == .serve)
        #expect(shared.use(of: response, for: CacheControl(), now: t0 + 60) == .validate(conditions: ["If-None-Match": "\"v1\""]))
    }

    @Test("§5.2.1.4, §5.2.2.4: no-cache in the request or the response always validates")
    func noCache() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], requestDate: t0)
        #expect(shared.use(of: response, for: CacheControl("no-cache"), now: t0) == .validate(conditions: ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"]))
        let noCache = CacheTesting.response(headers: ["Cache-Control": "max-age=60, no-cache"], requestDate: t0)
        #expect(shared.use(of: noCache, for: CacheControl(), now: t0) == .validate(conditions: [:]))
    }

    @Test("§5.2.1.1: the request's max-age shortens the lifetime")
    func requestMaxAge() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=600"], requestDate: t0)
        #expect(shared.use(of: response, for: CacheControl("max-age=30"), now: t0 + 29) == .serve)
        #expect(shared.use(of: response, for: CacheControl("max-age=30"), now: t0 + 31) == .validate(conditions: [:]))
    }

    @Test("§5.2.1.1, §5.2.1.2: with max-stale, the request's max-age caps the lifetime and max-stale adds to it (OkHttp's reading)")
    func requestMaxAgeWithMaxStale() {
        // GIVEN a response fresh for an hour, and a request that says max-age=30, max-stale=60
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=3600"], requestDate: t0)
        let directives = CacheControl("max-age=30, max-stale=60")
        // THEN it is served up to 30 + 60 seconds old, and validated past that
        #expect(shared.use(of: response, for: directives, now: t0 + 80) == .serve)
        #expect(shared.use(of: response, for: directives, now: t0 + 100) == .validate(conditions: [:]))
    }

    @Test("§5.2.1.3: min-fresh asks for that much freshness left")
    func minFresh() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60"], requestDate: t0)
        #expect(shared.use(of: response, for: CacheControl("min-fresh=20"), now: t0 + 39) == .serve)
        #expect(shared.use(of: response, for: CacheControl("min-fresh=20"), now: t0 + 41) == .validate(conditions: [:]))
    }

    @Test("§5.2.1.2: max-stale accepts staleness, unless must-revalidate (§5.2.2.2)")
    func maxStale() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60"], requestDate: t0)
        #expect(shared.use(of: response, for: CacheControl("max-stale=30"), now: t0 + 89) == .serve)
        #expect(shared.use(of: response, for: CacheControl("max-stale=30"), now: t0 + 91) == .validate(conditions: [:]))
        #expect(shared.use(of: response, for: CacheControl("max-stale"), now: t0 + 1_000_000) == .serve)
        let strict = CacheTesting.response(headers: ["Cache-Control": "max-age=60, must-revalidate"], requestDate: t0)
        #expect(shared.use(of: strict, for: CacheControl("max-stale"), now: t0 + 61) == .validate(conditions: [:]))
    }

    @Test("§5.2.2.8, §5.2.2.10: proxy-revalidate and s-maxage forbid stale use in a shared cache only")
    func proxyRevalidate() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60, proxy-revalidate"], requestDate: t0)
        #expect(shared.use(of: response, for: CacheControl("max-stale"), now: t0 + 61) == .validate(conditions: [:]))
        #expect(privateCache.use(of: response, for: CacheControl("max-stale"), now: t0 + 61) == .serve)
    }

    @Test("RFC 5861: stale-if-error within the cache's bound and the response's own")
    func staleIfError() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60"], requestDate: t0)
        #expect(shared.mayAnswerError(with: response, for: CacheControl(), now: t0 + 160, limit: 100))
        #expect(!shared.mayAnswerError(with: response, for: CacheControl(), now: t0 + 161, limit: 100))
        let bounded = CacheTesting.response(headers: ["Cache-Control": "max-age=60, stale-if-error=10"], requestDate: t0)
        #expect(!shared.mayAnswerError(with: bounded, for: CacheControl(), now: t0 + 71, limit: 100))
        let strict = CacheTesting.response(headers: ["Cache-Control": "max-age=60, must-revalidate"], requestDate: t0)
        #expect(!shared.mayAnswerError(with: strict, for: CacheControl(), now: t0 + 61, limit: 100))
    }

    @Test("RFC 5861 §3: stale-while-revalidate serves a stale response within its window, never past it or against a directive")
    func staleWhileRevalidate() {
        let response = CacheTesting.response(headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30"], requestDate: t0)
        #expect(shared.use(of: response, for: CacheControl(), now: t0 + 61) != .serve)
        #expect(shared.mayServeWhileRevalidating(response, for: CacheControl(), now: t0 + 61))
        #expect(shared.mayServeWhileRevalidating(response, for: CacheControl(), now: t0 + 90))
        #expect(!shared.mayServeWhileRevalidating(response, for: CacheControl(), now: t0 + 91))
        // The client asks for a checked or fresher response.
        for request in ["no-cache", "max-age=10", "min-fresh=5"] {
            #expect(!shared.mayServeWhileRevalidating(response, for: CacheControl(request), now: t0 + 61))
        }
        // RFC 9111 §4.2.4: never against no-cache, must-revalidate, or (shared) proxy-revalidate and s-maxage.
        for directive in ["no-cache", "must-revalidate", "proxy-revalidate", "s-maxage=60"] {
            let strict = CacheTesting.response(
                headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30, \(directive)"], requestDate: t0)
            #expect(!shared.mayServeWhileRevalidating(strict, for: CacheControl(), now: t0 + 61))
        }
        let proxyOnly = CacheTesting.response(headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30, proxy-revalidate"], requestDate: t0)
        #expect(privateCache.mayServeWhileRevalidating(proxyOnly, for: CacheControl(), now: t0 + 61))
        let without = CacheTesting.response(headers: ["Cache-Control": "max-age=60"], requestDate: t0)
        #expect(!shared.mayServeWhileRevalidating(without, for: CacheControl(), now: t0 + 61))
    }

    // MARK: - Validation (section 4.3)

    @Test("§4.3.1: If-None-Match from ETag, else If-Modified-Since from Last-Modified")
    func conditions() {
        let both = CacheTesting.response(headers: ["ETag": "\"x\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], requestDate: t0)
        #expect(CachePolicy.conditions(toValidate: both) == ["If-None-Match": "\"x\""])
        let date = CacheTesting.response(headers: ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], requestDate: t0)
        #expect(CachePolicy.conditions(toValidate: date) == ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(CachePolicy.conditions(toValidate: CacheTesting.response(requestDate: t0)) == [:])
    }

    @Test("§4.3.4, §3.2: a 304 updates the stored fields (Content-Type too), keeps the body and Content-Length, and moves the dates; a strong ETag selects only the same strong ETag")
    func merging() {
        let stored = CacheTesting.response(
            headers: ["Cache-Control": "max-age=60", "ETag": "\"x\"", "Content-Length": "4", "X-Old": "1", "Content-Type": "text/plain"],
            body: "body", requestDate: t0)
        let notModified = CacheTesting.head(status: 304, headers: [
            "Cache-Control": "max-age=600", "ETag": "\"x\"", "Content-Length": "0", "X-New": "2", "Content-Type": "text/html",
            "Connection": "close",
        ])
        let merged = CachePolicy.merging(stored, with: notModified, requestDate: t0 + 100, responseDate: t0 + 101)
        #expect(merged.body == Data("body".utf8))
        #expect(merged.statusCode == 200)
        #expect(merged.value(forHTTPHeaderField: "Cache-Control") == "max-age=600")
        #expect(merged.value(forHTTPHeaderField: "Content-Length") == "4")
        #expect(merged.value(forHTTPHeaderField: "Content-Type") == "text/html")
        #expect(merged.value(forHTTPHeaderField: "X-Old") == "1")
        #expect(merged.value(forHTTPHeaderField: "X-New") == "2")
        #expect(merged.value(forHTTPHeaderField: "Connection") == nil)
        #expect(merged.requestDate == t0 + 100)
        #expect(merged.responseDate == t0 + 101)
        #expect(CachePolicy.notModified(notModified, validates: stored))
        #expect(!CachePolicy.notModified(CacheTesting.head(status: 304, headers: ["ETag": "\"y\""]), validates: stored))
        #expect(CachePolicy.notModified(CacheTesting.head(status: 304, headers: ["ETag": "W/\"x\""]), validates: stored))
        // A strong tag selects only a response stored with that strong tag: a weak one with the
        // same opaque value is another validator. A weak tag selects by the weak comparison.
        let weaklyTagged = CacheTesting.response(headers: ["ETag": "W/\"x\""], body: "body", requestDate: t0)
        #expect(!CachePolicy.notModified(CacheTesting.head(status: 304, headers: ["ETag": "\"x\""]), validates: weaklyTagged))
        #expect(CachePolicy.notModified(CacheTesting.head(status: 304, headers: ["ETag": "W/\"x\""]), validates: weaklyTagged))
        #expect(!CachePolicy.notModified(CacheTesting.head(status: 304, headers: ["ETag": "W/\"y\""]), validates: weaklyTagged))
    }

    @Test("§4.3.4: without an ETag, a 304's Last-Modified must be the stored response's date to select it; with neither, it selects it")
    func notModifiedByLastModified() {
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        let stored = CacheTesting.response(headers: ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], body: "A", requestDate: t0)
        func notModified(_ headers: [String: String], validates stored: CachedResponse = stored) -> Bool {
            CachePolicy.notModified(CacheTesting.head(status: 304, headers: headers), validates: stored)
        }
        #expect(notModified(["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]))
        // The same date in the obsolete RFC 850 form.
        #expect(notModified(["Last-Modified": "Sunday, 06-Nov-94 08:49:37 GMT"]))
        #expect(!notModified(["Last-Modified": "Sun, 06 Nov 1994 08:49:38 GMT"]))
        #expect(!notModified(["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], validates: CacheTesting.response(headers: ["ETag": "\"x\""], requestDate: t0)))
        #expect(notModified([:]))
        // The ETag decides when there is one.
        let tagged = CacheTesting.response(headers: ["ETag": "\"x\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], requestDate: t0)
        #expect(notModified(["ETag": "\"x\"", "Last-Modified": "Mon, 07 Nov 1994 08:49:37 GMT"], validates: tagged))
        #expect(!notModified(["ETag": "\"y\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], validates: tagged))
    }

    @Test("§3.1: Connection, the fields it names, hop-by-hop and proxy fields are never stored")
    func fieldsNeverStored() {
        let head = CacheTesting.head(headers: ["Connection": "close, X-Hop", "X-Hop": "1", "X-End": "2"])
        for name in ["Connection", "connection", "X-Hop", "x-hop", "Keep-Alive", "TE", "Transfer-Encoding", "Upgrade", "Proxy-Authenticate"] {
            #expect(!CachePolicy.mayStoreField(name, of: head))
        }
        for name in ["X-End", "Content-Type", "Set-Cookie", "WWW-Authenticate"] {
            #expect(CachePolicy.mayStoreField(name, of: head))
        }
    }

    @Test("§4.3.5: a HEAD response freshens a stored GET response only when its validators and Content-Length match")
    func headFreshening() {
        let stored = CacheTesting.response(
            headers: ["ETag": "\"v1\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], body: "hello", requestDate: t0)
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: ["ETag": "\"v1\""]), freshens: stored))
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: ["ETag": "\"v1\"", "Content-Length": "5"]), freshens: stored))
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]), freshens: stored))
        #expect(!CachePolicy.headResponse(CacheTesting.head(headers: ["ETag": "\"v2\""]), freshens: stored))
        #expect(!CachePolicy.headResponse(CacheTesting.head(headers: ["ETag": "\"v1\"", "Content-Length": "6"]), freshens: stored))
        // A Content-Length repeated with equal values is one length (RFC 9112 §6.3); differing ones are none.
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: ["ETag": "\"v1\"", "Content-Length": "5, 5"]), freshens: stored))
        #expect(!CachePolicy.headResponse(CacheTesting.head(headers: ["ETag": "\"v1\"", "Content-Length": "5, 6"]), freshens: stored))
        #expect(!CachePolicy.headResponse(
            CacheTesting.head(headers: ["ETag": "\"v1\"", "Last-Modified": "Mon, 07 Nov 1994 08:49:37 GMT"]), freshens: stored))
        // No validator received: none fails to match.
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: ["Content-Length": "5"]), freshens: stored))
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: ["Cache-Control": "max-age=1000"]), freshens: stored))
        // A stored body kept decoded: a HEAD's length of the coded body says nothing of it, and
        // its validators decide; without one, nothing shows it is the same representation.
        let gzip = ["Content-Encoding": "gzip", "Content-Length": "27"]
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: gzip.merging(["ETag": "\"v1\""]) { $1 }), freshens: stored))
        #expect(!CachePolicy.headResponse(CacheTesting.head(headers: gzip.merging(["ETag": "\"v2\""]) { $1 }), freshens: stored))
        #expect(!CachePolicy.headResponse(CacheTesting.head(headers: gzip), freshens: stored))
        #expect(!CachePolicy.headResponse(
            CacheTesting.head(headers: ["ETag": "\"v1\"", "Content-Encoding": "identity", "Content-Length": "6"]), freshens: stored))
        // Another coding without a length says nothing more: without a validator, it does not freshen.
        #expect(!CachePolicy.headResponse(CacheTesting.head(headers: ["Content-Encoding": "gzip"]), freshens: stored))
        #expect(CachePolicy.headResponse(CacheTesting.head(headers: ["Content-Encoding": "gzip", "ETag": "\"v1\""]), freshens: stored))
        let coded = CacheTesting.response(headers: ["ETag": "\"v1\"", "Content-Encoding": "gzip"], body: "hello", requestDate: t0)
        #expect(!CachePolicy.headResponse(CacheTesting.head(headers: gzip.merging(["ETag": "\"v1\""]) { $1 }), freshens: coded))
    }

    // MARK: - Vary (section 4.1)

    @Test("§4.1: Vary'd fields must match after normalisation; * never matches")
    func vary() {
        var stored = CacheTesting.response(headers: ["Vary": "Accept-Language, accept"], requestDate: t0)
        let request = CacheTesting.request(headers: ["Accept-Language": "fr,  en", "Accept": "text/html"])
        stored.varyingRequestFields = CachePolicy.varyingRequestFields(of: request, for: CacheTesting.head(headers: ["Vary": "Accept-Language, accept"]))!
        #expect(stored.varyingRequestFields == ["accept-language": "fr,en", "accept": "text/html"])
        #expect(CachePolicy.request(CacheTesting.request(headers: ["accept-language": " fr , en ", "Accept": "text/html"]), matchesVaryOf: stored))
        #expect(!CachePolicy.request(CacheTesting.request(headers: ["Accept-Language": "de", "Accept": "text/html"]), matchesVaryOf: stored))
        #expect(!CachePolicy.request(CacheTesting.request(headers: ["Accept-Language": "fr,en"]), matchesVaryOf: stored))
        let star = CacheTesting.response(headers: ["Vary": "*"], requestDate: t0)
        #expect(!CachePolicy.request(CacheTesting.request(), matchesVaryOf: star))
        #expect(CachePolicy.varyingFieldNames("*") == nil)
    }

    // MARK: - Invalidation (section 4.4)

    @Test("§4.4: unsafe methods with a non-error status invalidate the URI, Location and Content-Location of the same origin")
    func invalidation() {
        let url = URL(string: "http://origin.test/items/1")!
        let head = CacheTesting.head(
            status: 201, headers: ["Location": "/items/2", "Content-Location": "http://other.test/items/3"], url: url.absoluteString)
        #expect(CachePolicy.invalidatedURLs(method: "POST", url: url, response: head).map(\.absoluteString)
            == ["http://origin.test/items/1", "http://origin.test/items/2"])
        #expect(CachePolicy.invalidatedURLs(method: "GET", url: url, response: head).isEmpty)
        #expect(CachePolicy.invalidatedURLs(method: "DELETE", url: url, response: CacheTesting.head(status: 500, url: url.absoluteString)).isEmpty)
        #expect(CachePolicy.invalidatedURLs(method: "PUT", url: url, response: CacheTesting.head(status: 303, url: url.absoluteString)).count == 1)
    }

    @Test("§4.4: after a redirect, the URL that answered is the target: invalidated with the request's, and the base and origin of Location")
    func invalidationAfterARedirect() {
        let url = URL(string: "http://origin.test/a")!
        let moved = CacheTesting.head(status: 200, headers: ["Content-Location": "c"], url: "http://origin.test/moved/b")
        #expect(CachePolicy.invalidatedURLs(method: "PUT", url: url, response: moved).map(\.absoluteString)
            == ["http://origin.test/moved/b", "http://origin.test/a", "http://origin.test/moved/c"])
        let elsewhere = CacheTesting.head(
            status: 201, headers: ["Location": "/d", "Content-Location": "http://origin.test/e"], url: "http://other.test/b")
        #expect(CachePolicy.invalidatedURLs(method: "POST", url: url, response: elsewhere).map(\.absoluteString)
            == ["http://other.test/b", "http://origin.test/a", "http://other.test/d"])
    }

    @Test("Keys: method and the whole URL, scheme and host lowercased, default port and fragment dropped")
    func keys() {
        #expect(CachePolicy.key(method: "get", url: URL(string: "HTTP://Example.COM:80/a?b=1#frag")!) == "GET http://example.com/a?b=1")
        #expect(CachePolicy.key(method: "GET", url: URL(string: "https://example.com:8443/a?b=1")!) == "GET https://example.com:8443/a?b=1")
        #expect(CachePolicy.key(method: "GET", url: URL(string: "https://example.com/a?b=1")!)
            != CachePolicy.key(method: "GET", url: URL(string: "https://example.com/a?b=2")!))
        #expect(CachePolicy.key(method: "GET", url: URL(string: "https://example.com/a")!)
            != CachePolicy.key(method: "GET", url: URL(string: "http://example.com/a")!))
    }

    @Test("Keys: a path whose escapes are not UTF-8 is kept, also when the URL needs normalizing")
    func keysKeepPathsThatAreNotUTF8() {
        #expect(CachePolicy.key(method: "GET", url: URL(string: "http://EXAMPLE.com/private/%ff")!) == "GET http://example.com/private/%ff")
        #expect(CachePolicy.key(method: "GET", url: URL(string: "http://example.com:80/a%ab#x")!) == "GET http://example.com/a%ab")
        let keys = ["http://EXAMPLE.com/private/%ff", "http://EXAMPLE.com/public/%ff", "http://EXAMPLE.com/"].map {
            CachePolicy.key(method: "GET", url: URL(string: $0)!)
        }
        #expect(Set(keys).count == 3)
    }

    @Test("Keys: a URL that needs no normalizing is keyed as it is, the same key as through URLComponents")
    func keysWithoutNormalizing() throws {
        let needNothing = [
            "http://example.com/", "https://example.com/a/b?c=d&e=%20f", "http://127.0.0.1:8080/cities.json",
            "https://api.example.com:8443/v1/users?id=7", "http://a.b-c_d.example/%7Euser/x;y?z", "https://example.com/?",
            "http://example.com:1/", "https://x.test/a?q=http://Other.test/",
        ]
        let needWork = [
            "HTTP://example.com/", "http://Example.com/", "http://example.com:80/", "https://example.com:443/a",
            "http://example.com", "http://example.com?x=1", "http://example.com/#frag", "http://user:pw@example.com/",
            "http://[::1]:8080/", "http://example.com:/", "http://example.com:080/", "ftp://example.com/",
            "http://ex%41mple.com/", "http://:80/", "https://example.com/a#b", "https://x.test/a?q=1#",
        ]
        for text in needNothing + needWork {
            let url = try #require(URL(string: text), "\(text)")
            #expect(CachePolicy.key(method: "GET", url: url) == CachePolicy.normalizedKey(method: "GET", url: url), "\(text)")
        }
        for text in needNothing {
            #expect(CachePolicy.isNormalizedHTTPURL(text), "\(text)")
        }
        for text in needWork {
            #expect(!CachePolicy.isNormalizedHTTPURL(text), "\(text)")
        }
    }
}
