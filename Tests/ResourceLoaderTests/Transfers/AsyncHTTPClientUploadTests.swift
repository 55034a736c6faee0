#if AsyncHTTPClient
import Foundation
import ResourceLoader
import ResourceLoaderAsyncHTTPClient
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestBodyStream` bodies through `AsyncHTTPClientTransport`, which streams them with
/// backpressure (URLSessionTransport refuses them on Linux).
@Suite("Streamed uploads through AsyncHTTPClientTransport")
struct AsyncHTTPClientUploadTests {
    /// Whether the transfer starts reading `stream` within the time limit.
    static func startsReading(_ stream: RequestBodyStream) async -> Bool {
        await withTimeLimit { () -> Bool in
            while !stream.isConsumed {
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
            }
            return true
        } == true
    }

    private static func recordingServer(_ received: Guarded<[LoopbackHTTPServer.Request]>) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            received.withLock { $0.append(request) }
            return request.path == "/first" ? .status(307, headers: ["Location": "/second"]) : .status(201)
        }
    }

    @Test func sendsAStreamOfUnknownLengthChunked() async throws {
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }
        let chunks = (0..<40).map { Data(repeating: UInt8($0), count: 10_000 + $0) }
        let stream = RequestBodyStream(chunkStream(chunks))

        _ = try #require(await upload(Upload(url: server.baseURL, upload: .stream(stream, contentType: "text/plain")), through: AsyncHTTPClientTransport())).get()

        let request = try #require(received.withLock { $0.first })
        #expect(request.body == chunks.reduce(Data(), +))
        #expect(request.value(forHeaderField: "Transfer-Encoding")?.lowercased() == "chunked")
        #expect(request.value(forHeaderField: "Content-Length") == nil)
    }

    @Test func sendsAStreamOfKnownLengthWithContentLength() async throws {
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }
        let stream = RequestBodyStream(chunkStream([Data("hello, ".utf8), Data("world".utf8)]), length: 12)

        _ = try #require(await upload(Upload(url: server.baseURL, httpMethod: .put, upload: .stream(stream)), through: AsyncHTTPClientTransport())).get()

        let request = try #require(received.withLock { $0.first })
        #expect(request.body == Data("hello, world".utf8))
        #expect(request.value(forHeaderField: "Content-Length") == "12")
    }

    @Test func failsAStreamThatBreaksItsDeclaredLength() async throws {
        let server = try LoopbackHTTPServer { _ in .status(201) }
        defer { server.stop() }
        let stream = RequestBodyStream(chunkStream([Data("short".utf8)]), length: 100)
        let outcome = await upload(Upload(url: server.baseURL, upload: .stream(stream)), through: AsyncHTTPClientTransport())
        guard case .failure(.invalidRequest(let reason))? = outcome else {
            Issue.record("expected invalidRequest, got \(String(describing: outcome))")
            return
        }
        #expect(reason.contains("declared"))
    }

    @Test func refusesARedirectThatMustResendAStream() async throws {
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }
        let stream = RequestBodyStream(chunkStream([Data("once".utf8)]))
        let resource = Upload(url: server.baseURL.appendingPathComponent("first"), upload: .stream(stream))
        let outcome = await upload(resource, through: AsyncHTTPClientTransport())
        guard case .failure(.redirectRefused(.unrepeatableBody))? = outcome else {
            Issue.record("expected redirectRefused(unrepeatableBody), got \(String(describing: outcome))")
            return
        }
        #expect(received.withLock { $0.map(\.path) } == ["/first"])
    }

    @Test(.enabled(if: MultipartPeer.shouldRun))
    func aFormWithAStreamPartOfUnknownLengthArrivesChunkedAndWhole() async throws {
        let peer = try await MultipartPeer.start()
        defer { peer.stop() }
        let chunks = (0..<20).map { Data(repeating: UInt8($0), count: 4096) }
        var form = MultipartFormData()
        form.append("before", named: "a")
        form.append(RequestBodyStream(chunkStream(chunks)), named: "stream", fileName: "s.bin")
        let body = try RequestBody.multipart(form)

        let data = try #require(await upload(Upload(url: peer.url("form"), upload: body), through: AsyncHTTPClientTransport())).get()

        let parsed = try JSONDecoder().decode(MultipartPeerTests.Parsed.self, from: data)
        #expect(parsed.transfer_encoding?.lowercased() == "chunked")
        #expect(parsed.parts.map(\.name) == ["a", "stream"])
        #expect(parsed.parts.map(\.size) == [6, 20 * 4096])
        #expect(parsed.parts.last?.filename == "s.bin")
    }

    /// A stream of unknown length goes out as it is produced, traced or not: the server has read
    /// its first mebibytes before the stream produces its last piece, so the body is never
    /// collected whole before it is sent.
    @Test(arguments: [false, true])
    func aStreamOfUnknownLengthIsSentAsItIsProduced(traced: Bool) async throws {
        // GIVEN a server that reads the body as it comes and answers once it is whole, and a
        // stream that produces 2 MiB, then its last piece only once the server has read 1.5 MiB
        let answer = Data("HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        let server = try UploadFramingServer(answer: answer, answersOnceWhole: true)
        defer { server.stop() }
        let piece = Data(repeating: 0x62, count: 256 << 10)
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        for _ in 0..<8 { continuation.yield(piece) }
        let producer = Task {
            let seen = await withTimeLimit(.seconds(20)) { () -> Bool in
                while server.outcome.bodyBytes < 3 << 19 {
                    guard !server.outcome.hasEnded, (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
                }
                return true
            }
            continuation.yield(piece)
            continuation.finish()
            return seen == true
        }
        var request = URLRequest(url: server.url)
        request.httpMethod = "POST"
        request.setBody(.stream(RequestBodyStream(chunks)))
        let transport = traced ? AsyncHTTPClientTransport(configuration: TransportUnderTest.tracingConfiguration) : AsyncHTTPClientTransport()

        // WHEN the transport sends it
        let recorder = ProgressRecorder()
        let handle = transport.startTransfer(request, options: TransferOptions(), receiver: recorder)
        let result = await withTimeLimit { await recorder.result }
        withExtendedLifetime(handle) {}

        // THEN the server read the first bytes while the stream was still producing, and the
        // whole body arrived, chunked
        #expect(await producer.value, "the server received nothing of the body before the stream ended")
        guard case .success(let (head, _))? = result else {
            Issue.record("the upload failed: \(String(describing: result))")
            return
        }
        #expect(head.statusCode == 201)
        let seen = await server.outcomeOnceEnded()
        #expect(seen.isComplete)
        #expect(seen.bodyBytes == 9 * Int64(piece.count))
    }

    @Test func cancellingAStreamThatWaitsForItsNextChunkEndsAtOnce() async throws {
        let listener = try StallingListener()
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        continuation.yield(Data("first".utf8))
        var request = URLRequest(url: listener.url)
        request.httpMethod = "POST"
        let stream = RequestBodyStream(chunks)
        request.setBody(.stream(stream))
        let recorder = ProgressRecorder()
        let transport = AsyncHTTPClientTransport()
        let handle = transport.startTransfer(request, options: TransferOptions(), receiver: recorder)
        #expect(await Self.startsReading(stream))

        handle.cancel()

        let result = await withTimeLimit(.seconds(20)) { await recorder.result }
        guard case .failure(let error)? = result else {
            Issue.record("expected a cancellation, got \(String(describing: result))")
            return
        }
        #expect(ResourceError(transportError: error).isCancelled)
        continuation.finish()
    }

    @Test func cancellingATracedSmallStreamThatWaitsForItsNextChunkCancelsTheStreamsTask() async throws {
        // GIVEN a traced client, and a stream of a known 100 bytes that yields 5 and then waits,
        // which notes when its consumer is cancelled
        let listener = try StallingListener()
        let cancelledConsumer = Guarded(false)
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        continuation.onTermination = { termination in
            if case .cancelled = termination { cancelledConsumer.withLock { $0 = true } }
        }
        continuation.yield(Data("first".utf8))
        var request = URLRequest(url: listener.url)
        request.httpMethod = "POST"
        let stream = RequestBodyStream(chunks, length: 100)
        request.setBody(.stream(stream))
        let recorder = ProgressRecorder()
        let transport = AsyncHTTPClientTransport(configuration: TransportUnderTest.tracingConfiguration)
        let handle = transport.startTransfer(request, options: TransferOptions(), receiver: recorder)
        #expect(await Self.startsReading(stream))

        // WHEN the transfer is cancelled while the stream waits
        handle.cancel()

        // THEN the transfer ends cancelled, and the stream's task is cancelled
        let result = await withTimeLimit(.seconds(20)) { await recorder.result }
        guard case .failure(let error)? = result else {
            Issue.record("expected a cancellation, got \(String(describing: result))")
            continuation.finish()
            return
        }
        #expect(ResourceError(transportError: error).isCancelled)
        let stopped = await withTimeLimit(.seconds(10)) { () -> Bool in
            while !cancelledConsumer.withLock({ $0 }) {
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
            }
            return true
        }
        #expect(stopped == true, "the stream's task was not cancelled")
        continuation.finish()
    }

    @Test(arguments: [false, true])
    func aPlainBodyStreamThatFailsFailsTheTransferRatherThanSendLess(traced: Bool) async throws {
        // GIVEN a request whose `httpBodyStream` (not a `RequestBody`) gives a few bytes, then fails
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL)
        request.httpMethod = "POST"
        request.httpBodyStream = FailingInputStream(first: Data("short".utf8), error: LeakyStreamError())
        let transport = traced ? AsyncHTTPClientTransport(configuration: TransportUnderTest.tracingConfiguration) : AsyncHTTPClientTransport()

        // WHEN the transport sends it
        let recorder = ProgressRecorder()
        let handle = transport.startTransfer(request, options: TransferOptions(), receiver: recorder)
        let result = await withTimeLimit { await recorder.result }

        // THEN the transfer fails with a typed error, and the server never receives the request
        withExtendedLifetime(handle) {}
        guard case .failure(let error)? = result, case .invalidRequest? = error as? ResourceError else {
            Issue.record("expected invalidRequest, got \(String(describing: result))")
            return
        }
        #expect(received.withLock { $0.isEmpty })
        // AND the error does not quote the stream's error, which may hold what the body held
        #expect(!String(describing: error).contains("secret"))
    }

    /// A traced client sends a large body from a task of AsyncHTTPClient's own, while the answer
    /// arrives on the hop's: a server that answers as soon as it has the head makes the progress
    /// of the body and the answer race. The receiver's calls still never overlap.
    @Test func aTracedUploadAnsweredEarlyNeverOverlapsTheReceiversCalls() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("early-answer-\(UUID().uuidString).bin")
        try Data(repeating: 0x61, count: 8 << 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = AsyncHTTPClientTransport(configuration: TransportUnderTest.tracingConfiguration)
        for _ in 0..<3 {
            let answer = Data("HTTP/1.1 413 Content Too Large\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbig!".utf8)
            let server = try UploadFramingServer(answer: answer, pieceSize: 64 * 1024, pause: .milliseconds(2), limit: .seconds(30))
            defer { server.stop() }
            var request = URLRequest(url: server.url)
            request.httpMethod = "PUT"
            request.setBody(try .file(file))
            let receiver = OverlapDetectingReceiver()
            let handle = transport.startTransfer(request, options: TransferOptions(), receiver: receiver)
            let completed = await withTimeLimit { () -> Bool in
                await receiver.completion()
                return true
            }
            withExtendedLifetime(handle) {}
            #expect(completed == true)
            #expect(receiver.violations.isEmpty, "\(receiver.violations)")
        }
    }
}

/// Notes every receiver call that starts while another is running, or after the completion; its
/// progress calls take a moment, so that a call made meanwhile from another thread shows.
private final class OverlapDetectingReceiver: TransferReceiver, @unchecked Sendable {
    private let state = Guarded<(inCall: Bool, completions: Int, violations: [String])>((false, 0, []))
    private let done = AsyncStream<Void>.makeStream()

    var violations: [String] { state.withLock { $0.violations } }

    private func enter(_ name: String) {
        state.withLock {
            if $0.inCall { $0.violations.append("\(name) overlapped another call") }
            if $0.completions > 0 { $0.violations.append("\(name) came after the completion") }
            $0.inCall = true
        }
    }

    private func leave() {
        state.withLock { $0.inCall = false }
    }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        enter("transferDidSend")
        Thread.sleep(forTimeInterval: 0.002)
        leave()
    }

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        enter("transferDidReceive(head:)")
        Thread.sleep(forTimeInterval: 0.002)
        leave()
        return .proceed
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        enter("transferDidReceive(_:)")
        leave()
        return .proceed
    }

    func transferDidReceive(codedByteCount: Int) {}

    func transferDidComplete(with error: (any Error)?) {
        state.withLock {
            if $0.inCall { $0.violations.append("the completion overlapped another call") }
            $0.completions += 1
            if $0.completions > 1 { $0.violations.append("a second completion") }
        }
        done.continuation.yield()
    }

    /// Returns once the transfer has completed.
    func completion() async {
        for await _ in done.stream { return }
    }
}

/// An `InputStream` that gives `first` on its first read and fails every read after it.
/// A stream error whose description would quote what it holds.
private struct LeakyStreamError: Error, CustomStringConvertible {
    var description: String { "LeakyStreamError(secret-4711)" }
}

private final class FailingInputStream: InputStream {
    private let first: Data
    private let error: any Error
    // `lock` guards `hasGivenFirst`.
    private let lock = NSLock()
    private var hasGivenFirst = false

    init(first: Data, error: any Error = URLError(.cannotOpenFile)) {
        self.first = first
        self.error = error
        super.init(data: Data())
    }

    override func open() {}

    override func close() {}

    override var hasBytesAvailable: Bool { true }

    override var streamStatus: Stream.Status { lock.withLock { hasGivenFirst ? .error : .open } }

    override var streamError: (any Error)? { lock.withLock { hasGivenFirst ? error : nil } }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let gives = lock.withLock { () -> Bool in
            defer { hasGivenFirst = true }
            return !hasGivenFirst
        }
        guard gives else { return -1 }
        let count = min(len, first.count)
        first.copyBytes(to: buffer, count: count)
        return count
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
}
#endif
