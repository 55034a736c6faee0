import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `PipelineFetch` on its own: what it starts for a fetch that is already over.
@Suite("PipelineFetch: a fetch over before its attempts begin")
struct PipelineFetchTests {
    @Test func attemptsForAFetchAlreadyOverRunNoAdapterAndSendNothing() async throws {
        // GIVEN a pipeline whose adapter may suspend (so the attempts run in a task), and a fetch
        // that ended (cancelled, say) before its attempts began
        let session = FakeURLSession()
        session.stub(.any, with: .json(#"{"cities": []}"#))
        let adapted = Locked(0)
        let adapter = ClosureRequestAdapter { (request: URLRequest) async throws -> URLRequest in
            adapted.withLock { $0 += 1 }
            return request
        }
        let pipeline = ResourcePipeline(session: session, adapters: [adapter])
        let fetch = PipelineFetch(pipeline: pipeline, resourceType: CitiesResource.self)
        let plan = FetchPlan(
            adapters: pipeline.adapters, synchronousAdapters: nil, authentication: nil, retryPolicy: .never, options: TransferOptions())
        let pending = PendingFetch<FetchAnswer>(callbackQueue: nil)
        pending.cancel()
        let request = try CitiesResource().urlRequest()

        // WHEN the fetch's attempts are started
        let answers = Locked(0)
        fetch.start(request, plan: plan, pending: pending) { _ in answers.withLock { $0 += 1 } }

        // THEN no adapter runs (given two seconds to), nothing is sent, and nothing is answered
        let end = ContinuousClock.now + .seconds(2)
        while adapted.withLock({ $0 }) == 0, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(adapted.withLock { $0 } == 0)
        #expect(session.receivedRequests.isEmpty)
        #expect(answers.withLock { $0 } == 0)
    }
}
