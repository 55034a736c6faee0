import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every real transport (``TransportUnderTest``) against `LoopbackHTTPServer` on 127.0.0.1.
@Suite("Transports over loopback")
struct URLSessionLoopbackTests {
    typealias Transport = TransportUnderTest

    private func cities(at server: LoopbackHTTPServer, _ path: String = "europe.json") -> CitiesResource {
        CitiesResource(url: server.baseURL.appendingPathComponent(path))
    }

    @Test(arguments: Transport.allCases)
    func fetchesAModelOverHTTP(transport: Transport) async throws {
        let session = transport.session
        let server = try LoopbackHTTPServer { request in
            request.path == "/europe.json" ? .json(#"{"cities":[{"name":"Lisbon"}]}"#) : .status(404)
        }
        defer { server.stop() }
        let service = ResourceService<CitiesResource>(session: session)
        #expect(try await service.fetch(cities(at: server)) == [City(name: "Lisbon")])
        #expect(await service.fetchError(cities(at: server, "mars.json"))?.statusCode == 404)
    }

    @Test(arguments: Transport.allCases)
    func theServerSeesQueryValuesExactly(transport: Transport) async throws {
        let session = transport.session
        let values = ["a+b", "a&b=c", "two words", "café", "100%", "日本"]
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            for item in request.queryItems { seen.append("\(item.name)=\(item.value ?? "")") }
            return .status(200, body: Data("ok".utf8))
        }
        defer { server.stop() }
        var endpoint = Endpoint(server.baseURL.appendingPathComponent("search").absoluteString + "?page=1")
        endpoint.queryItems = values.map { URLQueryItem(name: "q", value: $0) }
        _ = try await ResourceService<Endpoint>(session: session).fetch(endpoint)
        #expect(seen.values == ["page=1"] + values.map { "q=\($0)" })
    }

    @Test(arguments: Transport.allCases)
    func sendsMethodHeadersAndBody(transport: Transport) async throws {
        let session = transport.session
        let received = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            received.append(request.method)
            received.append(request.value(forHeaderField: "content-type") ?? "-")
            received.append(request.value(forHeaderField: "x-trace") ?? "-")
            received.append(String(decoding: request.body, as: UTF8.self))
            return .status(201, body: Data("{}".utf8))
        }
        defer { server.stop() }
        var endpoint = Endpoint(server.baseURL.appendingPathComponent("cities").absoluteString)
        endpoint.httpMethod = .post
        endpoint.headerFields = ["X-Trace": "t-1"]
        endpoint.requestBody = .form([URLQueryItem(name: "name", value: "São Paulo")])
        _ = try await ResourceService<Endpoint>(session: session).fetch(endpoint)
        #expect(received.values == ["POST", "application/x-www-form-urlencoded", "t-1", "name=S%C3%A3o%20Paulo"])
    }

    // The cancellation tests answer after ten minutes and have no deadline, so that only the
    // cancellation can end them, however long a loaded machine (the thread sanitizer on two
    // cores) takes to get to it.

    @Test(arguments: Transport.allCases)
    func cancellingTheTaskMidRequestThrowsCancelled(transport: Transport) async throws {
        let session = transport.session
        let server = try LoopbackHTTPServer { _ in .json("{}").delayed(by: .seconds(600)) }
        defer { server.stop() }
        let service = ResourceService<CitiesResource>(session: session, options: TransferOptions(deadline: nil))
        let resource = cities(at: server)
        let task = Task { try await service.fetch(resource) }
        try await waitUntil { server.requestCount == 1 }
        task.cancel()
        #expect((await task.result.failure as? ResourceError)?.isCancelled == true)
    }

    @Test(arguments: Transport.allCases)
    func cancellingACompletionFetchMidRequestDeliversCancelledOnce(transport: Transport) async throws {
        let session = transport.session
        let server = try LoopbackHTTPServer { _ in .json("{}").delayed(by: .seconds(600)) }
        defer { server.stop() }
        let calls = Counter()
        let handle = ResourceService<CitiesResource>(session: session, options: TransferOptions(deadline: nil))
        let result = await withCheckedContinuation { continuation in
            let fetch = handle.fetch(cities(at: server), callbackQueue: .global()) { result in
                calls.increment()
                continuation.resume(returning: result)
            }
            Task {
                try await waitUntil { server.requestCount == 1 }
                fetch.cancel()
            }
        }
        #expect(result.failure?.isCancelled == true)
        #expect(calls.value == 1)
    }

    @Test(arguments: Transport.allCases)
    func theDeadlineStopsATricklingServer(transport: Transport) async throws {
        let session = transport.session
        // The server sends the head, then one body byte every 50 ms: the idle timeout never
        // fires, so only the total deadline can end the request.
        let server = try LoopbackHTTPServer { _ in
            .script([.write(Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8))]
                + Array(repeating: [.write(Data(" ".utf8)), .pause(.milliseconds(50))], count: 1000).flatMap { $0 })
        }
        defer { server.stop() }
        let service = ResourceService<CitiesResource>(session: session, options: TransferOptions(deadline: .milliseconds(300)))
        #expect(await service.fetchError(cities(at: server))?.caseName == "timedOut")
    }

    @Test(arguments: Transport.allCases)
    func aRefusedConnectionIsATransportError(transport: Transport) async throws {
        let session = transport.session
        let port = try LoopbackHTTPServer.RefusingPort()
        let resource = CitiesResource(url: port.baseURL.appendingPathComponent("europe.json"))
        let error = await ResourceService<CitiesResource>(session: session).fetchError(resource)
        guard case .transport(let code, _) = error else {
            Issue.record("expected transport, got \(String(describing: error))")
            return
        }
        #expect(code == .cannotConnectToHost)
    }

    @Test(arguments: Transport.allCases)
    func aResetConnectionIsATransportError(transport: Transport) async throws {
        let session = transport.session
        let server = try LoopbackHTTPServer { _ in
            .script([.write(Data("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc".utf8)), .pause(.milliseconds(20)), .reset])
        }
        defer { server.stop() }
        #expect(await ResourceService<CitiesResource>(session: session).fetchError(cities(at: server))?.caseName == "transport")
    }
}

@Suite("LoopbackHTTPServer")
struct LoopbackHTTPServerTests {
    @Test func listensOnLoopbackOnly() throws {
        let server = try LoopbackHTTPServer { _ in .status(200) }
        defer { server.stop() }
        #expect(server.baseURL.host == "127.0.0.1")
        #expect(server.port > 0)
    }

    @Test func servesManyRequestsOnKeptAliveConnections() async throws {
        let server = try LoopbackHTTPServer { request in .json(#"[{"name":"\#(request.path.dropFirst())"}]"#) }
        defer { server.stop() }
        let service = ResourceService<CityArrayResource>(session: URLSession(configuration: .ephemeral))
        for index in 0..<50 {
            let cities = try await service.fetch(CityArrayResource(url: server.baseURL.appendingPathComponent("c\(index)")))
            #expect(cities == [City(name: "c\(index)")])
        }
        #expect(server.requestCount == 50)
    }

    @Test func stopEndsAPausedConnectionPromptly() async throws {
        let server = try LoopbackHTTPServer { _ in .json("{}").delayed(by: .seconds(600)) }
        let service = ResourceService<CitiesResource>(session: URLSession(configuration: .ephemeral))
        let resource = CitiesResource(url: server.baseURL)
        let task = Task { await service.fetchError(resource) }
        try await waitUntil { server.requestCount == 1 }
        server.stop()
        // The client sees the connection end instead of waiting ten minutes.
        #expect(await task.value?.caseName == "transport")
    }

    /// Sends `bytes` on a new connection to `server` and returns what it answers until it closes
    /// the connection (or five seconds pass).
    private func exchange(_ bytes: String, with server: LoopbackHTTPServer) throws -> String {
        let data = Array(bytes.utf8)
        let (sent, answer) = try #require(rawHTTPExchange(data, port: server.port))
        #expect(sent == data.count)
        return answer
    }

    @Test func readsAChunkedRequestBody() throws {
        let server = try LoopbackHTTPServer { request in .status(200, headers: ["Connection": "close"], body: request.body) }
        defer { server.stop() }
        let answer = try exchange(
            "POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: t\r\n\r\n",
            with: server)
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(answer.hasSuffix("\r\n\r\nhello world"))
    }

    @Test(arguments: [
        "5\r\nhello\r\nzz\r\n",                 // a size that is not hexadecimal
        "5\r\nhelloXY6\r\n world\r\n0\r\n\r\n",  // a chunk not ended by CR LF
        "FFFFFFFF\r\n",                         // a chunk over the body limit
        "5\r\nhel",                                // the peer goes away mid-chunk
    ])
    func aMalformedChunkedRequestBodyClosesTheConnectionUnanswered(_ body: String) throws {
        var limits = LoopbackHTTPServer.Limits()
        limits.maximumBodyBytes = 1 << 20
        let handled = Counter()
        let server = try LoopbackHTTPServer(limits: limits) { _ in
            handled.increment()
            return .status(200)
        }
        defer { server.stop() }
        let answer = try exchange("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + body, with: server)
        #expect(answer.isEmpty)
        #expect(handled.value == 0)
    }

    @Test func aChunkedRequestWithAnEndlessTrailerHasItsConnectionClosed() async throws {
        // GIVEN a server whose request heads may be 1 KiB
        var limits = LoopbackHTTPServer.Limits()
        limits.maximumHeadBytes = 1024
        let handled = Counter()
        let server = try LoopbackHTTPServer(limits: limits) { _ in
            handled.increment()
            return .status(200)
        }
        defer { server.stop() }
        // WHEN a chunked request's trailer goes on with field after field
        let fd = try openConnection(to: server)
        defer { close(fd) }
        try #require(await openConnections(of: server, reach: 1, within: .seconds(10)))
        #expect(sendWithoutSignal("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n", on: fd))
        var sent = 0
        while sent < 4 << 20, sendWithoutSignal("X-Trailer: more\r\n", on: fd) { sent += 17 }
        // THEN the server closes the connection, unanswered
        #expect(await openConnections(of: server, reach: 0, within: .seconds(10)))
        #expect(handled.value == 0)
    }

    @Test func anIdleTimeoutOfZeroStillClosesAnIdleConnection() async throws {
        // GIVEN a server whose idle timeout is zero
        var limits = LoopbackHTTPServer.Limits()
        limits.idleTimeout = .zero
        let server = try LoopbackHTTPServer(limits: limits) { _ in .status(200) }
        defer { server.stop() }
        // WHEN a client connects and sends nothing
        let fd = try openConnection(to: server)
        defer { close(fd) }
        // THEN the server closes the connection rather than wait for ever
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        #expect(recv(fd, &byte, 1, 0) == 0, "the connection was still open after 10 seconds")
    }

    /// A new connection to `server`.
    private func openConnection(to server: LoopbackHTTPServer) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = server.port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if !connected { close(fd) }
        try #require(connected)
        return fd
    }

    /// Sends `text` whole; `false` once the peer has closed the connection (without `SIGPIPE`).
    private func sendWithoutSignal(_ text: String, on fd: Int32) -> Bool {
        let data = Array(text.utf8)
        return send(fd, data, data.count, Int32(MSG_NOSIGNAL)) == data.count
    }

    /// Whether `server` has `count` open connections before `limit` passes.
    private func openConnections(of server: LoopbackHTTPServer, reach count: Int, within limit: Duration) async -> Bool {
        let giveUp = ContinuousClock.now + limit
        while ContinuousClock.now < giveUp {
            if server.openConnectionCount == count { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return server.openConnectionCount == count
    }

    @Test func answersExpectContinueBeforeTheBody() throws {
        let server = try LoopbackHTTPServer { request in .status(200, headers: ["Connection": "close"], body: request.body) }
        defer { server.stop() }
        let answer = try exchange(
            "PUT / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok", with: server)
        #expect(answer.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"))
        #expect(answer.hasSuffix("ok"))
    }

    @Test func releasingTheServerStopsIt() async throws {
        let received = Counter()
        var server: LoopbackHTTPServer? = try LoopbackHTTPServer { _ in
            received.increment()
            return .json("{}").delayed(by: .seconds(600))
        }
        let service = ResourceService<CitiesResource>(session: URLSession(configuration: .ephemeral))
        let resource = CitiesResource(url: server!.baseURL)
        let task = Task { await service.fetchError(resource) }
        try await waitUntil { received.value == 1 }
        server = nil
        #expect(await task.value?.caseName == "transport")
    }
}
