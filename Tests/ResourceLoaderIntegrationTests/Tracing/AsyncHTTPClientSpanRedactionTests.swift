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

@Suite("AsyncHTTPClientTransport: what AsyncHTTPClient's spans record of a URL")
struct AsyncHTTPClientSpanRedactionTests {
    /// A resource whose URL holds a secret in its query and its fragment.
    struct Search: NetworkResourceType, DataResourceType {
        let url: URL
        func model(from data: Data) throws -> Int { data.count }
    }

    @Test func theClientsSpansRecordNoQueryValueNorFragment() async throws {
        // GIVEN a transport whose own client traces, and a URL with secrets after `?` and `#`
        let server = try LoopbackHTTPServer { _ in .status(200, body: Data("ok".utf8)) }
        defer { server.stop() }
        let tracer = InMemoryTracer()
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.tracing.tracer = tracer
        let transport = AsyncHTTPClientTransport(configuration: configuration)
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
}
#endif
