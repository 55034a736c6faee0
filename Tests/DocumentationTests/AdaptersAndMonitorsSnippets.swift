// The code blocks of AdaptersAndMonitors.md, verbatim, so that they are compiled (and the test
// run). `DocumentationSnippetTests` checks that each block stands here unchanged.
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum AdaptersAndMonitorsSnippets {
    static func makeOnePipeline(tokens: TokenStore) {
        let pipeline = ResourcePipeline(
            adapters: [BearerTokenAdapter(tokens: tokens)],
            monitors: [LoggingFetchMonitor()]
        )
        let cities = ResourceService<Cities>(pipeline: pipeline)
        let archive = ResourceService<Archive>(pipeline: pipeline)
        _ = (cities, archive)
    }

    static func closureAdapter() -> ClosureRequestAdapter {
        let userAgent = ClosureRequestAdapter { request in
            var request = request
            request.setValue("CitiesApp/2.1", forHTTPHeaderField: "User-Agent")
            return request
        }
        return userAgent
    }

    static func loggingMonitor() -> LoggingFetchMonitor {
        let logging = LoggingFetchMonitor { line in
            print(line)
        }
        return logging
    }
}

actor TokenStore {
    private var token = "initial-token"
    func current() -> String { token }
    func replace(with newToken: String) { token = newToken }
}

struct BearerTokenAdapter: RequestAdapter {
    let tokens: TokenStore

    func adapt(_ request: URLRequest) async throws -> URLRequest {
        var request = request
        request.setValue("Bearer \(await tokens.current())", forHTTPHeaderField: "Authorization")
        return request
    }
}

struct APIKeyAdapter: SynchronousRequestAdapter {
    let key: String

    func adapt(_ request: URLRequest) throws -> URLRequest {
        var request = request
        request.setValue(key, forHTTPHeaderField: "X-API-Key")
        return request
    }
}

struct Login: NetworkResourceType, JSONDecodableResourceType {
    typealias Model = [String: String]
    var url: URL { URL(string: "https://api.example.com/login")! }
    var httpMethod: HTTPMethod { .post }
    var usesPipelineAdapters: Bool { false }
}

struct SlowFetchReporter: FetchMonitor {
    let report: @Sendable (String) -> Void

    func fetchFinished(_ event: FetchEvent.Finished) {
        if event.duration > .seconds(2) {
            report("\(event.context.resourceTypeName) took \(event.duration)")
        }
    }
}

/// Collects the lines a `LoggingFetchMonitor` writes.
final class LogLines: @unchecked Sendable {
    // `lock` guards `lines`.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite("AdaptersAndMonitors article")
struct AdaptersAndMonitorsArticleTests {
    @Test func sendsTheTokenAndLogsTheRejection() async throws {
        let session = FakeURLSession()
        session.stub(.path("/europe.json"), with: [.status(401), .json(#"{"cities": []}"#)])
        let clock = ManualClock()
        let lines = LogLines()
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [BearerTokenAdapter(tokens: TokenStore())],
            monitors: [LoggingFetchMonitor(sink: lines.append)],
            clock: clock
        )
        let service = ResourceService<Cities>(pipeline: pipeline)

        await #expect(throws: ResourceError.self) { try await service.fetch(Cities(continent: "europe")) }
        let cities = try await service.fetch(Cities(continent: "europe"))

        #expect(cities.isEmpty)
        #expect(session.receivedRequests.allSatisfy {
            $0.value(forHTTPHeaderField: "Authorization") == "Bearer initial-token"
        })
        #expect(lines.all.first?.hasSuffix("duration=0.000ms result=httpStatus") == true)
    }

    @Test func theAPIKeyAdapterRunsWithoutATaskOfItsOwn() async throws {
        let session = FakeURLSession()
        session.stub(.path("/europe.json"), with: .json(#"{"cities": []}"#))
        let service = ResourceService<Cities>(pipeline: ResourcePipeline(session: session, adapters: [APIKeyAdapter(key: "k1")]))

        let cities = try await service.fetch(Cities(continent: "europe"))

        #expect(cities.isEmpty)
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "X-API-Key") } == ["k1"])
    }

    @Test func theLoginResourceIsNotAdaptedAndTheReporterReportsSlowFetches() async throws {
        let session = FakeURLSession()
        session.stub(.path("/login"), with: .json(#"{"token": "t"}"#))
        session.stub(.path("/europe.json"), with: .json(#"{"cities": []}"#))
        let clock = ManualClock()
        let reports = LogLines()
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [AdaptersAndMonitorsSnippets.closureAdapter(), BearerTokenAdapter(tokens: TokenStore())],
            monitors: [SlowFetchReporter(report: reports.append)],
            clock: clock
        )
        let slowAdapter = ResourcePipeline(
            session: session,
            adapters: [ClosureRequestAdapter { request in clock.advance(by: .seconds(3)); return request }],
            monitors: [SlowFetchReporter(report: reports.append)],
            clock: clock
        )

        _ = try await ResourceService<Login>(pipeline: pipeline).fetch(Login())
        #expect(reports.all.isEmpty)
        _ = try await ResourceService<Cities>(pipeline: slowAdapter).fetch(Cities(continent: "europe"))

        #expect(session.receivedRequests.first?.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(session.receivedRequests.first?.value(forHTTPHeaderField: "User-Agent") == nil)
        #expect(reports.all == ["Cities took 3.0 seconds"])
    }
}
