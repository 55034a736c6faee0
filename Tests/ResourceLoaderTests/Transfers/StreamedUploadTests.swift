import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streamed request bodies (a file, an `AsyncSequence`, of known or unknown length) through the
/// transports that send them, against `LoopbackHTTPServer` on 127.0.0.1.
@Suite("Streamed uploads")
struct StreamedUploadTests {
    /// A server that answers every request with `201` and keeps what it received.
    private static func recordingServer(_ received: Guarded<[LoopbackHTTPServer.Request]>) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            received.withLock { $0.append(request) }
            return .status(201, body: Data("stored".utf8))
        }
    }

    /// Checks that `reports` grow to `total` bytes in more than one step, each with the total.
    private static func expectProgressInSteps(
        _ reports: [(sent: Int64, expected: Int64?)], toWhole total: Int64, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reports.count > 1, sourceLocation: sourceLocation)
        #expect(reports.last?.sent == total, sourceLocation: sourceLocation)
        #expect(reports.allSatisfy { $0.expected == total }, sourceLocation: sourceLocation)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.sent <= $1.sent }, sourceLocation: sourceLocation)
    }

    @Test(arguments: UploadTransport.allCases)
    func sendsAFileReadFromDisk(transport: UploadTransport) async throws {
        // GIVEN a file of 1 MiB and a server that keeps what it receives
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 1 << 20) }
        defer { file.remove() }
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }

        // WHEN it is uploaded as a file body
        let resource = Upload(url: server.baseURL.appendingPathComponent("upload"), upload: try .file(file.url))
        let answer = try #require(await upload(resource, through: transport.transport)).get()

        // THEN the server has the file's bytes, declared by Content-Length, not chunked
        #expect(answer == Data("stored".utf8))
        let request = try #require(received.withLock { $0.first })
        #expect(request.body == (try Data(contentsOf: file.url)))
        transport.expectFraming(of: request, length: 1 << 20)
        #expect(request.value(forHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test(arguments: UploadTransport.allCases)
    func reportsProgressWithTheTotal(transport: UploadTransport) async throws {
        // GIVEN a file of 3 MiB
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 3 << 20) }
        defer { file.remove() }
        let server = try LoopbackHTTPServer { _ in .status(204) }
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL)
        request.httpMethod = "POST"
        request.setBody(try .file(file.url))

        // WHEN it is sent straight through the transport
        let recorder = ProgressRecorder()
        let handle = transport.transport.startTransfer(request, options: TransferOptions(), receiver: recorder)
        let result = await withTimeLimit { await recorder.result }
        _ = handle

        // THEN progress grows to the whole file in several steps (a file over 1 MiB is read as
        // it is sent, a piece at a time, never whole first), each report with the total
        guard case .success(let (head, _))? = result else {
            Issue.record("the upload failed: \(String(describing: result))")
            return
        }
        #expect(head.statusCode == 204)
        Self.expectProgressInSteps(recorder.reports, toWhole: 3 << 20)
    }

    @Test(arguments: UploadTransport.allCases)
    func reportsALargeBodyInMemoryAsItGoesOut(transport: UploadTransport) async throws {
        // GIVEN a body of 3 MiB held in memory, and a server that keeps what it receives
        let bytes = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL)
        request.httpMethod = "POST"
        request.setBody(.data(bytes, contentType: "application/octet-stream"))

        // WHEN it is sent straight through the transport
        let recorder = ProgressRecorder()
        let handle = transport.transport.startTransfer(request, options: TransferOptions(), receiver: recorder)
        let result = await withTimeLimit { await recorder.result }
        _ = handle

        // THEN progress grows to the whole body in several steps, as for a file (each step is
        // progress for the idle timeout too), and the server has every byte, declared by
        // Content-Length
        guard case .success(let (head, _))? = result else {
            Issue.record("the upload failed: \(String(describing: result))")
            return
        }
        #expect(head.statusCode == 201)
        Self.expectProgressInSteps(recorder.reports, toWhole: 3 << 20)
        let sent = try #require(received.withLock { $0.first })
        #expect(sent.body == bytes)
        #expect(sent.value(forHeaderField: "Content-Length") == String(3 << 20))
    }

    @Test(arguments: UploadTransport.allCases, [307, 308])
    func resendsAFileOnARedirectThatKeepsTheBody(transport: UploadTransport, status: Int) async throws {
        // GIVEN a server that redirects the first request and keeps what each one brought
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 200_000) }
        defer { file.remove() }
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try LoopbackHTTPServer { request in
            received.withLock { $0.append(request) }
            return request.path == "/first" ? .status(status, headers: ["Location": "/second"]) : .status(201)
        }
        defer { server.stop() }

        // WHEN a file is uploaded to the redirecting path
        _ = try #require(await upload(Upload(url: server.baseURL.appendingPathComponent("first"), upload: try .file(file.url)), through: transport.transport)).get()

        // THEN both requests carried the whole file
        let requests = received.withLock { $0 }
        #expect(requests.map(\.path) == ["/first", "/second"])
        let bytes = try Data(contentsOf: file.url)
        #expect(requests.allSatisfy { $0.body == bytes && $0.method == "POST" })
    }

    @Test(arguments: UploadTransport.allCases)
    func cancellingMidUploadLeavesNoFileOpen(transport: UploadTransport) async throws {
        // GIVEN a 32 MiB file sent to a server that never reads, so the upload stalls mid-file
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 32 << 20) }
        defer { file.remove() }
        let listener = try StallingListener()
        #expect(!openFilePaths().contains(file.url.path))
        var request = URLRequest(url: listener.url)
        request.httpMethod = "PUT"
        request.setBody(try .file(file.url))
        let recorder = ProgressRecorder()
        let handle = transport.transport.startTransfer(request, options: TransferOptions(), receiver: recorder)

        // WHEN the upload has started reading the file, and is cancelled
        let started = await withTimeLimit { () -> Bool in
            while !openFilePaths().contains(file.url.path) {
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
            }
            return true
        }
        #expect(started == true)
        handle.cancel()
        let result = await withTimeLimit { await recorder.result }

        // THEN it ends cancelled, and no descriptor of the file remains open
        guard case .failure(let error)? = result else {
            Issue.record("expected a cancellation, got \(String(describing: result))")
            return
        }
        #expect(ResourceError(transportError: error).isCancelled)
        let closed = await withTimeLimit { () -> Bool in
            while openFilePaths().contains(file.url.path) {
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
            }
            return true
        }
        #expect(closed == true)
    }

    @Test(arguments: UploadTransport.allCases)
    func aCancelledUploadNeverReachesTheServerWhole(transport: UploadTransport) async throws {
        // GIVEN a 32 MiB file sent to a server that reads it as fast as it comes (so that the
        // client goes on reading the file while the cancellation reaches it)
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 32 << 20) }
        defer { file.remove() }
        let server = try UploadFramingServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url)
        request.httpMethod = "PUT"
        request.setBody(try .file(file.url))
        let recorder = ProgressRecorder()
        let handle = transport.transport.startTransfer(request, options: TransferOptions(), receiver: recorder)

        // WHEN the server has read a part of the body, and the transfer is cancelled
        let midway = await withTimeLimit { () -> Bool in
            while server.outcome.bodyBytes < 256 << 10 {
                guard !server.outcome.hasEnded, (try? await Task.sleep(for: .milliseconds(5))) != nil else { return false }
            }
            return true
        }
        #expect(midway == true)
        handle.cancel()
        let result = await withTimeLimit { await recorder.result }

        // THEN the server never receives a body that looks whole but is shorter than the file
        // (a last chunk, or a complete Content-Length body, which it would store as the whole
        // file): a cancelled upload ends without the body's end. (A slow run, under a sanitizer
        // say, may send the whole file before the cancellation lands: then the body is whole.)
        guard case .failure? = result else {
            Issue.record("expected a failure, got \(String(describing: result))")
            return
        }
        let seen = await server.outcomeOnceEnded()
        #expect(seen.hasEnded)
        #expect(
            !seen.isComplete || seen.bodyBytes == 32 << 20,
            "the server received a body that looks whole, of \(seen.bodyBytes) bytes")
    }

    @Test(arguments: UploadTransport.allCases, [307, 308])
    func progressNeverGoesBackWhenARedirectResendsTheBody(transport: UploadTransport, status: Int) async throws {
        // GIVEN a server that answers a file upload with a redirect that keeps the body, then 201
        let length = 1 << 20
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: length) }
        defer { file.remove() }
        let server = try LoopbackHTTPServer { request in
            request.path == "/first" ? .status(status, headers: ["Location": "/second"]) : .status(201)
        }
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("first"))
        request.httpMethod = "PUT"
        request.setBody(try .file(file.url))

        // WHEN the file is sent twice, once to each path
        let recorder = ProgressRecorder()
        let handle = transport.transport.startTransfer(request, options: TransferOptions(), receiver: recorder)
        let result = await withTimeLimit { await recorder.result }
        _ = handle

        // THEN the receiver's counts only grow, up to the file's length
        guard case .success(let (head, _))? = result else {
            Issue.record("the upload failed: \(String(describing: result))")
            return
        }
        #expect(head.statusCode == 201)
        #expect(server.requestCount == 2)
        let sent = recorder.reports.map(\.sent)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0 <= $1 }, "\(sent)")
        #expect(sent.last == Int64(length))
        #expect(sent.allSatisfy { $0 <= Int64(length) })
    }

    #if canImport(FoundationNetworking)
    @Test func urlSessionTransportRefusesAStreamOnLinux() async throws {
        // GIVEN a stream body, which FoundationNetworking would read on the queue all sessions share
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }
        let stream = RequestBodyStream(chunkStream([Data("x".utf8)]))

        // WHEN it is sent through URLSessionTransport
        let outcome = await upload(Upload(url: server.baseURL, upload: .stream(stream)), through: URLSessionTransport())

        // THEN it fails with a typed error, nothing reaches the server, and the stream is unread
        guard case .failure(.invalidRequest(let reason))? = outcome else {
            Issue.record("expected invalidRequest, got \(String(describing: outcome))")
            return
        }
        #expect(reason.contains("AsyncHTTPClientTransport"))
        #expect(received.withLock { $0.isEmpty })
        #expect(!stream.isConsumed)
    }
    #endif

    @Test(arguments: UploadTransport.allCases)
    func sendsAMultipartFormWithAFilePart(transport: UploadTransport) async throws {
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 300_000) }
        defer { file.remove() }
        let received = Guarded<[LoopbackHTTPServer.Request]>([])
        let server = try Self.recordingServer(received)
        defer { server.stop() }
        var form = MultipartFormData()
        form.append("Lisbon", named: "city")
        try form.appendFile(at: file.url, named: "photo", fileName: "p.jpg", contentType: "image/jpeg")
        let body = try RequestBody.multipart(form)

        _ = try #require(await upload(Upload(url: server.baseURL, upload: body), through: transport.transport)).get()

        let request = try #require(received.withLock { $0.first })
        let expected = try await MultipartFormDataTests.bytes(of: body)
        #expect(request.body == expected)
        #expect(request.value(forHeaderField: "Content-Type") == form.contentType)
        transport.expectFraming(of: request, length: expected.count)
    }
}
