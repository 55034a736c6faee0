#if Logging
import Foundation
import InMemoryLogging
import Logging
import ResourceLoader
@testable import ResourceLoaderLogging
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("LoggerFetchMonitor: swift-log entries with structured metadata, nothing secret")
struct LoggerFetchMonitorTests {
    typealias Key = LoggerFetchMonitor.MetadataKey

    /// A logger that keeps its entries, at `level`.
    static func logger(level: Logger.Level = .trace) -> (Logger, InMemoryLogHandler) {
        var handler = InMemoryLogHandler()
        handler.logLevel = level
        let logger = Logger(label: "test") { _ in handler }
        return (logger, handler)
    }

    /// Everything an entry says, as one text: message and every metadata key and value.
    static func text(of entry: InMemoryLogHandler.Entry) -> String {
        let metadata = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return ([entry.message.description] + metadata).joined(separator: " ")
    }

    @Test func aFailedFetchIsAWarningThatNamesNoSecret() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(401, headers: ["Set-Cookie": "Cookie-Secret"], body: Data("RESPONSE-SECRET".utf8)))
        let (logger, handler) = Self.logger()
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [secretTokenAdapter],
            monitors: [LoggerFetchMonitor(logger: logger)]
        )
        _ = await ResourceService<SecretResource>(pipeline: pipeline).outcome(of: SecretResource())

        let entry = try #require(handler.entries.first)
        #expect(handler.entries.count == 1)
        #expect(entry.level == .warning)
        #expect(entry.message == "fetch failed")
        #expect(entry.metadata[Key.method]?.description == "POST")
        #expect(entry.metadata[Key.url]?.description == "https://api.example.com:8443/v1/search?apikey=REDACTED&q=REDACTED&REDACTED")
        #expect(entry.metadata[Key.host]?.description == "api.example.com")
        #expect(entry.metadata[Key.port]?.description == "8443")
        #expect(entry.metadata[Key.path]?.description == "/v1/search")
        #expect(entry.metadata[Key.statusCode]?.description == "401")
        #expect(entry.metadata[Key.bodyByteCount]?.description == "15")
        #expect(entry.metadata[Key.attempts]?.description == "1")
        #expect(entry.metadata[Key.errorType]?.description == "httpStatus")
        #expect(entry.metadata[Key.resourceType]?.description == "SecretResource")
        #expect(entry.metadata[Key.fetchID]?.description != nil)
        #expect(entry.metadata[Key.durationMilliseconds]?.description != nil)
        let text = Self.text(of: entry)
        for secret in SecretResource.secrets {
            #expect(!text.contains(secret), "the entry quotes \(secret)")
        }
    }

    @Test func aParsingFailureAndATransportFailureAreNamedWithoutTheirText() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, body: Data("RESPONSE-SECRET".utf8)))
        let (logger, handler) = Self.logger()
        let pipeline = ResourcePipeline(session: session, monitors: [LoggerFetchMonitor(logger: logger)])
        _ = await ResourceService<SecretResource>(pipeline: pipeline).outcome(of: SecretResource())
        session.stub(.any, with: .error(URLError(.cannotFindHost, userInfo: [NSLocalizedDescriptionKey: "ERROR-SECRET"])))
        _ = await ResourceService<SecretResource>(pipeline: pipeline).outcome(of: SecretResource())

        let entries = handler.entries
        try #require(entries.count == 2)
        #expect(entries[0].metadata[Key.errorType]?.description == "parsing")
        #expect(entries[0].metadata[Key.statusCode]?.description == "200")
        #expect(entries[1].metadata[Key.errorType]?.description == "transport(\(URLError.Code.cannotFindHost.rawValue))")
        #expect(entries[1].metadata[Key.statusCode]?.description == nil)
        #expect(entries[1].metadata[Key.bodyByteCount]?.description == nil)
        for entry in entries {
            let text = Self.text(of: entry)
            for secret in SecretResource.secrets {
                #expect(!text.contains(secret), "the entry quotes \(secret)")
            }
        }
    }

    @Test func aSuccessIsADebugEntryWithItsDurationFromThePipelinesClock() async throws {
        let clock = ManualClock()
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        let (logger, handler) = Self.logger()
        let pipeline = ResourcePipeline(
            session: ClockAdvancingSession(clock: clock, delay: .microseconds(41_250), session: session),
            monitors: [LoggerFetchMonitor(logger: logger)],
            clock: clock
        )
        let greeting = try await ResourceService<Greeting>(pipeline: pipeline).fetch(Greeting())

        #expect(greeting == "hello")
        let entry = try #require(handler.entries.first)
        #expect(handler.entries.count == 1)
        #expect(entry.level == .debug)
        #expect(entry.message == "fetch succeeded")
        #expect(entry.metadata.mapValues(\.description) == [
            Key.fetchID: try #require(entry.metadata[Key.fetchID]).description,
            Key.resourceType: "Greeting",
            Key.method: "GET",
            Key.url: "https://api.example.com/v1/greeting?name=REDACTED",
            Key.host: "api.example.com",
            Key.path: "/v1/greeting",
            Key.statusCode: "200",
            Key.bodyByteCount: "5",
            Key.attempts: "1",
            Key.durationMilliseconds: "41.250",
        ])
    }

    @Test func aSuccessIsNotWrittenAtTheInfoLevel() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .json("hello"))
        let (logger, handler) = Self.logger(level: .info)
        let pipeline = ResourcePipeline(session: session, monitors: [LoggerFetchMonitor(logger: logger)])
        _ = try await ResourceService<Greeting>(pipeline: pipeline).fetch(Greeting())
        #expect(handler.entries.isEmpty)
    }

    @Test func eachRetryIsAWarningThatNamesTheRequestAndItsReason() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: [.status(503), .error(URLError(.networkConnectionLost)), .json("hello")])
        let (logger, handler) = Self.logger(level: .info)
        let monitor = LoggerFetchMonitor(logger: logger)
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [secretTokenAdapter],
            retryPolicy: immediateRetries,
            monitors: [monitor]
        )
        _ = try await ResourceService<Greeting>(pipeline: pipeline).fetch(Greeting())

        let entries = handler.entries
        try #require(entries.count == 2)
        #expect(entries.allSatisfy { $0.level == .warning && $0.message == "fetch attempt will be retried" })
        #expect(entries.map { $0.metadata[Key.retryReason]?.description } == [
            "status(503)", "transport(\(URLError.Code.networkConnectionLost.rawValue))",
        ])
        #expect(entries.map { $0.metadata[Key.attempt]?.description } == ["1", "2"])
        #expect(entries.map { $0.metadata[Key.retryDelayMilliseconds]?.description } == ["0.000", "0.000"])
        for entry in entries {
            #expect(entry.metadata[Key.method]?.description == "GET")
            #expect(entry.metadata[Key.url]?.description == "https://api.example.com/v1/greeting?name=REDACTED")
            #expect(entry.metadata[Key.resourceType]?.description == "Greeting")
            #expect(!Self.text(of: entry).contains("ADAPTER-SECRET"))
        }
        // What the monitor kept for the retry entries is gone once the fetch is over.
        #expect(monitor.requestsInProgress == 0)
    }

    @Test func aFetchWhoseRequestCannotBeBuiltIsLoggedWithoutOne() async throws {
        let (logger, handler) = Self.logger()
        let monitor = LoggerFetchMonitor(logger: logger)
        let pipeline = ResourcePipeline(session: FakeURLSession(), monitors: [monitor])
        _ = await ResourceService<Unbuildable>(pipeline: pipeline).outcome(of: Unbuildable())

        let entry = try #require(handler.entries.first)
        #expect(entry.metadata[Key.errorType]?.description == "invalidRequest")
        #expect(entry.metadata[Key.attempts]?.description == "0")
        #expect(entry.metadata[Key.method]?.description == nil)
        #expect(!Self.text(of: entry).contains("passwd"))
        #expect(monitor.requestsInProgress == 0)
    }

    @Test(arguments: ["GET\nforged=entry", "GET /x HTTP/1.1\r\nX: y", "", "P\u{7F}"])
    func aMethodThatIsNotAnHTTPTokenIsNotWritten(method: String) async throws {
        // GIVEN a resource whose request names a method no transport sends
        let (logger, handler) = Self.logger()
        let session = FakeURLSession()
        let pipeline = ResourcePipeline(session: session, monitors: [LoggerFetchMonitor(logger: logger)])
        // WHEN it is fetched
        _ = await ResourceService<MethodResource>(pipeline: pipeline).outcome(of: MethodResource(method: method))
        // THEN it is refused, and its entry names the method without quoting it
        #expect(session.receivedRequests.isEmpty)
        let entry = try #require(handler.entries.first)
        #expect(handler.entries.count == 1)
        #expect(entry.metadata[Key.errorType]?.description == "invalidRequest")
        #expect(entry.metadata[Key.method]?.description == "(invalid method)")
        #expect(!Self.text(of: entry).contains { $0.isNewline || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
    }

    @Test func theLevelsCanBeChosen() throws {
        let (logger, handler) = Self.logger()
        let monitor = LoggerFetchMonitor(logger: logger, successLevel: .info, failureLevel: .error, retryLevel: .notice)
        let context = FetchEvent.Context(fetchID: 7, resourceType: Greeting.self)
        let request = URLRequest(url: URL(string: "https://api.example.com/a?b=c")!)
        monitor.attemptSent(FetchEvent.AttemptSent(context: context, attempt: 1, request: request))
        monitor.retryScheduled(FetchEvent.RetryScheduled(context: context, attempt: 1, delay: .milliseconds(1500), reason: .credentialRejected(statusCode: 401)))
        for result: Result<Void, ResourceError> in [.failure(.timedOut), .success(())] {
            monitor.fetchFinished(FetchEvent.Finished(
                context: context, request: request, result: result, statusCode: nil, bodyByteCount: nil, attempts: 2, duration: .seconds(2)
            ))
        }
        #expect(handler.entries.map(\.level) == [.notice, .error, .info])
        #expect(handler.entries[0].metadata[Key.retryReason]?.description == "credentialRejected(401)")
        #expect(handler.entries[0].metadata[Key.retryDelayMilliseconds]?.description == "1500.000")
        #expect(handler.entries[0].metadata[Key.fetchID]?.description == "7")
        #expect(handler.entries[1].metadata[Key.errorType]?.description == "timedOut")
        #expect(handler.entries[1].metadata[Key.durationMilliseconds]?.description == "2000.000")
        #expect(monitor.requestsInProgress == 0)
    }
}

#endif
