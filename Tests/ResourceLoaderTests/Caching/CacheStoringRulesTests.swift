import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the cache stores at the edges its documentation names: a `304` updates a stored response
/// only as far as the updated response may be stored for the request that was validated (RFC
/// 9111, sections 3, 3.5 and 4.3.4), and under its `Vary` with that request's fields (section
/// 4.1); a body the size limit cut is never stored; `only-if-cached` never sends a request the
/// cache cannot answer (section 5.2.1.7); an unsafe request invalidates the URL that answered it
/// (section 4.4); a `5xx` leaves the stored response in place (section 4.3.3); `must-understand`
/// (section 5.2.2.3).
@Suite("Cache: storing rules at the edges")
struct CacheStoringRulesTests {
    @Test("§3.5, §4.3.4: a shared cache never keeps a 304's private fields for another user")
    func aPrivate304ToAnAuthorisedRequestIsNotStored() async throws {
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "public, max-age=0", "ETag": "\"v1\""], body: "A")
        harness.origin.enqueue(
            status: 304, headers: ["Cache-Control": "private, max-age=600", "ETag": "\"v1\"", "Set-Cookie": "sid=alice"])
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "public, max-age=0", "ETag": "\"v1\""], body: "A")
        _ = try await harness.get()
        let alice = try await harness.get(headers: ["Authorization": "Bearer alice"])
        #expect(alice.body == "A")
        #expect(alice.head.value(forHTTPHeaderField: "Set-Cookie") == "sid=alice")
        #expect(harness.cache.store.cachedResponse(forKey: "GET http://origin.test/a") == nil)
        let anonymous = try await harness.get()
        #expect(anonymous.head.value(forHTTPHeaderField: "Set-Cookie") == nil)
        #expect(harness.origin.requestCount == 3)
        #expect(harness.origin.receivedRequests.last?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("§3.5: a 304 to an authorised request that does not say it may be shared is not stored by a shared cache")
    func a304ToAnAuthorisedRequestWithoutPublicIsNotStored() async throws {
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""], body: "A")
        harness.origin.enqueue(status: 304, headers: ["Cache-Control": "max-age=600", "ETag": "\"v1\"", "X-User": "alice"])
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""], body: "A")
        _ = try await harness.get()
        #expect(try await harness.get(headers: ["Authorization": "Bearer alice"]).head.value(forHTTPHeaderField: "X-User") == "alice")
        let anonymous = try await harness.get()
        #expect(anonymous.head.value(forHTTPHeaderField: "X-User") == nil)
        #expect(harness.origin.requestCount == 3)
    }

    @Test("§3.5: a shared cache reads a Cookie or Proxy-Authorization as Authorization: stored only when the response says it may be shared",
        arguments: [("Cookie", "max-age=600", false), ("Proxy-Authorization", "max-age=600", false), ("Cookie", "public, max-age=600", true),
            ("Cookie", "s-maxage=600", true), ("Cookie", "must-revalidate, max-age=600", true)])
    func aCredentialFieldIsAuthorisation(field: String, cacheControl: String, stored: Bool) async throws {
        // GIVEN a shared cache, and a request that carries a credential in `field`
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": cacheControl], body: "alice's")
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=600"], body: "anyone's")
        #expect(try await harness.get(headers: [field: "sid=alice"]).body == "alice's")
        // WHEN another request, without it, follows
        let anonymous = try await harness.get()
        // THEN it is answered with the first response only when that response may be shared
        #expect(anonymous.body == (stored ? "alice's" : "anyone's"))
        #expect(harness.origin.requestCount == (stored ? 1 : 2))
    }

    @Test("§4.3.4: a shared cache stores a 304 that says it may be shared, and a 304 without Authorization")
    func a304ThatMayBeSharedIsStored() async throws {
        for (request, fields) in [
            (["Authorization": "Bearer alice"], ["Cache-Control": "public, max-age=600", "ETag": "\"v1\""]),
            ([:], ["Cache-Control": "max-age=600", "ETag": "\"v1\""]),
        ] {
            let harness = CacheHarness(mode: .shared)
            harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""], body: "A")
            harness.origin.enqueue(status: 304, headers: fields)
            _ = try await harness.get()
            _ = try await harness.get(headers: request)
            #expect(try await harness.get().body == "A")
            #expect(harness.origin.requestCount == 2)
        }
    }

    @Test("A private cache keeps a 304 that says private")
    func aPrivateCacheStoresAPrivate304() async throws {
        let harness = CacheHarness(mode: .private)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""], body: "A")
        harness.origin.enqueue(status: 304, headers: ["Cache-Control": "private, max-age=600", "ETag": "\"v1\""])
        _ = try await harness.get()
        _ = try await harness.get(headers: ["Authorization": "Bearer alice"])
        #expect(try await harness.get().body == "A")
        #expect(harness.origin.requestCount == 2)
    }

    @Test("A body the size limit cut is not stored, and the next request goes to the origin")
    func aBodyCutByTheSizeLimitIsNotStored() async throws {
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=600"], body: "0123456789")
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=600"], body: "0123456789")
        let transport = harness.transport
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<(Data, ResponseHead), any Error>, Never>) in
            let collector = ResponseCollector(maximumBytes: 4, ignoresDeclaredLength: false) { continuation.resume(returning: $0) }
            _ = transport.startTransfer(CacheTesting.request(), options: TransferOptions(), receiver: collector)
        }
        #expect(throws: ResourceError.self) { try result.get() }
        #expect(harness.cache.store.cachedResponse(forKey: "GET http://origin.test/a") == nil)
        #expect(try await harness.get().body == "0123456789")
        #expect(harness.origin.requestCount == 2)
    }

    @Test("§1.2.2, §5.1: the Age a stored response is served with never exceeds 2^31 seconds")
    func theAgeFieldIsBounded() async throws {
        let harness = CacheHarness(mode: .private)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Date": "Mon, 01 Jan 1900 00:00:00 GMT"], body: "A")
        _ = try await harness.get()
        let answer = try await harness.get(headers: ["Cache-Control": "max-stale"])
        #expect(answer.body == "A")
        #expect(answer.head.value(forHTTPHeaderField: "Age") == "2147483648")
        #expect(harness.origin.requestCount == 1)
    }

    @Test("§5.2.1.7: only-if-cached with a method the cache never answers, or with the request's own preconditions or range, sends nothing",
        arguments: [
            ("GET", ["If-None-Match": "\"x\""]),
            ("GET", ["Range": "bytes=0-1"]),
            ("GET", ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"]),
            ("POST", [:]),
            ("DELETE", [:]),
            ("OPTIONS", [:]),
        ])
    func onlyIfCachedNeverSendsWhatTheCacheCannotAnswer(method: String, fields: [String: String]) async throws {
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=600", "ETag": "\"x\""], body: "A")
        _ = try await harness.get()
        var headers = fields
        headers["Cache-Control"] = "only-if-cached"
        await #expect {
            _ = try await harness.send(CacheTesting.request(method: method, headers: headers))
        } throws: { error in
            if case .notCached = error as? ResourceError { true } else { false }
        }
        #expect(harness.origin.requestCount == 1)
    }

    @Test("Every request the cache sends says reloadIgnoringLocalCacheData, those it passes through untouched included",
        arguments: [
            ("GET", [:]),
            ("GET", ["If-None-Match": "\"x\""]),
            ("GET", ["Range": "bytes=0-1"]),
            ("HEAD", [:]),
            ("POST", [:]),
            ("DELETE", [:]),
            ("OPTIONS", [:]),
            ("TRACE", [:]),
        ])
    func everyRequestSentBypassesThePlatformCache(method: String, fields: [String: String]) async throws {
        // GIVEN a cache over an origin that records what it gets
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: [:], body: "A")
        // WHEN a request of each kind goes through it
        _ = try await harness.send(CacheTesting.request(method: method, headers: fields))
        // THEN the origin got it with the policy that keeps a URLSession's own cache out
        let sent = try #require(harness.origin.receivedRequests.first)
        #expect(sent.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(sent.httpMethod == method)
    }

    // MARK: - Invalidation (section 4.4)

    @Test("§4.4: an unsafe request the transport resends to another URL invalidates the URL that answered, and its own")
    func anUnsafeRequestRedirectedInvalidatesTheURLThatAnswered() async throws {
        // GIVEN /a and /b stored fresh for an hour, and a transport that resends a PUT to /a to
        // /b (a 307 with Location /b), which answers it
        let harness = CacheHarness(redirects: ["PUT http://origin.test/a": "http://origin.test/b"])
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=3600"], body: "A1")
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=3600"], body: "B1")
        harness.origin.enqueue(status: 200, headers: [:], body: "done")
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=3600"], body: "B2")
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=3600"], body: "A2")
        #expect(try await harness.get("http://origin.test/a").body == "A1")
        #expect(try await harness.get("http://origin.test/b").body == "B1")
        // WHEN the PUT to /a is answered by /b
        let put = try await harness.send(CacheTesting.request("http://origin.test/a", method: "PUT"))
        #expect(put.head.url?.absoluteString == "http://origin.test/b")
        // THEN neither /b nor /a is answered from the cache
        #expect(try await harness.get("http://origin.test/b").body == "B2")
        #expect(try await harness.get("http://origin.test/a").body == "A2")
        #expect(harness.origin.receivedRequests.map { $0.url?.path } == ["/a", "/b", "/b", "/b", "/a"])
    }

    // MARK: - Server errors (section 4.3.3)

    @Test("§4.3.3: a 5xx the cache passes on leaves the stored response, which answers a later failure within staleIfErrorLimit")
    func aServerErrorPassedOnKeepsTheStoredResponse() async throws {
        // GIVEN a cache that answers errors with responses up to an hour stale, and a stored
        // response fresh for a minute
        let harness = CacheHarness(staleIfErrorLimit: .seconds(3600))
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "A")
        harness.origin.enqueue(status: 503, headers: [:], body: "down")
        _ = try await harness.get()
        harness.date.advance(by: 120)
        // WHEN a request with no-cache, which no stale response answers, gets a 503
        let refused = try await harness.get(headers: ["Cache-Control": "no-cache"])
        #expect(refused.status == 503)
        // THEN the stored response is still there: a plain request answered with a 503 gets it
        harness.date.advance(by: 10)
        let answer = try await harness.get()
        #expect(answer.status == 200)
        #expect(answer.body == "A")
        #expect(harness.origin.requestCount == 3)
    }

    @Test("RFC 5861, §4.3.3: a 5xx to a background validation leaves the stale response to answer within its window")
    func aServerErrorToABackgroundValidationKeepsTheStoredResponse() async throws {
        // GIVEN a stored response that may be served ten minutes stale while it is validated,
        // and an origin that then answers 503
        let harness = CacheHarness()
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60, stale-while-revalidate=600"], body: "A")
        harness.origin.enqueue(status: 503, headers: [:], body: "down")
        _ = try await harness.get()
        harness.date.advance(by: 90)
        // WHEN it is fetched stale (validated in the background, which gets the 503), then again
        // until a second background validation starts, once the first is over
        #expect(try await harness.get().body == "A")
        var bodies: [String] = []
        let validatedAgain = await eventually {
            if let answer = try? await harness.get() { bodies.append(answer.body) }
            return harness.origin.requestCount >= 3
        }
        // THEN every fetch was answered with the stored response
        #expect(validatedAgain)
        #expect(!bodies.isEmpty)
        #expect(bodies.allSatisfy { $0 == "A" })
    }

    @Test("RFC 5861: a stale response answering a background validation's 503 ends that validation at once, without waiting for the 503's body")
    func aServerErrorToABackgroundValidationEndsItAtOnce() async throws {
        // GIVEN a stored response that may be served ten minutes stale while it is validated,
        // a cache that answers errors with it, and an origin that then answers 503 with a body
        // it never finishes sending
        let origin = StallingServerErrorOrigin()
        defer { origin.endAll() }
        let date = TestDate()
        let cache = HTTPCache(store: MemoryCacheStore(byteLimit: 1 << 20), policy: CachePolicy(mode: .private), staleIfErrorLimit: .seconds(3600))
        let transport = CachingTransport(wrapping: origin, cache: cache, now: { date.now })
        let fetch = { () async throws -> String in
            try await withCheckedThrowingContinuation { continuation in
                let collector = ResponseCollector(maximumBytes: 1 << 20) { result in
                    continuation.resume(with: result.map { String(decoding: $0.0, as: UTF8.self) })
                }
                _ = transport.startTransfer(CacheTesting.request(), options: TransferOptions(), receiver: collector)
            }
        }
        #expect(try await fetch() == "A")
        date.advance(by: 90)
        // WHEN it is fetched stale (validated in the background, which gets the stalled 503),
        // then again until a second background validation starts
        #expect(try await fetch() == "A")
        let validatedAgain = await eventually {
            _ = try? await fetch()
            return origin.requestCount >= 3
        }
        // THEN the first validation was over as soon as the 503's head arrived
        #expect(validatedAgain)
    }

    // MARK: - Vary after an update (sections 4.1, 4.3.4, 4.3.5)

    @Test("§4.1, §4.3.4: a 304 that adds Vary is matched against the validated request's values of the fields it names")
    func a304ThatAddsVaryRecordsTheRequestsFields() async throws {
        // GIVEN a stored French response without Vary, and an origin that validates it with a
        // 304 that adds Vary: Accept-Language
        let harness = CacheHarness()
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"1\"", "Cache-Control": "max-age=0"], body: "fr")
        harness.origin.enqueue(status: 304, headers: ["ETag": "\"1\"", "Vary": "Accept-Language", "Cache-Control": "max-age=600"])
        harness.origin.enqueue(status: 200, headers: ["Vary": "Accept-Language", "Cache-Control": "max-age=600"], body: "other")
        #expect(try await harness.get(headers: ["Accept-Language": "fr"]).body == "fr")
        // WHEN a French request validates it
        #expect(try await harness.get(headers: ["Accept-Language": "fr"]).body == "fr")
        // THEN another French request is a hit, and a request without Accept-Language is not
        #expect(try await harness.get(headers: ["Accept-Language": "fr"]).body == "fr")
        #expect(harness.origin.requestCount == 2)
        #expect(try await harness.get().body == "other")
        #expect(harness.origin.requestCount == 3)
    }

    @Test("§4.1, §4.3.5: a HEAD answer that adds Vary is matched against the HEAD request's values of the fields it names")
    func aHEADAnswerThatAddsVaryRecordsTheRequestsFields() async throws {
        // GIVEN a stored French GET response without Vary, and an origin whose HEAD answer, with
        // the same ETag, adds Vary: Accept-Language
        let harness = CacheHarness()
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"1\"", "Cache-Control": "max-age=0"], body: "fr")
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"1\"", "Vary": "Accept-Language", "Cache-Control": "max-age=600"])
        harness.origin.enqueue(status: 200, headers: ["Vary": "Accept-Language", "Cache-Control": "max-age=600"], body: "other")
        #expect(try await harness.get(headers: ["Accept-Language": "fr"]).body == "fr")
        // WHEN a French HEAD request freshens it
        _ = try await harness.send(CacheTesting.request(method: "HEAD", headers: ["Accept-Language": "fr"]))
        // THEN a French GET is a hit, and a GET without Accept-Language is not
        #expect(try await harness.get(headers: ["Accept-Language": "fr"]).body == "fr")
        #expect(harness.origin.requestCount == 2)
        #expect(try await harness.get().body == "other")
        #expect(harness.origin.requestCount == 3)
    }

    // MARK: - must-understand (sections 3, 5.2.2.3)

    @Test("§3, §5.2.2.3: with must-understand, a response is stored when the cache understands its status, no-store notwithstanding, and not otherwise",
        arguments: [(200, "must-understand, no-store, max-age=600", true), (404, "must-understand, no-store, max-age=600", true),
            (299, "must-understand, max-age=600", false), (299, "must-understand, no-store, max-age=600", false)])
    func mustUnderstand(status: Int, cacheControl: String, stored: Bool) async throws {
        // GIVEN a response with must-understand
        let harness = CacheHarness()
        harness.origin.enqueue(status: status, headers: ["Cache-Control": cacheControl], body: "A")
        harness.origin.enqueue(status: 200, headers: [:], body: "B")
        _ = try await harness.get()
        // WHEN the URL is fetched again
        let answer = try await harness.get()
        // THEN it is answered from the cache only when the status is understood
        #expect(answer.body == (stored ? "A" : "B"))
        #expect(harness.origin.requestCount == (stored ? 1 : 2))
    }
}

/// An origin that answers its first request with a `200` that may be served stale while it is
/// revalidated, and every later one with a `503` head whose body never comes: those transfers
/// end only when stopped, or when the test ends them.
final class StallingServerErrorOrigin: HTTPTransport, @unchecked Sendable {
    // `lock` guards `requests` and `held`.
    private let lock = NSLock()
    private var requests = 0
    private var held: [any TransferReceiver] = []

    var requestCount: Int { lock.withLock { requests } }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        let number = lock.withLock { () -> Int in
            requests += 1
            return requests
        }
        DispatchQueue.global().async {
            if number == 1 {
                let head = ResponseHead(
                    statusCode: 200, url: request.url, headerFields: [("Cache-Control", "max-age=60, stale-while-revalidate=600")])
                if case .proceed = receiver.transferDidReceive(head: head) { _ = receiver.transferDidReceive(Data("A".utf8)) }
                receiver.transferDidComplete(with: nil)
                return
            }
            let head = ResponseHead(statusCode: 503, url: request.url, headerFields: [("Content-Length", "1000")])
            if case .stop(let error) = receiver.transferDidReceive(head: head) {
                receiver.transferDidComplete(with: error)
                return
            }
            self.lock.withLock { self.held.append(receiver) }
        }
        return Ignored()
    }

    /// Ends the transfers still held with a lost connection, and lets go of their receivers.
    func endAll() {
        let receivers = lock.withLock { () -> [any TransferReceiver] in
            defer { held = [] }
            return held
        }
        for receiver in receivers { receiver.transferDidComplete(with: URLError(.networkConnectionLost)) }
    }

    private final class Ignored: Cancellable {
        func cancel() {}
    }
}
