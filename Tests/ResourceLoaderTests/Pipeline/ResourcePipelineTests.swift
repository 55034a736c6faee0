import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("ResourcePipeline: shared configuration and request adapters")
struct ResourcePipelineTests {
    let session = FakeURLSession()

    init() {
        session.stub(.path("/europe.json"), with: .json(#"{"cities": [{"name": "Lisbon"}]}"#))
        session.stub(.path("/cities"), with: .json(#"[{"name": "Oslo"}]"#))
        session.stub(.path("/login"), with: .status(200, body: Data("ok".utf8)))
    }

    @Test func servicesOfTwoResourceTypesShareOnePipeline() async throws {
        // GIVEN one pipeline with an adapter and a monitor
        let recorder = EventRecorder()
        let pipeline = ResourcePipeline(
            session: session,
            options: TransferOptions(maximumResponseBytes: 1000),
            adapters: [headerAdapter("X-App", "demo")],
            monitors: [recorder]
        )
        let cities = ResourceService<CitiesResource>(pipeline: pipeline)
        let array = ResourceService<CityArrayResource>(pipeline: pipeline)

        // WHEN both fetch
        let europe = try await cities.fetch(CitiesResource())
        let oslo = try await array.fetch(CityArrayResource())

        // THEN both used the pipeline's transport, options, adapter and monitor
        #expect(europe == [City(name: "Lisbon")])
        #expect(oslo == [City(name: "Oslo")])
        #expect(cities.pipeline === pipeline && array.pipeline === pipeline)
        #expect(cities.options == pipeline.options)
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "X-App") } == ["demo", "demo"])
        let names = recorder.finishedEvents.map(\.context.resourceTypeName)
        #expect(names == ["CitiesResource", "CityArrayResource"])
        #expect(Set(recorder.finishedEvents.map(\.context.fetchID)).count == 2)
    }

    @Test func aServiceMadeWithoutAPipelineHasNone() {
        let service = ResourceService<CitiesResource>(session: session)
        #expect(service.pipeline == nil)
    }

    @Test func aPipelineWithoutHooksFetchesAsAPlainService() async throws {
        let pipeline = ResourcePipeline(session: session)
        let service = ResourceService<CitiesResource>(pipeline: pipeline)
        #expect(try await service.fetch(CitiesResource()) == [City(name: "Lisbon")])
        #expect(await service.fetchWithCompletion(CitiesResource()).failure == nil)
    }

    @Test func adaptersRunInOrderAndTheTransportReceivesTheAdaptedRequest() async throws {
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [headerAdapter("X-Order", "first"), headerAdapter("X-Order", "second")]
        )
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        _ = try await service.fetch(CitiesResource())
        _ = try await service.fetchWithCompletion(CitiesResource()).get()

        let received = session.receivedRequests
        #expect(received.count == 2)
        #expect(received.allSatisfy { $0.value(forHTTPHeaderField: "X-Order") == "first,second" })
    }

    @Test func anAdapterCanReplaceTheURL() async throws {
        let pipeline = ResourcePipeline(session: session, adapters: [
            ClosureRequestAdapter { request in
                var request = request
                request.url = URL(string: "https://api.example.com/cities")
                return request
            },
        ])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)
        await #expect(throws: ResourceError.self) { try await service.fetch(CitiesResource()) }
        #expect(session.receivedRequests.map(\.url?.path) == ["/cities"])
    }

    @Test func aResourceCanOptOutOfTheAdaptersButNotTheMonitors() async throws {
        let recorder = EventRecorder()
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [headerAdapter("Authorization", "Bearer secret")],
            monitors: [recorder]
        )

        _ = try await ResourceService<LoginResource>(pipeline: pipeline).fetch(LoginResource())
        _ = try await ResourceService<CitiesResource>(pipeline: pipeline).fetch(CitiesResource())

        let received = session.receivedRequests
        #expect(received.map { $0.value(forHTTPHeaderField: "Authorization") } == [nil, "Bearer secret"])
        #expect(recorder.finishedEvents.count == 2)
    }

    @Test(arguments: [false, true])
    func aThrowingAdapterEndsTheFetchWithATypedErrorThatKeepsIt(completionHandler: Bool) async throws {
        let later = Counter()
        let pipeline = ResourcePipeline(session: session, adapters: [
            ClosureRequestAdapter { _ in throw AdapterFailure(code: 7) },
            ClosureRequestAdapter { request in later.increment(); return request },
        ])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let result = completionHandler
            ? await service.fetchWithCompletion(CitiesResource())
            : await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }

        guard case .requestAdaptationFailed(let underlying) = result.failure else {
            Issue.record("expected requestAdaptationFailed, got \(String(describing: result))")
            return
        }
        #expect(underlying as? AdapterFailure == AdapterFailure(code: 7))
        #expect(later.value == 0)
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func theAdaptationErrorsDescriptionQuotesNothingTheAdapterThrew() {
        struct SecretError: Error, CustomStringConvertible {
            var description: String { "token abc123 rejected" }
        }
        let description = ResourceError.requestAdaptationFailed(SecretError()).description
        #expect(description == "A request adapter failed (SecretError)")
        #expect(!description.contains("abc123"))
    }

    @Test func cancellingTheTaskDuringASlowAdapterEndsTheFetchOnceWithoutSending() async throws {
        let adapter = StallingAdapter()
        let recorder = EventRecorder()
        let pipeline = ResourcePipeline(session: session, adapters: [adapter], monitors: [recorder])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let task = Task { () async -> Result<[City], ResourceError> in
            await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }
        }
        await adapter.waitUntilStarted()
        task.cancel()
        let result = try #require(await withTimeLimit { await task.value })

        #expect(result.failure?.isCancelled == true)
        #expect(session.receivedRequests.isEmpty)
        #expect(recorder.events == ["finished cancelled attempts=0"])
        try await waitUntil { adapter.wasCancelled }
    }

    @Test func cancellingACompletionHandlerFetchDuringASlowAdapterCompletesOnceWithCancelled() async throws {
        let adapter = StallingAdapter()
        let pipeline = ResourcePipeline(session: session, adapters: [adapter])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)
        let completions = Counter()
        let (outcomes, outcome) = AsyncStream<Result<[City], ResourceError>>.makeStream()

        let handle = service.fetch(CitiesResource(), callbackQueue: DispatchQueue(label: "test")) { result in
            completions.increment()
            outcome.yield(result)
        }
        await adapter.waitUntilStarted()
        handle.cancel()
        handle.cancel()
        let result = try #require(await withTimeLimit { await outcomes.first { _ in true } })

        #expect(result?.failure?.isCancelled == true)
        try await Task.sleep(for: .milliseconds(100))  // room for a second completion, were there one
        #expect(completions.value == 1)
        #expect(session.receivedRequests.isEmpty)
        try await waitUntil { adapter.wasCancelled }
    }

    @Test(arguments: [false, true])
    func theDeadlineBoundsTheAdapters(completionHandler: Bool) async throws {
        let adapter = StallingAdapter()
        let recorder = EventRecorder()
        let pipeline = ResourcePipeline(
            session: session,
            options: TransferOptions(deadline: .milliseconds(200)),
            adapters: [adapter],
            monitors: [recorder]
        )
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let result = try #require(await withTimeLimit {
            completionHandler
                ? await service.fetchWithCompletion(CitiesResource())
                : await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }
        })

        guard case .timedOut = result.failure else {
            Issue.record("expected timedOut, got \(String(describing: result))")
            return
        }
        #expect(session.receivedRequests.isEmpty)
        #expect(recorder.events == ["finished timedOut attempts=0"])
        // On a busy machine the deadline can pass before the adapters' task runs; it then never
        // calls the adapter.
        try await waitUntil { adapter.wasCancelled || !adapter.wasCalled }
    }

    @Test func aResourceOperationRunsThroughThePipeline() async throws {
        let recorder = EventRecorder()
        let pipeline = ResourcePipeline(session: session, adapters: [headerAdapter("X-App", "op")], monitors: [recorder])
        let operation = ResourceOperation(
            resource: CitiesResource(),
            service: ResourceService<CitiesResource>(pipeline: pipeline),
            callbackQueue: DispatchQueue(label: "test")
        )
        OperationQueue().addOperation(operation)

        let cities = try await operation.value

        #expect(cities == [City(name: "Lisbon")])
        #expect(session.receivedRequests.first?.value(forHTTPHeaderField: "X-App") == "op")
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 200 32B", "model", "finished success attempts=1",
        ])
    }
}

extension Result where Failure == ResourceError {
    /// Runs an `async` fetch and keeps its outcome.
    init(_ body: () async throws(ResourceError) -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
