import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download whose attempts a pipeline retries: what becomes of the partial file being resumed
/// between attempts, what the error reports, and what the monitors are told.
@Suite("Download retries: the partial file across attempts, the outcome, the monitors")
struct DownloadRetryTests {
    /// A resource resuming `abcd` (4 of 8 bytes, kept under `"v1"`) into `data.bin`.
    static func resuming(in scratch: ScratchDirectory, keepsPartialFile: Bool = false) throws -> TestDownload {
        let partial = scratch.file(".data.bin.partial")
        try Data("abcd".utf8).write(to: partial)
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = ResumableDownload(partialFile: partial, byteCount: 4, validator: .entityTag("\"v1\""), expectedLength: 8)
        resource.keepsPartialFile = keepsPartialFile
        return resource
    }

    /// The `206` that carries the rest from byte `start` (`efgh` from byte 4) under `etag`.
    static func rest(from start: Int = 4, etag: String = "\"v1\"") -> FakeResponse {
        let part = Data("abcdefgh".utf8).dropFirst(start)
        return .status(206, headers: ["ETag": etag, "Content-Range": "bytes \(start)-7/8", "Content-Length": "\(part.count)"], body: Data(part))
    }

    /// A service whose pipeline runs on `session`, retrying once at once.
    static func service(_ session: FakeURLSession, monitors: [any FetchMonitor] = []) -> DownloadService<TestDownload> {
        let pipeline = ResourcePipeline(
            session: session, retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .zero), monitors: monitors
        )
        return DownloadService<TestDownload>(pipeline: pipeline)
    }

    static let firstAttempts: [FakeResponse] = [
        .status(503, body: Data("busy".utf8)),
        .error(URLError(.cannotConnectToHost)),
    ]

    @Test(arguments: [false, true], 0..<firstAttempts.count)
    func aResumeRetriedAfterAnAttemptWithoutTheBodyStillHasItsPartialFile(keepsPartialFile: Bool, first: Int) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume whose first attempt is answered 503, or cannot connect, and whose retry
        // is answered with the rest
        let resource = try Self.resuming(in: scratch, keepsPartialFile: keepsPartialFile)
        let session = FakeURLSession()
        session.stub(.any, with: [Self.firstAttempts[first], Self.rest()])

        // WHEN it is downloaded
        let placed = try await Self.service(session).fetch(resource)

        // THEN the retry continues the partial file the first attempt left alone
        #expect(try Data(contentsOf: placed) == Data("abcdefgh".utf8))
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aResumeRetriedAfterACutContinuesThePartialFileWithoutKeepingIt() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume that does not keep partial files, whose first 206 is cut after 2 bytes
        let resource = try Self.resuming(in: scratch)
        let session = FakeURLSession()
        session.stub(.any, with: [Self.rest().cut(afterBytes: 2), Self.rest(from: 6)])

        // WHEN it is downloaded
        let placed = try await Self.service(session).fetch(resource)

        // THEN the retry asks for the bytes after the 6 the cut left, and its 206 continues them
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "Range") } == ["bytes=4-", "bytes=6-"])
        #expect(try Data(contentsOf: placed) == Data("abcdefgh".utf8))
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test(arguments: [false, true])
    func aResumeWhoseRetriesAllFailRemovesThePartialFileUnlessItIsKept(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume answered 503 twice
        let resource = try Self.resuming(in: scratch, keepsPartialFile: keepsPartialFile)
        let session = FakeURLSession()
        session.stub(.any, with: [.status(503), .status(503)])

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await Self.service(session).fetch(resource) }

        // THEN the final outcome decides: the partial file goes with the error when kept, and
        // is removed otherwise
        #expect(error?.statusCode == 503)
        if keepsPartialFile {
            guard case .downloadInterrupted(let kept, _) = error else {
                Issue.record("expected the partial file reported, got \(String(describing: error))")
                return
            }
            #expect(kept == resource.resumeFrom)
            #expect(try Data(contentsOf: kept.partialFile) == Data("abcd".utf8))
            #expect(scratch.contents() == [".data.bin.partial"])
        } else {
            if case .downloadInterrupted = error { Issue.record("reported a partial file it does not keep: \(String(describing: error))") }
            #expect(scratch.contents().isEmpty)
        }
    }

    @Test func aRetryThatRemovesThePartialFileAnEarlierAttemptKeptReportsItsOwnOutcome() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume keeping partial files, whose first 206 is cut after 2 bytes (kept, 6
        // bytes) and whose retry carries another validator (the partial file is removed)
        let resource = try Self.resuming(in: scratch, keepsPartialFile: true)
        let session = FakeURLSession()
        session.stub(.any, with: [Self.rest().cut(afterBytes: 2), Self.rest(from: 6, etag: "\"v2\"")])

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await Self.service(session).fetch(resource) }

        // THEN the error is the retry's, and names no partial file: there is none
        guard case .resumeRefused(.validatorChanged) = error else {
            Issue.record("expected resumeRefused(validatorChanged), got \(String(describing: error))")
            return
        }
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    // MARK: - A retried answer the resource accepts

    /// A service whose pipeline runs on `session`, retrying a `202` or a `503` once at once.
    static func retrying202(_ session: FakeURLSession) -> DownloadService<TestDownload> {
        let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .zero, retryableStatusCodes: [202, 503])
        return DownloadService<TestDownload>(pipeline: ResourcePipeline(session: session, retryPolicy: policy))
    }

    @Test func aFileAnAttemptFinishedIsNotPlacedWhenTheRetryAfterItFails() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a download whose first attempt is a 202 the pipeline retries (its body written
        // to a file), and whose retry is answered 503
        let session = FakeURLSession()
        session.stub(.any, with: [.status(202, body: Data("pending".utf8)), .status(503, body: Data("busy".utf8))])
        let resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await Self.retrying202(session).fetch(resource) }

        // THEN the outcome is the retry's, and the first attempt's file is gone
        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 503)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aFileAnAttemptFinishedIsRemovedWhenTheRetryAfterItIsPlaced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a download whose first attempt is a 202 the pipeline retries (its body written
        // to a file), and whose retry is answered 200
        let session = FakeURLSession()
        session.stub(.any, with: [.status(202, body: Data("pending".utf8)), .status(200, body: Data("done".utf8))])
        let resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))

        // WHEN it is downloaded
        let placed = try await Self.retrying202(session).fetch(resource)

        // THEN the retry's file is placed, and the first attempt's is gone
        #expect(try Data(contentsOf: placed) == Data("done".utf8))
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    // MARK: - Each retry resumes the partial file as the attempts before it left it

    /// The representations a loopback server's attempts serve: 100,000 bytes under `"v1"` (the
    /// one the partial file being resumed was cut from), and another version of them.
    /// (Made when asked for, not kept in a static: a `Data` held by a global is reported as a
    /// leak by LeakSanitizer.)
    static var current: Data { DownloadFixtures.body(100_000) }
    static var other: Data { DownloadFixtures.body(100_000, seed: 99) }

    /// A loopback server whose first attempt is answered by `first` and every later one by
    /// `later`, keeping the requests.
    static func server(
        first: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response,
        later: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response
    ) throws -> (LoopbackHTTPServer, Locked<[LoopbackHTTPServer.Request]>) {
        let requests = Locked<[LoopbackHTTPServer.Request]>([])
        let server = try LoopbackHTTPServer { request in
            let isFirst = requests.withLock { list -> Bool in
                list.append(request)
                return list.count == 1
            }
            return isFirst ? first(request) : later(request)
        }
        return (server, requests)
    }

    /// A resource resuming the first `count` bytes of ``current`` (kept under `"v1"`) from
    /// `server`.
    static func resuming(_ count: Int, from server: LoopbackHTTPServer, in scratch: ScratchDirectory, keepsPartialFile: Bool) throws -> TestDownload {
        let partial = scratch.file(".data.bin.partial")
        try current.prefix(count).write(to: partial)
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.resumeFrom = ResumableDownload(
            partialFile: partial, byteCount: Int64(count), validator: .entityTag("\"v1\""), expectedLength: Int64(current.count)
        )
        resource.keepsPartialFile = keepsPartialFile
        return resource
    }

    /// A service on the loopback server retrying once, 10 ms after a failed attempt.
    static let loopbackService = DownloadService<TestDownload>(
        pipeline: ResourcePipeline(retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10)))
    )

    /// A `200` to a resumed download, cut after `count` bytes: `ETag` `"v1"` (a server that
    /// ignored the range), `"v2"` (the resource changed, `If-Range` failed) or none; and what the
    /// retry must then send, and what the finished file must be.
    static let cut200Cases: [(etag: String?, cutAfter: Int, retryRange: String?, retryIfRange: String?, served: String)] = [
        // Fewer bytes than the partial file had: they are all the file has now.
        ("\"v1\"", 20_000, "bytes=20000-", "\"v1\"", "v1"),
        // More bytes than the partial file had, of another version: resumed under its own tag.
        ("\"v2\"", 60_000, "bytes=60000-", "\"v2\"", "v2"),
        // No validator: nothing to resume, the retry starts from the first byte.
        (nil, 60_000, nil, nil, "v1"),
    ]

    @Test(arguments: [false, true], 0..<cut200Cases.count)
    func aRetryAfterACut200ResumesWhatThat200WroteOrStartsOver(keepsPartialFile: Bool, index: Int) async throws {
        let (etag, cutAfter, retryRange, retryIfRange, served) = Self.cut200Cases[index]
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume from 40,000 bytes answered 200 (with `etag`), cut after `cutAfter`
        // bytes, by a server whose later attempts serve, by RFC 9110, `served` (the version the
        // 200 was of; or, for a 200 without a validator, the one being resumed)
        let firstBody = etag == "\"v2\"" ? Self.other : Self.current
        let finalBody = served == "v2" ? Self.other : Self.current
        let (server, requests) = try Self.server(
            first: { _ in
                let fields = (etag.map { [("ETag", $0)] } ?? []) + [("Content-Length", "\(firstBody.count)")]
                return .script([.write(DownloadFixtures.head(200, fields) + firstBody.prefix(cutAfter)), .close])
            },
            later: { request in DownloadFixtures.rangeResponse(for: request, body: finalBody, etag: "\"\(served)\"") }
        )
        defer { server.stop() }
        let resource = try Self.resuming(40_000, from: server, in: scratch, keepsPartialFile: keepsPartialFile)

        // WHEN it is downloaded
        let placed = try await Self.loopbackService.fetch(resource)

        // THEN the retry asks for what the 200 did not write, under the 200's own validator, or
        // for everything when it had none; the file is one version's, whole, and nothing else
        // is left
        let retry = try #require(requests.withLock { $0.count == 2 ? $0[1] : nil })
        #expect(retry.value(forHeaderField: "Range") == retryRange)
        #expect(retry.value(forHeaderField: "If-Range") == retryIfRange)
        #expect(try Data(contentsOf: placed) == finalBody)
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aRetryAfterACut200OfAnotherVersionNeverSplicesTheVersionBeingResumed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume from 40,000 bytes of "v1" answered with a 200 of "v2" cut after 60,000
        // bytes, and a retry that reaches a server still serving "v1" by RFC 9110
        let (server, _) = try Self.server(
            first: { _ in
                .script([.write(DownloadFixtures.head(200, [("ETag", "\"v2\""), ("Content-Length", "100000")]) + Self.other.prefix(60_000)), .close])
            },
            later: { request in DownloadFixtures.rangeResponse(for: request, body: Self.current, etag: "\"v1\"") }
        )
        defer { server.stop() }
        let resource = try Self.resuming(40_000, from: server, in: scratch, keepsPartialFile: false)

        // WHEN it is downloaded
        let placed = try await Self.loopbackService.fetch(resource)

        // THEN the file is "v1", whole: not the first 40,000 bytes of "v2" with the rest of "v1"
        #expect(try Data(contentsOf: placed) == Self.current)
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    /// A first attempt to a resume from 1,000 bytes of ``current`` that is cut: a `206` of the
    /// rest cut after 5,000 bytes, or a `200` of ``other`` under `"v2"` cut after 5,000 bytes;
    /// and the partial file it leaves. (Made when asked for, as ``current`` is.)
    static var cutFirstAttempts: [(status: Int, kept: Data, validator: String)] {
        [
            (206, current.prefix(6_000), "\"v1\""),
            (200, other.prefix(5_000), "\"v2\""),
        ]
    }

    static func cutFirstAttempt(_ status: Int) -> LoopbackHTTPServer.Response {
        if status == 206 {
            let fields = [("ETag", "\"v1\""), ("Content-Range", "bytes 1000-99999/100000"), ("Content-Length", "99000")]
            return .script([.write(DownloadFixtures.head(206, fields) + current[1_000..<6_000]), .close])
        }
        return .script([.write(DownloadFixtures.head(200, [("ETag", "\"v2\""), ("Content-Length", "100000")]) + other.prefix(5_000)), .close])
    }

    @Test(arguments: 0..<2)
    func aRetryThatFailsBeforeTheHeadReportsThePartialFileAsTheEarlierAttemptLeftIt(index: Int) async throws {
        let (status, kept, validator) = Self.cutFirstAttempts[index]
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume from 1,000 bytes keeping partial files, whose first attempt is cut
        // after adding 5,000 bytes and whose retry is closed before any head
        let (server, _) = try Self.server(first: { _ in Self.cutFirstAttempt(status) }, later: { _ in .script([.close]) })
        defer { server.stop() }
        var resource = try Self.resuming(1_000, from: server, in: scratch, keepsPartialFile: true)

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await Self.loopbackService.fetch(resource) }

        // THEN the error describes the partial file as it is on disk: its bytes, and the
        // validator and length of the answer that wrote them
        guard case .downloadInterrupted(let partial, _) = error else {
            Issue.record("expected downloadInterrupted, got \(String(describing: error))")
            return
        }
        #expect(partial.byteCount == Int64(kept.count))
        #expect(partial.validator == .entityTag(validator))
        #expect(partial.expectedLength == 100_000)
        #expect(try Data(contentsOf: partial.partialFile) == kept)
        #expect(scratch.openDescriptors().isEmpty)

        // AND a later resume from it asks for the rest under that validator and is whole
        let whole = status == 206 ? Self.current : Self.other
        let (resumeServer, requests) = try Self.server(
            first: { request in DownloadFixtures.rangeResponse(for: request, body: whole, etag: validator) },
            later: { request in DownloadFixtures.rangeResponse(for: request, body: whole, etag: validator) }
        )
        defer { resumeServer.stop() }
        resource.url = resumeServer.baseURL.appendingPathComponent("data")
        resource.resumeFrom = partial
        let placed = try await Self.loopbackService.fetch(resource)
        #expect(requests.withLock { $0.first?.value(forHeaderField: "Range") } == "bytes=\(kept.count)-")
        #expect(try Data(contentsOf: placed) == whole)
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test func aRetryRefusedBeforeTheHeadReportsThePartialFileTheCutLeft() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume keeping partial files whose 206 is cut after 2 bytes, and whose retry
        // cannot connect
        let resource = try Self.resuming(in: scratch, keepsPartialFile: true)
        let session = FakeURLSession()
        session.stub(.any, with: [Self.rest().cut(afterBytes: 2), .error(URLError(.cannotConnectToHost))])

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await Self.service(session).fetch(resource) }

        // THEN the error carries the 6 bytes on disk, not the 4 the download began with
        guard case .downloadInterrupted(let partial, .transport(.cannotConnectToHost, _)) = error else {
            Issue.record("expected downloadInterrupted after cannotConnectToHost, got \(String(describing: error))")
            return
        }
        #expect(partial == ResumableDownload(
            partialFile: scratch.file(".data.bin.partial"), byteCount: 6, validator: .entityTag("\"v1\""), expectedLength: 8
        ))
        #expect(try Data(contentsOf: partial.partialFile) == Data("abcdef".utf8))
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [false, true])
    func aRetryAfterACut206AsksForTheBytesThePartialFileLacks(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume from 1,000 bytes whose 206 is cut after 5,000 more, and a server that
        // answers the retry by RFC 9110
        let (server, requests) = try Self.server(
            first: { _ in Self.cutFirstAttempt(206) },
            later: { request in DownloadFixtures.rangeResponse(for: request, body: Self.current, etag: "\"v1\"") }
        )
        defer { server.stop() }
        let resource = try Self.resuming(1_000, from: server, in: scratch, keepsPartialFile: keepsPartialFile)

        // WHEN it is downloaded
        let placed = try await Self.loopbackService.fetch(resource)

        // THEN the retry asks for the bytes after the 6,000 on disk, and the file is whole
        let ranges = requests.withLock { $0.map { $0.value(forHeaderField: "Range") } }
        #expect(ranges == ["bytes=1000-", "bytes=6000-"])
        #expect(try Data(contentsOf: placed) == Self.current)
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aRetryOfADownloadThatKeepsPartialFilesResumesWhatTheCutAttemptKept() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a download keeping partial files whose 200 is cut after 30,000 bytes, and a
        // server that answers the retry by RFC 9110
        let (server, requests) = try Self.server(
            first: { _ in
                .script([.write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "100000")]) + Self.current.prefix(30_000)), .close])
            },
            later: { request in DownloadFixtures.rangeResponse(for: request, body: Self.current, etag: "\"v1\"") }
        )
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        // WHEN it is downloaded
        let placed = try await Self.loopbackService.fetch(resource)

        // THEN the retry asks for the bytes after the 30,000 kept, and the file is whole
        let retry = try #require(requests.withLock { $0.count == 2 ? $0[1] : nil })
        #expect(retry.value(forHeaderField: "Range") == "bytes=30000-")
        #expect(retry.value(forHeaderField: "If-Range") == "\"v1\"")
        #expect(try Data(contentsOf: placed) == Self.current)
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [false, true])
    func aRetryAfterACut206ThatHadWrittenEveryByteIsCompletedByA416(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume whose 206 carries every byte left, `efgh`, before its connection is
        // lost, and whose retry is answered 416: the representation has no byte after the 8th
        var resource = try Self.resuming(in: scratch, keepsPartialFile: keepsPartialFile)
        resource.expectedSHA256 = SHA256Digest(of: Data("abcdefgh".utf8))
        let lostAfterTheLastByte = FakeResponse.status(
            206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 4-7/8", "Content-Length": "4"], body: Data("efgh?".utf8)
        ).cut(afterBytes: 4)
        let session = FakeURLSession()
        session.stub(.any, with: [lostAfterTheLastByte, .status(416, headers: ["Content-Range": "bytes */8"])])

        // WHEN it is downloaded
        let placed = try await Self.service(session).fetch(resource)

        // THEN the retry asks for the bytes after the 8th, and the 416 completes the file
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "Range") } == ["bytes=4-", "bytes=8-"])
        #expect(try Data(contentsOf: placed) == Data("abcdefgh".utf8))
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func monitorsAreToldTheSizeOfEachAnswersBody() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a download answered 503 with a 4-byte body, then with 60,000 bytes
        let body = DownloadFixtures.body(60_000)
        let session = FakeURLSession()
        session.stub(.any, with: [
            .status(503, body: Data("busy".utf8)),
            FakeResponse.status(200, headers: ["Content-Length": "60000"], body: body).inPieces(6),
        ])
        let recorder = EventRecorder()
        let resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))

        // WHEN it is downloaded
        _ = try await Self.service(session, monitors: [recorder]).fetch(resource)

        // THEN each response's body size is the bytes received, whether kept in memory or
        // written to the file, and so is the finished fetch's
        #expect(recorder.events.filter { $0.hasPrefix("response") } == ["response 1 503 4B", "response 2 200 60000B"])
        #expect(recorder.finishedEvents.map(\.bodyByteCount) == [60_000])
    }

    @Test func monitorsAreToldTheSizeOfAResumedAnswersBody() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume answered with the 4 bytes left
        let resource = try Self.resuming(in: scratch)
        let session = FakeURLSession()
        session.stub(.any, with: Self.rest())
        let recorder = EventRecorder()

        // WHEN it is downloaded
        _ = try await Self.service(session, monitors: [recorder]).fetch(resource)

        // THEN the body's size is the 206's, not the file's
        #expect(recorder.events.filter { $0.hasPrefix("response") } == ["response 1 206 4B"])
        #expect(recorder.finishedEvents.map(\.bodyByteCount) == [4])
    }
}
