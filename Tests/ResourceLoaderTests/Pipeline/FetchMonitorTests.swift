import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("FetchMonitor: the events of a fetch")
struct FetchMonitorTests {
    enum Path: String, CaseIterable, Sendable {
        case async, completionHandler, operation
    }

    let session = FakeURLSession()
    let recorder = EventRecorder()

    func service(adapters: [any RequestAdapter] = [], options: TransferOptions = TransferOptions()) -> ResourceService<CitiesResource> {
        ResourceService(pipeline: ResourcePipeline(session: session, options: options, adapters: adapters, monitors: [recorder]))
    }

    func fetch(_ service: ResourceService<CitiesResource>, on path: Path) async -> Result<[City], ResourceError> {
        switch path {
        case .async:
            return await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }
        case .completionHandler:
            return await service.fetchWithCompletion(CitiesResource())
        case .operation:
            let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: DispatchQueue(label: "test"))
            OperationQueue().addOperation(operation)
            return await Result { () async throws(ResourceError) in try await operation.value }
        }
    }

    @Test(arguments: Path.allCases)
    func success(path: Path) async throws {
        session.stub(.any, with: .json(#"{"cities": []}"#))
        let result = await fetch(service(), on: path)
        #expect(result.failure == nil)
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 200 14B", "model", "finished success attempts=1",
        ])
        let finished = try #require(recorder.finishedEvents.first)
        #expect(finished.statusCode == 200 && finished.bodyByteCount == 14 && finished.error == nil)
        #expect(finished.request?.url?.path == "/europe.json")
    }

    @Test(arguments: Path.allCases)
    func httpStatusFailure(path: Path) async throws {
        session.stub(.any, with: .status(503, body: Data("busy".utf8)))
        let result = await fetch(service(), on: path)
        #expect(result.failure?.statusCode == 503)
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 503 4B", "finished httpStatus attempts=1",
        ])
        #expect(recorder.finishedEvents.first?.statusCode == 503)
    }

    @Test(arguments: Path.allCases)
    func parseFailure(path: Path) async throws {
        session.stub(.any, with: .json("[1, 2"))
        let result = await fetch(service(), on: path)
        #expect(result.failure?.caseName == "parsing")
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 200 5B", "finished parsing attempts=1",
        ])
    }

    @Test(arguments: Path.allCases)
    func transportFailure(path: Path) async throws {
        session.stub(.any, with: .error(URLError(.cannotConnectToHost)))
        let result = await fetch(service(), on: path)
        #expect(result.failure?.caseName == "transport")
        #expect(recorder.events == ["ready GET /europe.json", "sent 1", "finished transport attempts=1"])
        let finished = try #require(recorder.finishedEvents.first)
        #expect(finished.statusCode == nil && finished.bodyByteCount == nil)
    }

    @Test func requestThatCannotBeBuilt() async throws {
        struct BadResource: NetworkResourceType, DataResourceType {
            var url: URL { URL(string: "ftp://example.com/x")! }
            func model(from data: Data) throws -> Data { data }
        }
        let service = ResourceService<BadResource>(pipeline: ResourcePipeline(session: session, monitors: [recorder]))
        let result = await service.fetchWithCompletion(BadResource())
        let asyncResult = await Result { () async throws(ResourceError) in try await service.fetch(BadResource()) }
        #expect(result.failure?.caseName == "invalidRequest" && asyncResult.failure?.caseName == "invalidRequest")
        #expect(recorder.events == ["finished invalidRequest attempts=0", "finished invalidRequest attempts=0"])
        #expect(recorder.finishedEvents.first?.request == nil)
    }

    @Test func cancellationDuringTheTransferOnTheAsyncPath() async throws {
        session.stub(.any, with: .json("{}").delayed(by: .seconds(600)))
        let service = service()
        let task = Task { await fetch(service, on: .async) }
        try await waitUntil { session.receivedRequests.count == 1 }
        task.cancel()
        let result = try #require(await withTimeLimit { await task.value })
        #expect(result.failure?.isCancelled == true)
        #expect(recorder.events == ["ready GET /europe.json", "sent 1", "finished cancelled attempts=1"])
    }

    @Test func cancellationDuringTheTransferOnTheCompletionPath() async throws {
        session.stub(.any, with: .json("{}").delayed(by: .seconds(600)))
        let (outcomes, outcome) = AsyncStream<Result<[City], ResourceError>>.makeStream()
        let handle = service().fetch(CitiesResource(), callbackQueue: DispatchQueue(label: "test")) { outcome.yield($0) }
        try await waitUntil { session.receivedRequests.count == 1 }
        handle.cancel()
        let result = try #require(await withTimeLimit { await outcomes.first { _ in true } })
        #expect(result?.failure?.isCancelled == true)
        #expect(recorder.events == ["ready GET /europe.json", "sent 1", "finished cancelled attempts=1"])
    }

    /// Cancels a fetch, through its handle, when told of its first response.
    final class CancelOnResponse: FetchMonitor, @unchecked Sendable {
        private let isSet = DispatchSemaphore(value: 0)
        // `lock` guards `cancel`.
        private let lock = NSLock()
        private var cancel: (@Sendable () -> Void)?

        func set(_ cancel: @escaping @Sendable () -> Void) {
            lock.withLock { self.cancel = cancel }
            isSet.signal()
        }

        func responseReceived(_ event: FetchEvent.ResponseReceived) {
            _ = isSet.wait(timeout: .now() + 10)
            // Let go of the fetch's handle, which holds the service that holds this monitor.
            let cancel = lock.withLock { () -> (@Sendable () -> Void)? in
                defer { self.cancel = nil }
                return self.cancel
            }
            cancel?()
        }
    }

    @Test(arguments: Path.allCases)
    func aMonitorThatCancelsTheFetchLetsTheMonitorsAfterItSeeTheEventFirst(path: Path) async throws {
        // GIVEN a monitor that cancels the fetch when told of the response, ahead of another
        let canceller = CancelOnResponse()
        session.stub(.any, with: .json(#"{"cities": []}"#).delayed(by: .milliseconds(20)))
        let service = ResourceService<CitiesResource>(pipeline: ResourcePipeline(session: session, monitors: [canceller, recorder]))

        // WHEN the fetch is made
        let result: Result<[City], ResourceError>?
        switch path {
        case .async:
            let task = Task { await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) } }
            canceller.set { task.cancel() }
            result = await withTimeLimit { await task.value }
        case .completionHandler:
            let (outcomes, outcome) = AsyncStream<Result<[City], ResourceError>>.makeStream()
            let handle = service.fetch(CitiesResource(), callbackQueue: DispatchQueue(label: "test")) { outcome.yield($0) }
            canceller.set { handle.cancel() }
            result = await withTimeLimit { await outcomes.first { _ in true } } ?? nil
        case .operation:
            let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: DispatchQueue(label: "test"))
            canceller.set { operation.cancel() }
            OperationQueue().addOperation(operation)
            result = await withTimeLimit { await Result { () async throws(ResourceError) in try await operation.value } }
        }

        // THEN it ends cancelled, and the monitor after the one that cancelled it is told of the
        // response before the end, on every path
        #expect(result?.failure?.isCancelled == true)
        try await waitUntil { recorder.finishedEvents.count == 1 }
        #expect(recorder.events == ["ready GET /europe.json", "sent 1", "response 1 200 14B", "finished cancelled attempts=1"])
    }

    @Test func cancellingAResourceOperationInFlight() async throws {
        session.stub(.any, with: .json("{}").delayed(by: .seconds(600)))
        let operation = ResourceOperation(resource: CitiesResource(), service: service(), callbackQueue: DispatchQueue(label: "test"))
        OperationQueue().addOperation(operation)
        try await waitUntil { session.receivedRequests.count == 1 }
        operation.cancel()
        try await waitUntil { recorder.finishedEvents.count == 1 }
        #expect(recorder.events == ["ready GET /europe.json", "sent 1", "finished cancelled attempts=1"])
    }

    // MARK: the answer ends the transfer

    @Test(arguments: [Path.completionHandler, .operation])
    func aParseThatOutlastsTheDeadlineStillMakesTheModel(path: Path) async throws {
        // GIVEN an answer that arrives at once, and a parse that takes longer than the whole
        // deadline, so the deadline would pass while it runs
        session.stub(.any, with: .status(200, body: Data("12345".utf8)))
        let pipeline = ResourcePipeline(session: session, options: TransferOptions(deadline: .seconds(1)), monitors: [recorder])
        let service = ResourceService<SlowlyParsedResource>(pipeline: pipeline)
        let resource = SlowlyParsedResource(parsing: 2)

        // WHEN it is fetched with a completion handler (directly, or by an operation)
        let result: Result<Int, ResourceError>
        if path == .operation {
            let operation = ResourceOperation(resource: resource, service: service, callbackQueue: DispatchQueue(label: "test"))
            OperationQueue().addOperation(operation)
            result = await Result { () async throws(ResourceError) in try await operation.value }
        } else {
            result = await service.fetchWithCompletion(resource)
        }

        // THEN the deadline stopped when the answer arrived: the model is delivered, and the
        // monitors see it made before the fetch finishes
        #expect(try result.get() == 5)
        #expect(recorder.events == ["ready GET /slow", "sent 1", "response 1 200 5B", "model", "finished success attempts=1"])
    }

    @Test(arguments: [Path.async, .completionHandler])
    func cancellingDuringTheParseDeliversTheModel(path: Path) async throws {
        // GIVEN a parse that waits for the test
        session.stub(.any, with: .status(200, body: Data("12345".utf8)))
        let service = ResourceService<GatedParseResource>(pipeline: ResourcePipeline(session: session, monitors: [recorder]))
        let gate = ParseGate()
        let (outcomes, outcome) = AsyncStream<Result<Int, ResourceError>>.makeStream()
        let cancel: @Sendable () -> Void
        if path == .async {
            let task = Task { outcome.yield(await Result { () async throws(ResourceError) in try await service.fetch(GatedParseResource(gate: gate)) }) }
            cancel = { task.cancel() }
        } else {
            let handle = service.fetch(GatedParseResource(gate: gate), callbackQueue: DispatchQueue(label: "test")) { outcome.yield($0) }
            cancel = { handle.cancel() }
        }

        // WHEN the fetch is cancelled while its answer is being parsed
        try await waitUntil { gate.hasStarted }
        cancel()
        gate.open()

        // THEN the answer had ended the transfer, on either path: the parse's model is the outcome
        let result = try #require(await withTimeLimit { await outcomes.first { _ in true } })
        #expect(try result?.get() == 5)
        #expect(recorder.events == ["ready GET /gated", "sent 1", "response 1 200 5B", "model", "finished success attempts=1"])
    }

    // MARK: what follows the end

    @Test(arguments: [false, true])
    func whatAnAdapterReturnsAfterTheEndIsNeverSent(byTheDeadline: Bool) async throws {
        // GIVEN an adapter that ignores cancellation and returns only when a monitor's
        // fetchFinished lets it, which then watches the transport for a while
        session.stub(.any, with: .json(#"{"cities": []}"#))
        let adapter = ReleasedAdapter()
        let watcher = TransportWatcher(adapter: adapter, session: session)
        let options = TransferOptions(deadline: byTheDeadline ? .milliseconds(200) : nil)
        let pipeline = ResourcePipeline(session: session, options: options, adapters: [adapter], monitors: [recorder, watcher])
        let (outcomes, outcome) = AsyncStream<Result<[City], ResourceError>>.makeStream()
        let handle = ResourceService<CitiesResource>(pipeline: pipeline)
            .fetch(CitiesResource(), callbackQueue: DispatchQueue(label: "test")) { outcome.yield($0) }

        // WHEN the fetch is cancelled, or its deadline passes, while the adapter runs
        try await waitUntil { adapter.hasStarted || watcher.sawRequest != nil }
        // The watcher blocks the thread that ends the fetch: not one of the test's.
        if !byTheDeadline { DispatchQueue.global().async { handle.cancel() } }

        // THEN the fetch's work was cancelled before the monitors were told: the request the
        // adapter returned never reaches the transport, and no event follows fetchFinished
        let result = try #require(await withTimeLimit { await outcomes.first { _ in true } })
        #expect(result?.failure?.caseName == (byTheDeadline ? "timedOut" : "cancelled"))
        try await waitUntil { watcher.sawRequest != nil }
        #expect(watcher.sawRequest == false)
        #expect(session.receivedRequests.isEmpty)
        #expect(recorder.events == ["finished \(byTheDeadline ? "timedOut" : "cancelled") attempts=0"])
    }

    /// How a hook leaves a request the transport must refuse.
    enum InvalidatingHook: String, CaseIterable, Sendable {
        case synchronousAdapter, suspendingAdapter, resourcesOwnRequest, adapterBeforeARetry
    }

    @Test(arguments: InvalidatingHook.allCases)
    func aRequestRefusedBeforeTheTransportIsNotAnAttempt(hook: InvalidatingHook) async throws {
        // GIVEN a request that a hook makes invalid (a method that is not a token) before an
        // attempt; before a retry, after a first attempt that was sent
        session.stub(.any, with: [.status(503), .json(#"{"cities": []}"#)])
        let attempts = Counter()
        let invalidate: @Sendable (URLRequest) -> URLRequest = { request in
            attempts.increment()
            guard hook != .adapterBeforeARetry || attempts.value == 2 else { return request }
            var request = request
            request.httpMethod = "GET /admin"
            return request
        }
        var adapters: [any RequestAdapter] = []
        switch hook {
        case .synchronousAdapter, .adapterBeforeARetry: adapters = [ClosureRequestAdapter { request in invalidate(request) }]
        case .suspendingAdapter: adapters = [ClosureRequestAdapter { (request: URLRequest) async throws -> URLRequest in invalidate(request) }]
        case .resourcesOwnRequest: break
        }
        let retry = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1), jitter: .none)
        let pipeline = ResourcePipeline(session: session, adapters: adapters, retryPolicy: hook == .adapterBeforeARetry ? retry : .never, monitors: [recorder])

        // WHEN it is fetched
        let result = await Result { () async throws(ResourceError) in
            try await ResourceService<InvalidatingResource>(pipeline: pipeline)
                .fetch(InvalidatingResource(invalidates: hook == .resourcesOwnRequest))
        }

        // THEN the fetch fails as an invalid request, and the monitors are told of no attempt
        // but those the transport was handed
        #expect(result.failure?.caseName == "invalidRequest")
        if hook == .adapterBeforeARetry {
            #expect(session.receivedRequests.count == 1)
            #expect(recorder.events == [
                "ready GET /invalidating", "sent 1", "response 1 503 0B", "retry 1 after 1ms status 503",
                "finished invalidRequest attempts=1",
            ])
        } else {
            #expect(session.receivedRequests.isEmpty)
            #expect(recorder.events == ["finished invalidRequest attempts=0"])
        }
    }

    @Test func severalMonitorsAreToldInOrder() async throws {
        session.stub(.any, with: .json(#"{"cities": []}"#))
        let log = SharedLog()
        let monitors = [EventRecorder(name: "A", shared: log), EventRecorder(name: "B", shared: log)]
        let service = ResourceService<CitiesResource>(pipeline: ResourcePipeline(session: session, monitors: monitors))
        _ = try await service.fetch(CitiesResource())
        #expect(log.all == [
            "A ready GET /europe.json", "B ready GET /europe.json",
            "A sent 1", "B sent 1",
            "A response 1 200 14B", "B response 1 200 14B",
            "A model", "B model",
            "A finished success attempts=1", "B finished success attempts=1",
        ])
    }

    @Test func aMonitorThatImplementsNothingChangesNothing() async throws {
        struct Silent: FetchMonitor {}
        session.stub(.any, with: .json(#"{"cities": [{"name": "Rome"}]}"#))
        let service = ResourceService<CitiesResource>(pipeline: ResourcePipeline(session: session, monitors: [Silent()]))
        #expect(try await service.fetch(CitiesResource()) == [City(name: "Rome")])
    }

    @Test func durationsComeFromThePipelinesClock() async throws {
        // GIVEN a manual clock that the adapter (50 ms), the transport (250 ms) and the
        // parser (30 ms) advance
        let clock = ManualClock()
        let fake = FakeURLSession()
        fake.stub(.any, with: .status(200, body: Data("12345".utf8)))
        let pipeline = ResourcePipeline(
            session: ClockAdvancingSession(clock: clock, delay: .milliseconds(250), session: fake),
            adapters: [ClosureRequestAdapter { request in clock.advance(by: .milliseconds(50)); return request }],
            monitors: [recorder],
            clock: clock
        )
        let service = ResourceService<ClockedResource>(pipeline: pipeline)

        // WHEN a fetch runs
        let bytes = try await service.fetch(ClockedResource(clock: clock, parsing: .milliseconds(30)))

        // THEN each duration is exactly what the clock was advanced by in that step
        #expect(bytes == 5)
        let durations = recorder.recordedDurations
        #expect(durations["response"] == .milliseconds(250))
        #expect(durations["model"] == .milliseconds(30))
        #expect(durations["fetch"] == .milliseconds(330))
        #expect(recorder.finishedEvents.first?.duration == .milliseconds(330))
    }
    /// Blocks the thread that tells it a request is ready: first until `onEnter` (when given)
    /// has run on another thread, then until it is told the fetch finished, or a second passes.
    /// A monitor that is still running, on one thread, when the fetch ends on another.
    final class ReadyGate: FetchMonitor, @unchecked Sendable {
        private let finished = DispatchSemaphore(value: 0)
        // `lock` guards `state`.
        private let lock = NSLock()
        private var state = (returned: false, onEnter: nil as (@Sendable () -> Void)?)

        var hasReturned: Bool { lock.withLock { state.returned } }

        /// Runs `action` on another thread when the gate is entered, and waits for it.
        func onEnter(_ action: @escaping @Sendable () -> Void) {
            lock.withLock { state.onEnter = action }
        }

        func requestReady(_ event: FetchEvent.RequestReady) {
            if let action = lock.withLock({ state.onEnter }) {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    action()
                    done.signal()
                }
                _ = done.wait(timeout: .now() + 30)
            }
            _ = finished.wait(timeout: .now() + 1)
            lock.withLock { state.returned = true }
        }

        func fetchFinished(_ event: FetchEvent.Finished) {
            finished.signal()
        }
    }

    /// Holds a task set later, to cancel it from another thread.
    final class TaskBox: @unchecked Sendable {
        private let set = DispatchSemaphore(value: 0)
        // `lock` guards `task`.
        private let lock = NSLock()
        private var task: Task<Result<[City], ResourceError>, Never>?

        func set(_ task: Task<Result<[City], ResourceError>, Never>) {
            lock.withLock { self.task = task }
            set.signal()
        }

        /// Waits for the task (at most ten seconds), then cancels it.
        func cancelOnceSet() {
            _ = set.wait(timeout: .now() + 10)
            lock.withLock { task }?.cancel()
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aFetchThatEndsWhileAMonitorIsToldOfItsRequestSendsNothingAndNoEventFollowsFetchFinished(inATask: Bool) async throws {
        // GIVEN a monitor still being told the request is ready, ahead of another monitor, when
        // the fetch ends on another thread: cancelled, for one whose attempts run in a task (the
        // gate waits until the cancellation has returned); by its deadline, for one whose first
        // attempt needs no task (the deadline comes when it comes: the transport answers late)
        session.stub(.any, with: inATask ? .json(#"{"cities": []}"#) : .json(#"{"cities": []}"#).delayed(by: .seconds(30)))
        let gate = ReadyGate()
        let adapters: [any RequestAdapter] = inATask ? [ClosureRequestAdapter { (request: URLRequest) async throws -> URLRequest in request }] : []
        let options = TransferOptions(deadline: inATask ? nil : .milliseconds(100))
        let service = ResourceService<CitiesResource>(
            pipeline: ResourcePipeline(session: session, options: options, adapters: adapters, monitors: [gate, recorder]))
        let result: Result<[City], ResourceError>
        if inATask {
            let started = TaskBox()
            gate.onEnter { started.cancelOnceSet() }
            let task = Task { await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) } }
            started.set(task)
            result = await task.value
        } else {
            // The first attempt runs on the thread that starts the fetch: not one of the test's.
            let (outcomes, outcome) = AsyncStream<Result<[City], ResourceError>>.makeStream()
            DispatchQueue.global().async {
                service.fetch(CitiesResource(), callbackQueue: DispatchQueue(label: "test")) { outcome.yield($0) }
            }
            result = try #require(await outcomes.first { _ in true })
        }
        #expect(result.failure?.caseName == (inATask ? "cancelled" : "timedOut"))

        // THEN once the monitor returns, no event reaches the other monitor after fetchFinished;
        // and a fetch that was over before the monitor returned sends nothing
        try await waitUntil { gate.hasReturned && recorder.events.count >= 2 }
        try await Task.sleep(for: .milliseconds(100))
        // (and counts no attempt); the attempts counted are those the transport was handed
        if inATask { #expect(session.receivedRequests.isEmpty) }
        let sent = session.receivedRequests.count
        let events = recorder.events
        #expect(events.filter { $0.hasPrefix("finished") }.count == 1, "\(events)")
        #expect(events.last == "finished \(inATask ? "cancelled" : "timedOut") attempts=\(sent)", "\(events)")
    }
}
