#if Tracing && AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import InMemoryTracing
import ResourceLoader
import ResourceLoaderAsyncHTTPClient
import ResourceLoaderTesting
import ResourceLoaderTracing
import Testing
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("AsyncHTTPClientTransport with TracingFetchMonitor: AsyncHTTPClient's spans nest under the fetch's")
struct AsyncHTTPClientTracingTests {
    typealias Name = TracingFetchMonitor.AttributeName

    /// A transport whose own client traces with `tracer` (`nil`: a client that does not trace).
    static func transport(tracer: (any Tracer)?) -> AsyncHTTPClientTransport {
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.tracing.tracer = tracer
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    /// A pipeline over `transport`, traced by a `TracingFetchMonitor` with `tracer`.
    static func pipeline(_ transport: AsyncHTTPClientTransport, tracer: any Tracer, retryPolicy: RetryPolicy = .never) -> ResourcePipeline {
        let tracing = TracingFetchMonitor(tracer: tracer)
        return ResourcePipeline(session: transport, adapters: [tracing], retryPolicy: retryPolicy, monitors: [tracing])
    }

    /// The fetch's span: the one `TracingFetchMonitor` names the resource type on.
    static func fetchSpan(_ tracer: W3CInMemoryTracer) throws -> FinishedInMemorySpan {
        let spans = tracer.recorder.finishedSpans.filter { $0.attributes.get(Name.resourceType) != nil }
        try #require(spans.count == 1)
        return spans[0]
    }

    /// The spans whose parent is `parent`.
    static func children(of parent: FinishedInMemorySpan, in tracer: W3CInMemoryTracer) -> [FinishedInMemorySpan] {
        tracer.recorder.finishedSpans.filter { $0.parentSpanID == parent.spanID }
    }

    @Test func aStreamThatWaitsForItsNextChunkHoldsUpNeitherStartTransferNorItsCancellation() async throws {
        // GIVEN a client that traces, and a body stream of unknown length that sends one chunk
        // and then waits
        let server = try LoopbackHTTPServer { _ in .status(201) }
        defer { server.stop() }
        let transport = Self.transport(tracer: W3CInMemoryTracer())
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        continuation.yield(Data("first".utf8))
        var request = URLRequest(url: server.baseURL)
        request.httpMethod = "POST"
        request.setBody(.stream(RequestBodyStream(chunks)))
        let receiver = CompletionReceiver()

        // WHEN the transfer is started on a thread of its own, and cancelled once it has returned
        let handle = StartedHandle()
        let upload = request
        Thread.detachNewThread {
            handle.set(transport.startTransfer(upload, options: TransferOptions(), receiver: receiver))
        }
        let returned = await Self.poll { handle.isSet }
        #expect(returned, "startTransfer waited for the stream to end")
        handle.cancel()

        // THEN the transfer completes, once, as cancelled
        #expect(await Self.poll { !receiver.errors.isEmpty })
        continuation.finish()
        #expect(receiver.errors.count == 1)
        #expect((receiver.errors.first.flatMap { $0 } as? URLError)?.code == .cancelled)
        try await transport.shutdown()
    }

    /// Whether `condition` holds within about ten seconds.
    static func poll(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func theClientsSpanIsAChildOfTheFetchsAndTheServerReceivesItsTraceparentOnly() async throws {
        // GIVEN a server, a client that traces, and a fetch traced under the caller's span
        let tracer = W3CInMemoryTracer()
        let log = RequestLog()
        let server = try LoopbackHTTPServer { log.record($0, answer: .json("hello")) }
        defer { server.stop() }
        let transport = Self.transport(tracer: tracer)
        let parent = tracer.startSpan("handle request")

        // WHEN
        let greeting = try await ServiceContext.withValue(parent.context) {
            try await ResourceService<LoopbackGreeting>(pipeline: Self.pipeline(transport, tracer: tracer))
                .fetch(LoopbackGreeting(baseURL: server.baseURL))
        }
        parent.end()
        try await transport.shutdown()

        // THEN caller → fetch → AsyncHTTPClient's request, one trace
        #expect(greeting == "hello")
        let fetch = try Self.fetchSpan(tracer)
        #expect(fetch.parentSpanID == parent.spanID)
        let client = Self.children(of: fetch, in: tracer)
        try #require(client.count == 1)
        #expect(client[0].traceID == fetch.traceID)
        #expect(client[0].traceID == parent.traceID)
        #expect(client[0].operationName == "GET")
        #expect(client[0].kind == .client)
        // (AsyncHTTPClient 1.37 names the status attribute `http.status_code`.)
        #expect(client[0].attributes.get("http.status_code") == .int64(200))
        #expect(tracer.recorder.finishedSpans.count == 3)
        #expect(tracer.recorder.activeSpans.isEmpty)
        // AND the server saw one traceparent, naming the innermost span
        let requests = log.requests
        #expect(requests[0].traceparents == [W3CInMemoryTracer.traceparent(traceID: fetch.traceID, spanID: client[0].spanID)])
    }

    @Test func everyAttemptAndEveryRedirectIsAChildSpanWithItsOwnTraceparent() async throws {
        // GIVEN a server that answers the first request 503, then redirects, then answers
        let tracer = W3CInMemoryTracer()
        let answered = Counter()
        let log = RequestLog()
        let server = try LoopbackHTTPServer { request in
            switch answered.next() {
            case 0: log.record(request, answer: .status(503))
            case 1: log.record(request, answer: .status(302, headers: ["Location": "/moved"]))
            default: log.record(request, answer: request.path == "/moved" ? .json("moved") : .status(404))
            }
        }
        defer { server.stop() }
        let transport = Self.transport(tracer: tracer)
        let pipeline = Self.pipeline(transport, tracer: tracer, retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .zero, jitter: .none))

        // WHEN
        let greeting = try await ResourceService<LoopbackGreeting>(pipeline: pipeline).fetch(LoopbackGreeting(baseURL: server.baseURL))
        try await transport.shutdown()

        // THEN one span per request the client sent, each a child of the fetch's
        #expect(greeting == "moved")
        let fetch = try Self.fetchSpan(tracer)
        #expect(fetch.parentSpanID == nil)
        // (in the order they ended, which is the order the requests were sent)
        let client = Self.children(of: fetch, in: tracer)
        try #require(client.count == 3)
        #expect(client.map { $0.attributes.get("http.status_code") } == [.int64(503), .int64(302), .int64(200)])
        #expect(client.allSatisfy { $0.traceID == fetch.traceID })
        #expect(tracer.recorder.finishedSpans.count == 4)
        // AND each request carried the traceparent of its own span, once
        let requests = log.requests
        #expect(requests.map(\.traceparents) == client.map { [W3CInMemoryTracer.traceparent(traceID: fetch.traceID, spanID: $0.spanID)] })
        #expect(requests.map(\.path) == ["/greeting", "/greeting", "/moved"])
    }

    @Test func aClientThatDoesNotTraceLeavesTheFetchsTraceparent() async throws {
        // GIVEN a client without a tracer, and a traced fetch
        let tracer = W3CInMemoryTracer()
        let log = RequestLog()
        let server = try LoopbackHTTPServer { log.record($0, answer: .json("hello")) }
        defer { server.stop() }
        let transport = Self.transport(tracer: nil)

        // WHEN
        _ = try await ResourceService<LoopbackGreeting>(pipeline: Self.pipeline(transport, tracer: tracer))
            .fetch(LoopbackGreeting(baseURL: server.baseURL))
        try await transport.shutdown()

        // THEN the fetch's span is the only one, and the server saw its traceparent, once
        let fetch = try Self.fetchSpan(tracer)
        #expect(tracer.recorder.finishedSpans.count == 1)
        let requests = log.requests
        #expect(requests[0].traceparents == [W3CInMemoryTracer.traceparent(traceID: fetch.traceID, spanID: fetch.spanID)])
    }

    @Test func anInjectedClientNestsItsSpansOnlyWhenDeclaredFreeOfRedirects() async throws {
        // GIVEN one client that traces and follows no redirect, under two transports
        let tracer = W3CInMemoryTracer()
        let log = RequestLog()
        let server = try LoopbackHTTPServer { log.record($0, answer: .json("hello")) }
        defer { server.stop() }
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.tracing.tracer = tracer
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let declared = AsyncHTTPClientTransport(client: client, clientFollowsRedirects: false)
        let undeclared = AsyncHTTPClientTransport(client: client)

        // WHEN a traced fetch goes through each (the client is shut down whatever happens:
        // AsyncHTTPClient stops the process when one is released running)
        let nested: FinishedInMemorySpan
        let nestedClient: [FinishedInMemorySpan]
        let alone: FinishedInMemorySpan
        do {
            _ = try await ResourceService<LoopbackGreeting>(pipeline: Self.pipeline(declared, tracer: tracer))
                .fetch(LoopbackGreeting(baseURL: server.baseURL))
            nested = try Self.fetchSpan(tracer)
            nestedClient = Self.children(of: nested, in: tracer)
            tracer.recorder.clearFinishedSpans()
            _ = try await ResourceService<LoopbackGreeting>(pipeline: Self.pipeline(undeclared, tracer: tracer))
                .fetch(LoopbackGreeting(baseURL: server.baseURL))
            alone = try Self.fetchSpan(tracer)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()

        // THEN the first client span is the fetch's child, and the server saw its traceparent
        let requests = log.requests
        try #require(requests.count == 2)
        try #require(nestedClient.count == 1)
        #expect(requests[0].traceparents == [W3CInMemoryTracer.traceparent(traceID: nested.traceID, spanID: nestedClient[0].spanID)])
        // AND the second starts a trace of its own (AsyncHTTPClient's delegate API), while the
        // server saw the fetch span's traceparent, once
        let clientSpan = try #require(tracer.recorder.finishedSpans.first { $0.attributes.get(Name.resourceType) == nil })
        #expect(clientSpan.parentSpanID == nil)
        #expect(clientSpan.traceID != alone.traceID)
        #expect(requests[1].traceparents == [W3CInMemoryTracer.traceparent(traceID: alone.traceID, spanID: alone.spanID)])
    }

    @Test func withoutTracingFetchMonitorTheClientsSpanNestsUnderTheCallersContext() async throws {
        // GIVEN a client that traces, no TracingFetchMonitor, and a caller's span
        let tracer = W3CInMemoryTracer()
        let log = RequestLog()
        let server = try LoopbackHTTPServer { log.record($0, answer: .json("hello")) }
        defer { server.stop() }
        let transport = Self.transport(tracer: tracer)
        let service = ResourceService<LoopbackGreeting>(session: transport)
        let parent = tracer.startSpan("handle request")

        // WHEN one fetch in the caller's context, and one outside any
        _ = try await ServiceContext.withValue(parent.context) { try await service.fetch(LoopbackGreeting(baseURL: server.baseURL)) }
        parent.end()
        _ = try await service.fetch(LoopbackGreeting(baseURL: server.baseURL))
        try await transport.shutdown()

        // THEN the first request's span is the caller's child, the second starts a trace
        let spans = tracer.recorder.finishedSpans.filter { $0.operationName == "GET" }
        try #require(spans.count == 2)
        #expect(spans[0].parentSpanID == parent.spanID)
        #expect(spans[0].traceID == parent.traceID)
        #expect(spans[1].parentSpanID == nil)
        #expect(spans[1].traceID != parent.traceID)
        // AND each request carried its own span's traceparent, once
        let requests = log.requests
        #expect(requests.map(\.traceparents) == spans.map { [W3CInMemoryTracer.traceparent(traceID: $0.traceID, spanID: $0.spanID)] })
    }

    @Test(.timeLimit(.minutes(1)))
    func aRefusedConnectionEndsAtOnceInCannotConnectToHostWithOneCompletion() async throws {
        // GIVEN a port that refuses connections, a client that traces, and a traced fetch with
        // a deadline far above the time a refusal takes: a transport that kept trying to connect
        // would end in timedOut
        let tracer = W3CInMemoryTracer()
        let port = try LoopbackHTTPServer.RefusingPort()
        let transport = Self.transport(tracer: tracer)
        let service = ResourceService<LoopbackGreeting>(pipeline: Self.pipeline(transport, tracer: tracer))
        var resource = LoopbackGreeting(baseURL: port.baseURL)
        resource.deadline = .seconds(20)

        // WHEN
        let queue = DispatchQueue(label: "AsyncHTTPClientTracingTests.outcome")
        let completions = Counter()
        let outcome = await withCheckedContinuation { continuation in
            service.fetch(resource, callbackQueue: queue) { result in
                if completions.next() == 0 { continuation.resume(returning: result) }
            }
        }
        // (A late second completion would be queued on `queue` behind this wait.)
        try await Task.sleep(for: .milliseconds(100))
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        try await transport.shutdown()

        // THEN the fetch failed to connect, once
        guard case .failure(.transport(let code, _)) = outcome else {
            Issue.record("expected a transport error, got \(outcome)")
            return
        }
        #expect(code == .cannotConnectToHost)
        #expect(completions.next() == 1)
        // AND the fetch's span has ended, with every other
        _ = try Self.fetchSpan(tracer)
        #expect(tracer.recorder.activeSpans.isEmpty)
    }
}

// MARK: - Support

/// A GET of `/greeting` on the loopback server, whose body is the model.
struct LoopbackGreeting: NetworkResourceType, DataResourceType {
    let baseURL: URL
    /// The fetch's deadline, if not the service's.
    var deadline: Duration?
    var url: URL { baseURL.appending(path: "greeting") }
    func transferOptions(_ serviceDefaults: TransferOptions) -> TransferOptions {
        var options = serviceDefaults
        if let deadline { options.deadline = deadline }
        return options
    }
    func model(from data: Data) throws -> String {
        String(decoding: data, as: UTF8.self)
    }
}

/// Counts calls, from any thread.
final class Counter: @unchecked Sendable {
    // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0

    /// The number of earlier calls.
    func next() -> Int {
        lock.withLock {
            defer { count += 1 }
            return count
        }
    }
}

/// What the tests read of the requests a loopback server received.
struct ReceivedRequest: Equatable {
    let path: String
    /// The value of every `traceparent` field, in any case, in order.
    let traceparents: [String]
}

/// The requests a `LoopbackHTTPServer` received, as its handler records them.
final class RequestLog: @unchecked Sendable {
    // `lock` guards `received`.
    private let lock = NSLock()
    private var received: [ReceivedRequest] = []

    /// Records `request`; returns `answer`.
    func record(_ request: LoopbackHTTPServer.Request, answer: LoopbackHTTPServer.Response) -> LoopbackHTTPServer.Response {
        let traceparents = request.headerFields.filter { $0.name.lowercased() == "traceparent" }.map(\.value)
        lock.withLock { received.append(ReceivedRequest(path: request.path, traceparents: traceparents)) }
        return answer
    }

    /// The requests recorded so far, in order. (The server answers a request after recording
    /// it, so a fetch that has ended finds all of its requests here.)
    var requests: [ReceivedRequest] {
        lock.withLock { received }
    }
}

/// An in-memory tracer that propagates its spans' context as W3C Trace Context does, in one
/// `traceparent` field (`00-<trace id>-<span id>-01`), with W3C-sized identifiers.
struct W3CInMemoryTracer: Tracer {
    /// Records the spans.
    let recorder = InMemoryTracer(idGenerator: .init(
        nextTraceID: { Self.hex(UInt64.random(in: 1...UInt64.max)) + Self.hex(UInt64.random(in: 1...UInt64.max)) },
        nextSpanID: { Self.hex(UInt64.random(in: 1...UInt64.max)) }
    ))

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The `traceparent` value naming a span.
    static func traceparent(traceID: String, spanID: String) -> String {
        "00-\(traceID)-\(spanID)-01"
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> InMemorySpan {
        recorder.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject(Self.traceparent(traceID: span.traceID, spanID: span.spanID), forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier) else { return }
        let fields = value.split(separator: "-")
        guard fields.count == 4, fields[1].count == 32, fields[2].count == 16 else { return }
        context.inMemorySpanContext = InMemorySpanContext(traceID: String(fields[1]), spanID: String(fields[2]), parentSpanID: nil)
    }
}
/// A receiver that records how its transfer completed.
private final class CompletionReceiver: TransferReceiver, @unchecked Sendable {
    // `lock` guards `completions`.
    private let lock = NSLock()
    private var completions: [(any Error)?] = []

    var errors: [(any Error)?] { lock.withLock { completions } }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {}
    func transferDidReceive(head: ResponseHead) -> TransferDecision { .proceed }
    func transferDidReceive(_ chunk: Data) -> TransferDecision { .proceed }
    func transferDidReceive(codedByteCount: Int) {}
    func transferDidComplete(with error: (any Error)?) {
        lock.withLock { completions.append(error) }
    }
}

/// The handle `startTransfer` returned on another thread, once it has.
private final class StartedHandle: @unchecked Sendable {
    // `lock` guards `handle`.
    private let lock = NSLock()
    private var handle: (any Cancellable)?

    var isSet: Bool { lock.withLock { handle != nil } }
    func set(_ handle: any Cancellable) { lock.withLock { self.handle = handle } }
    func cancel() { lock.withLock { handle }?.cancel() }
}
#endif
