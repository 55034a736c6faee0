#if Tracing
import Foundation
import InMemoryTracing
import ResourceLoader
import ResourceLoaderTesting
@testable import ResourceLoaderTracing
import Testing
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("TracingFetchMonitor: one span per fetch, the trace context in every attempt's headers")
struct TracingFetchMonitorTests {
    typealias Name = TracingFetchMonitor.AttributeName

    /// A pipeline over `session` traced by `tracing`, first among `adapters`.
    static func pipeline(
        _ session: FakeURLSession,
        tracing: TracingFetchMonitor,
        adapters: [any RequestAdapter] = [],
        retryPolicy: RetryPolicy = .never
    ) -> ResourcePipeline {
        ResourcePipeline(session: session, adapters: [tracing] + adapters, retryPolicy: retryPolicy, monitors: [tracing])
    }

    /// The spans `tracer` finished, but for `parent`.
    static func fetchSpans(_ tracer: InMemoryTracer, besides parent: InMemorySpan? = nil) -> [FinishedInMemorySpan] {
        tracer.finishedSpans.filter { $0.spanID != parent?.spanID }
    }

    @Test func aRetriedFetchIsOneSpanUnderTheCallersWithTheContextInEveryAttempt() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let session = FakeURLSession()
        session.stub(.any, with: [.status(503), .json("hello")])
        let pipeline = Self.pipeline(session, tracing: tracing, retryPolicy: RetryPolicy(baseDelay: .zero, jitter: .none))

        let parent = tracer.startSpan("handle request")
        let greeting = try await ServiceContext.withValue(parent.context) {
            try await ResourceService<Greeting>(pipeline: pipeline).fetch(Greeting())
        }
        parent.end()

        #expect(greeting == "hello")
        let span = try #require(Self.fetchSpans(tracer, besides: parent).first)
        #expect(Self.fetchSpans(tracer, besides: parent).count == 1)
        #expect(span.traceID == parent.traceID)
        #expect(span.parentSpanID == parent.spanID)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.status == nil)
        #expect(span.attributes.get(Name.method) == .string("GET"))
        #expect(span.attributes.get(Name.url) == .string("https://api.example.com/v1/greeting?name=REDACTED"))
        #expect(span.attributes.get(Name.serverAddress) == .string("api.example.com"))
        #expect(span.attributes.get(Name.serverPort) == .int64(443))
        #expect(span.attributes.get(Name.statusCode) == .int64(200))
        #expect(span.attributes.get(Name.resendCount) == .int64(1))
        #expect(span.attributes.get(Name.errorType) == nil)
        #expect(span.attributes.get(Name.resourceType) == .string("Greeting"))
        #expect(span.events.map(\.name) == [
            Name.attemptEvent, Name.responseEvent, Name.retryEvent, Name.attemptEvent, Name.responseEvent,
        ])
        #expect(span.events.map { $0.attributes.get(Name.statusCode) } == [nil, .int64(503), nil, nil, .int64(200)])
        #expect(span.events[2].attributes.get(Name.retryReason) == .string("status(503)"))

        // Every attempt carried the fetch span's context, as the instrument injects it.
        let requests = session.receivedRequests
        try #require(requests.count == 2)
        for request in requests {
            #expect(request.value(forHTTPHeaderField: InMemoryTracer.traceIDKey) == span.traceID)
            #expect(request.value(forHTTPHeaderField: InMemoryTracer.spanIDKey) == span.spanID)
        }
        #expect(tracer.performedContextInjections.count == 2)
        #expect(tracer.activeSpans.isEmpty)
        #expect(tracing.openSpanCount == 0)
    }

    @Test func withoutACallerSpanTheFetchStartsATrace() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        _ = try await ResourceService<Greeting>(pipeline: Self.pipeline(session, tracing: tracing)).fetch(Greeting())

        let span = try #require(tracer.finishedSpans.first)
        #expect(tracer.finishedSpans.count == 1)
        #expect(span.parentSpanID == nil)
        #expect(span.attributes.get(Name.resendCount) == nil)
        #expect(session.receivedRequests.first?.value(forHTTPHeaderField: InMemoryTracer.spanIDKey) == span.spanID)
    }

    @Test func failuresSetTheErrorTypeAndStatus() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let session = FakeURLSession()
        let service = ResourceService<Greeting>(pipeline: Self.pipeline(session, tracing: tracing))
        session.stub(.any, with: .status(404))
        _ = await service.outcome(of: Greeting())
        session.stub(.any, with: .error(URLError(.cannotFindHost)))
        _ = await service.outcome(of: Greeting())

        let spans = tracer.finishedSpans
        try #require(spans.count == 2)
        #expect(spans[0].attributes.get(Name.errorType) == .string("404"))
        #expect(spans[0].attributes.get(Name.statusCode) == .int64(404))
        #expect(spans[1].attributes.get(Name.errorType) == .string("transport(\(URLError.Code.cannotFindHost.rawValue))"))
        #expect(spans[1].attributes.get(Name.statusCode) == nil)
        #expect(spans.allSatisfy { $0.status?.code == .error })
        #expect(tracing.openSpanCount == 0)
    }

    @Test func aFetchCancelledBeforeItsFirstAttemptEndsItsSpan() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let (adapting, adaptingContinuation) = AsyncStream<Void>.makeStream()
        let stalling = ClosureRequestAdapter { request in
            adaptingContinuation.yield()
            try await Task.sleep(for: .seconds(600))
            return request
        }
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        let pipeline = Self.pipeline(session, tracing: tracing, adapters: [stalling])
        let fetch = Task { await ResourceService<Greeting>(pipeline: pipeline).outcome(of: Greeting()) }
        for await _ in adapting { break }
        fetch.cancel()
        _ = await fetch.value

        let span = try #require(tracer.finishedSpans.first)
        #expect(tracer.finishedSpans.count == 1)
        #expect(span.attributes.get(Name.errorType) == .string("cancelled"))
        #expect(span.events.isEmpty)
        #expect(tracer.activeSpans.isEmpty)
        #expect(tracing.openSpanCount == 0)
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func anAttemptThatStartsAfterItsFetchEndedStartsNoSpan() async throws {
        // A retry's adapters can start in the attempts' task just as the fetch is cancelled, after
        // `fetchFinished` took the span: that task is cancelled by then, and starts no span.
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let context = FetchEvent.Context(fetchID: .max, resourceType: Greeting.self)
        let request = URLRequest(url: URL(string: "https://api.example.com/v1/greeting")!)
        let lateAttempt = Task {
            // As the pipeline runs a fetch's attempts.
            await FetchEvent.Context.$attempting.withValue(context) {
                await FetchEvent.Context.$current.withValue(context) {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try? await tracing.adapt(request)
                }
            }
        }
        let adapted = await lateAttempt.value

        #expect(tracer.finishedSpans.isEmpty)
        #expect(tracer.activeSpans.isEmpty)
        #expect(tracing.openSpanCount == 0)
        #expect(adapted?.value(forHTTPHeaderField: InMemoryTracer.spanIDKey) == nil)
        // The fetch's own end, if it comes after, finds nothing to end.
        tracing.fetchFinished(FetchEvent.Finished(
            context: context, request: request, result: .failure(.cancelled), statusCode: nil, bodyByteCount: nil, attempts: 1, duration: .zero
        ))
        #expect(tracer.finishedSpans.isEmpty)
    }

    @Test func aFetchCancelledBeforeTheAdapterRanHasNoSpan() async throws {
        // GIVEN a pipeline whose first adapter waits for a gate, whatever happens meanwhile, and
        // whose second is the tracing one
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let (adapting, adaptingContinuation) = AsyncStream<Void>.makeStream()
        let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
        let (returned, returnedContinuation) = AsyncStream<Void>.makeStream()
        let waiting = ClosureRequestAdapter { request in
            adaptingContinuation.yield()
            // Waits in a task of its own, which the fetch's cancellation does not reach.
            await Task { for await _ in gate { break } }.value
            returnedContinuation.yield()
            return request
        }
        let traced = RaisedFlag()
        let tracingAdapter = ClosureRequestAdapter { request in
            defer { traced.raise() }
            return try await tracing.adapt(request)
        }
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        let pipeline = ResourcePipeline(session: session, adapters: [waiting, tracingAdapter], monitors: [tracing])

        // WHEN the fetch is cancelled while the first adapter waits, and has ended, and then the
        // first adapter returns (the pipeline runs no adapter after it; the tracing adapter is
        // given a second, should it run)
        let fetch = Task { await ResourceService<Greeting>(pipeline: pipeline).outcome(of: Greeting()) }
        for await _ in adapting { break }
        fetch.cancel()
        let outcome = await fetch.value
        gateContinuation.yield()
        for await _ in returned { break }
        let end = ContinuousClock.now + .seconds(1)
        while !traced.isRaised, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(10))
        }

        // THEN the fetch has no span: none was started after it ended
        guard case .failure(.cancelled) = outcome else {
            Issue.record("expected a cancellation, got \(outcome)")
            return
        }
        #expect(tracer.finishedSpans.isEmpty, "\(tracer.finishedSpans.map(\.operationName))")
        #expect(tracer.activeSpans.isEmpty)
        #expect(tracing.openSpanCount == 0)
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func aFetchThatNeverReachesTheAdaptersHasNoSpan() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        _ = await ResourceService<Unbuildable>(pipeline: Self.pipeline(FakeURLSession(), tracing: tracing)).outcome(of: Unbuildable())
        #expect(tracer.finishedSpans.isEmpty)
        #expect(tracer.activeSpans.isEmpty)
        #expect(tracing.openSpanCount == 0)
    }

    @Test func aResourceThatOptsOutOfTheAdaptersIsTracedWithoutHeaders() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let session = FakeURLSession()
        session.stub(.any, with: .json("token"))
        _ = try await ResourceService<UnadaptedGreeting>(pipeline: Self.pipeline(session, tracing: tracing)).fetch(UnadaptedGreeting())

        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes.get(Name.serverPort) == .int64(80))
        #expect(span.attributes.get(Name.url) == .string("http://login.example.com/token"))
        #expect(session.receivedRequests.first?.value(forHTTPHeaderField: InMemoryTracer.spanIDKey) == nil)
        #expect(tracer.performedContextInjections.isEmpty)
        #expect(tracing.openSpanCount == 0)
    }

    @Test func aFetchStartedFromACancelledTaskIsTraced() async throws {
        // GIVEN a completion-handler fetch of a resource without adapters, started in a task that
        // is cancelled: the fetch is not the task's, and runs
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let session = FakeURLSession()
        session.stub(.any, with: .json("token"))
        let service = ResourceService<UnadaptedGreeting>(pipeline: Self.pipeline(session, tracing: tracing))
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, ResourceError>, Never>) in
            Task {
                withUnsafeCurrentTask { $0?.cancel() }
                service.fetch(UnadaptedGreeting()) { continuation.resume(returning: $0) }
            }
        }
        // THEN it has its span, ended
        #expect((try? result.get()) != nil)
        #expect(tracer.finishedSpans.count == 1)
        #expect(tracer.activeSpans.isEmpty)
        #expect(tracing.openSpanCount == 0)
    }

    @Test func noSecretReachesTheSpan() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let session = FakeURLSession()
        session.stub(.any, with: .status(401, headers: ["Set-Cookie": "Cookie-Secret"], body: Data("RESPONSE-SECRET".utf8)))
        let pipeline = Self.pipeline(session, tracing: tracing, adapters: [secretTokenAdapter])
        _ = await ResourceService<SecretResource>(pipeline: pipeline).outcome(of: SecretResource())

        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes.get(Name.url) == .string("https://api.example.com:8443/v1/search?apikey=REDACTED&q=REDACTED&REDACTED"))
        #expect(span.attributes.get(Name.method) == .string("POST"))
        #expect(span.attributes.get(Name.serverPort) == .int64(8443))
        var text = span.operationName
        span.attributes.forEach { key, value in text += " \(key)=\(value)" }
        for event in span.events {
            text += " \(event.name)"
            event.attributes.forEach { key, value in text += " \(key)=\(value)" }
        }
        for secret in SecretResource.secrets {
            #expect(!text.contains(secret), "the span quotes \(secret)")
        }
    }

    @Test func anUnusualMethodIsOther() {
        var request = URLRequest(url: URL(string: "https://api.example.com/")!)
        request.httpMethod = "PROPFIND"
        var attributes = SpanAttributes()
        TracingFetchMonitor.describe(request, in: &attributes)
        #expect(attributes.get(Name.method) == .string("_OTHER"))
        #expect(attributes.get(Name.originalMethod) == .string("PROPFIND"))
    }

    @Test func outsideAFetchTheAdapterInjectsTheTasksContext() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let request = URLRequest(url: URL(string: "https://api.example.com/")!)

        let untouched = try await tracing.adapt(request)
        #expect(untouched.allHTTPHeaderFields?.isEmpty ?? true)

        let parent = tracer.startSpan("caller")
        let adapted = try await ServiceContext.withValue(parent.context) { try await tracing.adapt(request) }
        parent.end()
        #expect(adapted.value(forHTTPHeaderField: InMemoryTracer.spanIDKey) == parent.spanID)
        #expect(tracer.finishedSpans.count == 1)
        #expect(tracing.openSpanCount == 0)
    }

    @Test func aTransportCanContinueTheTraceFromTheHeaders() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingFetchMonitor(tracer: tracer)
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        _ = try await ResourceService<Greeting>(pipeline: Self.pipeline(session, tracing: tracing)).fetch(Greeting())
        let fetchSpan = try #require(tracer.finishedSpans.first)

        let sent = try #require(session.receivedRequests.first)
        var context = ServiceContext.topLevel
        tracer.extract(sent, into: &context, using: URLRequestHeaderExtractor())
        let transportSpan = tracer.startSpan("transport", context: context)
        transportSpan.end()
        #expect(transportSpan.traceID == fetchSpan.traceID)
        #expect(transportSpan.parentSpanID == fetchSpan.spanID)
    }
}

/// A flag raised once, read from any thread.
private final class RaisedFlag: @unchecked Sendable {
    // `lock` guards `raised`.
    private let lock = NSLock()
    private var raised = false

    /// Raises the flag.
    func raise() { lock.withLock { raised = true } }

    /// Whether the flag was raised.
    var isRaised: Bool { lock.withLock { raised } }
}
#endif
