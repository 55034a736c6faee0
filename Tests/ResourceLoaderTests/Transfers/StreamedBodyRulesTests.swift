import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What happens to a streamed body where it would be sent again (redirects, retries), and how
/// `FakeURLSession` consumes one so that tests can check what was sent.
@Suite("Streamed bodies: resending and the fake session")
struct StreamedBodyRulesTests {
    private static let url = URL(string: "https://api.example.com/upload")!

    private static func request(with body: RequestBody) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setBody(body)
        return request
    }

    @Test(arguments: [307, 308])
    func aRedirectResendsARepeatableBodyAndRefusesAStream(status: Int) throws {
        let file = try TemporaryFile(bytes: Data("file body".utf8))
        defer { file.remove() }
        let fileRequest = Self.request(with: try .file(file.url))
        let fileDecision = TransferRules.redirect(
            statusCode: status, location: "/next", after: fileRequest, original: fileRequest, redirectsFollowed: 0, options: TransferOptions())
        guard case .follow(let next) = fileDecision else {
            Issue.record("a file body was not resent: \(fileDecision)")
            return
        }
        #expect(next.streamedBody == fileRequest.streamedBody)
        #expect(next.httpMethod == "POST")

        let streamRequest = Self.request(with: .stream(RequestBodyStream(chunkStream([Data("x".utf8)]))))
        let streamDecision = TransferRules.redirect(
            statusCode: status, location: "/next", after: streamRequest, original: streamRequest, redirectsFollowed: 0, options: TransferOptions())
        #expect(streamDecision == .refuse(.unrepeatableBody))
    }

    @Test(arguments: [307, 308])
    func aRedirectGivesTheNextRequestAStreamThatReadsTheFileAgain(status: Int) throws {
        // GIVEN a request with a file body whose stream a transport has read to its end and closed
        let bytes = Data("the file's bytes".utf8)
        let file = try TemporaryFile(bytes: bytes)
        defer { file.remove() }
        let request = Self.request(with: try .file(file.url))
        let sent = try #require(request.httpBodyStream)
        #expect(Self.drain(sent) == bytes)
        sent.close()

        // WHEN the answer redirects with a status that sends the body again
        let decision = TransferRules.redirect(
            statusCode: status, location: "/next", after: request, original: request, redirectsFollowed: 0, options: TransferOptions())
        guard case .follow(let next) = decision else {
            Issue.record("a file body was not resent: \(decision)")
            return
        }

        // THEN a transport that reads the next request's httpBodyStream sends the file whole again
        let stream = try #require(next.httpBodyStream)
        #expect(Self.drain(stream) == bytes)
        stream.close()
    }

    /// Everything `stream` reads, opening it first; stops at the end or at a failure.
    private static func drain(_ stream: InputStream) -> Data {
        stream.open()
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { return data }
            data.append(buffer, count: count)
        }
    }

    @Test func a303DropsAStreamedBody() throws {
        let request = Self.request(with: .stream(RequestBodyStream(chunkStream([Data("x".utf8)]))))
        let decision = TransferRules.redirect(
            statusCode: 303, location: "/next", after: request, original: request, redirectsFollowed: 0, options: TransferOptions())
        guard case .follow(let next) = decision else {
            Issue.record("not followed: \(decision)")
            return
        }
        #expect(next.httpMethod == "GET")
        #expect(next.httpBodyStream == nil)
        #expect(next.value(forHTTPHeaderField: "Content-Length") == nil)
    }

    @Test func theRequestDeclaresAKnownLengthAndCarriesTheBody() throws {
        let file = try TemporaryFile(bytes: Data(repeating: 7, count: 1234))
        defer { file.remove() }
        let request = Self.request(with: try .file(file.url, contentType: "application/zip"))
        #expect(request.value(forHTTPHeaderField: "Content-Length") == "1234")
        #expect(request.httpBody == nil)
        #expect(request.streamedBody?.length == 1234)
        #expect(request.hasRepeatableBody)
        let stream = Self.request(with: .stream(RequestBodyStream(chunkStream([]))))
        #expect(stream.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(!stream.hasRepeatableBody)
    }

    @Test func aMissingFileIsATypedErrorWhenTheBodyIsMade() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)")
        #expect(throws: ResourceError.self) { try RequestBody.file(missing) }
        var form = MultipartFormData()
        #expect(throws: ResourceError.self) { try form.appendFile(at: missing, named: "f") }
    }

    @Test func aSymbolicLinkToARegularFileIsSentAsThatFile() async throws {
        // GIVEN a symbolic link to a file of 5 bytes, and links to a directory and to a FIFO
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let target = scratch.file("target.bin")
        try Data("hello".utf8).write(to: target)
        let link = scratch.file("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let directoryLink = scratch.file("directory-link")
        try FileManager.default.createSymbolicLink(at: directoryLink, withDestinationURL: scratch.url)
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let fifoLink = scratch.file("fifo-link")
        try FileManager.default.createSymbolicLink(at: fifoLink, withDestinationURL: fifo)

        // WHEN a body and a form part are made of the file's link, and the body is sent
        let body = try RequestBody.file(link)
        var form = MultipartFormData()
        try form.appendFile(at: link, named: "f")
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))
        _ = try #require(await upload(Upload(url: Self.url, upload: body), through: session)).get()

        // THEN the link counts as the file it points to; links to anything else are refused
        #expect(body.length == 5)
        #expect(form.parts.first?.content == .file(link, length: 5))
        #expect(session.receivedRequests.last?.httpBody == Data("hello".utf8))
        #expect(throws: ResourceError.self) { try RequestBody.file(directoryLink) }
        #expect(throws: ResourceError.self) { try RequestBody.file(fifoLink) }
        var refused = MultipartFormData()
        #expect(throws: ResourceError.self) { try refused.appendFile(at: fifoLink, named: "f") }
    }

    @Test func aFileThatShrankFailsRatherThanSendLess() async throws {
        let file = try TemporaryFile(bytes: Data(repeating: 1, count: 10_000))
        defer { file.remove() }
        let body = try RequestBody.file(file.url)
        try Data(repeating: 1, count: 10).write(to: file.url)
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))
        let outcome = await upload(Upload(url: Self.url, upload: body), through: session)
        guard case .failure(.invalidRequest)? = outcome else {
            Issue.record("expected invalidRequest, got \(String(describing: outcome))")
            return
        }
    }

    @Test func aNegativeStreamLengthIsRefusedAndNeverDeclared() async throws {
        // GIVEN a stream that declares a negative length
        let body = RequestBody.stream(RequestBodyStream(chunkStream([Data("x".utf8)]), length: -1))

        // WHEN it is set on a request, and sent by a resource
        let request = Self.request(with: body)
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))
        let outcome = await upload(Upload(url: Self.url, upload: body), through: session)

        // THEN no `Content-Length` is declared, and the resource is refused with a typed error
        #expect(body.length == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == nil)
        guard case .failure(.invalidRequest)? = outcome else {
            Issue.record("expected invalidRequest, got \(String(describing: outcome))")
            return
        }
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func aBodyThatFailedToReadFailsATransferTheTransportCallsASuccess() async throws {
        // GIVEN a file body whose file shrank, read by a transport's stream until the read fails
        let file = try TemporaryFile(bytes: Data(repeating: 1, count: 10_000))
        defer { file.remove() }
        let body = try RequestBody.file(file.url)
        try Data(repeating: 1, count: 10).write(to: file.url)
        let recorder = ProgressRecorder()
        let receiver = StreamedBodyReceiver(recorder, body: body)
        let stream = RequestBodyInputStream(body: body)
        receiver.add(stream)
        // A file read does not wait for anything else, so it may block this thread briefly.
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var count = 0
        repeat { count = stream.read(&buffer, maxLength: buffer.count) } while count > 0
        #expect(count == -1)

        // WHEN the transport reports a response and a success all the same
        _ = receiver.transferDidReceive(head: ResponseHead(statusCode: 201, url: Self.url, headerFields: []))
        receiver.transferDidComplete(with: nil)

        // THEN the transfer fails with why the body could not be read
        let result = await recorder.result
        guard case .failure(let error) = result, case .invalidRequest? = error as? ResourceError else {
            Issue.record("expected invalidRequest, got \(result)")
            return
        }
    }

    @Test func theFakeSessionConsumesAStreamAndRecordsItsBytes() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))
        let chunks = (0..<5).map { Data(repeating: UInt8($0), count: 1000) }
        let stream = RequestBodyStream(chunkStream(chunks), length: 5000)

        _ = try #require(await upload(Upload(url: Self.url, upload: .stream(stream)), through: session)).get()

        #expect(session.receivedRequests.last?.httpBody == chunks.reduce(Data(), +))
        #expect(stream.isConsumed)
    }

    @Test func aStreamIsSentOnceThenRefused() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))
        let resource = Upload(url: Self.url, upload: .stream(RequestBodyStream(chunkStream([Data("once".utf8)]))))
        _ = try #require(await upload(resource, through: session)).get()
        let second = await upload(resource, through: session)
        guard case .failure(.invalidRequest(let reason))? = second else {
            Issue.record("expected invalidRequest, got \(String(describing: second))")
            return
        }
        #expect(reason.contains("sent already"))
        #expect(session.receivedRequests.count == 1)
    }

    @Test func aStreamThatBreaksItsDeclaredLengthFails() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))
        let short = RequestBodyStream(chunkStream([Data("short".utf8)]), length: 100)
        let long = RequestBodyStream(chunkStream([Data("much too long".utf8)]), length: 4)
        for stream in [short, long] {
            let outcome = await upload(Upload(url: Self.url, upload: .stream(stream)), through: session)
            guard case .failure(.invalidRequest(let reason))? = outcome else {
                Issue.record("expected invalidRequest, got \(String(describing: outcome))")
                continue
            }
            #expect(reason.contains("declared"))
        }
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func aRetryResendsAFileWhole() async throws {
        let file = try TemporaryFile(bytes: Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) }))
        defer { file.remove() }
        let session = FakeURLSession()
        session.stub(.any, with: [.status(503), .status(201)])
        let pipeline = ResourcePipeline(session: session)
        var resource = Upload(url: Self.url, upload: try .file(file.url))
        resource.retries = RetryPolicy(maximumAttempts: 2, baseDelay: .zero, retryableMethods: [.post])

        _ = try #require(await upload(resource, with: ResourceService(pipeline: pipeline))).get()

        let bytes = try Data(contentsOf: file.url)
        #expect(session.receivedRequests.map(\.httpBody) == [bytes, bytes])
    }

    @Test func aRetryIsNotMadeWithAStreamThatWasRead() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: [.status(503), .status(201)])
        let pipeline = ResourcePipeline(session: session)
        var resource = Upload(url: Self.url, upload: .stream(RequestBodyStream(chunkStream([Data("once".utf8)]))))
        resource.retries = RetryPolicy(maximumAttempts: 3, baseDelay: .zero, retryableMethods: [.post])

        let outcome = await upload(resource, with: ResourceService(pipeline: pipeline))

        guard case .failure(.httpStatus(let failure))? = outcome else {
            Issue.record("expected the 503 to stand, got \(String(describing: outcome))")
            return
        }
        #expect(failure.statusCode == 503)
        #expect(session.receivedRequests.count == 1)
    }
}

/// Closing a reader while its read waits on a file that may never answer.
@Suite("Streamed bodies: closing a reader while it reads a file")
struct RequestBodyReaderCloseTests {
    @Test func closingAReaderWhoseFileIsAFIFOReturnsWhileTheReadWaits() async throws {
        // GIVEN a body whose file segment names a FIFO that nobody writes to, read on a thread of
        // its own
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let reader = RequestBody(content: .file(fifo, length: 10), contentType: nil).makeReader()
        let readStarted = DispatchSemaphore(value: 0)
        let readEnded = DispatchSemaphore(value: 0)
        let outcome = Guarded<Result<Data?, ResourceError>?>(nil)
        Thread {
            readStarted.signal()
            let result = Result { () throws(ResourceError) -> Data? in try reader.read() }
            outcome.withLock { $0 = result }
            readEnded.signal()
        }.start()

        // WHEN the reader is closed from another thread once the read has had time to start
        let closed = try await offTheCooperativePool { () -> Bool in
            readStarted.wait()
            Thread.sleep(forTimeInterval: 0.2)
            let done = DispatchSemaphore(value: 0)
            Thread {
                reader.close()
                done.signal()
            }.start()
            return done.wait(timeout: .now() + 5) == .success
        }
        // A writer comes and goes, so that a read still waiting for the FIFO ends.
        let writer = open(fifo.path, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        let ended = try await offTheCooperativePool { readEnded.wait(timeout: .now() + 10) == .success }

        // THEN close returned while the read waited, and the read failed: cancelled, or the FIFO
        // refused
        #expect(closed, "close() waited for the read of the FIFO")
        #expect(ended)
        switch outcome.withLock({ $0 }) {
        case .failure(.cancelled)?, .failure(.invalidRequest)?: break
        case let other: Issue.record("expected cancelled or invalidRequest, got \(String(describing: other))")
        }
    }
}

/// How far the task that iterates a stream runs ahead of the thread that sends it.
@Suite("Streamed bodies: the stream's task runs a bounded way ahead")
struct StreamLookAheadTests {
    /// An endless sequence of 1 KiB chunks that counts the chunks taken from it.
    struct CountedChunks: AsyncSequence, Sendable {
        let taken: Guarded<Int>

        struct AsyncIterator: AsyncIteratorProtocol {
            let taken: Guarded<Int>
            mutating func next() async -> Data? {
                taken.withLock { $0 += 1 }
                return Data(repeating: 0x61, count: 1024)
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(taken: taken) }
    }

    @Test func aStreamNobodyReadsStopsAfterAQuarterMebibyteAhead() async throws {
        // GIVEN an endless stream of 1 KiB chunks, whose reader takes one piece and then no more
        let taken = Guarded(0)
        let body = RequestBody.stream(RequestBodyStream(CountedChunks(taken: taken)))
        let reader = body.makeReader()
        defer { reader.close() }
        let first = try await offTheCooperativePool { try reader.read(upTo: 1024) }
        #expect(first?.count == 1024)

        // WHEN the stream's task has had time to run as far ahead as it will
        #expect(await eventually { taken.withLock { $0 } >= 256 })
        try await Task.sleep(for: .milliseconds(200))

        // THEN it took 256 KiB of chunks ahead of the one read, and one chunk more at most
        let count = taken.withLock { $0 }
        #expect((257...258).contains(count), "\(count) chunks taken")
    }
}

@Suite("Streamed bodies: a failing stream")
struct FailingBodyStreamTests {
    /// An error whose description would quote what it holds.
    struct Leaky: Error, CustomStringConvertible {
        let token = "secret-token-4711"
        var description: String { "Leaky(\(token))" }
    }

    @Test func aStreamThatThrowsFailsTheReadWithoutQuotingItsError() async throws {
        // GIVEN a stream whose sequence throws an error that holds a secret
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("a".utf8))
            continuation.finish(throwing: Leaky())
        }
        let reader = RequestBody.stream(RequestBodyStream(chunks)).makeReader()
        defer { reader.close() }
        // WHEN it is read to the failure
        let outcome = try await offTheCooperativePool { () -> Result<Void, ResourceError> in
            do throws(ResourceError) {
                while try reader.read() != nil {}
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        // THEN the read fails with invalidRequest, whose description names the error's type only
        guard case .failure(let error) = outcome, case .invalidRequest = error else {
            Issue.record("expected invalidRequest, got \(outcome)")
            return
        }
        #expect(!error.description.contains("secret"))
        #expect(error.description.contains("Leaky"))
    }
}

/// How a ``RequestBodyInputStream`` reports its end, a failure and a close before its end to
/// whoever reads it (FoundationNetworking reads it as `hasBytesAvailable`, then `read`: `0` is
/// the end of the body, `-1` a failure).
@Suite("Streamed bodies: the input stream's end")
struct RequestBodyInputStreamTests {
    private static func read(_ stream: RequestBodyInputStream, maxLength: Int) -> Int {
        var buffer = [UInt8](repeating: 0, count: max(1, maxLength))
        return stream.read(&buffer, maxLength: maxLength)
    }

    @Test func aStreamClosedBeforeItsEndReadsAsAFailureNotAsTheEnd() {
        // GIVEN a stream of 10 bytes, opened and read in part
        let stream = RequestBodyInputStream(body: .data(Data(repeating: 7, count: 10), contentType: nil))
        stream.open()
        #expect(Self.read(stream, maxLength: 4) == 4)

        // WHEN it is closed before its end (as a cancelled transfer closes it)
        stream.close()

        // THEN a reader that asks is told to read, and the read fails with an error: the body
        // never looks whole
        #expect(stream.hasBytesAvailable)
        #expect(Self.read(stream, maxLength: 16) == -1)
        #expect(stream.streamError != nil)
        #expect(stream.readFailure?.isCancelled == true)
    }

    @Test func aStreamClosedAfterItsEndStillReadsAsTheEnd() {
        let stream = RequestBodyInputStream(body: .data(Data(repeating: 7, count: 10), contentType: nil))
        stream.open()
        #expect(Self.read(stream, maxLength: 16) == 10)
        #expect(Self.read(stream, maxLength: 16) == 0)

        stream.close()

        #expect(!stream.hasBytesAvailable)
        #expect(Self.read(stream, maxLength: 16) == 0)
        #expect(stream.streamError == nil)
    }

    @Test func aStreamThatFailedKeepsFailing() throws {
        // GIVEN a file body whose file shrank after the body was made
        let file = try TemporaryFile(bytes: Data(repeating: 1, count: 10_000))
        defer { file.remove() }
        let stream = RequestBodyInputStream(body: try .file(file.url))
        try Data(repeating: 1, count: 10).write(to: file.url)
        stream.open()

        // WHEN it is read past what the file has
        var results: [Int] = []
        for _ in 0..<3 { results.append(Self.read(stream, maxLength: 20_000)) }

        // THEN the failure is reported, and every read after it fails too: never a `0`
        #expect(results.first == 10)
        #expect(results.dropFirst().allSatisfy { $0 == -1 })
        #expect(stream.hasBytesAvailable)
        #expect(stream.streamError != nil)
    }

    @Test func aReaderAskedForNoBytesReadsNone() throws {
        // GIVEN a reader of a 10-byte body
        let bytes = Data((0..<10).map { UInt8($0) })
        let reader = RequestBody.data(bytes, contentType: nil).makeReader()

        // WHEN it is asked for zero bytes, or fewer
        // THEN it returns no bytes, reads none, and the body is not at its end
        #expect(try reader.read(upTo: 0) == Data())
        #expect(try reader.read(upTo: -1) == Data())
        #expect(reader.bytesRead == 0)
        // AND the whole body is still there for the next read
        #expect(try reader.read(upTo: 16) == bytes)
        #expect(try reader.read(upTo: 16) == nil)
    }

    @Test func aReadOfNoBytesDoesNotEndTheStream() {
        let stream = RequestBodyInputStream(body: .data(Data(repeating: 7, count: 10), contentType: nil))
        stream.open()

        #expect(Self.read(stream, maxLength: 0) == 0)

        #expect(stream.hasBytesAvailable)
        #expect(stream.streamStatus == .open)
        #expect(Self.read(stream, maxLength: 16) == 10)
        #expect(Self.read(stream, maxLength: 16) == 0)
        #expect(stream.streamStatus == .atEnd)
    }
}
