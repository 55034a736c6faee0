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
/// Cases run through every transport that enforces the limits — ``URLSessionTransport`` (the
/// default) and, with the `AsyncHTTPClient` trait, `AsyncHTTPClientTransport` — and, where the
/// behaviour differs or must match, through a plain `URLSession` too.
@Suite("Fault injection")
struct FaultInjectionTests {
    /// The transports under test.
    typealias Transport = TransportUnderTest

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

    @Test("An idle timeout under a second, or none (infinite, zero, negative, huge), lets an answer that comes in time through", arguments: Transport.enforcing)
    func anIdleTimeoutOfAnySizeLetsATimelyAnswerThrough(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { _ in
            .script([.pause(.milliseconds(150)), raw("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{\"a\":\"b\"}")])
        }
        defer { server.stop() }
        for timeout in [0.75, 1.9, .infinity, .nan, 0, -1, 1e300] as [TimeInterval] {
            var probe = Probe(url: server.baseURL)
            probe.timeoutInterval = timeout
            let outcome = try await singleOutcome(probe, session: transport.session)
            #expect(outcome.error == nil, "timeoutInterval \(timeout): \(String(describing: outcome.error))")
        }
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

    @Test(arguments: Transport.enforcing)
    func aDeclaredLengthOverTheLimitFailsBeforeTheBodyIsRead(transport: Transport) async throws {
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
        let outcome = try await singleOutcome(probe, session: transport.session)
        #expect(outcome.error?.caseName == "responseTooLarge")
        if case .responseTooLarge(let limit) = outcome.error { #expect(limit == 1 << 20) }
        // AND the connection is closed, not left waiting for the body
        try await waitUntil { server.openConnectionCount == 0 }
    }

    @Test(arguments: Transport.enforcing)
    func anEndlessChunkedBodyIsAbortedAtTheLimit(transport: Transport) async throws {
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
        let outcome = try await singleOutcome(probe, session: transport.session)
        #expect(outcome.error?.caseName == "responseTooLarge")
        try await waitUntil { server.openConnectionCount == 0 }
    }

    @Test(arguments: Transport.enforcing)
    func aBodyWithoutLengthOverTheLimitIsAborted(transport: Transport) async throws {
        // A body delimited by closing the connection: no Content-Length, not chunked.
        let server = try LoopbackHTTPServer { _ in
            .script([raw("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")]
                + Array(repeating: [.write(Data(repeating: 0x20, count: 0x4000)), .pause(.milliseconds(1))], count: 100_000)
                .flatMap { $0 })
        }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.maximumResponseBytes = 1 << 20 }
        let outcome = try await singleOutcome(probe, session: transport.session)
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

    @Test(arguments: Transport.enforcing)
    func aBodyAtTheLimitIsAccepted(transport: Transport) async throws {
        let body = Data(#"{"a":"b"}"#.utf8)
        let server = try LoopbackHTTPServer { _ in .status(200, body: body) }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL)
        probe.adjust = { $0.maximumResponseBytes = body.count }
        let outcome = try await singleOutcome(probe, session: transport.session)
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
        if transport.enforcesLimits {
            // THEN the default limit of 10 stops it after the tenth redirect
            #expect(outcome.error?.redirectRefusal == .tooManyRedirects(limit: 10))
            #expect(server.requestCount == 11)
        } else {
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
        if transport.enforcesLimits {
            #expect(outcome.error?.redirectRefusal == .tooManyRedirects(limit: 10))
        } else {
            #expect(outcome.transportCode == .httpTooManyRedirects)
        }
    }

    @Test(arguments: Transport.enforcing)
    func aResourceCanLowerTheRedirectLimit(transport: Transport) async throws {
        let server = try LoopbackHTTPServer { request in
            let hop = Int(request.path.dropFirst()) ?? 0
            return hop < 3 ? .status(307, headers: ["Location": "/\(hop + 1)"]) : .json(#"{"a":"end"}"#)
        }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL.appendingPathComponent("0"))
        probe.adjust = { $0.maximumRedirects = 3 }
        let service = ResourceService<Probe>(session: transport.session)
        #expect(try await service.fetch(probe) == ["a": "end"])
        probe.adjust = { $0.maximumRedirects = 2 }
        #expect(await service.fetchError(probe)?.redirectRefusal == .tooManyRedirects(limit: 2))
        probe.adjust = { $0.maximumRedirects = 0 }
        #expect(await service.fetchError(probe)?.redirectRefusal == .tooManyRedirects(limit: 0))
    }

    @Test(arguments: Transport.allCases)
    func aSameOriginRedirectIsFollowedWithCredentials(transport: Transport) async throws {
        // GIVEN http → http on the same origin
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/final" else { return .status(301, headers: ["Location": "/final"]) }
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            seen.append(request.value(forHeaderField: "Proxy-Authorization") ?? "-")
            seen.append(request.value(forHeaderField: "Cookie") ?? "-")
            return .json(#"{"a":"final"}"#)
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL.appendingPathComponent("start"), credentials: true),
                                              session: transport.session)
        // THEN the resource arrives and the credentials went along
        #expect(try outcome.result.get() == ["a": "final"])
        #expect(seen.values == ["Bearer secret-token", "Basic c2VjcmV0", "session=secret-cookie"])
    }

    @Test(arguments: Transport.allCases)
    func credentialsAreNotForwardedToAnotherOrigin(transport: Transport) async throws {
        // GIVEN A redirects to B: another port is another origin
        let seen = OrderRecorder()
        let serverB = try LoopbackHTTPServer { request in
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            seen.append(request.value(forHeaderField: "Proxy-Authorization") ?? "-")
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
        if transport.enforcesLimits {
            // THEN B sees the other header fields but none of Authorization,
            // Proxy-Authorization and Cookie
            #expect(seen.values == ["-", "-", "-", "t-1"])
        } else {
            #if canImport(FoundationNetworking)
            // Linux's URLSession forwards all three to any origin: this pins the platform
            // behaviour that Docs/Reliability.md describes.
            #expect(seen.values == ["Bearer secret-token", "Basic c2VjcmV0", "session=secret-cookie", "t-1"])
            #endif
        }
    }

    @Test(arguments: Transport.enforcing, [301, 302, 303, 307, 308])
    func noCredentialFieldReachesAnotherOriginOnAnyRedirectForm(transport: Transport, status: Int) async throws {
        // GIVEN a POST with a body and every credential field, redirected by A to B
        let seen = OrderRecorder()
        let serverB = try LoopbackHTTPServer { request in
            for name in URLSessionTransport.credentialHeaderFields + ["X-Trace"] {
                seen.append(request.value(forHeaderField: name) ?? "-")
            }
            return .json(#"{"a":"b"}"#)
        }
        defer { serverB.stop() }
        let serverA = try LoopbackHTTPServer { _ in
            .status(status, headers: ["Location": serverB.baseURL.appendingPathComponent("landed").absoluteString])
        }
        defer { serverA.stop() }
        var probe = Probe(url: serverA.baseURL, credentials: true)
        probe.httpMethod = .post
        probe.requestBody = .data(Data("x=1".utf8), contentType: "text/plain")
        // (The body may follow a 307 or 308 to B.)
        probe.adjust = { $0.sendsBodyToAnotherOrigin = true }
        let outcome = try await singleOutcome(probe, session: transport.session)
        // THEN B answers, and sees none of the credential fields, whatever the redirect
        #expect(try outcome.result.get() == ["a": "b"])
        #expect(seen.values == Array(repeating: "-", count: URLSessionTransport.credentialHeaderFields.count) + ["t-1"])
    }

    @Test(arguments: Transport.enforcing, ["file:///etc/passwd", "ftp://127.0.0.1:1/x", "javascript:alert(1)", "data:text/plain,hi"])
    func aRedirectToANonHTTPLocationIsRefused(transport: Transport, location: String) async throws {
        // GIVEN a server that redirects to a location that is not an http or https URL
        let paths = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            paths.append(request.path)
            return request.path == "/start" ? .status(302, headers: ["Location": location]) : .json(#"{"a":"b"}"#)
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL.appendingPathComponent("start"), credentials: true),
                                              session: transport.session)
        // THEN the redirect is refused, and nothing else is requested
        #expect(outcome.error?.redirectRefusal == .unsupportedScheme)
        #expect(paths.values == ["/start"])
        // AND the description does not quote the server's location
        let description = outcome.error.map { "\($0)" } ?? ""
        #expect(!description.contains(location) && !description.contains("passwd") && !description.contains("alert"))
    }

    #if canImport(FoundationNetworking)
    @Test func linuxURLSessionRequestsAFileLocationFromTheSameServer() async throws {
        // Pins what Docs/Reliability.md says: FoundationNetworking turns `file:///etc/passwd`
        // into `/etc/passwd` on the server that answered, credentials included.
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            guard request.path != "/start" else { return .status(302, headers: ["Location": "file:///etc/passwd"]) }
            seen.append(request.path)
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            return .json(#"{"a":"passwd"}"#)
        }
        defer { server.stop() }
        let outcome = try await singleOutcome(Probe(url: server.baseURL.appendingPathComponent("start"), credentials: true),
                                              session: URLSession(configuration: .ephemeral))
        #expect(try outcome.result.get() == ["a": "passwd"])
        #expect(seen.values == ["/etc/passwd", "Bearer secret-token"])
    }
    #endif

    @Test(arguments: Transport.enforcing)
    func aSchemeRelativeLocationIsAnotherOriginWithoutCredentials(transport: Transport) async throws {
        // GIVEN A redirects to `//localhost:<B's port>/landed`: http, another host
        let seen = OrderRecorder()
        let serverB = try LoopbackHTTPServer { request in
            seen.append(request.path)
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            return .json(#"{"a":"b"}"#)
        }
        defer { serverB.stop() }
        let serverA = try LoopbackHTTPServer { _ in .status(302, headers: ["Location": "//localhost:\(serverB.port)/landed"]) }
        defer { serverA.stop() }
        let outcome = try await singleOutcome(Probe(url: serverA.baseURL, credentials: true), session: transport.session)
        #expect(try outcome.result.get() == ["a": "b"])
        #expect(seen.values == ["/landed", "-"])
    }

    // MARK: Methods and bodies on redirect

    /// What `/final` received after `/start` answered a `method` request with a body with
    /// `status`: method, content type, content length and body.
    private func redirectedRequest(_ method: HTTPMethod, status: Int, transport: Transport) async throws -> [String] {
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/final" else { return .status(status, headers: ["Location": "/final"]) }
            seen.append(request.method)
            seen.append(request.value(forHeaderField: "Content-Type") ?? "-")
            seen.append(request.value(forHeaderField: "Content-Length") ?? "-")
            seen.append(String(decoding: request.body, as: UTF8.self))
            return .json(#"{"a":"final"}"#)
        }
        defer { server.stop() }
        var probe = Probe(url: server.baseURL.appendingPathComponent("start"))
        probe.httpMethod = method
        probe.requestBody = .data(Data("<Envelope/>".utf8), contentType: "text/xml")
        let outcome = try await singleOutcome(probe, session: transport.session)
        #expect(try outcome.result.get() == ["a": "final"])
        return seen.values
    }

    @Test(arguments: Transport.allCases, [307, 308])
    func a307Or308SendsTheSameMethodAndBodyAgain(transport: Transport, status: Int) async throws {
        // GIVEN a POST of a SOAP envelope answered with a 307 or 308 (an http → https move, say)
        let received = try await redirectedRequest(.post, status: status, transport: transport)
        if transport.enforcesLimits {
            // THEN the envelope arrives at the new location
            #expect(received == ["POST", "text/xml", "11", "<Envelope/>"])
        } else {
            #if canImport(FoundationNetworking)
            // Linux's URLSession posts an empty body (and the 200 that follows looks like
            // success): this pins what Docs/Reliability.md describes.
            #expect(received == ["POST", "text/xml", "0", ""])
            #endif
        }
    }

    @Test(arguments: Transport.enforcing, [301, 302, 303])
    func aPostRedirectedWith301To303BecomesAGetWithoutItsBody(transport: Transport, status: Int) async throws {
        // THEN a GET, without the body or the header fields that described it
        #expect(try await redirectedRequest(.post, status: status, transport: transport) == ["GET", "-", "-", ""])
    }

    #if canImport(FoundationNetworking)
    @Test func linuxURLSessionKeepsTheContentTypeOfADroppedBody() async throws {
        // Pins what Docs/Reliability.md says about a plain URLSession after a 303.
        #expect(try await redirectedRequest(.post, status: 303, transport: .plainURLSession) == ["GET", "text/xml", "-", ""])
    }
    #endif

    @Test(arguments: Transport.enforcing, [(HTTPMethod.put, 301), (HTTPMethod.put, 302), (HTTPMethod.patch, 307), (HTTPMethod.delete, 308)])
    func otherMethodsKeepTheirBodyOn301And302(transport: Transport, redirect: (method: HTTPMethod, status: Int)) async throws {
        let (method, status) = redirect
        let received = try await redirectedRequest(method, status: status, transport: transport)
        #expect(received == [method.rawValue, "text/xml", "11", "<Envelope/>"])
    }

    @Test(arguments: Transport.enforcing)
    func cancellingARequestSentAgainAfterA307CancelsTheNewTransfer(transport: Transport) async throws {
        // GIVEN a POST answered with a 307, whose new location never answers
        let server = try LoopbackHTTPServer { request in
            request.path == "/final" ? .json("{}").delayed(by: .seconds(600)) : .status(307, headers: ["Location": "/final"])
        }
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("start"))
        request.httpMethod = "POST"
        request.httpBody = Data("<Envelope/>".utf8)
        let post = request
        let session = transport.session
        let calls = Counter()
        let answer = await withTimeLimit {
            await withCheckedContinuation { continuation in
                let transfer = session.data(for: post, options: TransferOptions()) { result in
                    calls.increment()
                    continuation.resume(returning: result)
                }
                // WHEN the caller cancels once the body has been sent again
                Task {
                    try await waitUntil { server.requestCount == 2 }
                    transfer.cancel()
                }
            }
        }
        // THEN the new transfer ends, cancelled, once
        #expect((answer?.failure as? URLError)?.code == .cancelled)
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.value == 1)
    }

    // MARK: Compression and framing

    /// `{"a":"0 1 2 … 299"}` (1097 bytes), and the same in gzip (546 bytes).
    ///
    /// Computed, not stored: a `Data` held in a static let is reported as leaked by
    /// LeakSanitizer, which cannot follow the reference inside `Data`'s representation.
    static var plainBody: Data {
        Data(#"{"a":""#.utf8) + Data((0..<300).map(String.init).joined(separator: " ").utf8) + Data(#""}"#.utf8)
    }
    static var gzipBody: Data {
        Data(base64Encoded: """
            H4sIAAAAAAACAx3T2U0EQBAD0VSsjWDsOZtsiAORO9X8ogZ263l+Pt+fr8+QFU0tbR1dPZXMDy1HnvKSt3zkKz+5lKHwO1GmspStHOUq\
            TynNoWlN/uTUXJpb82hezadZWkPLWtHiPy6trXW0rtbTKu2hbe1oT20+0NY+2lf7aZfO0LFOdKbO0uHzHp2r83RKd+haN7pTd+luXb7O\
            1X26pTf0rBe9qbf0tt7R49s+vVINlVVRTdVSbdVRXRUxugY5Bj0GQQZFBkkGTQZRBlUGWQZ3/9m463BdrtN1u47X9Tof/UxAp/tyR0MT\
            0VQ0GU1HE9KUNClNS8+G4I6cpqcJaoqapKapiWqqmqxeLcYdZU1a09bENXVNXtPXBDaFvZuWOyKbyiaz6WxCm9ImtWltYvv0Brijtwlu\
            ipvkprmJbqqb7Ka7b4+FO9Kb9ia+qW/ym/4GwAgYAr9eFXcoGAbjYCCMhKEwFgbDaLh6fr0/BohH8AgewSN4BI/gETyCR9xD5Q6P4BE8\
            gkfwCB7BI73nHvT/ornrTfeoe9U96951DxuP4BE8Mnv63OERPIJH8AgewSN4BI/gkdVvhDs8gkfwCB7BI3gEj+ARPLL7MXGHR/AIHsEj\
            eASP4BE8gkdOvzru8AgewSN4BI/gETyCR/DI7efJHR7BI3gEj+ARPIJH8Ageef2OucMjeASP4BE8gkfwCB7BI9UPvj6/f9/zdpxJBAAA
            """)!
    }

    /// What a raw-body fetch through `transport` of a response with `headers` and `body` ends
    /// in, and the `Accept-Encoding` the request carried.
    private func fetchRaw(
        headers: [String: String], body: Data, acceptEncoding: String? = nil, transport: Transport = .urlSessionTransport
    ) async throws -> (result: Result<Data, ResourceError>, acceptEncoding: String) {
        try await fetchRaw(.status(200, headers: headers, body: body), acceptEncoding: acceptEncoding, transport: transport)
    }

    /// What a raw-body fetch through `transport` of `response` ends in, and the
    /// `Accept-Encoding` the request carried.
    private func fetchRaw(
        _ response: LoopbackHTTPServer.Response, acceptEncoding: String? = nil, transport: Transport = .urlSessionTransport
    ) async throws -> (result: Result<Data, ResourceError>, acceptEncoding: String) {
        let asked = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            asked.append(request.value(forHeaderField: "Accept-Encoding") ?? "-")
            return response
        }
        defer { server.stop() }
        var endpoint = Endpoint(server.baseURL.absoluteString)
        if let acceptEncoding { endpoint.headerFields = ["Accept-Encoding": acceptEncoding] }
        let resource = endpoint
        let service = ResourceService<Endpoint>(session: transport.session)
        let result = try #require(await withTimeLimit {
            await withCheckedContinuation { continuation in
                service.fetch(resource, callbackQueue: .global()) { continuation.resume(returning: $0) }
            }
        })
        return (result, asked.values.first ?? "-")
    }

    @Test(arguments: Transport.enforcing, [
        ("truncated", FaultInjectionTests.gzipBody.prefix(FaultInjectionTests.gzipBody.count / 2)),
        ("garbage", Data("this is not gzip at all".utf8)),
        ("whole", FaultInjectionTests.gzipBody),
    ])
    func aGzipBodyThatWasNotAskedForIsRefused(transport: Transport, body: (name: String, bytes: Data)) async throws {
        // GIVEN a server that sends gzip (whole, cut in half with a matching Content-Length, or
        // garbage) although the request asked for no content coding (by default over
        // URLSessionTransport; said outright over a transport that would ask for gzip itself)
        let (result, asked) = try await fetchRaw(
            headers: ["Content-Encoding": "gzip"], body: body.bytes,
            acceptEncoding: transport.isAsyncHTTPClient ? "identity" : nil, transport: transport)
        // THEN the fetch fails with a typed error: never a partial or empty body
        #expect(asked == "identity")
        guard case .failure(.transport(let code, _)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(code == .cannotDecodeContentData)
    }

    @Test(arguments: Transport.enforcing.filter(\.isAsyncHTTPClient), [
        ("truncated", FaultInjectionTests.gzipBody.prefix(FaultInjectionTests.gzipBody.count / 2), false),
        ("garbage", Data("this is not gzip at all".utf8), false),
        ("whole", FaultInjectionTests.gzipBody, true),
    ])
    func aTransportThatDecodesAsksForGzipAndChecksTheBody(transport: Transport, body: (name: String, bytes: Data, isWhole: Bool)) async throws {
        // GIVEN a transport over its own client, which asks for gzip and deflate by default
        let (result, asked) = try await fetchRaw(headers: ["Content-Encoding": "gzip"], body: body.bytes, transport: transport)
        #expect(asked == "gzip, deflate")
        // THEN a whole body decodes exactly, and one cut short or garbage is a typed error
        if body.isWhole {
            #expect(try result.get() == Self.plainBody)
        } else {
            guard case .failure(.transport(.cannotDecodeContentData, let underlying)) = result else {
                Issue.record("expected cannotDecodeContentData, got \(result)")
                return
            }
            #expect(underlying is ContentDecodingError)
        }
    }

    @Test(arguments: Transport.enforcing)
    func anIdentityBodyArrivesWhole(transport: Transport) async throws {
        let (result, asked) = try await fetchRaw(headers: ["Content-Encoding": "identity"], body: Self.plainBody, transport: transport)
        #expect(asked == (transport.isAsyncHTTPClient ? "gzip, deflate" : "identity"))
        #expect(try result.get() == Self.plainBody)
    }

    @Test(arguments: Transport.enforcing)
    func gzipThatWasAskedForIsDecodedByThePlatform(transport: Transport) async throws {
        // A request that asks for gzip itself gets it, decoded; a corrupt one fails.
        let (whole, asked) = try await fetchRaw(
            headers: ["Content-Encoding": "gzip"], body: Self.gzipBody, acceptEncoding: "gzip", transport: transport)
        #expect(asked == "gzip")
        #expect(try whole.get() == Self.plainBody)
        let (garbage, _) = try await fetchRaw(
            headers: ["Content-Encoding": "gzip"], body: Data("this is not gzip at all".utf8), acceptEncoding: "gzip",
            transport: transport)
        #expect(garbage.failure?.caseName == "transport")
    }

    @Test(arguments: Transport.enforcing, [
        "Content-Length: 5\r\nContent-Length: 7", "Content-Length: 7\r\nContent-Length: 5",
        "Content-Length: 5, 7",
    ])
    func conflictingContentLengthsAreRefused(transport: Transport, fields: String) async throws {
        // GIVEN two lengths for 7 bytes (FoundationNetworking joins two fields into "5, 7", and
        // libcurl then reads 5 or 7 bytes, depending on the form)
        let (result, _) = try await fetchRaw(
            .script([.write(Data("HTTP/1.1 200 OK\r\n\(fields)\r\n\r\nabcdefg".utf8)), .close]), transport: transport)
        guard case .failure(.transport(let code, _)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(code == .badServerResponse)
    }

    @Test(arguments: Transport.enforcing)
    func repeatedEqualContentLengthsAreAccepted(transport: Transport) async throws {
        let (result, _) = try await fetchRaw(
            .script([.write(Data("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\nabcdefg".utf8)), .close]),
            transport: transport)
        #if AsyncHTTPClient
        if transport.isAsyncHTTPClient {
            // SwiftNIO's parser refuses any repeated Content-Length, equal or not (RFC 9112, 6.3,
            // allows either): stricter, and documented on AsyncHTTPClientTransport.
            guard case .failure(.transport(let code, _)) = result else {
                Issue.record("expected a transport error, got \(result)")
                return
            }
            #expect(code == .badServerResponse)
            return
        }
        #endif
        #expect(try result.get() == Data("abcdefg".utf8))
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
        // The plain session's task ends only at the deadline, so its deadline is short; the
        // others answer at once, and a long deadline keeps a loaded machine from deciding.
        let deadline: Duration = transport == .plainURLSession ? .seconds(2) : .seconds(60)
        probe.adjust = { $0.deadline = deadline }
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
    var httpMethod: HTTPMethod = .get
    var requestBody: RequestBody?
    var extraHeaderFields: [String: String] = [:]
    var adjust: @Sendable (inout TransferOptions) -> Void = { _ in }

    var body: RequestBody? { requestBody }

    var headerFields: [String: String] {
        guard credentials else { return extraHeaderFields }
        return extraHeaderFields.merging([
            "Authorization": "Bearer secret-token", "Proxy-Authorization": "Basic c2VjcmV0",
            "Cookie": "session=secret-cookie", "X-Trace": "t-1",
        ]) { $1 }
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
