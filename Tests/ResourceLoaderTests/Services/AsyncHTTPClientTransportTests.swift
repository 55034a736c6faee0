#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import ResourceLoader
import ResourceLoaderAsyncHTTPClient
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `body`, then shuts `client` down, whether `body` returned or threw: AsyncHTTPClient stops
/// the process when a client it was not told to shut down is released, which would end every
/// other test with a failing one.
func shuttingDown<Value>(_ client: HTTPClient, _ body: () async throws -> Value) async throws -> Value {
    let value: Value
    do {
        value = try await body()
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
    return value
}

/// What is particular to `AsyncHTTPClientTransport`: the client's lifecycle, redirects with a
/// client that would follow them itself, cancellation and the translation of the client's
/// errors. The rules it shares with ``URLSessionTransport`` are in the fault-injection and
/// loopback suites, which run against both.
@Suite("AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportTests {
    /// A client of the test's own, configured to follow up to 20 redirects itself.
    static func clientFollowingRedirects() -> HTTPClient {
        HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(redirectConfiguration: .follow(max: 20, allowCycles: false)))
    }

    /// One raw answer of `transport` to a GET of `url`.
    private func answer(
        _ transport: AsyncHTTPClientTransport, _ request: URLRequest, options: TransferOptions = TransferOptions()
    ) async -> Result<(Data, URLResponse), any Error>? {
        await withTimeLimit {
            await withCheckedContinuation { continuation in
                _ = transport.data(for: request, options: options) { continuation.resume(returning: $0) }
            }
        }
    }

    // MARK: Lifecycle

    @Test func anOwnedClientIsShutDownOnceAndThenRefusesRequests() async throws {
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"b"}"#) }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let first = await answer(transport, URLRequest(url: server.baseURL))
        #expect(try first?.get().0 == Data(#"{"a":"b"}"#.utf8))
        try await transport.shutdown()
        // A second shutdown does nothing (AsyncHTTPClient itself would throw alreadyShutdown).
        try await transport.shutdown()
        let after = await answer(transport, URLRequest(url: server.baseURL))
        // The client's own error is kept as the cause, under the code URLSession would give.
        let error = try #require(after?.failure.map(ResourceError.init(transportError:)))
        guard case .transport(let code, let underlying) = error else {
            Issue.record("expected a transport error, got \(error)")
            return
        }
        #expect(code == .cannotConnectToHost)
        #expect(underlying as? HTTPClientError == .alreadyShutdown)
    }

    @Test func aShutdownWaitsForTheRequestsInFlightAndRefusesNewOnes() async throws {
        // GIVEN an owned client with a request in flight, which the server answers after a while
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"b"}"#).delayed(by: .milliseconds(500)) }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let inFlight = Task { await answer(transport, URLRequest(url: server.baseURL)) }
        try await waitUntil { server.requestCount == 1 }
        // WHEN the transport is shut down meanwhile
        let shutdown = Task { try await transport.shutdown() }
        // THEN a request sent once the shutdown began is refused, as after the shutdown (one
        // sent before it began is answered, and waited for)
        var refused: ResourceError?
        for _ in 0..<100 where refused == nil {
            if case .failure(let error)? = await answer(transport, URLRequest(url: server.baseURL)) {
                refused = ResourceError(transportError: error)
            }
        }
        guard case .transport(.cannotConnectToHost, let underlying)? = refused else {
            Issue.record("expected cannotConnectToHost, got \(String(describing: refused))")
            return
        }
        #expect(underlying as? HTTPClientError == .alreadyShutdown)
        // AND the request in flight gets its answer, and the shutdown ends after it
        #expect(try await inFlight.value?.get().0 == Data(#"{"a":"b"}"#.utf8))
        try await shutdown.value
    }

    @Test func aBorrowedClientIsLeftRunning() async throws {
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"b"}"#) }
        defer { server.stop() }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        try await shuttingDown(client) { () async throws in
            var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport(client: client)
            #expect(try await answer(transport!, URLRequest(url: server.baseURL))?.get().0 == Data(#"{"a":"b"}"#.utf8))
            try await transport?.shutdown()
            transport = nil
            // The client still works: neither shutdown() nor the release shut it down.
            let response = try await client.execute(HTTPClientRequest(url: server.baseURL.absoluteString), timeout: .seconds(10))
            #expect(response.status == .ok)
        }
    }

    @Test func releasingATransportWithARequestInFlightStillAnswersOnce() async throws {
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"late"}"#).delayed(by: .milliseconds(200)) }
        defer { server.stop() }
        let calls = Counter()
        let answer: Result<(Data, URLResponse), any Error> = await withCheckedContinuation { continuation in
            var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport()
            _ = transport?.data(for: URLRequest(url: server.baseURL), options: TransferOptions()) { result in
                calls.increment()
                continuation.resume(returning: result)
            }
            // The request keeps the transport, and so its client, alive until it has answered.
            transport = nil
        }
        #expect(try answer.get().0 == Data(#"{"a":"late"}"#.utf8))
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.value == 1)
    }

    @Test func aFinishedRequestNoLongerKeepsTheTransportAlive() async throws {
        // GIVEN a request with a long idle timeout, answered at once
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"b"}"#) }
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL)
        request.timeoutInterval = 600
        var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport()
        weak let released = transport
        #expect(try await answer(transport!, request)?.get().0 == Data(#"{"a":"b"}"#.utf8))
        // WHEN the caller lets go of the transport
        transport = nil
        // THEN it is released (and its client shut down) without waiting for the idle check
        try await waitUntil { released == nil }
    }

    @Test func theSharedTransportIsNeverShutDown() async throws {
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"b"}"#) }
        defer { server.stop() }
        try await AsyncHTTPClientTransport.shared.shutdown()
        #expect(try await answer(.shared, URLRequest(url: server.baseURL))?.get().0 == Data(#"{"a":"b"}"#.utf8))
    }

    // MARK: The idle timeout

    @Test func aTrickleKeepsAShortIdleTimeoutFromFiring() async throws {
        // GIVEN a server that sends the head, then one byte every 100 ms for about four seconds
        let length = 40
        let server = try LoopbackHTTPServer { _ in
            .script([.write(Data("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n".utf8))]
                + Array(repeating: [.pause(.milliseconds(100)), .write(Data("x".utf8))], count: length).flatMap { $0 })
        }
        defer { server.stop() }
        // WHEN the idle timeout is shorter than the transfer, and thirty times the pauses: a machine
        // busy with the whole test suite can hold the server's thread or the event loop for a second
        var request = URLRequest(url: server.baseURL)
        request.timeoutInterval = 3
        // THEN every byte arrives: each one moves the timeout on
        let answer = await answer(AsyncHTTPClientTransport(), request)
        #expect(try answer?.get().0 == Data(repeating: UInt8(ascii: "x"), count: length))
    }

    @Test func aBodySentAgainAfterA307KeepsAShortIdleTimeoutFromFiring() async throws {
        // GIVEN a file body of 24 MiB, a server that reads it at once and answers 307 to a second
        // server, which reads it 64 KiB at a time, 10 ms apart (at most 6.4 MB/s): it answers
        // after about four seconds, while a piece of 256 KiB is written every 50 ms or so, and
        // the connection's buffers (a few MiB) are drained within a second of the last one
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("resend-\(UUID().uuidString).bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        for _ in 0..<24 { try handle.write(contentsOf: Data(repeating: 0x61, count: 1 << 20)) }
        try handle.close()
        let created = Data("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".utf8)
        let slow = try UploadFramingServer(answer: created, answersOnceWhole: true, pieceSize: 64 * 1024, pause: .milliseconds(10))
        defer { slow.stop() }
        let moved = Data("HTTP/1.1 307 Temporary Redirect\r\nLocation: \(slow.url.absoluteString)\r\nContent-Length: 0\r\n\r\n".utf8)
        let fast = try UploadFramingServer(answer: moved, answersOnceWhole: true)
        defer { fast.stop() }
        // WHEN the idle timeout is shorter than the second hop, and far longer than the time
        // between its pieces and the buffers' drain
        var request = URLRequest(url: fast.url)
        request.httpMethod = "PUT"
        request.setBody(try .file(file))
        request.timeoutInterval = 3
        // THEN the body arrives whole at the second server (another origin, which the options
        // let the body follow): each piece sent again moves the timeout on, although the first
        // hop reported as many bytes sent
        let answer = await answer(AsyncHTTPClientTransport(), request, options: TransferOptions(sendsBodyToAnotherOrigin: true))
        #expect(try answer?.get().0 == Data("ok".utf8))
        #expect(await slow.outcomeOnceEnded().bodyBytes == 24 << 20)
    }

    @Test func everyRequestTimesOutAfterItsOwnIdleTimeoutWhateverTheOthers() async throws {
        // GIVEN a server that never answers, and a request waiting on it with a ten-minute idle
        // timeout, sent first, so that the transport's next idle check is ten minutes away
        let server = try LoopbackHTTPServer { _ in .script([.pause(.seconds(60))]) }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        var patient = URLRequest(url: server.baseURL)
        patient.timeoutInterval = 600
        let patientAnswers = Counter()
        let patientHandle = transport.data(for: patient, options: TransferOptions()) { _ in patientAnswers.increment() }
        // WHEN requests with shorter idle timeouts follow, in no particular order
        let timeouts = [0.9, 0.3, 0.6, 0.2, 0.5]
        let outcomes = await withTaskGroup(of: (Double, Duration, URLError.Code?).self) { group in
            for timeout in timeouts {
                group.addTask {
                    var request = URLRequest(url: server.baseURL)
                    request.timeoutInterval = timeout
                    let start = ContinuousClock.now
                    let answer = await self.answer(transport, request)
                    return (timeout, ContinuousClock.now - start, (answer?.failure as? URLError)?.code)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // THEN each one times out, and none before its own timeout
        #expect(outcomes.count == timeouts.count)
        for (timeout, elapsed, code) in outcomes {
            #expect(code == .timedOut, "timeout \(timeout)")
            #expect(elapsed >= .milliseconds(Int(timeout * 1000)), "timeout \(timeout)")
        }
        // AND the first request is still waiting until cancelled, and then answered once
        #expect(patientAnswers.value == 0)
        patientHandle.cancel()
        #expect(patientAnswers.value == 1)
    }

    /// How requests with an idle timeout end, for the test below.
    enum Ending: String, CaseIterable, Sendable {
        case answered, redirected, timedOut, cancelledAtOnce, cancelledWhileWaiting
        /// Each of the above in turn, through one transport (so over its pooled connections).
        case eachInTurn
    }

    @Test(arguments: Ending.allCases)
    func noEndingLeavesTheTransportAliveThroughItsIdleTimeout(_ ending: Ending) async throws {
        // GIVEN requests with an idle timeout far longer than the test (but the one that times out)
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/silent": .script([.pause(.seconds(60))])
            case "/moved": .status(302, headers: ["Location": "/landed"])
            default: .json(#"{"a":"b"}"#)
            }
        }
        defer { server.stop() }
        var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport()
        weak let released = transport
        func request(_ path: String, timeout: Double = 600) -> URLRequest {
            var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
            request.timeoutInterval = timeout
            return request
        }
        func end(_ ending: Ending, through transport: AsyncHTTPClientTransport) async throws {
            switch ending {
            case .answered:
                #expect(try await answer(transport, request("ok"))?.get().0 == Data(#"{"a":"b"}"#.utf8))
            case .redirected:
                #expect(try await answer(transport, request("moved"))?.get().0 == Data(#"{"a":"b"}"#.utf8))
            case .timedOut:
                #expect((await answer(transport, request("silent", timeout: 0.2))?.failure as? URLError)?.code == .timedOut)
            case .cancelledAtOnce:
                transport.data(for: request("silent"), options: TransferOptions()) { _ in }.cancel()
            case .cancelledWhileWaiting:
                let before = server.requestCount
                let handle = transport.data(for: request("silent"), options: TransferOptions()) { _ in }
                try await waitUntil { server.requestCount > before }
                handle.cancel()
            case .eachInTurn:
                for each in Ending.allCases where each != .eachInTurn {
                    try await end(each, through: transport)
                }
            }
        }
        // WHEN they end
        try await end(ending, through: transport!)
        // AND the caller lets go of the transport
        transport = nil
        // THEN it is released: no request that has ended is still watched
        try await waitUntil { released == nil }
    }

    // MARK: Redirects with a client that follows them

    @Test func theRulesHoldForAnInjectedClientThatFollowsRedirects() async throws {
        // GIVEN a client configured to follow redirects itself, and A redirecting to B
        let seen = OrderRecorder()
        let serverB = try LoopbackHTTPServer { request in
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            return .json(#"{"a":"b"}"#)
        }
        defer { serverB.stop() }
        let serverA = try LoopbackHTTPServer { request in
            let hop = Int(request.path.dropFirst()) ?? 0
            return hop < 3
                ? .status(302, headers: ["Location": "/\(hop + 1)"])
                : .status(302, headers: ["Location": serverB.baseURL.appendingPathComponent("landed").absoluteString])
        }
        defer { serverA.stop() }
        let client = Self.clientFollowingRedirects()
        try await shuttingDown(client) { () async throws in
            let transport = AsyncHTTPClientTransport(client: client)
            var request = URLRequest(url: serverA.baseURL.appendingPathComponent("0"))
            request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
            // WHEN the limit is 2 redirects
            let limited = await answer(transport, request, options: TransferOptions(maximumRedirects: 2))
            // THEN the third is refused, as the transport's rule says, not the client's
            #expect((limited?.failure as? ResourceError)?.redirectRefusal == .tooManyRedirects(limit: 2))
            #expect(serverA.requestCount == 3)
            // AND with room for all of them, B answers without seeing the credential
            let followed = await answer(transport, request)
            #expect(try followed?.get().0 == Data(#"{"a":"b"}"#.utf8))
            #expect(seen.values == ["-"])
        }
    }

    @Test(arguments: [304, 305])
    func anInjectedClientThatFollowsRedirectsDoesNotFollowA304Or305(status: Int) async throws {
        // GIVEN a client configured to follow redirects itself, and a server that answers a POST
        // with a 304 or 305 whose Location names another of its paths
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            seen.append(request.path)
            return request.path == "/elsewhere"
                ? .json(#"{"a":"b"}"#) : .status(status, headers: ["Location": "/elsewhere", "X-Status": "\(status)"])
        }
        defer { server.stop() }
        let client = Self.clientFollowingRedirects()
        try await shuttingDown(client) { () async throws in
            let transport = AsyncHTTPClientTransport(client: client)
            var request = URLRequest(url: server.baseURL.appendingPathComponent("start"))
            request.httpMethod = "POST"
            request.httpBody = Data("<Envelope/>".utf8)
            request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
            // WHEN it is sent through the transport
            let answer = await answer(transport, request)
            // THEN the answer is the 304 or 305 itself, as URLSessionTransport gives it, and the
            // Location was never requested
            let response = try #require(try answer?.get().1 as? HTTPURLResponse)
            #expect(response.statusCode == status)
            #expect(response.value(forHTTPHeaderField: "X-Status") == "\(status)")
            #expect(seen.values == ["/start"])
        }
    }

    // MARK: Cancellation

    @Test func cancellingAnswersCancelledOnceAndClosesTheConnection() async throws {
        let server = try LoopbackHTTPServer { _ in .json("{}").delayed(by: .seconds(600)) }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let calls = Counter()
        let result = await withTimeLimit {
            await withCheckedContinuation { continuation in
                let transfer = transport.data(for: URLRequest(url: server.baseURL), options: TransferOptions()) { result in
                    calls.increment()
                    continuation.resume(returning: result)
                }
                Task {
                    try await waitUntil { server.requestCount == 1 }
                    transfer.cancel()
                    transfer.cancel()
                }
            }
        }
        #expect((result?.failure as? URLError)?.code == .cancelled)
        try await waitUntil { server.openConnectionCount == 0 }
        #expect(calls.value == 1)
    }

    @Test func aURLThatIsNotHTTPIsRefusedWithoutANetworkRequest() async throws {
        let result = await answer(AsyncHTTPClientTransport.shared, URLRequest(url: URL(string: "file:///etc/passwd")!))
        #expect((result?.failure as? URLError)?.code == .unsupportedURL)
    }

    // MARK: Responses and errors

    @Test func repeatedHeaderFieldsAreJoinedAsURLSessionJoinsThem() async throws {
        let server = try LoopbackHTTPServer { _ in
            .script([.write(Data("HTTP/1.1 200 OK\r\nX-Tag: a\r\nx-tag: b\r\nContent-Length: 2\r\n\r\n{}".utf8))])
        }
        defer { server.stop() }
        let result = await answer(.shared, URLRequest(url: server.baseURL))
        let response = try #require(try result?.get().1 as? HTTPURLResponse)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "X-Tag") == "a, b")
        #expect(response.url == server.baseURL)
    }

    /// Heads whose fields repeat, differ in case, carry parameters or are empty: the transport's
    /// `HTTPURLResponse` must read as one made by `HTTPURLResponse`'s initialiser from the fields
    /// joined as the transport has always joined them (case-insensitive names, first spelling
    /// kept, values joined with ", " in order), and, where no name repeats, as
    /// `URLSessionTransport`'s does for the same bytes.
    @Test(arguments: [
        "X-Tag: a\r\nx-tag: b\r\nX-TAG: c\r\nContent-Type: application/json\r\n",
        "Set-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\nset-cookie: c=3\r\n",
        "content-type: Application/JSON; charset=UTF-8\r\nETag: \"v1\"\r\ncache-control: no-cache\r\n",
        "X-Empty: \r\nX-Empty: x\r\nVary: Accept\r\nvary: Origin\r\nWWW-Authenticate: Bearer\r\n",
        "Content-Type: text/plain; format=flowed; charset=\"iso-8859-1\"\r\nContent-Disposition: inline\r\n",
        "Server: nginx/1.22.1\r\nDate: Tue, 24 Nov 2026 03:40:00 GMT\r\nContent-Type: application/json\r\n"
            + "Last-Modified: Tue, 24 Nov 2026 01:00:00 GMT\r\nConnection: keep-alive\r\nETag: \"6567a-3b8\"\r\n"
            + "Accept-Ranges: bytes\r\n",
        // More fields than the transport matches by scanning: the dictionary path.
        (0..<30).map { "X-Field-\($0): \($0)\r\n" }.joined() + "x-field-3: again\r\nX-FIELD-29: last\r\n",
    ])
    func theResponseReadsAsURLSessionTransportsForTheSameHead(_ fields: String) async throws {
        let head = "HTTP/1.1 200 OK\r\n" + fields + "Content-Length: 2\r\n\r\n{}"
        let server = try LoopbackHTTPServer { _ in .script([.write(Data(head.utf8))]) }
        defer { server.stop() }
        let ours = try #require(try await answer(.shared, URLRequest(url: server.baseURL))?.get().1 as? HTTPURLResponse)
        let reference = try #require(await withTimeLimit {
            await withCheckedContinuation { continuation in
                _ = URLSessionTransport().data(for: URLRequest(url: server.baseURL), options: TransferOptions()) {
                    continuation.resume(returning: $0)
                }
            }
        })
        let theirs = try #require(try reference.get().1 as? HTTPURLResponse)
        // What the initialiser makes of the fields joined as URLSession joins them.
        var joined: [String: String] = [:]
        var spelling: [String: String] = [:]
        for line in (fields + "Content-Length: 2\r\n").split(separator: "\r\n") {
            let colon = try #require(line.firstIndex(of: ":"))
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let key = spelling[name.lowercased(), default: name]
            spelling[name.lowercased()] = key
            joined[key] = joined[key].map { "\($0), \(value)" } ?? value
        }
        let expected = try #require(HTTPURLResponse(
            url: server.baseURL, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: joined))
        // The head `send` answers with (no `HTTPURLResponse` made) reads the same fields. (A
        // transport of its own: the server has closed the connection `.shared` would reuse, and
        // `.shared` may not have noticed yet.)
        let sent = try #require(await withTimeLimit {
            await withCheckedContinuation { continuation in
                _ = AsyncHTTPClientTransport().send(URLRequest(url: server.baseURL), options: TransferOptions()) {
                    continuation.resume(returning: $0)
                }
            }
        }).get().1
        #expect(sent.statusCode == 200)
        #expect(sent.url == server.baseURL)
        #expect(sent.headerFields == joined)
        for name in Array(spelling.keys) + Array(spelling.values) + ["missing", "X-TAG", "SET-COOKIE", "Content-type"] {
            #expect(sent.value(forHTTPHeaderField: name) == expected.value(forHTTPHeaderField: name), "\(name)")
        }
        // Where a name repeats, URLSession on Linux (libcurl) keeps only the last field of a
        // name, and keeps names differing in case apart; the transport joins them, as Apple's
        // URLSession does: there `expected` alone is the reference.
        let repeats = spelling.count < fields.split(separator: "\r\n").count + 1
        for other in repeats ? [expected] : [theirs, expected] {
            #expect(ours.statusCode == other.statusCode)
            #expect(ours.url == other.url)
            #expect(ours.mimeType == other.mimeType)
            #expect(ours.textEncodingName == other.textEncodingName)
            #expect(ours.expectedContentLength == other.expectedContentLength)
            #expect(ours.suggestedFilename == other.suggestedFilename)
            #expect(ours.allHeaderFields as? [String: String] == other.allHeaderFields as? [String: String])
            for name in Array(spelling.keys) + Array(spelling.values) + ["missing", "X-TAG", "SET-COOKIE", "Content-type"] {
                #expect(ours.value(forHTTPHeaderField: name) == other.value(forHTTPHeaderField: name), "\(name)")
            }
        }
    }

    @Test func theClientsErrorsBecomeTheURLErrorsURLSessionWouldGive() {
        let cases: [(any Error, URLError.Code)] = [
            (HTTPClientError.cancelled, .cancelled),
            (CancellationError(), .cancelled),
            (HTTPClientError.readTimeout, .timedOut),
            (HTTPClientError.writeTimeout, .timedOut),
            (HTTPClientError.connectTimeout, .timedOut),
            (HTTPClientError.deadlineExceeded, .timedOut),
            (HTTPClientError.tlsHandshakeTimeout, .timedOut),
            (HTTPClientError.getConnectionFromPoolTimeout, .timedOut),
            (HTTPClientError.httpProxyHandshakeTimeout, .timedOut),
            (HTTPClientError.socksHandshakeTimeout, .timedOut),
            (IOError(errnoCode: ETIMEDOUT, reason: "connect"), .timedOut),
            (HTTPClientError.remoteConnectionClosed, .networkConnectionLost),
            (HTTPClientError.uncleanShutdown, .networkConnectionLost),
            (HTTPClientError.requestStreamCancelled, .networkConnectionLost),
            (IOError(errnoCode: ECONNRESET, reason: "read"), .networkConnectionLost),
            (IOError(errnoCode: EPIPE, reason: "write"), .networkConnectionLost),
            (ChannelError.eof, .networkConnectionLost),
            (ChannelError.ioOnClosedChannel, .networkConnectionLost),
            // A TLS body that the connection's close ends, without TLS's own closure.
            (NIOSSLError.uncleanShutdown, .networkConnectionLost),
            // An HTTP/2 stream reset or refused by the server, or closed with its connection
            // (after a GOAWAY, say).
            (NIOHTTP2Errors.streamClosed(streamID: HTTP2StreamID(1), errorCode: .cancel), .networkConnectionLost),
            (NIOHTTP2Errors.streamClosed(streamID: HTTP2StreamID(3), errorCode: .refusedStream), .networkConnectionLost),
            (NIOHTTP2Errors.ioOnClosedConnection(), .networkConnectionLost),
            (NIOHTTP2Errors.unableToParseFrame(), .badServerResponse),
            (NIOHTTP2Errors.invalidStatusValue("abc"), .badServerResponse),
            (HTTPClientError.bodyLengthMismatch, .badServerResponse),
            (HTTPClientError.contentLengthMissing, .badServerResponse),
            (HTTPClientError.invalidProxyResponse, .badServerResponse),
            (HTTPParserError.invalidContentLength, .badServerResponse),
            (HTTPParserError.invalidChunkSize, .badServerResponse),
            (NIOTooManyBytesError(maxBytes: 1024), .dataLengthExceedsMaximum),
            (HTTPClientError.alreadyShutdown, .cannotConnectToHost),
            (HTTPClientError.shutdownUnsupported, .cannotConnectToHost),
            (HTTPClientError.invalidProxyConfiguration, .cannotConnectToHost),
            (HTTPClientError.invalidLocalAddress, .cannotConnectToHost),
            (IOError(errnoCode: ECONNREFUSED, reason: "connect"), .cannotConnectToHost),
            (IOError(errnoCode: EHOSTUNREACH, reason: "connect"), .cannotConnectToHost),
            (HTTPClientError.proxyAuthenticationRequired, .userAuthenticationRequired),
            (HTTPClientError.redirectLimitReached, .httpTooManyRedirects),
            (HTTPClientError.redirectCycleDetected, .httpTooManyRedirects),
            (HTTPClientError.serverOfferedUnsupportedApplicationProtocol("spdy/1"), .secureConnectionFailed),
            (NIOSSLError.noCertificateToValidate, .secureConnectionFailed),
            (HTTPClientError.invalidURL, .badURL),
            (HTTPClientError.emptyHost, .badURL),
            (HTTPClientError.emptyScheme, .badURL),
            (HTTPClientError.unsupportedScheme("ftp"), .unsupportedURL),
            (HTTPClientError.invalidHeaderFieldNames(["Bad Name"]), .unsupportedURL),
            (HTTPClientError.invalidHeaderFieldValues(["a\r\nb"]), .unsupportedURL),
            (HTTPClientError.traceRequestWithBody, .unsupportedURL),
            (HTTPClientError.writeAfterRequestSent, .unsupportedURL),
            (HTTPClientError.internalStateFailure(), .cannotLoadFromNetwork),
            (URLError(.dnsLookupFailed), .dnsLookupFailed),
            (CocoaError(.fileNoSuchFile), .unknown),
        ]
        for (error, code) in cases {
            #expect(AsyncHTTPClientTransport.urlError(for: error).code == code, "\(error)")
        }
    }
}
#endif
