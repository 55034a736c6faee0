import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download whose model is made from the file by a step that fails.
struct UnparsableDownload: DownloadResourceType {
    struct Unreadable: Error {}
    typealias Model = Int
    var url: URL
    var destination: URL

    func model(fromFileAt url: URL, response: ResponseHead) throws -> Int { throw Unreadable() }
}

/// A transport that hands over a whole `200` body at once, but ends the transfer only `delay`
/// after it started, whatever happens meanwhile: a transport that completes late.
final class LateCompletingTransport: HTTPTransport {
    final class Handle: Cancellable { func cancel() {} }

    let body: Data
    let delay: Duration
    let failure: (any Error)?
    /// Signalled once the receiver has been told the transfer ended.
    let completed = DispatchSemaphore(value: 0)

    init(body: Data, delay: Duration, failure: (any Error)?) {
        self.body = body
        self.delay = delay
        self.failure = failure
    }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        let head = ResponseHead(
            statusCode: 200, url: request.url, headerFields: [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]
        )
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().async { [body, failure, completed] in
            if case .proceed = receiver.transferDidReceive(head: head) {
                _ = receiver.transferDidReceive(failure == nil ? body : body.prefix(body.count / 2))
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                receiver.transferDidComplete(with: failure)
                completed.signal()
            }
        }
        return Handle()
    }
}

/// A transport that runs each attempt as a script of its own, on a background queue: what the
/// receiver is handed, and when.
final class ScriptedAttemptsTransport: HTTPTransport {
    final class Handle: Cancellable { func cancel() {} }

    typealias Attempt = @Sendable (_ request: URLRequest, _ receiver: any TransferReceiver) -> Void

    // `attempts` is a `Locked`: its lock guards the scripts not yet run.
    private let attempts: Locked<[Attempt]>
    // `started` is a `Locked`: its lock guards the count of transfers started.
    private let started = Locked(0)
    /// Signalled once for each transfer whose script has run to its end.
    private let finished = DispatchSemaphore(value: 0)

    init(_ attempts: [Attempt]) {
        self.attempts = Locked(attempts)
    }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        started.withLock { $0 += 1 }
        let attempt = attempts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        DispatchQueue.global().async { [finished] in
            if let attempt {
                attempt(request, receiver)
            } else {
                receiver.transferDidComplete(with: URLError(.cannotConnectToHost))
            }
            finished.signal()
        }
        return Handle()
    }

    /// Waits until every transfer started so far has run to its end.
    func waitForStartedAttempts() async {
        let count = started.withLock { $0 }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [finished] in
                for _ in 0..<count { finished.wait() }
                continuation.resume()
            }
        }
    }
}

/// Documented outcomes of downloads: content-coded bodies and digests, a model that cannot be
/// made, cancellation of a download that keeps its partial file, a resumed download's progress
/// and digests, and a transport that completes after the outcome.
@Suite("Downloads: coded bodies, models, cancellation, resumed progress and digests, late transports")
struct DownloadOutcomeTests {
    /// `count` bytes that gzip barely shrinks, so a cut coded body has decoded bytes written.
    static func incompressible(_ count: Int) -> Data {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return Data((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
    }

    /// A partial file of `body`'s first `count` bytes, kept with the strong entity tag `"v1"`.
    static func partial(of body: Data, count: Int, in scratch: ScratchDirectory) throws -> ResumableDownload {
        let url = scratch.file(".data.bin.partial")
        try body.prefix(count).write(to: url)
        return ResumableDownload(partialFile: url, byteCount: Int64(count), validator: .entityTag("\"v1\""), expectedLength: Int64(body.count))
    }

    // MARK: - Content coding

    @Test(arguments: ["Content-Digest", "Repr-Digest"])
    func aCodedResponseIsPlacedWhateverItsDigestOfTheCodedBytesSays(field: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a gzip body whose digest field describes its coded bytes, not the decoded file
        let body = Self.incompressible(40_000)
        let gzipped = Data(Compressor.compress(Array(body), .gzip))
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: [
            "Content-Encoding": "gzip", "Content-Length": "\(gzipped.count)", field: DownloadFixtures.digestField(gzipped),
        ], body: gzipped).inPieces(4))

        // WHEN it is downloaded
        let placed = try await DownloadService<TestDownload>(session: session).fetch(
            TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        )

        // THEN the digest is not checked against the decoded file, which is placed
        #expect(try Data(contentsOf: placed) == body)
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test func aCutCodedResponseIsNotKeptToResume() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a gzip body with a strong ETag, cut half-way, for a resource that keeps partials
        let body = Self.incompressible(60_000)
        let gzipped = Data(Compressor.compress(Array(body), .gzip))
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: [
            "Content-Encoding": "gzip", "Content-Length": "\(gzipped.count)", "ETag": "\"v1\"",
        ], body: gzipped).inPieces(10).cut(afterBytes: gzipped.count / 2))
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await DownloadService<TestDownload>(session: session).fetch(resource) }

        // THEN the decoded bytes, which a range of coded bytes cannot continue, are not kept
        if case .downloadInterrupted(let partial, _) = error { Issue.record("kept a coded body to resume: \(partial)") }
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    // MARK: - The model

    @Test func aModelThatCannotBeMadeIsAParsingErrorAndTheFileStaysPlaced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(5_000)
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Content-Length": "5000"], body: body))
        let resource = UnparsableDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))

        let error = await #expect(throws: ResourceError.self) { try await DownloadService<UnparsableDownload>(session: session).fetch(resource) }

        guard case .parsing(let failure) = error else {
            Issue.record("expected parsing, got \(String(describing: error))")
            return
        }
        #expect(failure.underlying is UnparsableDownload.Unreadable)
        #expect(try Data(contentsOf: resource.destination) == body)
        #expect(scratch.contents() == ["data.bin"])
    }

    // MARK: - Cancellation

    /// Waits until a file in `scratch` holds at least `count` bytes.
    static func waitForFile(in scratch: ScratchDirectory, holding count: Int) async throws {
        for _ in 0..<1_000 {
            let sizes = scratch.contents().compactMap { name in
                (try? FileManager.default.attributesOfItem(atPath: scratch.file(name).path)[.size]) as? Int
            }
            if sizes.contains(where: { $0 >= count }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no file reached \(count) bytes")
    }

    @Test(arguments: ["Task", "TransferTask", "callback"])
    func cancellingADownloadThatKeepsItsPartialFileReportsItInterruptedByTheCancellation(_ api: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a server that sends 30,000 of 100,000 bytes, then pauses
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            .script([
                .write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(30_000)),
                .pause(.seconds(20)),
                .close,
            ])
        }
        defer { server.stop() }
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        // WHEN the download is cancelled through `api` once those bytes are written
        let result: Result<URL, ResourceError>
        switch api {
        case "Task":
            let task = Task { () async -> Result<URL, ResourceError> in
                do throws(ResourceError) { return .success(try await service.fetch(resource)) } catch { return .failure(error) }
            }
            try await Self.waitForFile(in: scratch, holding: 30_000)
            task.cancel()
            result = await task.value
        case "TransferTask":
            let task = service.fetchTask(resource)
            try await Self.waitForFile(in: scratch, holding: 30_000)
            task.cancel()
            do throws(ResourceError) { result = .success(try await task.value) } catch { result = .failure(error) }
        default:
            let (stream, continuation) = AsyncStream.makeStream(of: Result<URL, ResourceError>.self)
            let handle = service.fetch(resource, callbackQueue: DispatchQueue(label: "completion")) { outcome in
                continuation.yield(outcome)
                continuation.finish()
            }
            try await Self.waitForFile(in: scratch, holding: 30_000)
            handle.cancel()
            var iterator = stream.makeAsyncIterator()
            result = try #require(await iterator.next())
        }

        // THEN it fails as interrupted by the cancellation, with the partial file kept
        guard case .failure(.downloadInterrupted(let partial, underlying: .cancelled)) = result else {
            Issue.record("expected downloadInterrupted after cancelled, got \(result)")
            return
        }
        #expect(partial.byteCount == 30_000)
        #expect(try Data(contentsOf: partial.partialFile) == body.prefix(30_000))
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [false, true])
    func aFinishedFileStoppedBeforeItIsPlacedIsKeptWithEveryByte(byDeadline: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a transport that hands over a whole 20,000-byte body under a strong ETag at once,
        // but ends the transfer 300 ms later, for a resource that keeps partial files; with a
        // deadline of 100 ms, or none that passes
        let body = DownloadFixtures.body(20_000)
        let transport = LateCompletingTransport(body: body, delay: .milliseconds(300), failure: nil)
        let options = byDeadline ? TransferOptions(deadline: .milliseconds(100)) : TransferOptions()
        let service = DownloadService<TestDownload>(session: transport, options: options)
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        // WHEN the download is cancelled once the whole body is written, or its deadline passes,
        // before the transfer ends
        let task = Task { () async -> Result<URL, ResourceError> in
            do throws(ResourceError) { return .success(try await service.fetch(resource)) } catch { return .failure(error) }
        }
        if !byDeadline {
            try await Self.waitForFile(in: scratch, holding: 20_000)
            task.cancel()
        }
        let result = await task.value

        // THEN it fails as interrupted by what stopped it, with the finished file kept whole
        guard case .failure(.downloadInterrupted(let partial, let underlying)) = result else {
            Issue.record("expected downloadInterrupted, got \(result)")
            return
        }
        if byDeadline {
            guard case .timedOut = underlying else { Issue.record("expected timedOut, got \(underlying)"); return }
        } else {
            guard case .cancelled = underlying else { Issue.record("expected cancelled, got \(underlying)"); return }
        }
        #expect(partial.byteCount == 20_000)
        #expect(try Data(contentsOf: partial.partialFile) == body)
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    // MARK: - A resumed download's progress

    @Test func aResumedDownloadsProgressCountsThePartialFileAgainstTheWholeLength() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(10_000)
        let session = FakeURLSession()
        session.stub(.any, with: .status(206, headers: [
            "ETag": "\"v1\"", "Content-Range": "bytes 4000-9999/10000", "Content-Length": "6000",
        ], body: body.dropFirst(4_000)).inPieces(6))
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: 4_000, in: scratch)
        let seen = Locked<[TransferProgress]>([])

        let placed = try await DownloadService<TestDownload>(session: session).fetch(resource, progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress) }
        }

        #expect(try Data(contentsOf: placed) == body)
        let values = seen.withLock { $0 }
        #expect(values.map(\.completedBytes) == stride(from: 4_000, through: 10_000, by: 1_000).map { Int64($0) })
        #expect(values.allSatisfy { $0.totalBytes == 10_000 && $0.direction == .download && $0.counting == .bodyBytes })
    }

    @Test func aResumedDownloadCompletedByA416ReportsTheWholeLengthAsItsFinalValue() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(10_000)
        let session = FakeURLSession()
        session.stub(.any, with: .status(416, headers: ["Content-Range": "bytes */10000", "Content-Length": "0"], body: Data()))
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: 10_000, in: scratch)

        let task = DownloadService<TestDownload>(session: session).fetchTask(resource)
        var values: [TransferProgress] = []
        for await progress in task.progress { values.append(progress) }
        let placed = try await task.value

        #expect(try Data(contentsOf: placed) == body)
        #expect(values == [TransferProgress(direction: .download, completedBytes: 10_000, totalBytes: 10_000)])
    }

    // MARK: - A resumed download's digests

    @Test func aPartialFileA416CompletesThatIsNotTheExpectedSHA256IsRemovedAndNothingPlaced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(10_000)
        let session = FakeURLSession()
        session.stub(.any, with: .status(416, headers: ["Content-Range": "bytes */10000", "Content-Length": "0"], body: Data()))
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: 10_000, in: scratch)
        resource.keepsPartialFile = true
        resource.expectedSHA256 = SHA256Digest(of: DownloadFixtures.body(10_000, seed: 99))

        let error = await #expect(throws: ResourceError.self) { try await DownloadService<TestDownload>(session: session).fetch(resource) }

        guard case .integrityMismatch(let failure) = error else {
            Issue.record("expected integrityMismatch, got \(String(describing: error))")
            return
        }
        #expect(failure.source == .expectedSHA256)
        #expect(failure.actual == SHA256Digest(of: body))
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aResumed206ThatIsNotItsReprDigestIsRemovedAndNothingPlaced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(10_000)
        let session = FakeURLSession()
        session.stub(.any, with: .status(206, headers: [
            "ETag": "\"v1\"", "Content-Range": "bytes 4000-9999/10000", "Content-Length": "6000",
            "Repr-Digest": DownloadFixtures.digestField(DownloadFixtures.body(10_000, seed: 99)),
        ], body: body.dropFirst(4_000)))
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: 4_000, in: scratch)
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await DownloadService<TestDownload>(session: session).fetch(resource) }

        guard case .integrityMismatch(let failure) = error else {
            Issue.record("expected integrityMismatch, got \(String(describing: error))")
            return
        }
        #expect(failure.source == .reprDigest)
        #expect(failure.actual == SHA256Digest(of: body))
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    // MARK: - A transport that completes late

    @Test(arguments: [false, true])
    func whatATransportLeavesAfterTheOutcomeWentWithoutItIsRemoved(cut: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a transport that ends the transfer 5 s after it started (a whole body, or a
        // cut one with a strong ETag for a resource that keeps partial files), a deadline of
        // 100 ms, and an outcome that waits 50 ms for the transport (the margin keeps a machine
        // under load from letting the transport complete before the outcome is settled)
        let transport = LateCompletingTransport(
            body: DownloadFixtures.body(20_000), delay: .seconds(5), failure: cut ? URLError(.networkConnectionLost) : nil
        )
        let service = DownloadService<TestDownload>(
            session: transport, options: TransferOptions(deadline: .milliseconds(100)), pipeline: nil, writer: .system,
            settleBound: .milliseconds(50)
        )
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.keepsPartialFile = cut

        // WHEN the download times out before the transport completes
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        // THEN the outcome carries no partial file, and once the transport completes, what it
        // left is removed
        guard case .timedOut = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                transport.completed.wait()
                continuation.resume()
            }
        }
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    /// What a retry that outlives the wait for it does with the partial file the attempt before
    /// it kept: removes it (a `206` of another version), starts it over (a `200`), each on a head
    /// that comes before the wait runs out or after it.
    static let lateRetries: [(status: Int, headAfter: Duration)] = [
        (206, .zero), (200, .zero), (206, .seconds(1)), (200, .seconds(1)),
    ]

    @Test(arguments: 0..<lateRetries.count)
    func aPartialFileReportedAfterTheWaitRanOutIsAsTheRecordSays(_ index: Int) async throws {
        let (status, headAfter) = Self.lateRetries[index]
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a download that keeps partial files, whose first attempt is cut after 10,000 of
        // 20,000 bytes, and whose retry gets its head at once or after 1 s, then completes 1.5 s
        // later: a 206 of another version (which removes the partial file), or a 200 that starts
        // it over and writes 5,000 bytes; a deadline of 500 ms, and an outcome that waits 100 ms
        // for the transport
        let body = DownloadFixtures.body(20_000)
        let transport = ScriptedAttemptsTransport([
            { request, receiver in
                let head = ResponseHead(statusCode: 200, url: request.url, headerFields: [("ETag", "\"v1\""), ("Content-Length", "20000")])
                if case .proceed = receiver.transferDidReceive(head: head) { _ = receiver.transferDidReceive(body.prefix(10_000)) }
                receiver.transferDidComplete(with: URLError(.networkConnectionLost))
            },
            { request, receiver in
                Thread.sleep(forTimeInterval: Double(headAfter.components.attoseconds) / 1e18 + Double(headAfter.components.seconds))
                let head = status == 206
                    ? ResponseHead(statusCode: 206, url: request.url, headerFields: [
                        ("ETag", "\"v2\""), ("Content-Range", "bytes 10000-19999/20000"), ("Content-Length", "10000"),
                    ])
                    : ResponseHead(statusCode: 200, url: request.url, headerFields: [("ETag", "\"v1\""), ("Content-Length", "20000")])
                if case .proceed = receiver.transferDidReceive(head: head) { _ = receiver.transferDidReceive(body.prefix(5_000)) }
                Thread.sleep(forTimeInterval: 1.5)
                receiver.transferDidComplete(with: URLError(.networkConnectionLost))
            },
        ])
        let options = TransferOptions(deadline: .milliseconds(500))
        let pipeline = ResourcePipeline(session: transport, options: options, retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .zero))
        let service = DownloadService<TestDownload>(
            session: transport, options: options, pipeline: pipeline, writer: .system, settleBound: .milliseconds(100)
        )
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        // WHEN the retry outlives the deadline and the wait
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        await transport.waitForStartedAttempts()

        // THEN a partial file the error reports is, once the retry has finished, the one its
        // record describes; anything else is removed
        switch error {
        // (Under load the cut of the first attempt can come after the deadline: the outcome is
        // then that cut, with the partial file it kept.)
        case .downloadInterrupted(let kept, _)?:
            #expect(kept.byteCount > 0)
            #expect((try? Data(contentsOf: kept.partialFile)) == body.prefix(Int(kept.byteCount)))
            #expect(scratch.contents() == [kept.partialFile.lastPathComponent])
        case .timedOut?:
            #expect(scratch.contents().isEmpty)
        default:
            Issue.record("expected timedOut or downloadInterrupted, got \(String(describing: error))")
        }
        #expect(scratch.openDescriptors().isEmpty)
    }
}
