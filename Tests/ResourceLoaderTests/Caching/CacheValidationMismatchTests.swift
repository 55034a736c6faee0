import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RFC 9111, section 4.3.4: a `304` whose validators are not the stored response's selects no
/// stored response, so it cannot update one. It answered validators the cache added, not the
/// caller: the cache removes the stored response and sends the request again, once, without them
/// (RFC 9111, section 4.3.3: a full response satisfies the request and may be stored).
@Suite("§4.3.4: a 304 that cannot update the stored response is resent without the cache's validators")
struct CacheValidationMismatchTests {
    // MARK: - Through the transport

    @Test("A 304 with another ETag: the caller gets the 200 of the unconditional resend, which replaces the stored response")
    func anotherETag() async throws {
        // GIVEN a stored response with ETag "v1", gone stale
        let harness = CacheHarness()
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: "A")
        // AND an origin that answers the cache's If-None-Match with a 304 for another
        // representation, then a plain request with that representation
        harness.origin.enqueue(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "")
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "B")
        _ = try await harness.get()
        harness.date.advance(by: 61)
        // WHEN it is fetched
        let answer = try await harness.get()
        // THEN the caller gets the new 200, after exactly two requests: the conditional one and
        // one without the validator
        #expect(answer.status == 200)
        #expect(answer.body == "B")
        #expect(answer.head.value(forHTTPHeaderField: "ETag") == "\"v2\"")
        let requests = harness.origin.receivedRequests
        #expect(requests.count == 3)
        #expect(requests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, "\"v1\"", nil])
        #expect(requests.last?.value(forHTTPHeaderField: "If-Modified-Since") == nil)
        // AND the new 200 is what is stored: the next fetch is a hit
        let stored = harness.cache.store.cachedResponse(forKey: CachePolicy.key(method: "GET", url: URL(string: "http://origin.test/a")!))
        #expect(stored?.value(forHTTPHeaderField: "ETag") == "\"v2\"")
        #expect(stored?.body == Data("B".utf8))
        #expect(try await harness.get().body == "B")
        #expect(harness.origin.requestCount == 3)
    }

    @Test("Last-Modified only: a 304 with another Last-Modified is resent without If-Modified-Since")
    func anotherLastModified() async throws {
        let harness = CacheHarness()
        let stored = harness.date.httpDate(-2 * 86_400)
        let changed = harness.date.httpDate(-3_600)
        harness.origin.enqueue(status: 200, headers: ["Last-Modified": stored, "Cache-Control": "max-age=60"], body: "A")
        harness.origin.enqueue(status: 304, headers: ["Last-Modified": changed, "Cache-Control": "max-age=60"], body: "")
        harness.origin.enqueue(status: 200, headers: ["Last-Modified": changed, "Cache-Control": "max-age=60"], body: "B")
        _ = try await harness.get()
        harness.date.advance(by: 61)
        let answer = try await harness.get()
        #expect(answer.status == 200)
        #expect(answer.body == "B")
        #expect(harness.origin.receivedRequests.map { $0.value(forHTTPHeaderField: "If-Modified-Since") } == [nil, stored, nil])
        #expect(try await harness.get().body == "B")
        #expect(harness.origin.requestCount == 3)
    }

    @Test("A second mismatching 304, to the unconditional resend, is handed on: no third request, nothing stored")
    func secondMismatchIsHandedOn() async throws {
        let harness = CacheHarness()
        let key = CachePolicy.key(method: "GET", url: URL(string: "http://origin.test/a")!)
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: "A")
        // The last answer repeats: every request from now on gets this 304.
        harness.origin.enqueue(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "")
        _ = try await harness.get()
        harness.date.advance(by: 61)
        let answer = try await harness.get()
        // The origin answered a request without preconditions with a 304: that is its answer to
        // the caller's own request, and the cache has nothing to put in its place.
        #expect(answer.status == 304)
        #expect(answer.body == "")
        #expect(harness.origin.receivedRequests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, "\"v1\"", nil])
        #expect(harness.cache.store.cachedResponse(forKey: key) == nil)
        // The next fetch is a plain miss: one request, no loop.
        _ = try await harness.get()
        #expect(harness.origin.requestCount == 4)
        #expect(harness.origin.receivedRequests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)
    }

    @Test("A conditional request the caller made itself gets its own 304, and the stored response is left alone")
    func callersOwnConditionPassesThrough() async throws {
        // This rule held before the resend existed; it guards that the resend is only ever
        // for the cache's own validators.
        let harness = CacheHarness()
        let key = CachePolicy.key(method: "GET", url: URL(string: "http://origin.test/a")!)
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: "A")
        harness.origin.enqueue(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "")
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "B")
        _ = try await harness.get()
        harness.date.advance(by: 61)
        let answer = try await harness.get(headers: ["If-None-Match": "\"v2\""])
        #expect(answer.status == 304)
        #expect(harness.origin.requestCount == 2)
        #expect(harness.origin.receivedRequests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"v2\"")
        #expect(harness.cache.store.cachedResponse(forKey: key)?.body == Data("A".utf8))
    }

    @Test("HEAD: a mismatching 304 to the cache's conditional HEAD is resent as a plain HEAD, whose 200 replaces the stored one")
    func head() async throws {
        let harness = CacheHarness()
        let key = CachePolicy.key(method: "HEAD", url: URL(string: "http://origin.test/a")!)
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60", "Content-Length": "1"], body: "")
        harness.origin.enqueue(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "")
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60", "Content-Length": "2"], body: "")
        let head = CacheTesting.request(method: "HEAD")
        _ = try await harness.send(head)
        #expect(harness.cache.store.cachedResponse(forKey: key) != nil)
        harness.date.advance(by: 61)
        let answer = try await harness.send(head)
        #expect(answer.status == 200)
        #expect(answer.head.value(forHTTPHeaderField: "ETag") == "\"v2\"")
        #expect(answer.body == "")
        let requests = harness.origin.receivedRequests
        #expect(requests.map { $0.httpMethod } == ["HEAD", "HEAD", "HEAD"])
        #expect(requests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, "\"v1\"", nil])
        #expect(harness.cache.store.cachedResponse(forKey: key)?.value(forHTTPHeaderField: "ETag") == "\"v2\"")
    }

    @Test("stale-while-revalidate: a mismatching 304 to the background validation is resent, and its 200 refills the store")
    func backgroundValidation() async throws {
        let harness = CacheHarness()
        let key = CachePolicy.key(method: "GET", url: URL(string: "http://origin.test/a")!)
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=600"], body: "A")
        harness.origin.enqueue(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "")
        harness.origin.enqueue(status: 200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "B")
        _ = try await harness.get()
        harness.date.advance(by: 61)
        // Answered at once with the stale response, validated in the background.
        #expect(try await harness.get().body == "A")
        let refilled = await eventually { harness.cache.store.cachedResponse(forKey: key)?.body == Data("B".utf8) }
        #expect(refilled)
        #expect(harness.origin.receivedRequests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, "\"v1\"", nil])
    }

    @Test("Cancelling the fetch while the resend is in flight stops it, and the fetch completes once, as cancelled")
    func cancellationDuringTheResend() async throws {
        // GIVEN an origin behind a transport that holds every request after the second: the
        // resend stays in flight
        let origin = ScriptedOrigin()
        origin.enqueue(status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: "A")
        origin.enqueue(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "")
        origin.enqueue(status: 200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: "B")
        let holding = HoldingTransport(origin, passing: 2)
        let date = TestDate()
        let transport = CachingTransport(wrapping: holding, cache: HTTPCache(), now: { date.now })
        let first = CompletionRecorder()
        _ = transport.startTransfer(CacheTesting.request(), options: TransferOptions(), receiver: first)
        try #require(await eventually { first.completions.count == 1 })
        date.advance(by: 61)
        // WHEN the stale response is fetched, and the fetch is cancelled once the resend is held
        let second = CompletionRecorder()
        let handle = transport.startTransfer(CacheTesting.request(), options: TransferOptions(), receiver: second)
        try #require(await eventually { holding.heldCount == 1 }, "the request was never sent again")
        #expect(second.completions.isEmpty)
        #expect(second.heads.isEmpty)
        handle.cancel()
        // THEN the held resend was cancelled, and the fetch completed once, with the cancellation
        #expect(second.completions.count == 1)
        #expect((second.completions.first.flatMap { $0 } as? URLError)?.code == .cancelled)
        #expect(second.heads.isEmpty)
        handle.cancel()
        #expect(second.completions.count == 1)
        #expect(origin.requestCount == 2)
    }

    @Test("Cancelling the fetch after the mismatching 304 arrived, before its transfer completed: nothing is sent again, and the fetch completes once, as cancelled")
    func cancellationBeforeTheResend() async throws {
        // GIVEN a stale stored response, and a transport played by hand
        let manual = HandPlayedTransport()
        // The receivers it keeps hold the caching transport, which holds it.
        defer { manual.forgetReceivers() }
        let date = TestDate()
        let cache = HTTPCache()
        let url = URL(string: "http://origin.test/a")!
        cache.store.store(
            CacheTesting.response(headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: "A", requestDate: date.now),
            forKey: CachePolicy.key(method: "GET", url: url))
        date.advance(by: 61)
        let transport = CachingTransport(wrapping: manual, cache: cache, now: { date.now })
        let recorder = CompletionRecorder()
        let handle = transport.startTransfer(CacheTesting.request(), options: TransferOptions(), receiver: recorder)
        let validation = try #require(manual.receivers.first)
        #expect(manual.requests.first?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        // WHEN the 304 for another representation arrives, the fetch is cancelled, and the
        // transfer then completes without an error (a transport may complete late)
        _ = validation.transferDidReceive(head: CacheTesting.head(status: 304, headers: ["ETag": "\"v2\""]))
        handle.cancel()
        #expect(manual.cancelCount == 1)
        validation.transferDidComplete(with: nil)
        // THEN the fetch completes once, as cancelled, without the 304, and nothing more is sent
        try #require(await eventually { recorder.completions.count == 1 })
        #expect((recorder.completions.first.flatMap { $0 } as? URLError)?.code == .cancelled)
        #expect(recorder.heads.isEmpty)
        #expect(manual.requests.count == 1)
        #expect(cache.store.cachedResponse(forKey: CachePolicy.key(method: "GET", url: url)) == nil)
    }

    // MARK: - Through a pipeline and real transfers

    @Test("End to end: the resource parses the resend's body; monitors see a conditional miss, then the new response stored")
    func endToEnd() async throws {
        let recorder = CacheDecisionRecorder()
        let harness = try LoopbackCacheHarness(monitors: [recorder])
        defer { harness.server.stop() }
        harness.script.enqueue(.status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: Data("A".utf8)))
        harness.script.enqueue(.status(304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"]))
        harness.script.enqueue(.status(200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"], body: Data("B".utf8)))
        #expect(try await harness.fetch() == "A")
        harness.clock.advance(by: .seconds(61))
        #expect(try await harness.fetch() == "B")
        #expect(harness.requestValues("If-None-Match") == [nil, "\"v1\"", nil])
        #expect(try await harness.fetch() == "B")
        #expect(harness.server.requestCount == 3)
        #expect(recorder.recorded == [.miss, .stored, .conditionalMiss, .stored, .hit])
    }

    @Test("End to end: a 304 to the resend too fails the fetch with the 304's status, after two requests")
    func endToEndSecondMismatch() async throws {
        let harness = try LoopbackCacheHarness()
        defer { harness.server.stop() }
        harness.script.enqueue(.status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: Data("A".utf8)))
        harness.script.enqueue(.status(304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"]))
        #expect(try await harness.fetch() == "A")
        harness.clock.advance(by: .seconds(61))
        await #expect {
            try await harness.fetch()
        } throws: { error in
            if case .httpStatus(let failure) = error as? ResourceError { failure.statusCode == 304 } else { false }
        }
        #expect(harness.requestValues("If-None-Match") == [nil, "\"v1\"", nil])
    }
}

/// A transport that lets the first `passing` transfers through to its origin and holds every
/// later one until it is cancelled, when it completes with `URLError(.cancelled)`.
final class HoldingTransport: HTTPTransport, @unchecked Sendable {
    private let origin: any HTTPTransport
    private let passing: Int
    // `lock` guards `started` and `held`.
    private let lock = NSLock()
    private var started = 0
    private var held: [Int: any TransferReceiver] = [:]

    init(_ origin: any HTTPTransport, passing: Int) {
        self.origin = origin
        self.passing = passing
    }

    /// The transfers held and not yet cancelled.
    var heldCount: Int { lock.withLock { held.count } }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        let number = lock.withLock { () -> Int? in
            started += 1
            guard started > passing else { return nil }
            held[started] = receiver
            return started
        }
        guard let number else { return origin.startTransfer(request, options: options, receiver: receiver) }
        return Handle { [weak self] in
            guard let self else { return }
            let receiver = lock.withLock { held.removeValue(forKey: number) }
            receiver?.transferDidComplete(with: URLError(.cancelled))
        }
    }

    private final class Handle: Cancellable {
        let onCancel: @Sendable () -> Void
        init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
        func cancel() { onCancel() }
    }
}

/// A receiver that keeps the heads and completions it is handed.
final class CompletionRecorder: TransferReceiver, @unchecked Sendable {
    // `lock` guards `receivedHeads` and `receivedCompletions`.
    private let lock = NSLock()
    private var receivedHeads: [ResponseHead] = []
    private var receivedCompletions: [(any Error)?] = []

    var heads: [ResponseHead] { lock.withLock { receivedHeads } }
    var completions: [(any Error)?] { lock.withLock { receivedCompletions } }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {}
    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        lock.withLock { receivedHeads.append(head) }
        return .proceed
    }
    func transferDidReceive(_ chunk: Data) -> TransferDecision { .proceed }
    func transferDidReceive(codedByteCount: Int) {}
    func transferDidComplete(with error: (any Error)?) {
        lock.withLock { receivedCompletions.append(error) }
    }
}

/// A transport the test plays by hand: it keeps each request and receiver, and counts the
/// cancellations of its handles, which do nothing else (a transport may complete late).
final class HandPlayedTransport: HTTPTransport, @unchecked Sendable {
    // `lock` guards `startedRequests`, `startedReceivers` and `cancellations`.
    private let lock = NSLock()
    private var startedRequests: [URLRequest] = []
    private var startedReceivers: [any TransferReceiver] = []
    private var cancellations = 0

    var requests: [URLRequest] { lock.withLock { startedRequests } }
    var receivers: [any TransferReceiver] { lock.withLock { startedReceivers } }
    var cancelCount: Int { lock.withLock { cancellations } }

    /// Lets go of the receivers, which a test that never completes them must do.
    func forgetReceivers() {
        lock.withLock { startedReceivers.removeAll() }
    }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        lock.withLock {
            startedRequests.append(request)
            startedReceivers.append(receiver)
        }
        return Handle { [weak self] in
            guard let self else { return }
            lock.withLock { cancellations += 1 }
        }
    }

    private final class Handle: Cancellable {
        let onCancel: @Sendable () -> Void
        init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
        func cancel() { onCancel() }
    }
}
