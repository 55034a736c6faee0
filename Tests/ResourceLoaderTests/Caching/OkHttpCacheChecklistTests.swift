import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// OkHttp's `CacheTest`, read as a checklist: each applicable case ported and named after it,
/// against a private cache (OkHttp's is one) over a scripted origin, with the clock moved by
/// hand. Cases about OkHttp's own API (statistics, interceptors, TLS handshakes, cookies, its disk
/// format) do not apply.
@Suite("OkHttp CacheTest checklist (RFC 9111 through CachingTransport)")
struct OkHttpCacheChecklistTests {
    let harness = CacheHarness()
    var origin: ScriptedOrigin { harness.origin }
    var date: TestDate { harness.date }

    /// The answer is a full response the cache keeps ("A"), then "B": whether the second request
    /// was answered from the cache.
    private func assertFullyCached(_ headers: [String: String]) async throws -> Bool {
        origin.enqueue(status: 200, headers: headers, body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        return try await harness.get().body == "A"
    }

    /// Whether the second request was sent with a precondition and a `304` gave the stored body.
    private func assertConditionallyCached(_ headers: [String: String]) async throws -> Bool {
        origin.enqueue(status: 200, headers: headers, body: "A")
        origin.enqueue(status: 304, headers: [:], body: "")
        #expect(try await harness.get().body == "A")
        let second = try await harness.get()
        guard origin.requestCount == 2 else { return false }
        let conditional = origin.receivedRequests[1]
        let hasCondition = conditional.value(forHTTPHeaderField: "If-None-Match") != nil
            || conditional.value(forHTTPHeaderField: "If-Modified-Since") != nil
        return hasCondition && second.body == "A" && second.status == 200
    }

    private func assertNotCached(_ headers: [String: String]) async throws -> Bool {
        origin.enqueue(status: 200, headers: headers, body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        let second = try await harness.get()
        return second.body == "B" && origin.receivedRequests[1].value(forHTTPHeaderField: "If-None-Match") == nil
            && origin.receivedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") == nil
    }

    // MARK: - Storing by status

    /// OkHttp's test sends `Expires` and `Last-Modified` with each status. RFC 9111 (section 3)
    /// lets a cache store any final status with explicit freshness (`Expires` here) but `206`
    /// (a partial answer this cache does not combine) and `304`; OkHttp stores fewer (it refuses
    /// 201, 303, most 4xx and 5xx). This cache follows the RFC: the list states what it stores.
    @Test("OkHttp: responseCachingByResponseCode (RFC 9111 §3 rather than OkHttp's narrower list)", arguments: [
        200, 201, 202, 203, 204, 205, 206, 207, 300, 301, 302, 303, 304, 307, 308,
        400, 401, 403, 404, 405, 410, 414, 500, 501, 503,
    ])
    func responseCachingByResponseCode(status: Int) async throws {
        let harness = CacheHarness()
        harness.origin.enqueue(status: status, headers: [
            "Last-Modified": harness.date.httpDate(-3600), "Expires": harness.date.httpDate(3600),
        ], body: [204, 205, 304].contains(status) ? "" : "ABCDE")
        _ = try await harness.get()
        let key = CachePolicy.key(method: "GET", url: URL(string: "http://origin.test/a")!)
        #expect((harness.cache.store.cachedResponse(forKey: key) != nil) == (status != 206 && status != 304))
    }

    @Test("OkHttp: responseCachingAndInputStreamSkipWithFixedLength (a second request is a hit with the whole body)")
    func responseCachingAndInputStreamSkipWithFixedLength() async throws {
        #expect(try await assertFullyCached(["Last-Modified": date.httpDate(-3600), "Expires": date.httpDate(3600)]))
        #expect(origin.requestCount == 1)
    }

    @Test("OkHttp: serverDisconnectsPrematurelyWithContentLengthHeader (a truncated body is not stored)")
    func serverDisconnectsPrematurely() async throws {
        let harness = CacheHarness()
        final class Truncating: HTTPTransport, @unchecked Sendable {
            func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
                _ = receiver.transferDidReceive(head: CacheTesting.head(headers: ["Cache-Control": "max-age=60", "Content-Length": "10"]))
                _ = receiver.transferDidReceive(Data("ABC".utf8))
                receiver.transferDidComplete(with: URLError(.networkConnectionLost))
                return Nothing()
            }
            final class Nothing: Cancellable { func cancel() {} }
        }
        let transport = CachingTransport(wrapping: Truncating(), cache: harness.cache, now: { harness.date.now })
        let failed = await withCheckedContinuation { continuation in
            let collector = ResponseCollector(maximumBytes: 100) { continuation.resume(returning: $0) }
            _ = transport.startTransfer(CacheTesting.request(), options: TransferOptions(), receiver: collector)
        }
        #expect(throws: URLError.self) { try failed.get() }
        #expect(harness.cache.store.cachedResponse(forKey: "GET http://origin.test/a") == nil)
    }

    // MARK: - Freshness

    @Test("OkHttp: defaultExpirationDateFullyCachedForLessThan24Hours")
    func defaultExpirationLessThan24Hours() async throws {
        //      last modified: 105 seconds ago; served: 5 seconds ago; default lifetime: 10 s
        #expect(try await assertFullyCached(["Last-Modified": date.httpDate(-105), "Date": date.httpDate(-5)]))
    }

    @Test("OkHttp: defaultExpirationDateFullyCachedForMoreThan24Hours")
    func defaultExpirationMoreThan24Hours() async throws {
        //      last modified: 105 days ago; served: 5 days ago; heuristic lifetime: min(10 days, 7-day cap)
        #expect(try await assertFullyCached(["Last-Modified": date.httpDate(-105 * 86_400), "Date": date.httpDate(-5 * 86_400)]))
    }

    @Test("OkHttp: defaultExpirationDateConditionallyCached")
    func defaultExpirationConditionallyCached() async throws {
        //      last modified: 115 seconds ago; served: 15 seconds ago; default lifetime: 10 s
        #expect(try await assertConditionallyCached(["Last-Modified": date.httpDate(-115), "Date": date.httpDate(-15)]))
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") == date.httpDate(-115))
    }

    @Test("OkHttp: expirationDateInThePastWithLastModifiedHeader")
    func expirationDateInThePastWithLastModified() async throws {
        let lastModified = date.httpDate(-2 * 3600)
        #expect(try await assertConditionallyCached(["Last-Modified": lastModified, "Expires": date.httpDate(-3600)]))
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") == lastModified)
    }

    @Test("OkHttp: expirationDateInThePastWithNoLastModifiedHeader")
    func expirationDateInThePastWithNoLastModified() async throws {
        #expect(try await assertNotCached(["Expires": date.httpDate(-3600)]))
    }

    @Test("OkHttp: expirationDateInTheFuture")
    func expirationDateInTheFuture() async throws {
        #expect(try await assertFullyCached(["Expires": date.httpDate(3600)]))
    }

    @Test("OkHttp: maxAgePreferredWithMaxAgeAndExpires")
    func maxAgePreferredWithMaxAgeAndExpires() async throws {
        #expect(try await assertFullyCached(["Date": date.httpDate(-3600), "Expires": date.httpDate(-3600), "Cache-Control": "max-age=7200"]))
    }

    @Test("OkHttp: maxAgeInThePastWithDateAndLastModifiedHeaders")
    func maxAgeInThePastWithDateAndLastModified() async throws {
        #expect(try await assertConditionallyCached([
            "Date": date.httpDate(-120), "Last-Modified": date.httpDate(-2 * 3600), "Cache-Control": "max-age=60",
        ]))
    }

    @Test("OkHttp: maxAgeInThePastWithDateHeaderButNoLastModifiedHeader")
    func maxAgeInThePastWithDateHeaderButNoLastModifiedHeader() async throws {
        // Chrome interprets max-age relative to the local clock; both agree: stale, no validator.
        #expect(try await assertNotCached(["Date": date.httpDate(-120), "Cache-Control": "max-age=60"]))
    }

    @Test("OkHttp: maxAgeInTheFutureWithDateHeader")
    func maxAgeInTheFutureWithDateHeader() async throws {
        #expect(try await assertFullyCached(["Date": date.httpDate(), "Cache-Control": "max-age=60"]))
    }

    @Test("OkHttp: maxAgeInTheFutureWithNoDateHeader")
    func maxAgeInTheFutureWithNoDateHeader() async throws {
        #expect(try await assertFullyCached(["Cache-Control": "max-age=60"]))
    }

    @Test("OkHttp: maxAgeWithLastModifiedButNoServedDate")
    func maxAgeWithLastModifiedButNoServedDate() async throws {
        #expect(try await assertFullyCached(["Last-Modified": date.httpDate(-120), "Cache-Control": "max-age=60"]))
    }

    @Test("OkHttp: maxAgeInTheFutureWithDateAndLastModifiedHeaders")
    func maxAgeInTheFutureWithDateAndLastModifiedHeaders() async throws {
        #expect(try await assertFullyCached([
            "Last-Modified": date.httpDate(-120), "Date": date.httpDate(), "Cache-Control": "max-age=60",
        ]))
    }

    @Test("OkHttp: maxAgePreferredOverLowerSharedMaxAge (a private cache ignores s-maxage)")
    func maxAgePreferredOverLowerSharedMaxAge() async throws {
        #expect(try await assertFullyCached(["Date": date.httpDate(-2 * 60), "Cache-Control": "s-maxage=60, max-age=180"]))
    }

    @Test("OkHttp: maxAgePreferredOverHigherSharedMaxAge (a private cache ignores s-maxage)")
    func maxAgePreferredOverHigherSharedMaxAge() async throws {
        #expect(try await assertNotCached(["Date": date.httpDate(-2 * 60), "Cache-Control": "s-maxage=180, max-age=60"]))
    }

    // MARK: - Methods and invalidation

    @Test("OkHttp: requestMethodPostIsNotCached, PutIsNotCached, DeleteIsNotCached, PatchIsNotCached, OptionsIsNotCached, TraceIsNotCached",
        arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"])
    func unsafeMethodsAreNotCached(method: String) async throws {
        origin.enqueue(status: 200, headers: ["Expires": date.httpDate(3600)], body: "A")
        origin.enqueue(status: 200, headers: ["Expires": date.httpDate(3600)], body: "B")
        _ = try await harness.send(CacheTesting.request(method: method))
        #expect(try await harness.send(CacheTesting.request(method: method)).body == "B")
        #expect(origin.requestCount == 2)
    }

    @Test("OkHttp: requestMethodGetIsCached")
    func requestMethodGetIsCached() async throws {
        #expect(try await assertFullyCached(["Expires": date.httpDate(3600)]))
    }

    @Test("OkHttp: postInvalidatesCache, putInvalidatesCache, deleteInvalidatesCache, patchInvalidatesCache (§4.4)",
        arguments: ["POST", "PUT", "DELETE", "PATCH"])
    func unsafeMethodsInvalidate(method: String) async throws {
        origin.enqueue(status: 200, headers: ["Expires": date.httpDate(3600)], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        origin.enqueue(status: 200, headers: [:], body: "C")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.send(CacheTesting.request(method: method)).body == "B")
        #expect(try await harness.get().body == "C")
    }

    @Test("OkHttp: postInvalidatesCacheWithUncacheableResponse")
    func postInvalidatesCacheWithUncacheableResponse() async throws {
        origin.enqueue(status: 200, headers: ["Expires": date.httpDate(3600)], body: "A")
        origin.enqueue(status: 201, headers: ["Cache-Control": "no-store"], body: "B")
        origin.enqueue(status: 200, headers: [:], body: "C")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.send(CacheTesting.request(method: "POST")).body == "B")
        #expect(try await harness.get().body == "C")
    }

    @Test("OkHttp: putInvalidatesWithNoContentResponse")
    func putInvalidatesWithNoContentResponse() async throws {
        origin.enqueue(status: 200, headers: ["Expires": date.httpDate(3600)], body: "A")
        origin.enqueue(status: 204, headers: [:], body: "")
        origin.enqueue(status: 200, headers: [:], body: "C")
        #expect(try await harness.get().body == "A")
        _ = try await harness.send(CacheTesting.request(method: "PUT"))
        #expect(try await harness.get().body == "C")
    }

    @Test("§4.4: an error answer to an unsafe method invalidates nothing")
    func errorDoesNotInvalidate() async throws {
        origin.enqueue(status: 200, headers: ["Expires": date.httpDate(3600)], body: "A")
        origin.enqueue(status: 500, headers: [:], body: "oops")
        #expect(try await harness.get().body == "A")
        _ = try await harness.send(CacheTesting.request(method: "POST"))
        #expect(try await harness.get().body == "A")
    }

    @Test("OkHttp: contentLocationDoesNotPopulateCache; §4.4: a POST's Location and Content-Location of the same origin are invalidated")
    func locationInvalidated() async throws {
        origin.enqueue(status: 200, headers: ["Expires": date.httpDate(3600)], body: "A")
        origin.enqueue(status: 201, headers: ["Location": "/a", "Content-Location": "/b"], body: "created")
        origin.enqueue(status: 200, headers: [:], body: "C")
        #expect(try await harness.get().body == "A")
        _ = try await harness.send(CacheTesting.request("http://origin.test/collection", method: "POST"))
        #expect(harness.cache.store.cachedResponse(forKey: "GET http://origin.test/b") == nil)
        #expect(try await harness.get().body == "C")
    }

    // MARK: - Validators and directives

    @Test("OkHttp: etag")
    func etag() async throws {
        #expect(try await assertConditionallyCached(["ETag": "v1"]))
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-None-Match") == "v1")
    }

    @Test("OkHttp: etagAndExpirationDateInThePast")
    func etagAndExpirationDateInThePast() async throws {
        let lastModified = date.httpDate(-2 * 3600)
        #expect(try await assertConditionallyCached(["ETag": "v1", "Last-Modified": lastModified, "Expires": date.httpDate(-3600)]))
        // Only If-None-Match: the task's rule (ETag, else Last-Modified).
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-None-Match") == "v1")
    }

    @Test("OkHttp: etagAndExpirationDateInTheFuture")
    func etagAndExpirationDateInTheFuture() async throws {
        #expect(try await assertFullyCached(["ETag": "v1", "Last-Modified": date.httpDate(-2 * 3600), "Expires": date.httpDate(3600)]))
    }

    @Test("OkHttp: cacheControlNoCache")
    func cacheControlNoCache() async throws {
        #expect(try await assertNotCached(["Cache-Control": "no-cache"]))
    }

    @Test("OkHttp: cacheControlNoCacheAndExpirationDateInTheFuture")
    func cacheControlNoCacheAndExpirationDateInTheFuture() async throws {
        #expect(try await assertConditionallyCached([
            "Last-Modified": date.httpDate(-2 * 3600), "Expires": date.httpDate(3600), "Cache-Control": "no-cache",
        ]))
    }

    @Test("OkHttp: cacheControlNoStore")
    func cacheControlNoStore() async throws {
        #expect(try await assertNotCached(["Cache-Control": "no-store"]))
    }

    @Test("OkHttp: cacheControlNoStoreAndExpirationDateInTheFuture")
    func cacheControlNoStoreAndExpirationDateInTheFuture() async throws {
        #expect(try await assertNotCached(["Last-Modified": date.httpDate(-2 * 3600), "Expires": date.httpDate(3600), "Cache-Control": "no-store"]))
    }

    @Test("OkHttp: clientSideNoStore")
    func clientSideNoStore() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "A")
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "B")
        #expect(try await harness.get(headers: ["Cache-Control": "no-store"]).body == "A")
        #expect(try await harness.get().body == "B")
    }

    @Test("OkHttp: serverReturnsDocumentOlderThanCache (a 200 to a conditional request replaces the entry)")
    func serverReturnsDocumentOlderThanCache() async throws {
        origin.enqueue(status: 200, headers: ["Last-Modified": date.httpDate(-2 * 3600), "Expires": date.httpDate(-3600)], body: "A")
        origin.enqueue(status: 200, headers: ["Last-Modified": date.httpDate(-4 * 3600)], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get().body == "B")
        #expect(try await harness.get().body == "B")
    }

    @Test("OkHttp: expiresDateBeforeModifiedDate")
    func expiresDateBeforeModifiedDate() async throws {
        #expect(try await assertConditionallyCached(["Last-Modified": date.httpDate(-3600), "Expires": date.httpDate(-2 * 3600)]))
    }

    @Test("OkHttp: requestMaxAge")
    func requestMaxAge() async throws {
        origin.enqueue(status: 200, headers: ["Last-Modified": date.httpDate(-2 * 3600), "Date": date.httpDate(-60), "Expires": date.httpDate(3600)], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Cache-Control": "max-age=30"]).body == "B")
    }

    @Test("OkHttp: requestMinFresh")
    func requestMinFresh() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Date": date.httpDate()], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Cache-Control": "min-fresh=120"]).body == "B")
    }

    @Test("OkHttp: requestMaxStale")
    func requestMaxStale() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=120", "Date": date.httpDate(-4 * 60)], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Cache-Control": "max-stale=180"]).body == "A")
    }

    @Test("OkHttp: requestMaxStaleDirectiveWithNoValue")
    func requestMaxStaleDirectiveWithNoValue() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=120", "Date": date.httpDate(-4 * 60)], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Cache-Control": "max-stale"]).body == "A")
    }

    @Test("OkHttp: requestMaxStaleNotHonoredWithMustRevalidate")
    func requestMaxStaleNotHonoredWithMustRevalidate() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=120, must-revalidate", "Date": date.httpDate(-4 * 60)], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Cache-Control": "max-stale=180"]).body == "B")
    }

    @Test("OkHttp: requestOnlyIfCachedWithNoResponseCached (a typed error, no network)")
    func requestOnlyIfCachedWithNoResponseCached() async throws {
        await #expect {
            try await harness.get(headers: ["Cache-Control": "only-if-cached"])
        } throws: { error in
            if case .notCached = error as? ResourceError { true } else { false }
        }
        #expect(origin.requestCount == 0)
    }

    @Test("OkHttp: requestOnlyIfCachedWithFullResponseCached")
    func requestOnlyIfCachedWithFullResponseCached() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=30", "Date": date.httpDate()], body: "A")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Cache-Control": "only-if-cached"]).body == "A")
        #expect(origin.requestCount == 1)
    }

    @Test("OkHttp: requestOnlyIfCachedWithConditionalResponseCached")
    func requestOnlyIfCachedWithConditionalResponseCached() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=30", "Date": date.httpDate(-60)], body: "A")
        #expect(try await harness.get().body == "A")
        await #expect(throws: ResourceError.self) { try await harness.get(headers: ["Cache-Control": "only-if-cached"]) }
        #expect(origin.requestCount == 1)
    }

    @Test("OkHttp: requestOnlyIfCachedWithUnhelpfulResponseCached")
    func requestOnlyIfCachedWithUnhelpfulResponseCached() async throws {
        origin.enqueue(status: 200, headers: [:], body: "A")
        #expect(try await harness.get().body == "A")
        await #expect(throws: ResourceError.self) { try await harness.get(headers: ["Cache-Control": "only-if-cached"]) }
        #expect(origin.requestCount == 1)
    }

    @Test("OkHttp: requestCacheControlNoCache")
    func requestCacheControlNoCache() async throws {
        origin.enqueue(status: 200, headers: ["Last-Modified": date.httpDate(-120), "Date": date.httpDate(), "Cache-Control": "max-age=60"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Cache-Control": "no-cache"]).body == "B")
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") != nil)
    }

    @Test("OkHttp: requestPragmaNoCache (§5.4)")
    func requestPragmaNoCache() async throws {
        origin.enqueue(status: 200, headers: ["Last-Modified": date.httpDate(-120), "Date": date.httpDate(), "Cache-Control": "max-age=60"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Pragma": "no-cache"]).body == "B")
    }

    @Test("OkHttp: clientSuppliedIfModifiedSinceWithCachedResult (the caller's own precondition goes through untouched)")
    func clientSuppliedIfModifiedSinceWithCachedResult() async throws {
        origin.enqueue(status: 200, headers: ["ETag": "v3", "Cache-Control": "max-age=0"], body: "A")
        origin.enqueue(status: 304, headers: [:], body: "")
        #expect(try await harness.get().body == "A")
        let ifModifiedSince = date.httpDate(-24 * 3600)
        let answer = try await harness.get(headers: ["If-Modified-Since": ifModifiedSince])
        #expect(answer.status == 304)
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") == ifModifiedSince)
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-None-Match") == nil)
    }

    @Test("OkHttp: clientSuppliedIfNoneMatchSinceWithCachedResult")
    func clientSuppliedIfNoneMatchSinceWithCachedResult() async throws {
        origin.enqueue(status: 200, headers: ["Last-Modified": date.httpDate(-3 * 60), "Cache-Control": "max-age=0"], body: "A")
        origin.enqueue(status: 304, headers: [:], body: "")
        #expect(try await harness.get().body == "A")
        let answer = try await harness.get(headers: ["If-None-Match": "v1"])
        #expect(answer.status == 304)
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-None-Match") == "v1")
        #expect(origin.receivedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") == nil)
    }

    @Test("OkHttp: clientSuppliedConditionWithoutCachedResult")
    func clientSuppliedConditionWithoutCachedResult() async throws {
        origin.enqueue(status: 304, headers: [:], body: "")
        let answer = try await harness.get(headers: ["If-Modified-Since": date.httpDate(-3600)])
        #expect(answer.status == 304)
        #expect(answer.body == "")
    }

    @Test("OkHttp: authorizationRequestFullyCached (a private cache stores an authorised response)")
    func authorizationRequestFullyCached() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Authorization": "password"]).body == "A")
        #expect(try await harness.get().body == "A")
    }

    @Test("§3.5: a shared cache does not serve an authorised response to another request")
    func sharedCacheAuthorization() async throws {
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "secret")
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "anonymous")
        #expect(try await harness.get(headers: ["Authorization": "Bearer alice"]).body == "secret")
        #expect(try await harness.get().body == "anonymous")
        #expect(harness.origin.requestCount == 2)
    }

    @Test("OkHttp: conditionalHitUpdatesCache (§4.3.4: the 304's fields replace the stored ones)")
    func conditionalHitUpdatesCache() async throws {
        origin.enqueue(status: 200, headers: ["Last-Modified": date.httpDate(0), "Cache-Control": "max-age=0"], body: "A")
        origin.enqueue(status: 304, headers: ["Cache-Control": "max-age=30", "Allow": "GET, HEAD"], body: "")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        let second = try await harness.get()
        #expect(second.body == "A")
        #expect(second.head.value(forHTTPHeaderField: "Allow") == "GET, HEAD")
        let third = try await harness.get()
        #expect(third.body == "A")
        #expect(third.head.value(forHTTPHeaderField: "Allow") == "GET, HEAD")
        #expect(origin.requestCount == 2)
    }

    @Test("OkHttp: getHeadersReturnsCachedHopByHopHeaders (§3.2: hop-by-hop fields of a 304 are not stored; §3.1: nor the 200's)")
    func hopByHopFieldsOfA304() async throws {
        origin.enqueue(status: 200, headers: ["ETag": "v1", "Cache-Control": "max-age=0", "Transfer-Encoding": "identity", "X-Kept": "1"], body: "A")
        origin.enqueue(status: 304, headers: ["Transfer-Encoding": "none", "Connection": "close"], body: "")
        _ = try await harness.get()
        let second = try await harness.get()
        #expect(second.body == "A")
        // Unlike OkHttp, which returns the 200's `Transfer-Encoding` from its cache: the stored
        // body is delivered whole with its `Content-Length`, so the framing of the message it
        // came in is not kept (RFC 9111 §3.1, RFC 9110 §7.6.1).
        #expect(second.head.value(forHTTPHeaderField: "Transfer-Encoding") == nil)
        #expect(second.head.value(forHTTPHeaderField: "Connection") == nil)
        #expect(second.head.value(forHTTPHeaderField: "X-Kept") == "1")
    }

    @Test("OkHttp: immutableIsCached, immutableIsNotCachedBeyondFreshnessLifetime")
    func immutable() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "immutable, max-age=60"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get().body == "A")
        date.advance(by: 61)
        #expect(try await harness.get().body == "B")
    }

    // MARK: - Vary (§4.1)

    @Test("OkHttp: varyMatchesChangedRequestHeaderField")
    func varyMatchesChangedRequestHeaderField() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA"]).body == "A")
        #expect(try await harness.get(headers: ["Accept-Language": "en-US"]).body == "B")
    }

    @Test("OkHttp: varyMatchesUnchangedRequestHeaderField")
    func varyMatchesUnchangedRequestHeaderField() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA"]).body == "A")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA"]).body == "A")
    }

    @Test("OkHttp: varyMatchesAbsentRequestHeaderField")
    func varyMatchesAbsentRequestHeaderField() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Foo"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get().body == "A")
    }

    @Test("OkHttp: varyMatchesAddedRequestHeaderField")
    func varyMatchesAddedRequestHeaderField() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Foo"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get(headers: ["Foo": "bar"]).body == "B")
    }

    @Test("OkHttp: varyMatchesRemovedRequestHeaderField")
    func varyMatchesRemovedRequestHeaderField() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Foo"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Foo": "bar"]).body == "A")
        #expect(try await harness.get().body == "B")
    }

    @Test("OkHttp: varyFieldsAreCaseInsensitive")
    func varyFieldsAreCaseInsensitive() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "ACCEPT-LANGUAGE"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA"]).body == "A")
        #expect(try await harness.get(headers: ["accept-language": "fr-CA"]).body == "A")
    }

    @Test("OkHttp: varyMultipleFieldsWithMatch")
    func varyMultipleFieldsWithMatch() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language, Accept-Charset"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        let headers = ["Accept-Language": "fr-CA", "Accept-Charset": "UTF-8"]
        #expect(try await harness.get(headers: headers).body == "A")
        #expect(try await harness.get(headers: headers).body == "A")
    }

    @Test("OkHttp: varyMultipleFieldsWithNoMatch")
    func varyMultipleFieldsWithNoMatch() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language, Accept-Charset"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA", "Accept-Charset": "UTF-8"]).body == "A")
        #expect(try await harness.get(headers: ["Accept-Language": "en-CA", "Accept-Charset": "UTF-8"]).body == "B")
    }

    @Test("OkHttp: varyMultipleFieldValuesWithMatch (values normalised)")
    func varyMultipleFieldValuesWithMatch() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA, fr-FR"]).body == "A")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA,fr-FR"]).body == "A")
    }

    @Test("OkHttp: varyMultipleFieldValuesWithNoMatch")
    func varyMultipleFieldValuesWithNoMatch() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-CA, fr-FR"]).body == "A")
        #expect(try await harness.get(headers: ["Accept-Language": "fr-FR, fr-CA"]).body == "B")
    }

    @Test("OkHttp: varyAsterisk")
    func varyAsterisk() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "*"], body: "A")
        origin.enqueue(status: 200, headers: [:], body: "B")
        #expect(try await harness.get().body == "A")
        #expect(try await harness.get().body == "B")
    }

    // MARK: - HEAD

    @Test("§3: a HEAD response is stored under its own key and answers HEAD, not GET")
    func headIsCachedSeparately() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60", "Content-Length": "5"], body: "")
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "BODY!")
        let head = try await harness.send(CacheTesting.request(method: "HEAD"))
        #expect(head.head.value(forHTTPHeaderField: "Content-Length") == "5")
        #expect(try await harness.get().body == "BODY!")
        #expect(try await harness.send(CacheTesting.request(method: "HEAD")).body == "")
        #expect(origin.requestCount == 2)
    }

    // MARK: - Age

    @Test("§5.1: a response served from the cache carries its current Age")
    func ageOnHit() async throws {
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=600", "Date": date.httpDate()], body: "A")
        _ = try await harness.get()
        date.advance(by: 42)
        #expect(try await harness.get().head.value(forHTTPHeaderField: "Age") == "42")
    }

    // MARK: - stale-if-error (RFC 5861)

    @Test("RFC 5861: stale-if-error is opt-in; within the bound a stale response answers a failure or a 503")
    func staleIfError() async throws {
        let off = CacheHarness()
        off.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "A")
        off.origin.enqueue(.failure(.notConnectedToInternet))
        _ = try await off.get()
        off.date.advance(by: 120)
        await #expect(throws: URLError.self) { try await off.get() }

        let on = CacheHarness(staleIfErrorLimit: .seconds(3600))
        on.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: "A")
        on.origin.enqueue(.failure(.notConnectedToInternet))
        on.origin.enqueue(status: 503, headers: [:], body: "down")
        on.origin.enqueue(.failure(.notConnectedToInternet))
        _ = try await on.get()
        on.date.advance(by: 120)
        #expect(try await on.get().body == "A")
        #expect(try await on.get().body == "A")
        on.date.advance(by: 3600)
        await #expect(throws: URLError.self) { try await on.get() }
    }
}
