#if Tracing && AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import InMemoryTracing
import ResourceLoader
import ResourceLoaderAsyncHTTPClient
import ResourceLoaderTesting
import Testing
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("AsyncHTTPClientTransport: AsyncHTTPClient's spans, their context and what they record of a URL")
struct AsyncHTTPClientSpanTests {
    /// A transport whose own client traces with `tracer`.
    static func transport(tracing tracer: InMemoryTracer) -> AsyncHTTPClientTransport {
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.tracing.tracer = tracer
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    /// A resource whose URL holds a secret in its query and its fragment.
    struct Search: NetworkResourceType, DataResourceType {
        let url: URL
        func model(from data: Data) throws -> Int { data.count }
    }

    /// A POST whose body is a stream that can be read once.
    struct StreamedPost: NetworkResourceType, DataResourceType {
        let url: URL
        let stream: RequestBodyStream
        var httpMethod: HTTPMethod { .post }
        var body: RequestBody? { .stream(stream) }
        func model(from data: Data) throws -> Int { data.count }
    }

    @Test(arguments: [Int64?.some(5), nil])
    func aStreamedBodyIsSentInTheCallersContext(length: Int64?) async throws {
        // GIVEN a client that traces, no TracingFetchMonitor, a caller's span, and a body that
        // is a one-shot stream (read on a thread of its own before it is sent)
        let tracer = InMemoryTracer()
        let transport = Self.transport(tracing: tracer)
        let server = try LoopbackHTTPServer { _ in .status(200, body: Data("ok".utf8)) }
        defer { server.stop() }
        let parent = tracer.startSpan("handle request")
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("hello".utf8))
            continuation.finish()
        }
        let resource = StreamedPost(url: server.baseURL, stream: RequestBodyStream(chunks, length: length))

        // WHEN it is fetched in the caller's context
        let count = try await ServiceContext.withValue(parent.context) { try await ResourceService<StreamedPost>(session: transport).fetch(resource) }
        parent.end()
        try await transport.shutdown()

        // THEN the client's span is the caller's child
        #expect(count == 2)
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "POST" })
        #expect(span.parentSpanID == parent.spanID)
        #expect(span.traceID == parent.traceID)
    }

    @Test func theClientsSpansRecordNoQueryValueNorFragment() async throws {
        // GIVEN a transport whose own client traces, and a URL with secrets after `?` and `#`
        let server = try LoopbackHTTPServer { _ in .status(200, body: Data("ok".utf8)) }
        defer { server.stop() }
        let tracer = InMemoryTracer()
        let transport = Self.transport(tracing: tracer)
        var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
        components.path = "/search"
        components.query = "q=paris&apikey=SECRET-4711"
        components.fragment = "token=FRAGMENT-4711"
        let url = try #require(components.url)

        // WHEN it is fetched
        let count = try await ResourceService<Search>(session: transport).fetch(Search(url: url))
        try await transport.shutdown()

        // THEN the client's span names the URL with its query values replaced, and no secret
        #expect(count == 2)
        let spans = tracer.finishedSpans
        try #require(spans.count == 1)
        let attributes = spans[0].attributes
        #expect(attributes.get("url.full") == .string("http://127.0.0.1:\(server.port)/search?q=REDACTED&apikey=REDACTED"))
        #expect(attributes.get("url.query") == .string("q=REDACTED&apikey=REDACTED"))
        var texts: [String] = []
        attributes.forEach { key, value in texts.append("\(key)=\(value)") }
        #expect(!texts.joined().contains("4711"), "\(texts)")
        #expect(attributes.get("http.request.method") == .string("GET"))
    }

    @Test func aHeaderValueTheClientRefusesIsNotRecordedOnItsSpan() async throws {
        // GIVEN a transport whose own client traces, and a request whose credential holds a
        // control character, handed to the transport directly (a fetch refuses it before any
        // transport)
        let server = try LoopbackHTTPServer { _ in .status(200, body: Data("ok".utf8)) }
        defer { server.stop() }
        let tracer = InMemoryTracer()
        let transport = Self.transport(tracing: tracer)
        var request = URLRequest(url: server.baseURL)
        request.setValue("Bearer SECRET-4711\u{1}", forHTTPHeaderField: "Authorization")

        // WHEN AsyncHTTPClient refuses to send it
        let result = await withCheckedContinuation { continuation in
            _ = transport.data(for: request, options: TransferOptions()) { continuation.resume(returning: $0) }
        }
        try await transport.shutdown()

        // THEN the client's span records an error that names the refusal, not the value
        #expect(throws: (any Error).self) { try result.get() }
        #expect(server.requestCount == 0)
        let span = try #require(tracer.finishedSpans.first)
        let recorded = span.errors.map { "\(String(reflecting: $0.error)) \(String(describing: $0.error))" }
        #expect(!recorded.isEmpty)
        #expect(!recorded.joined().contains("4711"), "\(recorded)")
        #expect(recorded.joined().contains("invalidHeaderFieldValues"), "\(recorded)")
    }
}
#endif
