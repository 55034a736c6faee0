import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("LoggingFetchMonitor: one line per fetch, nothing secret")
struct LoggingFetchMonitorTests {
    /// A request full of secrets in every place a request can carry them.
    struct SecretResource: NetworkResourceType, DataResourceType {
        var url: URL { URL(string: "https://alice:pa55word@api.example.com:8443/v1/search?apikey=K3Y-SECRET#frag-secret")! }
        var httpMethod: HTTPMethod { .post }
        var headerFields: [String: String] { ["X-Api-Token": "HEADER-SECRET"] }
        var queryItems: [URLQueryItem] {
            [URLQueryItem(name: "q", value: "QUERY SECRET"), URLQueryItem(name: "bare-SECRET", value: nil)]
        }
        var body: RequestBody? { .data(Data(#"{"password": "BODY-SECRET"}"#.utf8), contentType: "application/json") }
        func model(from data: Data) throws -> Data {
            throw ResourceError.parsing(.init(context: "reading PARSE-SECRET"))
        }
    }

    final class Lines: @unchecked Sendable {
        // `lock` guards `lines`.
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    static let secrets = [
        "alice", "pa55word", "K3Y-SECRET", "frag-secret", "HEADER-SECRET", "QUERY", "SECRET", "BODY-SECRET",
        "PARSE-SECRET", "RESPONSE-SECRET", "Cookie-Secret", "ADAPTER-SECRET",
    ]

    /// `line` with its duration's value replaced by `*`: durations here come from the real clock.
    static func withoutDuration(_ line: String) -> String {
        line.replacingOccurrences(of: #"duration=[0-9.]+ms"#, with: "duration=*", options: .regularExpression)
    }

    func fetch(answer: FakeResponse) async -> [String] {
        let session = FakeURLSession()
        session.stub(.any, with: answer)
        let lines = Lines()
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [ClosureRequestAdapter { request in
                var request = request
                request.setValue("Bearer ADAPTER-SECRET", forHTTPHeaderField: "Authorization")
                return request
            }],
            monitors: [LoggingFetchMonitor(sink: lines.append)]
        )
        _ = await ResourceService<SecretResource>(pipeline: pipeline).fetchWithCompletion(SecretResource())
        return lines.all
    }

    @Test func logsOneLineWithoutAnySecret() async throws {
        let lines = await fetch(answer: .status(401, headers: ["Set-Cookie": "Cookie-Secret"], body: Data("RESPONSE-SECRET".utf8)))
        let line = try #require(lines.first)
        #expect(lines.count == 1)
        #expect(line.hasPrefix("ResourceLoader fetch "))
        #expect(Self.withoutDuration(line).hasSuffix(
            " SecretResource: POST https://api.example.com:8443/v1/search?apikey=REDACTED&q=REDACTED&REDACTED"
                + " status=401 bytes=15 attempts=1 duration=* result=httpStatus"
        ))
        for secret in Self.secrets {
            #expect(!line.contains(secret), "the line quotes \(secret)")
        }
    }

    @Test func aParsingFailureIsNamedWithoutItsText() async throws {
        let lines = await fetch(answer: .status(200, body: Data("RESPONSE-SECRET".utf8)))
        let line = try #require(lines.first)
        #expect(line.contains(" status=200 bytes=15 attempts=1 "))
        #expect(line.hasSuffix(" result=parsing"))
        for secret in Self.secrets {
            #expect(!line.contains(secret), "the line quotes \(secret)")
        }
    }

    @Test func aTransportFailureIsNamedWithItsCode() async throws {
        let lines = await fetch(answer: .error(URLError(.cannotFindHost, userInfo: [NSLocalizedDescriptionKey: "ERROR-SECRET"])))
        let line = try #require(lines.first)
        #expect(!line.contains("status="))
        #expect(Self.withoutDuration(line).hasSuffix(" attempts=1 duration=* result=transport(\(URLError.Code.cannotFindHost.rawValue))"))
        #expect(!line.contains("ERROR-SECRET"))
    }

    @Test func durationsAreWrittenInMillisecondsFromTheClock() async throws {
        let clock = ManualClock()
        let session = FakeURLSession()
        session.stub(.any, with: .json("[]"))
        let lines = Lines()
        let pipeline = ResourcePipeline(
            session: ClockAdvancingSession(clock: clock, delay: .microseconds(41_250), session: session),
            monitors: [LoggingFetchMonitor(sink: lines.append)],
            clock: clock
        )
        _ = try await ResourceService<CityArrayResource>(pipeline: pipeline).fetch(CityArrayResource())
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix(
            " CityArrayResource: GET https://api.example.com/cities status=200 bytes=2 attempts=1 duration=41.250ms result=success"
        ))
    }

    @Test func aFetchWhoseRequestCannotBeBuiltIsLoggedWithoutOne() async throws {
        struct Unbuildable: NetworkResourceType, DataResourceType {
            var url: URL { URL(string: "file:///etc/passwd")! }
            func model(from data: Data) throws -> Data { data }
        }
        let lines = Lines()
        let pipeline = ResourcePipeline(session: FakeURLSession(), monitors: [LoggingFetchMonitor(sink: lines.append)])
        _ = await ResourceService<Unbuildable>(pipeline: pipeline).fetchWithCompletion(Unbuildable())
        let line = try #require(lines.all.first)
        #expect(Self.withoutDuration(line).hasSuffix("Unbuildable: (no request) attempts=0 duration=* result=invalidRequest"))
        #expect(!line.contains("passwd"))
    }

    /// A resource that builds its own request with a method it was given, which need not be an
    /// HTTP token.
    struct MethodResource: NetworkResourceType, DataResourceType {
        let method: String
        var url: URL { URL(string: "https://api.example.com/cities")! }

        func urlRequest() throws(ResourceError) -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            return request
        }

        func model(from data: Data) throws -> Data { data }
    }

    @Test(arguments: [
        "GET\nResourceLoader fetch 1 Forged: GET https://api.example.com/ok status=200",
        "GET\r\nX-Forged: 1",
        "GET /admin",
        "\u{1B}[2J",
    ])
    func aMethodThatIsNotAnHTTPTokenIsNotWritten(method: String) async throws {
        // GIVEN a resource whose request names a method no transport sends
        let lines = Lines()
        let session = FakeURLSession()
        let pipeline = ResourcePipeline(session: session, monitors: [LoggingFetchMonitor(sink: lines.append)])
        // WHEN it is fetched
        let result = await ResourceService<MethodResource>(pipeline: pipeline).fetchWithCompletion(MethodResource(method: method))
        // THEN the fetch is refused, and its one line says so without quoting the method
        #expect(result.failure?.caseName == "invalidRequest")
        #expect(session.receivedRequests.isEmpty)
        let line = try #require(lines.all.first)
        #expect(lines.all.count == 1)
        #expect(Self.withoutDuration(line).hasSuffix(
            " MethodResource: (invalid method) https://api.example.com/cities attempts=0 duration=* result=invalidRequest"
        ))
        #expect(!line.contains { $0.isNewline || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
    }
}

@Suite("LoggingFetchMonitor: lines from events made by hand")
struct LoggingFetchMonitorLineTests {
    @Test func aHandMadeEventGivesTheDocumentedLine() throws {
        let lines = LoggingFetchMonitorTests.Lines()
        var request = URLRequest(url: URL(string: "https://api.example.com/cities?q=Lisbon&page=2")!)
        request.setValue("Bearer SECRET", forHTTPHeaderField: "Authorization")
        let event = FetchEvent.Finished(
            context: FetchEvent.Context(fetchID: 7, resourceType: CitiesResource.self),
            request: request,
            result: .success(()),
            statusCode: 200,
            bodyByteCount: 5120,
            attempts: 1,
            duration: .microseconds(41_250)
        )
        LoggingFetchMonitor(sink: lines.append).fetchFinished(event)
        #expect(lines.all == [
            "ResourceLoader fetch 7 CitiesResource: GET https://api.example.com/cities?q=REDACTED&page=REDACTED"
                + " status=200 bytes=5120 attempts=1 duration=41.250ms result=success",
        ])
    }

    @Test func otherEventsWriteNothing() {
        let lines = LoggingFetchMonitorTests.Lines()
        let monitor = LoggingFetchMonitor(sink: lines.append)
        let context = FetchEvent.Context(fetchID: 1, resourceType: CitiesResource.self)
        let request = URLRequest(url: URL(string: "https://api.example.com/")!)
        monitor.requestReady(FetchEvent.RequestReady(context: context, request: request))
        monitor.attemptSent(FetchEvent.AttemptSent(context: context, attempt: 1, request: request))
        monitor.responseReceived(FetchEvent.ResponseReceived(context: context, attempt: 1, statusCode: 200, bodyByteCount: 3, duration: .zero))
        monitor.modelMade(FetchEvent.ModelMade(context: context, duration: .zero))
        #expect(lines.all.isEmpty)
    }
}
