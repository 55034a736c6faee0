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

    /// The `206` that carries the rest, `efgh`, under `etag`.
    static func rest(etag: String = "\"v1\"") -> FakeResponse {
        .status(206, headers: ["ETag": etag, "Content-Range": "bytes 4-7/8", "Content-Length": "4"], body: Data("efgh".utf8))
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
        session.stub(.any, with: [Self.rest().cut(afterBytes: 2), Self.rest()])

        // WHEN it is downloaded
        let placed = try await Self.service(session).fetch(resource)

        // THEN the retry's 206 continues the partial file from where the resume began
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
        session.stub(.any, with: [Self.rest().cut(afterBytes: 2), Self.rest(etag: "\"v2\"")])

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
