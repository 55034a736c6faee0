import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client-relevant cases of the RFC 9111 conformance suite `http-tests/cache-tests`, read as
/// a checklist and named after their ids. Its conformance cases must pass; its `check` cases
/// (behaviour the RFC leaves open) state what this cache does. A pause between requests is a few
/// seconds on the cache's clock.
@Suite("cache-tests checklist (RFC 9111 conformance suite, client-relevant cases)")
struct CacheTestsChecklistTests {
    enum Expected: Equatable {
        case cached
        case notCached
        case etagValidated
        case lastModifiedValidated
    }

    /// Stores a response with `headers` (the origin answers "A", then "B", or `304` to a
    /// precondition), lets `pause` seconds pass, and says how the second request was answered.
    private func second(
        after headers: [String: String],
        mode: CachePolicy.Mode = .shared,
        pause: TimeInterval = 3,
        request: [String: String] = [:]
    ) async throws -> (Expected, CacheHarness.Answer) {
        let harness = CacheHarness(mode: mode)
        let validator = headers["ETag"].map { ("If-None-Match", $0) } ?? headers["Last-Modified"].map { ("If-Modified-Since", $0) }
        harness.origin.enqueue(status: 200, headers: headers, body: "A")
        // The second answer: 304 when the response has a validator to send back, else "B".
        if validator == nil {
            harness.origin.enqueue(status: 200, headers: [:], body: "B")
        } else {
            harness.origin.enqueue(status: 304, headers: [:], body: "")
        }
        _ = try await harness.get()
        harness.date.advance(by: pause)
        let answer = try await harness.get(headers: request)
        guard harness.origin.requestCount > 1 else { return (.cached, answer) }
        if let validator, harness.origin.receivedRequests[1].value(forHTTPHeaderField: validator.0) == validator.1 {
            return (validator.0 == "If-None-Match" ? .etagValidated : .lastModifiedValidated, answer)
        }
        return (.notCached, answer)
    }

    // MARK: - cc-response

    @Test("cache-tests: cc-resp-private-shared")
    func privateShared() async throws {
        #expect(try await second(after: ["Cache-Control": "private, max-age=3600"]).0 == .notCached)
    }

    @Test("cache-tests: cc-resp-private-private (optimal)")
    func privatePrivate() async throws {
        #expect(try await second(after: ["Cache-Control": "private, max-age=3600"], mode: .private).0 == .cached)
    }

    @Test("cache-tests: cc-resp-no-store, cc-resp-no-store-case-insensitive, cc-resp-no-store-fresh",
        arguments: ["no-store", "No-StOrE", "max-age=10000, no-store"])
    func noStore(directive: String) async throws {
        #expect(try await second(after: ["Cache-Control": directive]).0 == .notCached)
    }

    @Test("cache-tests: cc-resp-no-cache, cc-resp-no-cache-case-insensitive", arguments: ["max-age=10000, no-cache", "max-age=10000, No-CaChE"])
    func noCache(directive: String) async throws {
        #expect(try await second(after: ["Cache-Control": directive]).0 == .notCached)
    }

    @Test("cache-tests: cc-resp-no-cache-revalidate, cc-resp-no-cache-revalidate-fresh (optimal)", arguments: ["no-cache", "max-age=10000, no-cache"])
    func noCacheRevalidates(directive: String) async throws {
        let (kind, answer) = try await second(after: ["Cache-Control": directive, "ETag": "\"abcd\""])
        #expect(kind == .etagValidated)
        #expect(answer.body == "A")
    }

    @Test("cache-tests: cc-resp-must-revalidate-fresh (optimal), cc-resp-must-revalidate-stale")
    func mustRevalidate() async throws {
        #expect(try await second(after: ["Cache-Control": "max-age=10000, must-revalidate", "ETag": "\"abcd\""]).0 == .cached)
        #expect(try await second(after: ["Cache-Control": "max-age=2, must-revalidate", "ETag": "\"abcd\""]).0 == .etagValidated)
    }

    // MARK: - cc-parse

    @Test("cache-tests: freshness-max-age-ignore-quoted, freshness-max-age-ignore-quoted-rev",
        arguments: [#"extension="max-age=3600", max-age=1"#, #"max-age=1, extension="max-age=3600""#])
    func quotedMaxAgeIsNotADirective(value: String) async throws {
        #expect(try await second(after: ["Cache-Control": value]).0 == .notCached)
    }

    @Test("cache-tests: freshness-max-age-single-quoted")
    func singleQuoted() async throws {
        #expect(try await second(after: ["Cache-Control": "max-age='3600'"]).0 == .notCached)
    }

    @Test("cache-tests: freshness-max-age-leading-zero (optimal), freshness-max-age-quoted (check: used)")
    func leadingZeroAndQuoted() async throws {
        #expect(try await second(after: ["Cache-Control": "max-age=003600"]).0 == .cached)
        #expect(try await second(after: ["Cache-Control": #"max-age="3600""#]).0 == .cached)
    }

    @Test("cache-tests: freshness-max-age-two-fresh-stale-sameline and -sepline, -two-stale-fresh-* (check: the smallest wins, stale)",
        arguments: ["max-age=1800, max-age=1", "max-age=1, max-age=1800"])
    func twoMaxAges(value: String) async throws {
        #expect(try await second(after: ["Cache-Control": value]).0 == .notCached)
    }

    @Test("cache-tests: freshness-max-age-space-before-equals, -space-after-equals (check: not used)", arguments: ["max-age =3600", "max-age= 3600"])
    func spaceAroundEquals(value: String) async throws {
        #expect(try await second(after: ["Cache-Control": value]).0 == .notCached)
    }

    @Test("cache-tests: freshness-max-age-decimal-zero, -decimal-five, -a100, -100a (check: invalid, stale)",
        arguments: ["max-age=3600.0", "max-age=3600.5", "max-age=a3600", "max-age=3600a"])
    func invalidMaxAge(value: String) async throws {
        #expect(try await second(after: ["Cache-Control": value]).0 == .notCached)
    }

    // MARK: - age-parse

    @Test("cache-tests: age-parse-nonnumeric, -negative, -float, -suffix, -prefix, -dup-0, -dup-old (check: an invalid Age counts as none)",
        arguments: ["abc", "-7200", "7200.0", "7200,0", "0,7200", "0, 0", "7200, 7200"])
    func ageParse(age: String) async throws {
        let harness = CacheHarness()
        #expect(try await second(after: ["Cache-Control": "max-age=3600", "Date": harness.date.httpDate(), "Age": age]).0 == .cached)
    }

    @Test("cache-tests: freshness-max-age-age (an Age past max-age is stale)")
    func ageCounts() async throws {
        let harness = CacheHarness()
        #expect(try await second(after: ["Cache-Control": "max-age=3600", "Date": harness.date.httpDate(), "Age": "7200"]).0 == .notCached)
    }

    // MARK: - expires-parse

    @Test("cache-tests: freshness-expires-wrong-case-*, -invalid-* (check: not an HTTP-date, so expired, §5.3)", arguments: [
        "THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 gMT",
        "Thu, 18 Aug 2050 02:01:18 UTC", "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT",
        "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT",
    ])
    func expiresParse(value: String) async throws {
        #expect(try await second(after: ["Expires": value]).0 == .notCached)
    }

    @Test("cache-tests: freshness-expires-future")
    func expiresFuture() async throws {
        #expect(try await second(after: ["Expires": "Thu, 18 Aug 2050 02:01:18 GMT"]).0 == .cached)
    }

    // MARK: - update304

    @Test("cache-tests: 304-etag-update-response-* and 304-etag-update-stored-*", arguments: [
        ("Test-Header", "A", "B"), ("X-Content-Foo", "A", "B"), ("Content-Type", "text/plain", "text/plain;charset=utf-8"),
        ("Content-Location", "/foo", "/bar"), ("X-Frame-Options", "deny", "sameorigin"),
    ])
    func update304(header: String, before: String, after: String) async throws {
        let harness = CacheHarness()
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=1", "ETag": "\"e1\"", header: before], body: "A")
        harness.origin.enqueue(status: 304, headers: ["Cache-Control": "max-age=3600", "ETag": "\"e1\"", header: after], body: "")
        _ = try await harness.get()
        harness.date.advance(by: 3)
        let validated = try await harness.get()
        #expect(validated.body == "A")
        #expect(validated.head.value(forHTTPHeaderField: header) == after)
        let cached = try await harness.get()
        #expect(cached.head.value(forHTTPHeaderField: header) == after)
        #expect(harness.origin.requestCount == 2)
    }

    @Test("cache-tests: 304-lm-use-stored-Test-Header")
    func lastModified304KeepsStoredFields() async throws {
        let harness = CacheHarness()
        let lastModified = harness.date.httpDate(-86_400)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=1", "Last-Modified": lastModified, "Test-Header": "A"], body: "A")
        harness.origin.enqueue(status: 304, headers: ["Cache-Control": "max-age=3600", "Last-Modified": lastModified], body: "")
        _ = try await harness.get()
        harness.date.advance(by: 3)
        let validated = try await harness.get()
        #expect(harness.origin.receivedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") == lastModified)
        #expect(validated.head.value(forHTTPHeaderField: "Test-Header") == "A")
        #expect(validated.body == "A")
    }
}
