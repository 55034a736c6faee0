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

    @Test func noAdapterRunsAfterTheFetchEndedWhileAnEarlierOneRan() async throws {
        // GIVEN a pipeline whose first adapter waits for a gate, whatever happens meanwhile, and
        // whose second counts its calls
        let session = FakeURLSession()
        session.stub(.any, with: .json(#"{"cities": []}"#))
        let (adapting, adaptingContinuation) = AsyncStream<Void>.makeStream()
        let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
        let (returned, returnedContinuation) = AsyncStream<Void>.makeStream()
        let waiting = ClosureRequestAdapter { (request: URLRequest) async throws -> URLRequest in
            adaptingContinuation.yield()
            // Waits in a task of its own, which the fetch's cancellation does not reach.
            await Task { for await _ in gate { break } }.value
            returnedContinuation.yield()
            return request
        }
        let later = Locked(0)
        let counting = ClosureRequestAdapter { (request: URLRequest) async throws -> URLRequest in
            later.withLock { $0 += 1 }
            return request
        }
        let pipeline = ResourcePipeline(session: session, adapters: [waiting, counting])

        // WHEN the fetch is cancelled while the first adapter waits, and then that one returns
        let fetch = Task { () -> ResourceError? in
            do {
                _ = try await ResourceService<CitiesResource>(pipeline: pipeline).fetch(CitiesResource())
                return nil
            } catch {
                return error as? ResourceError
            }
        }
        for await _ in adapting { break }
        fetch.cancel()
        let error = await fetch.value
        gateContinuation.yield()
        for await _ in returned { break }

        // THEN the fetch ended cancelled, and the adapter after it never runs (given a second to)
        #expect(error?.caseName == "cancelled")
        let end = ContinuousClock.now + .seconds(1)
        while later.withLock({ $0 }) == 0, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(later.withLock { $0 } == 0)
        #expect(session.receivedRequests.isEmpty)
    }
}
