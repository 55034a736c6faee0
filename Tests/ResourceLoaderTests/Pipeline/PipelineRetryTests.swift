import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("ResourcePipeline: retries", .timeLimit(.minutes(1)))
struct PipelineRetryTests {
    enum Path: String, CaseIterable, Sendable {
        case async, completionHandler, operation
    }

    let session = FakeURLSession()
    let clock = ManualClock()
    let recorder = EventRecorder()

    /// A pipeline over the fake session and the manual clock; predictable backoff unless told.
    func pipeline(
        _ policy: RetryPolicy = RetryPolicy(jitter: .none),
        adapters: [any RequestAdapter] = [],
        options: TransferOptions = TransferOptions()
    ) -> ResourcePipeline {
        ResourcePipeline(
            session: session, options: options, adapters: adapters, retryPolicy: policy,
            monitors: [recorder], clock: clock
        )
    }

    func fetch<R: NetworkResourceType & DataResourceType>(
        _ resource: R,
        from service: ResourceService<R>,
        on path: Path = .async
    ) async -> Result<R.Model, ResourceError> {
        switch path {
        case .async:
            return await Result { () async throws(ResourceError) in try await service.fetch(resource) }
        case .completionHandler:
            return await service.fetchWithCompletion(resource)
        case .operation:
            let operation = ResourceOperation(resource: resource, service: service, callbackQueue: DispatchQueue(label: "test"))
            OperationQueue().addOperation(operation)
            return await Result { () async throws(ResourceError) in try await operation.value }
        }
    }

    /// Runs the fetch in a task, moves the clock to each wait the pipeline starts, `waits`
    /// times, and returns the outcome and the waits.
    func fetchAdvancingThrough<R: NetworkResourceType & DataResourceType>(
        _ waits: Int,
        _ resource: R,
        from service: ResourceService<R>,
        on path: Path = .async
    ) async -> (Result<R.Model, ResourceError>, [Duration]) {
        let task = Task { await fetch(resource, from: service, on: path) }
        var delays: [Duration] = []
        for _ in 0..<waits { delays.append(await clock.advanceToNextSleeper()) }
        return (await task.value, delays)
    }

    // MARK: - What is retried

    @Test(arguments: Path.allCases)
    func aServiceUnavailableThenSuccessIsRetriedOnce(path: Path) async throws {
        session.stub(.any, with: [.status(503), .json(#"{"cities": [{"name": "Oslo"}]}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())

        let (result, delays) = await fetchAdvancingThrough(1, CitiesResource(), from: service, on: path)

        #expect(try result.get().map(\.name) == ["Oslo"])
        #expect(delays == [.milliseconds(500)])
        #expect(session.receivedRequests.count == 2)
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 503 0B", "retry 1 after 500ms status 503",
            "sent 2", "response 2 200 30B", "model", "finished success attempts=2",
        ])
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func everyTransientStatusIsRetried(status: Int) async throws {
        session.stub(.any, with: [.status(status), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let (result, _) = await fetchAdvancingThrough(1, CitiesResource(), from: service)
        #expect(result.failure == nil)
        #expect(session.receivedRequests.count == 2)
    }

    @Test(arguments: [400, 401, 403, 404, 409, 501, 505])
    func otherStatusesAreNotRetried(status: Int) async throws {
        session.stub(.any, with: [.status(status), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let result = await fetch(CitiesResource(), from: service)
        #expect(result.failure?.statusCode == status)
        #expect(session.receivedRequests.count == 1)
        #expect(recorder.finishedEvents.first?.attempts == 1)
    }

    @Test(arguments: [URLError.Code.networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed])
    func transportFailuresThatMeanTryAgainAreRetried(code: URLError.Code) async throws {
        session.stub(.any, with: [.error(URLError(code)), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let (result, _) = await fetchAdvancingThrough(1, CitiesResource(), from: service)
        #expect(result.failure == nil)
        #expect(recorder.events.contains("retry 1 after 500ms transport \(code.rawValue)"))
        #expect(recorder.finishedEvents.first?.attempts == 2)
    }

    @Test(arguments: [URLError.Code.badServerResponse, .secureConnectionFailed, .badURL, .timedOut])
    func otherTransportFailuresAreNotRetried(code: URLError.Code) async throws {
        session.stub(.any, with: [.error(URLError(code)), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let result = await fetch(CitiesResource(), from: service)
        #expect(result.failure != nil)
        #expect(session.receivedRequests.count == 1)
    }

    @Test func aPolicyThatListsTimedOutRetriesAnAttemptThatTimedOut() async throws {
        // GIVEN a policy that adds `.timedOut` to the transport failures that mean "try again",
        // and an attempt whose transport times out (its idle timeout) before one that answers
        session.stub(.any, with: [.error(URLError(.timedOut)), .json(#"{"cities": []}"#)])
        var policy = RetryPolicy(jitter: .none)
        policy.retryableTransportErrors.insert(.timedOut)
        let service = ResourceService<CitiesResource>(pipeline: pipeline(policy))

        // WHEN the resource is fetched
        let (result, _) = await fetchAdvancingThrough(1, CitiesResource(), from: service)

        // THEN the attempt that timed out is retried, as the policy says
        #expect(result.failure == nil)
        #expect(session.receivedRequests.count == 2)
        #expect(recorder.events.contains("retry 1 after 500ms transport \(URLError.Code.timedOut.rawValue)"))
        #expect(recorder.finishedEvents.first?.attempts == 2)
    }

    @Test func aPolicyThatListsCancelledNeverRetriesACancellation() async throws {
        // GIVEN a policy that lists `.cancelled`, and a transport that answers cancelled
        session.stub(.any, with: [.error(URLError(.cancelled)), .json(#"{"cities": []}"#)])
        var policy = RetryPolicy(jitter: .none)
        policy.retryableTransportErrors.insert(.cancelled)
        let service = ResourceService<CitiesResource>(pipeline: pipeline(policy))

        // WHEN the resource is fetched
        let result = await fetch(CitiesResource(), from: service)

        // THEN a cancellation is the outcome, never retried
        #expect(result.failure?.isCancelled == true)
        #expect(session.receivedRequests.count == 1)
    }

    @Test func theCallerSeesTheLastAttemptsError() async throws {
        // GIVEN three different failures in a row and three attempts at most
        session.stub(.any, with: [.status(503), .error(URLError(.networkConnectionLost)), .status(502, body: Data("last".utf8))])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())

        let (result, delays) = await fetchAdvancingThrough(2, CitiesResource(), from: service)

        guard case .httpStatus(let failure) = result.failure else {
            Issue.record("expected the third answer's status, got \(result)")
            return
        }
        #expect(failure.statusCode == 502 && failure.bodyPrefix == Data("last".utf8))
        #expect(delays == [.milliseconds(500), .seconds(1)])
        #expect(session.receivedRequests.count == 3)
        #expect(recorder.finishedEvents.first?.attempts == 3)
        #expect(recorder.events.last == "finished httpStatus attempts=3")
    }

    @Test func theLastTransportErrorIsTheOutcomeWhenAttemptsRunOut() async throws {
        session.stub(.any, with: [.status(503), .error(URLError(.cannotConnectToHost))])
        let service = ResourceService<CitiesResource>(pipeline: pipeline(RetryPolicy(maximumAttempts: 2, jitter: .none)))
        let (result, _) = await fetchAdvancingThrough(1, CitiesResource(), from: service)
        guard case .transport(let code, _) = result.failure else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(code == .cannotConnectToHost)
        #expect(session.receivedRequests.count == 2)
    }

    @Test func oneAttemptAtMostNeverRetries() async throws {
        session.stub(.any, with: [.status(503), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline(RetryPolicy(maximumAttempts: 1)))
        let result = await fetch(CitiesResource(), from: service)
        #expect(result.failure?.statusCode == 503)
        #expect(session.receivedRequests.count == 1)
    }

    // MARK: - Methods

    @Test func aPostIsNeverRetriedByDefault() async throws {
        session.stub(.any, with: [.status(503), .status(200)])
        let service = ResourceService<Endpoint>(pipeline: pipeline())
        let result = await fetch(Endpoint.orders(.post), from: service)
        #expect(result.failure?.statusCode == 503)
        #expect(session.receivedRequests.count == 1)
    }

    @Test(arguments: [HTTPMethod.get, .head, .put, .delete, .options])
    func idempotentMethodsAreRetried(method: HTTPMethod) async throws {
        session.stub(.any, with: [.status(503), .status(200)])
        let service = ResourceService<Endpoint>(pipeline: pipeline())
        let (result, _) = await fetchAdvancingThrough(
            1, Endpoint.orders(method), from: service
        )
        #expect(result.failure == nil)
        #expect(session.receivedRequests.map(\.httpMethod) == [method.rawValue, method.rawValue])
    }

    @Test func aResourceCanLetItsPostBeRetried() async throws {
        session.stub(.any, with: [.status(503), .xml("<ok/>")])
        let service = ResourceService<RetryablePost>(pipeline: pipeline())
        let (result, _) = await fetchAdvancingThrough(1, RetryablePost(), from: service)
        #expect(result.failure == nil)
        #expect(session.receivedRequests.count == 2)
        // The body goes out again with the retry.
        #expect(session.receivedRequests.map(\.httpBody) == [Data("<q/>".utf8), Data("<q/>".utf8)])
    }

    @Test func aResourceCanTurnRetriesOnInAPipelineWithoutThem() async throws {
        // GIVEN a pipeline with no hooks at all, and a resource whose own policy retries
        session.stub(.any, with: [.status(503), .xml("<ok/>")])
        let service = ResourceService<RetryablePost>(pipeline: ResourcePipeline(session: session, clock: clock))
        let (result, _) = await fetchAdvancingThrough(1, RetryablePost(ownPolicy: RetryPolicy(jitter: .none, retryableMethods: [.post])), from: service)
        #expect(result.failure == nil)
        #expect(session.receivedRequests.count == 2)
    }

    @Test func aResourceCanTurnRetriesOff() async throws {
        session.stub(.any, with: [.status(503), .xml("<ok/>")])
        let service = ResourceService<RetryablePost>(pipeline: pipeline())
        let result = await fetch(RetryablePost(ownPolicy: .never), from: service)
        #expect(result.failure?.statusCode == 503)
        #expect(session.receivedRequests.count == 1)
    }

    // MARK: - The schedule

    @Test func theBackoffDoublesUpToTheCap() async throws {
        session.stub(.any, with: [.status(503), .status(503), .status(503), .status(503), .json(#"{"cities": []}"#)])
        let policy = RetryPolicy(maximumAttempts: 5, baseDelay: .milliseconds(400), maximumDelay: .milliseconds(1500), jitter: .none)
        let service = ResourceService<CitiesResource>(pipeline: pipeline(policy))

        let (result, delays) = await fetchAdvancingThrough(4, CitiesResource(), from: service)

        #expect(result.failure == nil)
        #expect(delays == [.milliseconds(400), .milliseconds(800), .milliseconds(1500), .milliseconds(1500)])
        #expect(recorder.events.filter { $0.hasPrefix("retry") } == [
            "retry 1 after 400ms status 503", "retry 2 after 800ms status 503",
            "retry 3 after 1500ms status 503", "retry 4 after 1500ms status 503",
        ])
    }

    @Test func fullJitterWaitsBetweenZeroAndTheCeiling() async throws {
        session.stub(.any, with: [.status(503), .status(503), .status(503), .json(#"{"cities": []}"#)])
        let policy = RetryPolicy(maximumAttempts: 4, baseDelay: .seconds(1), maximumDelay: .seconds(3))
        let service = ResourceService<CitiesResource>(pipeline: pipeline(policy))

        let (result, delays) = await fetchAdvancingThrough(3, CitiesResource(), from: service)

        #expect(result.failure == nil)
        // The ceilings before retries 1, 2 and 3: 1 s, 2 s, then the 3 s cap.
        for (delay, ceiling) in zip(delays, [Duration.seconds(1), .seconds(2), .seconds(3)]) {
            #expect(delay >= .zero && delay <= ceiling)
        }
    }

    // MARK: - Retry-After

    @Test func retryAfterInSecondsReplacesTheBackoff() async throws {
        session.stub(.any, with: [.status(429, headers: ["Retry-After": "7"]), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let (result, delays) = await fetchAdvancingThrough(1, CitiesResource(), from: service)
        #expect(result.failure == nil)
        #expect(delays == [.seconds(7)])
        #expect(recorder.events.contains("retry 1 after 7000ms status 429"))
    }

    @Test func retryAfterAsADateIsMeasuredFromTheResponsesDate() async throws {
        // The client's own date does not matter: the server says it is 08:49:37 and asks for
        // 08:50:07, thirty seconds later.
        session.stub(.any, with: [
            .status(503, headers: ["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Retry-After": "Sun, 06 Nov 1994 08:50:07 GMT"]),
            .json(#"{"cities": []}"#),
        ])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let (result, delays) = await fetchAdvancingThrough(1, CitiesResource(), from: service)
        #expect(result.failure == nil)
        #expect(delays == [.seconds(30)])
    }

    @Test func retryAfterAsADateWithoutADateIsMeasuredFromThePipelinesClock() async throws {
        // A date already past means "now": the retry follows at once, without a wait.
        session.stub(.any, with: [
            .status(503, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]), .json(#"{"cities": []}"#),
        ])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let result = await fetch(CitiesResource(), from: service)
        #expect(result.failure == nil)
        #expect(recorder.events.contains("retry 1 after 0ms status 503"))
    }

    @Test(arguments: ["soon", "-5", "1.5", "", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 31 Apr 2026 08:00:00 GMT"])
    func aMalformedRetryAfterIsIgnored(value: String) async throws {
        session.stub(.any, with: [.status(503, headers: ["Retry-After": value]), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline())
        let (result, delays) = await fetchAdvancingThrough(1, CitiesResource(), from: service)
        #expect(result.failure == nil)
        #expect(delays == [.milliseconds(500)], "the backoff, as if there were no Retry-After")
    }

    @Test func retryAfterIsCapped() async throws {
        session.stub(.any, with: [.status(503, headers: ["Retry-After": "86400"]), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline(RetryPolicy(jitter: .none, maximumRetryAfter: .seconds(20))))
        let (result, delays) = await fetchAdvancingThrough(1, CitiesResource(), from: service)
        #expect(result.failure == nil)
        #expect(delays == [.seconds(20)])
    }

    // MARK: - The deadline

    @Test func aRetryThatCannotStartBeforeTheDeadlineIsNotMade() async throws {
        // GIVEN a 25 s deadline: the first wait (10 s) fits, the second (20 s) would end at 30 s,
        // past it. (The waits are on the manual clock; the deadline's timer, in real time, is far
        // off.)
        session.stub(.any, with: [.status(503), .status(502), .json(#"{"cities": []}"#)])
        let policy = RetryPolicy(baseDelay: .seconds(10), maximumDelay: .seconds(60), jitter: .none)
        let service = ResourceService<CitiesResource>(pipeline: pipeline(policy, options: TransferOptions(deadline: .seconds(25))))

        let (result, delays) = await fetchAdvancingThrough(1, CitiesResource(), from: service)

        #expect(result.failure?.statusCode == 502, "the last attempt's outcome, at once")
        #expect(delays == [.seconds(10)])
        #expect(session.receivedRequests.count == 2)
        #expect(clock.sleeperCount == 0)
        #expect(recorder.events.last == "finished httpStatus attempts=2")
    }

    @Test func aRetryAfterBeyondTheDeadlineEndsTheFetchAtOnce() async throws {
        // A wide deadline, so that a loaded machine still makes the first attempt inside it; the
        // server's wait (55 s, under the 60 s cap) ends past it all the same
        session.stub(.any, with: [.status(503, headers: ["Retry-After": "55"]), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(pipeline: pipeline(options: TransferOptions(deadline: .seconds(50))))
        let result = await fetch(CitiesResource(), from: service)
        guard case .httpStatus(let failure) = result.failure else {
            Issue.record("expected the 503, got \(result)")
            return
        }
        #expect(failure.statusCode == 503 && failure.value(forHeaderField: "retry-after") == "55")
        #expect(session.receivedRequests.count == 1)
    }

    @Test func theDeadlineEndsAWaitThatRunsOverIt() async throws {
        // GIVEN a wait that fits in the deadline by the pipeline's clock, but a clock nobody
        // moves: the deadline is the fetch's one bound, and it ends the wait
        session.stub(.any, with: [.status(503), .json(#"{"cities": []}"#)])
        let policy = RetryPolicy(baseDelay: .milliseconds(100), jitter: .none)
        let service = ResourceService<CitiesResource>(
            pipeline: ResourcePipeline(
                session: session, options: TransferOptions(deadline: .seconds(3)), retryPolicy: policy,
                monitors: [recorder], clock: ManualClock()
            )
        )
        let result = await fetch(CitiesResource(), from: service)
        #expect(result.failure?.caseName == "timedOut")
        // On a machine so loaded that the first attempt did not even start within the deadline
        // the fetch timed out before it, which is also right; otherwise it timed out in the wait.
        if recorder.finishedEvents.first?.attempts != 0 {
            #expect(session.receivedRequests.count == 1)
            #expect(recorder.events.suffix(2) == ["retry 1 after 100ms status 503", "finished timedOut attempts=1"])
        }
    }

    // MARK: - Cancellation

    @Test func cancellingDuringABackoffWaitEndsTheFetchAtOnce() async throws {
        session.stub(.any, with: [.status(503), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(RetryPolicy(baseDelay: .seconds(600), maximumDelay: .seconds(600), jitter: .none), options: TransferOptions(deadline: nil))
        )
        let task = Task { await fetch(CitiesResource(), from: service) }
        await clock.waitForSleepers()

        task.cancel()
        let result = await task.value

        #expect(result.failure?.isCancelled == true)
        #expect(session.receivedRequests.count == 1)
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 503 0B", "retry 1 after 600000ms status 503",
            "finished cancelled attempts=1",
        ])
        try await waitUntil { clock.sleeperCount == 0 }
    }

    /// A transport that answers before `startTransfer` returns: the retry's task is begun from
    /// that answer, before the first attempt's transfer is handed back, and cancelling must still
    /// stop the task, not the finished first transfer.
    @Test func cancellingDuringABackoffWaitStopsTheRetryOfATransportThatAnsweredAtOnce() async throws {
        let transport = ImmediateTransport(statuses: [503, 200])
        let service = ResourceService<CitiesResource>(
            pipeline: ResourcePipeline(
                session: transport, options: TransferOptions(deadline: nil),
                retryPolicy: RetryPolicy(baseDelay: .seconds(600), maximumDelay: .seconds(600), jitter: .none), clock: clock)
        )
        let task = Task { await fetch(CitiesResource(), from: service) }
        await clock.waitForSleepers()

        task.cancel()

        #expect(await task.value.failure?.isCancelled == true)
        try await waitUntil { clock.sleeperCount == 0 }
        #expect(transport.requestCount == 1)
    }

    @Test func cancellingACompletionHandlerFetchDuringAWaitCompletesOnceWithCancelled() async throws {
        session.stub(.any, with: [.status(503), .json(#"{"cities": []}"#)])
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(RetryPolicy(baseDelay: .seconds(600), maximumDelay: .seconds(600), jitter: .none), options: TransferOptions(deadline: nil))
        )
        let completions = CompletionCounter<[City]>()
        let handle = service.fetch(CitiesResource(), callbackQueue: DispatchQueue(label: "test")) { completions.record($0) }
        await clock.waitForSleepers()

        handle.cancel()

        let result = await completions.first
        #expect(result.failure?.isCancelled == true)
        // Even if the clock moves on now, nothing more is sent and the completion does not run again.
        clock.advance(by: .seconds(600))
        try await waitUntil { clock.sleeperCount == 0 }
        #expect(session.receivedRequests.count == 1)
        #expect(completions.count == 1)
    }

    // MARK: - Adapters and attempts

    @Test func theAdaptersRunBeforeEveryAttempt() async throws {
        session.stub(.any, with: [.status(503), .status(503), .json(#"{"cities": []}"#)])
        let counter = AttemptCounter()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(adapters: [counter.adapter]))

        let (result, _) = await fetchAdvancingThrough(2, CitiesResource(), from: service)

        #expect(result.failure == nil)
        // Each attempt starts from the request as built: the adapters' header is not doubled.
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1", "2", "3"])
        #expect(recorder.events.filter { $0.hasPrefix("ready") }.count == 1)
    }

    @Test func aPolicyValueIsSharedByEveryServiceOfThePipeline() async throws {
        session.stub(.path("/europe.json"), with: [.status(503), .json(#"{"cities": []}"#)])
        session.stub(.path("/cities"), with: [.status(503), .json(#"[]"#)])
        let shared = pipeline()
        let cities = ResourceService<CitiesResource>(pipeline: shared)
        let array = ResourceService<CityArrayResource>(pipeline: shared)

        let (first, _) = await fetchAdvancingThrough(1, CitiesResource(), from: cities)
        let (second, _) = await fetchAdvancingThrough(1, CityArrayResource(), from: array)

        #expect(first.failure == nil && second.failure == nil)
        #expect(session.receivedRequests.count == 4)
    }
}

@Suite("RetryPolicy: backoff and Retry-After")
struct RetryPolicyTests {
    @Test func theDefaultsAreTheDocumentedOnes() {
        let policy = RetryPolicy()
        #expect(policy.maximumAttempts == 3)
        #expect(policy.baseDelay == .milliseconds(500) && policy.maximumDelay == .seconds(30))
        #expect(policy.jitter == .full && policy.maximumRetryAfter == .seconds(60))
        #expect(policy.retryableMethods == [.get, .head, .put, .delete, .options])
        #expect(!policy.retryableMethods.contains(.post) && !policy.retryableMethods.contains(.patch))
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(policy.retryableTransportErrors == [.networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed])
        #expect(RetryPolicy.never.maximumAttempts == 1)
    }

    @Test func theCeilingDoublesAndStopsAtTheCap() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maximumDelay: .seconds(1))
        let ceilings = (1...6).map { policy.backoffCeiling(beforeRetry: $0) }
        #expect(ceilings == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        // Far along, nothing overflows.
        #expect(policy.backoffCeiling(beforeRetry: 10_000) == .seconds(1))
        #expect(policy.backoffCeiling(beforeRetry: .max) == .seconds(1))
        #expect(RetryPolicy(baseDelay: .seconds(-1)).backoffCeiling(beforeRetry: 1) == .zero)
    }

    @Test func fullJitterSpreadsOverTheWholeRange() {
        var generator = SeededGenerator(seed: 42)
        let policy = RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(8))
        let delays = (0..<1000).map { _ in policy.backoff(beforeRetry: 3, using: &generator) }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= .seconds(4) })
        // Spread over the range, not bunched at one end.
        #expect(delays.contains { $0 < .seconds(1) } && delays.contains { $0 > .seconds(3) })
        #expect(Set(delays).count > 900)
        #expect(RetryPolicy(baseDelay: .zero).backoff(beforeRetry: 1, using: &generator) == .zero)
    }

    @Test func retryAfterReadsDeltaSeconds() {
        let policy = RetryPolicy()
        let now = Date(timeIntervalSince1970: 0)
        #expect(policy.retryAfterDelay("0", from: now) == .zero)
        #expect(policy.retryAfterDelay("12", from: now) == .seconds(12))
        #expect(policy.retryAfterDelay(" 12 ", from: now) == .seconds(12))
        #expect(policy.retryAfterDelay("99999999999999999999999", from: now) == .seconds(60), "capped, not overflowed")
        for malformed in ["", "-1", "+1", "1.5", "1e3", "12 s", "0x10", "١٢"] {
            #expect(policy.retryAfterDelay(malformed, from: now) == nil, "\(malformed)")
        }
    }

    @Test func retryAfterReadsTheThreeHTTPDateForms() {
        let policy = RetryPolicy()
        // 1994-11-06 08:49:37 UTC
        let date = Date(timeIntervalSince1970: 784_111_777)
        let tenBefore = date.addingTimeInterval(-10)
        #expect(policy.retryAfterDelay("Sun, 06 Nov 1994 08:49:37 GMT", from: tenBefore) == .seconds(10))
        #expect(policy.retryAfterDelay("Sunday, 06-Nov-94 08:49:37 GMT", from: tenBefore) == .seconds(10))
        #expect(policy.retryAfterDelay("Sun Nov  6 08:49:37 1994", from: tenBefore) == .seconds(10))
        #expect(policy.retryAfterDelay("Sun, 06 Nov 1994 08:49:37 GMT", from: date.addingTimeInterval(5)) == .zero, "past: now")
        #expect(policy.retryAfterDelay("Sun, 06 Nov 1994 08:49:37 GMT", from: date.addingTimeInterval(-3600)) == .seconds(60), "capped")
    }

    @Test func httpDatesAreCheckedStrictly() {
        let policy = RetryPolicy()
        let now = Date(timeIntervalSince1970: 0)
        for malformed in [
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 November 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 30 Feb 2026 08:49:37 GMT",
            "Sun, 29 Feb 2025 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT trailing", "Sunday, 06 Nov 1994 08:49:37 GMT", "Sun Nov 06 08:49:37 94",
        ] {
            #expect(policy.retryAfterDelay(malformed, from: now) == nil, "\(malformed)")
        }
        // A leap day that exists, and the last second of a year.
        let leap = Date(timeIntervalSince1970: 1_709_164_800)  // 2024-02-29 00:00:00 UTC
        #expect(policy.retryAfterDelay("Thu, 29 Feb 2024 00:00:10 GMT", from: leap) == .seconds(10))
        let newYear = Date(timeIntervalSince1970: 1_767_225_599)  // 2025-12-31 23:59:59 UTC
        #expect(policy.retryAfterDelay("Thu, 01 Jan 2026 00:00:04 GMT", from: newYear) == .seconds(5))
    }
}

/// A SOAP-style `POST` that is safe to repeat, with a policy of its own when given one.
struct RetryablePost: NetworkResourceType, DataResourceType {
    var ownPolicy: RetryPolicy?
    var url: URL { URL(string: "https://api.example.com/soap")! }
    var httpMethod: HTTPMethod { .post }
    var body: RequestBody? { .data(Data("<q/>".utf8), contentType: "text/xml") }

    func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy {
        if let ownPolicy { return ownPolicy }
        var policy = pipelinePolicy
        policy.retryableMethods.insert(.post)
        return policy
    }

    func model(from data: Data) throws -> Data { data }
}

/// An adapter that numbers the attempts it adapts in an `X-Attempt` header.
final class AttemptCounter: @unchecked Sendable {
    // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0

    var adapter: ClosureRequestAdapter {
        ClosureRequestAdapter { [self] request in
            var request = request
            let attempt = lock.withLock { () -> Int in
                count += 1
                return count
            }
            request.setValue(String(attempt), forHTTPHeaderField: "X-Attempt")
            return request
        }
    }
}

/// Counts a completion handler's calls and hands the first outcome to a waiter.
final class CompletionCounter<Model: Sendable>: @unchecked Sendable {
    // `lock` guards `outcomes` and `waiters`.
    private let lock = NSLock()
    private var outcomes: [Result<Model, ResourceError>] = []
    private var waiters: [CheckedContinuation<Result<Model, ResourceError>, Never>] = []

    func record(_ result: Result<Model, ResourceError>) {
        let waiting = lock.withLock { () -> [CheckedContinuation<Result<Model, ResourceError>, Never>] in
            outcomes.append(result)
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume(returning: result) }
    }

    var count: Int { lock.withLock { outcomes.count } }

    var first: Result<Model, ResourceError> {
        get async {
            await withCheckedContinuation { continuation in
                let first = lock.withLock { () -> Result<Model, ResourceError>? in
                    if let first = outcomes.first { return first }
                    waiters.append(continuation)
                    return nil
                }
                if let first { continuation.resume(returning: first) }
            }
        }
    }
}

/// A small, seeded generator (SplitMix64), so that a test of randomness repeats.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

extension Endpoint {
    /// `https://api.example.com/orders` with `method`.
    static func orders(_ method: HTTPMethod) -> Endpoint {
        var endpoint = Endpoint("https://api.example.com/orders")
        endpoint.httpMethod = method
        return endpoint
    }
}

/// Answers each request with the next status, with an empty JSON list, before `startTransfer`
/// returns.
final class ImmediateTransport: HTTPTransport, @unchecked Sendable {
    // `lock` guards `statuses` and `count`.
    private let lock = NSLock()
    private var statuses: [Int]
    private var count = 0

    init(statuses: [Int]) {
        self.statuses = statuses
    }

    var requestCount: Int { lock.withLock { count } }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        let status = lock.withLock { () -> Int in
            count += 1
            return statuses.isEmpty ? 200 : statuses.removeFirst()
        }
        let head = ResponseHead(statusCode: status, url: request.url, headerFields: [(name: "Content-Type", value: "application/json")])
        if case .proceed = receiver.transferDidReceive(head: head) {
            _ = receiver.transferDidReceive(Data(#"{"cities": []}"#.utf8))
        }
        receiver.transferDidComplete(with: nil)
        return NothingToCancel()
    }

    private final class NothingToCancel: Cancellable {
        func cancel() {}
    }
}
