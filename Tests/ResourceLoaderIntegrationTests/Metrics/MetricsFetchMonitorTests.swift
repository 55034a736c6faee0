#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import ResourceLoader
@testable import ResourceLoaderMetrics
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("MetricsFetchMonitor: requests, durations, errors, retries and requests in flight")
struct MetricsFetchMonitorTests {
    typealias Label = MetricsFetchMonitor.Label
    typealias Dimension = MetricsFetchMonitor.Dimension

    static func requestDimensions(_ method: String, _ statusClass: String, _ resourceType: String) -> [(String, String)] {
        [(Dimension.method, method), (Dimension.statusClass, statusClass), (Dimension.resourceType, resourceType)]
    }

    @Test func aSuccessIsCountedAndTimedAndIsInFlightOnlyWhileItRuns() async throws {
        let clock = ManualClock()
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        let metrics = TestMetrics()
        let monitor = MetricsFetchMonitor(factory: metrics)
        let pipeline = ResourcePipeline(
            session: ClockAdvancingSession(clock: clock, delay: .microseconds(41_250), session: session),
            monitors: [monitor],
            clock: clock
        )
        _ = try await ResourceService<Greeting>(pipeline: pipeline).fetch(Greeting())

        let dimensions = Self.requestDimensions("GET", "2xx", "Greeting")
        #expect(try metrics.expectCounter(Label.requests, dimensions).totalValue == 1)
        #expect(try metrics.expectTimer(Label.duration, dimensions).values == [41_250_000])
        #expect(try metrics.expectMeter(Label.inFlight).values == [1, 0])
        #expect(metrics.counters(label: Label.errors).isEmpty)
        #expect(metrics.counters(label: Label.retries).isEmpty)
        #expect(monitor.fetchesInFlight == 0)
    }

    @Test func failuresAreCountedByStatusClassAndErrorCase() async throws {
        let session = FakeURLSession()
        let metrics = TestMetrics()
        let pipeline = ResourcePipeline(session: session, monitors: [MetricsFetchMonitor(factory: metrics)])
        let service = ResourceService<Greeting>(pipeline: pipeline)
        session.stub(.any, with: .status(404))
        _ = await service.outcome(of: Greeting())
        _ = await service.outcome(of: Greeting())
        session.stub(.any, with: .status(503))
        _ = await service.outcome(of: Greeting())
        session.stub(.any, with: .error(URLError(.cannotFindHost)))
        _ = await service.outcome(of: Greeting())
        session.stub(.any, with: .status(302))
        _ = await service.outcome(of: Greeting())

        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("GET", "4xx", "Greeting")) == 2)
        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("GET", "5xx", "Greeting")) == 1)
        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("GET", "error", "Greeting")) == 1)
        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("GET", "3xx", "Greeting")) == 1)
        #expect(metrics.counterTotal(label: Label.requests) == 5)
        #expect(metrics.counterTotal(label: Label.errors, dimensions: [(Dimension.resourceType, "Greeting"), (Dimension.errorType, "httpStatus")]) == 4)
        #expect(metrics.counterTotal(label: Label.errors, dimensions: [(Dimension.resourceType, "Greeting"), (Dimension.errorType, "transport")]) == 1)
        #expect(try metrics.expectMeter(Label.inFlight).values == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0])
    }

    @Test func aParsingFailureKeepsItsStatusClassAndCountsAsAnError() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, body: Data("RESPONSE-SECRET".utf8)))
        let metrics = TestMetrics()
        let pipeline = ResourcePipeline(session: session, monitors: [MetricsFetchMonitor(factory: metrics)])
        _ = await ResourceService<SecretResource>(pipeline: pipeline).outcome(of: SecretResource())

        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("POST", "2xx", "SecretResource")) == 1)
        #expect(metrics.counterTotal(label: Label.errors, dimensions: [(Dimension.resourceType, "SecretResource"), (Dimension.errorType, "parsing")]) == 1)
        // No dimension value comes from the URL, a header or a body.
        let values = (metrics.counters + metrics.counters(label: Label.errors)).flatMap(\.dimensions).map(\.1)
        for secret in SecretResource.secrets {
            #expect(!values.contains { $0.contains(secret) })
        }
    }

    @Test func retriesAreCountedByReason() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: [.status(503), .error(URLError(.networkConnectionLost)), .json("hello")])
        let metrics = TestMetrics()
        let pipeline = ResourcePipeline(session: session, retryPolicy: immediateRetries, monitors: [MetricsFetchMonitor(factory: metrics)])
        _ = try await ResourceService<Greeting>(pipeline: pipeline).fetch(Greeting())

        #expect(metrics.counterTotal(label: Label.retries, dimensions: [(Dimension.resourceType, "Greeting"), (Dimension.reason, "status")]) == 1)
        #expect(metrics.counterTotal(label: Label.retries, dimensions: [(Dimension.resourceType, "Greeting"), (Dimension.reason, "transport")]) == 1)
        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("GET", "2xx", "Greeting")) == 1)
        // Retries do not count the fetch in flight again.
        #expect(try metrics.expectMeter(Label.inFlight).values == [1, 0])
    }

    @Test func aFetchThatSendsNothingIsNeverInFlight() async throws {
        let metrics = TestMetrics()
        let monitor = MetricsFetchMonitor(factory: metrics)
        let pipeline = ResourcePipeline(session: FakeURLSession(), monitors: [monitor])
        _ = await ResourceService<Unbuildable>(pipeline: pipeline).outcome(of: Unbuildable())

        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("none", "error", "Unbuildable")) == 1)
        #expect(try metrics.expectMeter(Label.inFlight).values.isEmpty)
        #expect(monitor.fetchesInFlight == 0)
    }

    @Test func aMethodThatIsNotAnHTTPTokenIsCountedAsInvalid() async throws {
        // GIVEN resources whose requests name methods no transport sends
        let metrics = TestMetrics()
        let session = FakeURLSession()
        let service = ResourceService<MethodResource>(pipeline: ResourcePipeline(session: session, monitors: [MetricsFetchMonitor(factory: metrics)]))
        // WHEN they are fetched
        for method in ["GET\nX", "P O S T", ""] {
            _ = await service.outcome(of: MethodResource(method: method))
        }
        // THEN each is refused and counted under one `invalid` method, never under what it named
        #expect(session.receivedRequests.isEmpty)
        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("invalid", "error", "MethodResource")) == 3)
        #expect(metrics.counterTotal(label: Label.requests) == 3)
    }

    @Test func aFetchCancelledBeforeItsFirstAttemptIsNeverInFlight() async throws {
        let metrics = TestMetrics()
        let monitor = MetricsFetchMonitor(factory: metrics)
        let (adapting, adaptingContinuation) = AsyncStream<Void>.makeStream()
        let stalling = ClosureRequestAdapter { request in
            adaptingContinuation.yield()
            try await Task.sleep(for: .seconds(600))
            return request
        }
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        let pipeline = ResourcePipeline(session: session, adapters: [stalling], monitors: [monitor])
        let fetch = Task { await ResourceService<Greeting>(pipeline: pipeline).outcome(of: Greeting()) }
        for await _ in adapting { break }
        fetch.cancel()
        let outcome = await fetch.value

        #expect(outcome.error?.isCancelled == true)
        #expect(metrics.counterTotal(label: Label.requests, dimensions: Self.requestDimensions("GET", "error", "Greeting")) == 1)
        #expect(try metrics.expectMeter(Label.inFlight).values.isEmpty)
        #expect(monitor.fetchesInFlight == 0)
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func concurrentFetchesLeaveNothingInFlight() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello").delayed(by: .milliseconds(5)))
        let metrics = TestMetrics()
        let monitor = MetricsFetchMonitor(factory: metrics)
        let service = ResourceService<Greeting>(pipeline: ResourcePipeline(session: session, monitors: [monitor]))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask { _ = await service.outcome(of: Greeting()) }
            }
        }
        let values = try metrics.expectMeter(Label.inFlight).values
        #expect(values.count == 64)
        #expect(values.last == 0)
        #expect(values.allSatisfy { (0...32).contains($0) })
        #expect(monitor.fetchesInFlight == 0)
        #expect(metrics.counterTotal(label: Label.requests) == 32)
    }

    @Test func statusClassesAndCaseNames() {
        #expect([nil, 101, 204, 304, 418, 599, 600, -1].map(MetricsFetchMonitor.statusClass(of:))
            == ["error", "1xx", "2xx", "3xx", "4xx", "5xx", "error", "error"])
        #expect(MetricsFetchMonitor.caseName(of: .transport(.timedOut, underlying: URLError(.timedOut))) == "transport")
        #expect(MetricsFetchMonitor.caseName(of: .authenticationFailed(.noCredential)) == "authenticationFailed")
        #expect(MetricsFetchMonitor.caseName(of: .cancelled) == "cancelled")
        let partial = ResumableDownload(partialFile: URL(fileURLWithPath: "/tmp/partial"), byteCount: 10, validator: .entityTag("\"v\""))
        #expect(MetricsFetchMonitor.caseName(of: .downloadInterrupted(partial, underlying: .transport(.networkConnectionLost, underlying: URLError(.networkConnectionLost))))
            == "downloadInterrupted")
    }
}

extension Result {
    /// The failure, or `nil`.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
#endif
