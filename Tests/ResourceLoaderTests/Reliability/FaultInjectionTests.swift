import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Misbehaving servers on 127.0.0.1, scripted per test. Every case must end in the documented
/// ``ResourceError`` (see `Docs/Reliability.md`), with exactly one outcome, within a bound.
///
/// Cases run through ``URLSessionTransport`` (the default) and, where the behaviour differs or
/// must match, through a plain `URLSession` too.
@Suite("Fault injection")
struct FaultInjectionTests {
    /// The transports under test.
    enum Transport: String, CaseIterable, CustomTestStringConvertible {
        case urlSessionTransport
        case plainURLSession

        var session: any URLSessionType {
            switch self {
            case .urlSessionTransport: URLSessionTransport()
            case .plainURLSession: URLSession(configuration: .ephemeral)
            }
        }

        var testDescription: String { rawValue }
    }

    // MARK: Connections

    @Test(arguments: Transport.allCases)
    func aRefusedConnectionIsATransportError(transport: Transport) async throws {
        let port = try LoopbackHTTPServer.RefusingPort()
        let outcome = try await singleOutcome(Probe(url: port.baseURL), session: transport.session)
        #expect(outcome.transportCode == .cannotConnectToHost)
    }

    @Test(arguments: Transport.allCases)
    func aSilentServerIsStoppedByTheDeadline(transport: Transport) async throws {
        // GIVEN a server that accepts the connection and never answers
        let server = try LoopbackHTTPServer { _ in .script([.pause(.seconds(60))]) }
        defer { server.stop() }
        // WHEN the fetch has a short deadline
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.deadline = .milliseconds(300) }
        // THEN it times out, once
        let outcome = try await singleOutcome(probe, session: transport.session)
        #expect(outcome.error?.caseName == "timedOut")
    }

    @Test(arguments: Transport.allCases)
    func aSilentServerIsStoppedByTheIdleTimeout(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in .script([.pause(.seconds(60))]) }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.timeoutInterval = 0.3
        let outcome = try await singleOutcome(probe, session: transport.session)
        #expect(outcome.error?.caseName == "timedOut")
    }

    @Test(arguments: Transport.allCases)
    func aTricklingServerIsStoppedByTheDeadline(transport: Transport) async throws {
        // One byte every 50 ms keeps the idle timeout from ever firing.
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")]
                + Array(repeating: [raw(" "), .pause(.milliseconds(50))], count: 1000).flatMap { $0 })
        }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.timeoutInterval = 5
        probe.adjust = { $0.deadline = .milliseconds(400) }
        let outcome = try await singleOutcome(probe, session: transport.session)
        #expect(outcome.error?.caseName == "timedOut")
    }

    // MARK: Broken bodies

    @Test(arguments: Transport.allCases)
    func aBodyShorterThanItsContentLengthIsATransportError(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"a\":\"b\"}"), .close])
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        #expect(outcome.error?.caseName == "transport")
    }

    @Test(arguments: Transport.allCases)
    func aTruncatedChunkedBodyIsATransportError(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"a\":"), .close])
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        #expect(outcome.error?.caseName == "transport")
    }

    @Test(arguments: Transport.allCases)
    func aNonHexChunkSizeIsATransportError(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"), .close])
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        #expect(outcome.error?.caseName == "transport")
    }

    @Test(arguments: Transport.allCases)
    func aConnectionResetMidBodyIsATransportError(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"a\":"), .pause(.milliseconds(20)), .reset])
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        #expect(outcome.error?.caseName == "transport")
    }

    // MARK: Size limit

    @Test func aDeclaredLengthOverTheLimitFailsBeforeTheBodyIsRead() async throws {
        // GIVEN a server that declares 2 MiB, then waits a minute before sending any of it
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nContent-Length: \(2 << 20)\r\n\r\n"), .pause(.seconds(60)),
                     .write(Data(count: 2 << 20))])
        }
        defer { server.stop() }
        // WHEN the limit is 1 MiB
        var probe = Probe(url: server.baseURL)
        probe.timeoutInterval = 120
        probe.adjust = { $0.maximumResponseBytes = 1 << 20; $0.deadline = .seconds(20) }
        // THEN the fetch fails on the head alone: waiting for the body would end in timedOut
        let outcome = try await singleOutcome(probe, session: URLSessionTransport())
        #expect(outcome.error?.caseName == "responseTooLarge")
        if case .responseTooLarge(let limit) = outcome.error { #expect(limit == 1 << 20) }
        // AND the connection is closed, not left waiting for the body
        try await waitUntil { server.openConnectionCount == 0 }
    }

    @Test func anEndlessChunkedBodyIsAbortedAtTheLimit() async throws {
        // GIVEN a chunked body of 16 KiB chunks, one a millisecond, that would go on for minutes
        let chunk = Data("4000\r\n".utf8) + Data(repeating: 0x20, count: 0x4000) + Data("\r\n".utf8)
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")]
                + Array(repeating: [.write(chunk), .pause(.milliseconds(1))], count: 100_000).flatMap { $0 })
        }
        defer { server.stop() }
        // WHEN the limit is 1 MiB
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.maximumResponseBytes = 1 << 20 }
        // THEN the fetch fails as the body crosses the limit, and the transfer is stopped
        let outcome = try await singleOutcome(probe, session: URLSessionTransport())
        #expect(outcome.error?.caseName == "responseTooLarge")
        try await waitUntil { server.openConnectionCount == 0 }
    }

    @Test func aBodyWithoutLengthOverTheLimitIsAborted() async throws {
        // A body delimited by closing the connection: no Content-Length, not chunked.
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")]
                + Array(repeating: [.write(Data(repeating: 0x20, count: 0x4000)), .pause(.milliseconds(1))], count: 100_000)
                .flatMap { $0 })
        }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.maximumResponseBytes = 1 << 20 }
        let outcome = try await singleOutcome(probe, session: URLSessionTransport())
        #expect(outcome.error?.caseName == "responseTooLarge")
        try await waitUntil { server.openConnectionCount == 0 }
    }

    @Test(arguments: Transport.allCases)
    func aBodyOverTheLimitFailsOnEveryTransport(transport: Transport) async throws {
        // A plain URLSession receives the whole body first; the service then refuses it.
        let body = Data(#"{"a":""#.utf8) + Data(repeating: 0x61, count: 2 << 20) + Data(#""}"#.utf8)
        let server = try LoopbackHTTPServer { _ in .status(200, headers: ["Content-Type": "application/json"], body: body) }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.maximumResponseBytes = 1 << 20 }
        let outcome = try await singleOutcome(probe, session: transport.session)
        #expect(outcome.error?.caseName == "responseTooLarge")
    }

    @Test func aBodyAtTheLimitIsAccepted() async throws {
        let body = Data(#"{"a":"b"}"#.utf8)
        let server = try LoopbackHTTPServer { _ in .status(200, body: body) }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.maximumResponseBytes = body.count }
        let outcome = try await singleOutcome(probe, session: URLSessionTransport())
        #expect(try outcome.result.get() == ["a": "b"])
    }

    @Test func theServiceLimitAppliesUnlessTheResourceAdjustsIt() async throws {
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"0123456789"}"#) }
        defer { server.stop() }
        let service = ResourceService<Probe>(options: TransferOptions(maximumResponseBytes: 8))
        let error = await service.fetchError(Probe(url: server.baseURL))
        #expect(error.map { "\($0)" } == "The response body is larger than the limit of 8 bytes")
        var generous = Probe(url: server.baseURL)
        generous.adjust = { $0.maximumResponseBytes = 1024 }
        #expect(try await service.fetch(generous) == ["a": "0123456789"])
    }

    // MARK: Redirects

    @Test(arguments: Transport.allCases)
    func aLongRedirectChainIsRefused(transport: Transport) async throws {
        // GIVEN a chain of 20 redirects before the resource
        let server = try LoopbackHTTPServer { request in
            let hop = Int(request.path.dropFirst()) ?? 0
            return hop < 20 ? .status(302, headers: ["Location": "/\(hop + 1)"]) : .json(#"{"a":"end"}"#)
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL.appendingPathComponent("0")), session: transport.session)
        switch transport {
        case .urlSessionTransport:
            // THEN the default limit of 10 stops it after the tenth redirect
            #expect(outcome.error?.redirectRefusal == .tooManyRedirects(limit: 10))
            #expect(server.requestCount == 11)
        case .plainURLSession:
            // THEN only the platform's own ceiling applies: Linux follows 20 redirects (and fails
            // the 21st), Apple platforms stop sooner. This pins what Docs/Reliability.md says.
            #if canImport(FoundationNetworking)
            #expect(try outcome.result.get() == ["a": "end"])
            #else
            #expect(outcome.transportCode == .httpTooManyRedirects)
            #endif
        }
    }

    @Test(arguments: Transport.allCases)
    func aRedirectLoopBetweenTwoOriginsIsRefused(transport: Transport) async throws {
        // GIVEN A/loop → B/loop → A/loop → …
        let target = Slot<URL>()
        let serverB = try LoopbackHTTPServer { _ in .status(302, headers: ["Location": target.value!.absoluteString]) }
        defer { serverB.stop() }
        let serverA = try LoopbackHTTPServer { _ in
            .status(302, headers: ["Location": serverB.baseURL.appendingPathComponent("loop").absoluteString])
        }
        defer { serverA.stop() }
        target.value = serverA.baseURL.appendingPathComponent("loop")
        let outcome = try await singleOutcome(Probe(url: target.value!), session: transport.session)
        switch transport {
        case .urlSessionTransport:
            #expect(outcome.error?.redirectRefusal == .tooManyRedirects(limit: 10))
        case .plainURLSession:
            #expect(outcome.transportCode == .httpTooManyRedirects)
        }
    }

    @Test func aResourceCanLowerTheRedirectLimit() async throws {
        let server = try LoopbackHTTPServer { request in
            let hop = Int(request.path.dropFirst()) ?? 0
            return hop < 3 ? .status(307, headers: ["Location": "/\(hop + 1)"]) : .json(#"{"a":"end"}"#)
        }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL.appendingPathComponent("0"))
        probe.adjust = { $0.maximumRedirects = 3 }
        #expect(try await ResourceService<Probe>().fetch(probe) == ["a": "end"])
        probe.adjust = { $0.maximumRedirects = 2 }
        #expect(await ResourceService<Probe>().fetchError(probe)?.redirectRefusal == .tooManyRedirects(limit: 2))
        probe.adjust = { $0.maximumRedirects = 0 }
        #expect(await ResourceService<Probe>().fetchError(probe)?.redirectRefusal == .tooManyRedirects(limit: 0))
    }

    @Test(arguments: Transport.allCases)
    func aSameOriginRedirectIsFollowedWithCredentials(transport: Transport) async throws {
        // GIVEN http → http on the same origin
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/final" else { return .status(301, headers: ["Location": "/final"]) }
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            seen.append(request.value(forHeaderField: "Cookie") ?? "-")
            return .json(#"{"a":"final"}"#)
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL.appendingPathComponent("start"), credentials: true),
                                              session: transport.session)
        // THEN the resource arrives and the credentials went along
        #expect(try outcome.result.get() == ["a": "final"])
        #expect(seen.values == ["Bearer secret-token", "session=secret-cookie"])
    }

    @Test(arguments: Transport.allCases)
    func credentialsAreNotForwardedToAnotherOrigin(transport: Transport) async throws {
        // GIVEN A redirects to B: another port is another origin
        let seen = OrderRecorder()
        let serverB = try LoopbackHTTPServer { request in
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            seen.append(request.value(forHeaderField: "Cookie") ?? "-")
            seen.append(request.value(forHeaderField: "X-Trace") ?? "-")
            return .json(#"{"a":"b"}"#)
        }
        defer { serverB.stop() }
        let serverA = try LoopbackHTTPServer { _ in
            .status(302, headers: ["Location": serverB.baseURL.appendingPathComponent("landed").absoluteString])
        }
        defer { serverA.stop() }
        let outcome = try await singleOutcome(Probe(url: serverA.baseURL, credentials: true), session: transport.session)
        #expect(try outcome.result.get() == ["a": "b"])
        switch transport {
        case .urlSessionTransport:
            // THEN B sees the other header fields but neither Authorization nor Cookie
            #expect(seen.values == ["-", "-", "t-1"])
        case .plainURLSession:
            #if canImport(FoundationNetworking)
            // Linux's URLSession forwards both to any origin: this pins the platform behaviour
            // that Docs/Reliability.md describes.
            #expect(seen.values == ["Bearer secret-token", "session=secret-cookie", "t-1"])
            #endif
        }
    }

    // MARK: Unwelcome answers

    @Test(arguments: Transport.allCases, [404, 500, 503])
    func anErrorStatusKeepsItsBody(transport: Transport, status: Int) async throws {
        let server = try LoopbackHTTPServer { _ in .json(#"{"error":"no such city"}"#, status: status) }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        guard case .httpStatus(let failure) = outcome.error else {
            Issue.record("expected httpStatus, got \(String(describing: outcome.error))")
            return
        }
        #expect(failure.statusCode == status)
        #expect(String(decoding: failure.bodyPrefix, as: UTF8.self) == #"{"error":"no such city"}"#)
    }

    @Test(arguments: Transport.allCases)
    func noContentWhereAModelIsExpectedIsAnEmptyResponse(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in .status(204) }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        #expect(outcome.error?.caseName == "emptyResponse")
        #expect(outcome.error?.statusCode == 204)
    }

    @Test(arguments: Transport.allCases)
    func anHTMLPageForAJSONResourceIsAParsingError(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in
            .status(200, headers: ["Content-Type": "text/html"], body: Data("<html><body>Maintenance</body></html>".utf8))
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        #expect(outcome.error?.caseName == "parsing")
    }

    @Test(arguments: Transport.allCases)
    func aNonUTF8BodyForAJSONResourceIsAParsingError(transport: Transport) async throws {
        // {"a":"café"} in Latin-1: the é is the lone byte 0xE9.
        let latin1 = Data(#"{"a":"caf"#.utf8) + Data([0xE9]) + Data(#""}"#.utf8)
        let server = try LoopbackHTTPServer { _ in .status(200, headers: ["Content-Type": "application/json"], body: latin1) }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL), session: transport.session)
        #expect(outcome.error?.caseName == "parsing")
        let names = await ResourceService<CityNamesResource>(session: transport.session)
            .fetchError(CityNamesResource(url: server.baseURL))
        #expect(names?.caseName == "parsing")
    }

    @Test(arguments: Transport.allCases)
    func anAuthenticationChallengeIsTheStatusItCameWith(transport: Transport) async throws {
        // GIVEN a 401 carrying a challenge, and no credentials to offer
        let server = try LoopbackHTTPServer { _ in
            .status(401, headers: ["WWW-Authenticate": #"Basic realm="cities""#], body: Data(#"{"error":"sign in"}"#.utf8))
        }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.deadline = .seconds(2) }
        let outcome = try await singleOutcome(probe, session: transport.session)
        #if canImport(FoundationNetworking)
        if transport == .plainURLSession {
            // Linux's URLSession, with no credential to try, neither retries nor finishes the
            // task: only the deadline ends it.
            #expect(outcome.error?.caseName == "timedOut")
            return
        }
        #endif
        // THEN URLSessionTransport answers with the 401 and its body, at once
        guard case .httpStatus(let failure) = outcome.error else {
            Issue.record("expected httpStatus, got \(String(describing: outcome.error))")
            return
        }
        #expect(failure.statusCode == 401)
        #expect(String(decoding: failure.bodyPrefix, as: UTF8.self) == #"{"error":"sign in"}"#)
    }

    // MARK: Helpers

    /// Fetches `resource` through the completion API, waits for the outcome (at most a minute),
    /// then gives a second outcome time to show up before counting them.
    private func singleOutcome(
        _ resource: Probe,
        session: any URLSessionType,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome {
        let service = ResourceService<Probe>(session: session)
        let queue = DispatchQueue(label: "FaultInjectionTests.outcome")
        let calls = Counter()
        let result = await withTimeLimit(sourceLocation: sourceLocation) {
            await withCheckedContinuation { continuation in
                service.fetch(resource, callbackQueue: queue) { result in
                    calls.increment()
                    if calls.value == 1 { continuation.resume(returning: result) }
                }
            }
        }
        let outcome = try #require(result, sourceLocation: sourceLocation)
        // A late second delivery would be queued on `queue` behind this wait.
        try await Task.sleep(for: .milliseconds(100))
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(calls.value == 1, "exactly one outcome", sourceLocation: sourceLocation)
        return Outcome(result: outcome)
    }

    struct Outcome {
        let result: Result<[String: String], ResourceError>

        var error: ResourceError? { result.failure }

        var transportCode: URLError.Code? {
            if case .transport(let code, _) = error { return code }
            return nil
        }
    }
}

/// A JSON object of strings, with per-test credentials, timeout and limits.
struct Probe: NetworkResourceType, JSONDecodableResourceType {
    typealias Model = [String: String]

    var url: URL
    var credentials = false
    var timeoutInterval: TimeInterval? = 10
    var adjust: @Sendable (inout TransferOptions) -> Void = { _ in }

    var headerFields: [String: String] {
        guard credentials else { return [:] }
        return ["Authorization": "Bearer secret-token", "Cookie": "session=secret-cookie", "X-Trace": "t-1"]
    }

    func transferOptions(_ serviceDefaults: TransferOptions) -> TransferOptions {
        var options = serviceDefaults
        adjust(&options)
        return options
    }
}

/// A value set once after the closures that read it were created.
final class Slot<Value: Sendable>: @unchecked Sendable {
    // `lock` guards `stored`.
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

private func raw(_ text: String) -> LoopbackHTTPServer.Step {
    .write(Data(text.utf8))
}

extension ResourceError {
    /// The reason of a ``redirectRefused(_:)`` error.
    var redirectRefusal: RedirectRefusal? {
        if case .redirectRefused(let refusal) = self { return refusal }
        return nil
    }
}
