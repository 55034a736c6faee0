import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A pipeline whose adapters never suspend makes a fetch's first attempt without a task; whatever
/// follows (a retry, a refresh, a replay) runs as it does for any adapter. Each scenario runs with
/// a synchronous and with a suspending adapter and must look the same to the caller, the server
/// and the monitors.
@Suite("ResourcePipeline: synchronous adapters", .timeLimit(.minutes(1)))
struct SynchronousAdapterTests {
    enum Kind: String, CaseIterable, Sendable {
        /// A ``ClosureRequestAdapter`` whose closure does not `await`.
        case synchronousClosure
        /// A type of its own conforming to ``SynchronousRequestAdapter``.
        case synchronousType
        /// A ``ClosureRequestAdapter`` whose closure suspends.
        case suspending
    }

    /// Sets `X-App: demo`, counts its calls and notes whether it ran inside a task.
    final class Probe: @unchecked Sendable {
        // `lock` guards `calls` and `inTask`.
        private let lock = NSLock()
        private var calls = 0
        private var inTask: [Bool] = []

        var callCount: Int { lock.withLock { calls } }
        var ranInTask: [Bool] { lock.withLock { inTask } }

        func adapt(_ request: URLRequest) -> URLRequest {
            let isInTask = withUnsafeCurrentTask { $0 != nil }
            lock.withLock {
                calls += 1
                inTask.append(isInTask)
            }
            var request = request
            request.setValue("demo", forHTTPHeaderField: "X-App")
            return request
        }

        func adapter(_ kind: Kind) -> any RequestAdapter {
            switch kind {
            case .synchronousClosure:
                return ClosureRequestAdapter { request in self.adapt(request) }
            case .synchronousType:
                return ProbeAdapter(probe: self)
            case .suspending:
                return ClosureRequestAdapter { request in
                    await Task.yield()
                    return self.adapt(request)
                }
            }
        }
    }

    struct ProbeAdapter: SynchronousRequestAdapter {
        let probe: Probe

        func adapt(_ request: URLRequest) throws -> URLRequest {
            probe.adapt(request)
        }
    }

    let session = FakeURLSession()
    let clock = ManualClock()
    let recorder = EventRecorder()
    let probe = Probe()

    /// Starts a completion-handler fetch from a thread that runs no task, and waits for it.
    func fetchFromAThread<R: NetworkResourceType & DataResourceType>(
        _ resource: R, from service: ResourceService<R>
    ) async -> Result<R.Model, ResourceError> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                service.fetch(resource, callbackQueue: DispatchQueue(label: "test.callback")) { result in
                    continuation.resume(returning: result)
                }
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func aSynchronousAdapterRunsOnTheThreadThatStartsTheFetchOthersInATask(kind: Kind) async throws {
        session.stub(.any, with: .json(#"{"cities": [{"name": "Oslo"}]}"#))
        let pipeline = ResourcePipeline(session: session, adapters: [probe.adapter(kind)], monitors: [recorder])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let result = await fetchFromAThread(CitiesResource(), from: service)

        #expect(try result.get().map(\.name) == ["Oslo"])
        #expect(probe.ranInTask == [kind == .suspending])
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "X-App") } == ["demo"])
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 200 30B", "model", "finished success attempts=1",
        ])
    }

    @Test(arguments: Kind.allCases, [false, true])
    func aRetryAfterTheFirstAttemptRunsTheAdaptersAgainInATask(kind: Kind, completionHandler: Bool) async throws {
        session.stub(.any, with: [.status(503), .json(#"{"cities": [{"name": "Oslo"}]}"#)])
        let pipeline = ResourcePipeline(
            session: session, adapters: [probe.adapter(kind)], retryPolicy: RetryPolicy(jitter: .none),
            monitors: [recorder], clock: clock)
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let task = Task {
            completionHandler
                ? await fetchFromAThread(CitiesResource(), from: service)
                : await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }
        }
        #expect(await clock.advanceToNextSleeper() == .milliseconds(500))
        let result = await task.value

        #expect(try result.get().map(\.name) == ["Oslo"])
        #expect(probe.callCount == 2)
        #expect(probe.ranInTask.last == true)
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "X-App") } == ["demo", "demo"])
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 503 0B", "retry 1 after 500ms status 503",
            "sent 2", "response 2 200 30B", "model", "finished success attempts=2",
        ])
    }

    @Test(arguments: Kind.allCases)
    func aRejectedCredentialIsRefreshedAndTheRequestReplayedOnce(kind: Kind) async throws {
        let server = TokenCheckingServer()
        let refresher = TokenRefresher(server: server)
        let store = CredentialStore(authenticator: TestAuthenticator(refresher: refresher), credential: TestToken("t0"))
        let pipeline = ResourcePipeline(
            session: server, adapters: [probe.adapter(kind)], credentials: store, monitors: [recorder], clock: clock)
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let result = await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }

        #expect(result.failure == nil)
        #expect(server.received.map(\.token) == ["t0", "t1"])
        #expect(server.received.map(\.app) == ["demo", "demo"])
        #expect(refresher.count == 1)
        #expect(probe.callCount == 2)
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 401 0B", "retry 1 after 0ms credential 401",
            "sent 2", "response 2 200 14B", "model", "finished success attempts=2",
        ])
    }

    @Test(arguments: Kind.allCases)
    func anExpiredCredentialIsRefreshedFirstAndTheAdaptersRunOnce(kind: Kind) async throws {
        let server = TokenCheckingServer()
        let refresher = TokenRefresher(server: server)
        let store = CredentialStore(
            authenticator: TestAuthenticator(refresher: refresher), credential: TestToken("t0", expiresAt: .distantPast))
        let pipeline = ResourcePipeline(
            session: server, adapters: [probe.adapter(kind)], credentials: store, monitors: [recorder], clock: clock)
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let result = await fetchFromAThread(CitiesResource(), from: service)

        #expect(result.failure == nil)
        #expect(server.received.map(\.token) == ["t1"])
        #expect(refresher.refreshed == ["t0"])
        #expect(probe.callCount == 1)
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 200 14B", "model", "finished success attempts=1",
        ])
    }

    @Test(arguments: [false, true])
    func aThrowingSynchronousAdapterEndsTheFetchWithATypedErrorAndNothingIsSent(completionHandler: Bool) async throws {
        let pipeline = ResourcePipeline(session: session, adapters: [
            ClosureRequestAdapter { _ in throw AdapterFailure(code: 9) },
        ], monitors: [recorder])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let result = completionHandler
            ? await fetchFromAThread(CitiesResource(), from: service)
            : await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }

        guard case .requestAdaptationFailed(let underlying) = result.failure else {
            Issue.record("expected requestAdaptationFailed, got \(String(describing: result))")
            return
        }
        #expect(underlying as? AdapterFailure == AdapterFailure(code: 9))
        #expect(session.receivedRequests.isEmpty)
        #expect(recorder.events == ["finished requestAdaptationFailed attempts=0"])
    }

    @Test func theDeadlineEndsAFetchWhoseSynchronousAdapterBlocksAndNothingIsSent() async throws {
        session.stub(.any, with: .json(#"{"cities": []}"#))
        let release = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        let pipeline = ResourcePipeline(
            session: session, options: TransferOptions(deadline: .milliseconds(200)),
            adapters: [
                ClosureRequestAdapter { request in
                    release.wait()
                    returned.signal()
                    return request
                },
            ],
            monitors: [recorder])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        let result = try #require(await withTimeLimit { await fetchFromAThread(CitiesResource(), from: service) })
        release.signal()
        try await offTheCooperativePool { returned.wait() }

        guard case .timedOut = result.failure else {
            Issue.record("expected timedOut, got \(String(describing: result))")
            return
        }
        try await Task.sleep(for: .milliseconds(100))  // room for a request sent late, were there one
        #expect(session.receivedRequests.isEmpty)
        #expect(recorder.events == ["finished timedOut attempts=0"])
    }

    @Test func aSuspendingAdapterAmongSynchronousOnesRunsThemAllInATaskInOrder() async throws {
        session.stub(.any, with: .json(#"{"cities": []}"#))
        let pipeline = ResourcePipeline(session: session, adapters: [
            headerAdapter("X-Order", "first"),
            ClosureRequestAdapter { request in
                await Task.yield()
                var request = request
                request.addValue("second", forHTTPHeaderField: "X-Order")
                return request
            },
            probe.adapter(.synchronousType),
        ])
        let service = ResourceService<CitiesResource>(pipeline: pipeline)

        _ = await fetchFromAThread(CitiesResource(), from: service)

        let request = try #require(session.receivedRequests.first)
        #expect(request.value(forHTTPHeaderField: "X-Order") == "first,second")
        #expect(request.value(forHTTPHeaderField: "X-App") == "demo")
        #expect(probe.ranInTask == [true])
    }
}
