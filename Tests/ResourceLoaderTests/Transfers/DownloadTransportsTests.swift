import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if AsyncHTTPClient
import ResourceLoaderAsyncHTTPClient
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transports a download runs on, by name.
enum DownloadTransports {
    static var names: [String] {
        #if AsyncHTTPClient
        ["URLSessionTransport", "AsyncHTTPClientTransport"]
        #else
        ["URLSessionTransport"]
        #endif
    }

    static func named(_ name: String) -> any HTTPTransport {
        #if AsyncHTTPClient
        if name == "AsyncHTTPClientTransport" { return AsyncHTTPClientTransport.shared }
        #endif
        return URLSessionTransport.shared
    }
}

@Suite("Downloads on every transport: resume, cancellation, FakeURLSession's scripted progress")
struct DownloadTransportsTests {
    @Test(arguments: DownloadTransports.names)
    func aCutDownloadIsKeptAndResumedWhole(transport: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(400_000)
        let requests = Locked(0)
        let server = try LoopbackHTTPServer { request in
            guard requests.withLock({ count -> Int in
                count += 1
                return count
            }) == 1 else {
                return DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v7\"", extraFields: [("Repr-Digest", DownloadFixtures.digestField(body))])
            }
            return .script([.write(DownloadFixtures.head(200, [("ETag", "\"v7\""), ("Content-Length", "\(body.count)")]) + body.prefix(123_456)), .reset])
        }
        defer { server.stop() }
        let service = DownloadService<TestDownload>(session: DownloadTransports.named(transport))
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .downloadInterrupted(let partial, _) = error else {
            Issue.record("expected downloadInterrupted, got \(String(describing: error))")
            return
        }
        #expect(partial.byteCount > 0 && partial.byteCount <= 123_456)
        resource.resumeFrom = partial
        let placed = try await service.fetch(resource)

        #expect(try Data(contentsOf: placed) == body)
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: DownloadTransports.names)
    func cancellationMidBodyLeavesNothing(transport: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            .script([
                .write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(40_000)),
                .pause(.seconds(20)),
                .close,
            ])
        }
        defer { server.stop() }
        let service = DownloadService<TestDownload>(session: DownloadTransports.named(transport))
        let task = service.fetchTask(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")))
        for await progress in task.progress where progress.completedBytes >= 40_000 {
            task.cancel()
            break
        }

        let error = await #expect(throws: ResourceError.self) { try await task.value }
        #expect(error?.isCancelled == true)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func fakeURLSessionScriptsADownloadsProgressAndItsDigest() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(10_000)
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Content-Length": "10000", "Repr-Digest": DownloadFixtures.digestField(body)], body: body).inPieces(10))
        let service = DownloadService<TestDownload>(session: session)
        let seen = Locked<[Int64]>([])

        let placed = try await service.fetch(TestDownload(url: URL(string: "https://example.com/export")!, destination: scratch.file("export.bin")), progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress.completedBytes) }
        }

        #expect(try Data(contentsOf: placed) == body)
        #expect(seen.withLock { $0 } == [0] + stride(from: 1_000, through: 10_000, by: 1_000).map { Int64($0) })
    }

    @Test func fakeURLSessionScriptsACutConnectionAndTheResumeAfterIt() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(10_000)
        let session = FakeURLSession()
        // GIVEN a response whose connection drops after 4,000 bytes, then the 206 of the rest
        session.stub(.any, with: [
            .status(200, headers: ["ETag": "\"v1\"", "Content-Length": "10000"], body: body).inPieces(5).cut(afterBytes: 4_000),
            .status(206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 4000-9999/10000", "Content-Length": "6000"], body: body.dropFirst(4_000)),
        ])
        let service = DownloadService<TestDownload>(session: session)
        var resource = TestDownload(url: URL(string: "https://example.com/export")!, destination: scratch.file("export.bin"))
        resource.keepsPartialFile = true
        resource.expectedSHA256 = SHA256Digest(of: body)

        // WHEN it is fetched, and fetched again from the partial file it leaves
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .downloadInterrupted(let partial, let underlying) = error else {
            Issue.record("expected downloadInterrupted, got \(String(describing: error))")
            return
        }
        #expect(partial.byteCount == 4_000)
        if case .transport(let code, _) = underlying { #expect(code == .networkConnectionLost) } else { Issue.record("underlying \(underlying)") }
        resource.resumeFrom = partial
        let placed = try await service.fetch(resource)

        // THEN the second request asks for the rest, and the file is whole
        #expect(try Data(contentsOf: placed) == body)
        #expect(session.receivedRequests.last?.value(forHTTPHeaderField: "Range") == "bytes=4000-")
        #expect(session.receivedRequests.last?.value(forHTTPHeaderField: "If-Range") == "\"v1\"")
        #expect(scratch.contents() == ["export.bin"])
    }

    @Test func fakeURLSessionScriptsAnUploadsProgress() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, body: Data("4000".utf8)).reportingUpload(inSteps: 4))
        let service = ResourceService<CountedUpload>(session: session)
        let seen = Locked<[TransferProgress]>([])

        let count = try await service.fetch(CountedUpload(url: URL(string: "https://example.com/upload")!, payload: Data(count: 4_000)), progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress) }
        }

        #expect(count == 4_000)
        let uploads = seen.withLock { $0 }.filter { $0.direction == .upload }.map(\.completedBytes)
        #expect(uploads == [1_000, 2_000, 3_000, 4_000])
        #expect(seen.withLock { $0 }.last?.direction == .download)
    }

    /// A streamed body's progress: the stub's steps when it scripts them (reported once, not as
    /// well as the pieces read), else one report for each piece read; each ends at the whole
    /// body, against its length when it has one.
    @Test(arguments: [true, false], [4, 0])
    func fakeURLSessionReportsAStreamedBodysProgressOnce(fromFile: Bool, steps: Int) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let payload = DownloadFixtures.body(600 * 1024)
        let upload: RequestBody
        if fromFile {
            try payload.write(to: scratch.file("upload.bin"))
            upload = try .file(scratch.file("upload.bin"))
        } else {
            upload = .stream(RequestBodyStream(chunkStream([payload.prefix(300 * 1024), payload.suffix(300 * 1024)])))
        }
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, body: Data("done".utf8)).reportingUpload(inSteps: steps))
        let seen = Locked<[TransferProgress]>([])

        _ = try await ResourceService<Upload>(session: session).fetch(
            Upload(url: URL(string: "https://example.com/upload")!, upload: upload), progressQueue: DispatchQueue(label: "progress")
        ) { progress in
            seen.withLock { $0.append(progress) }
        }

        let uploads = seen.withLock { $0 }.filter { $0.direction == .upload }
        let length = Int64(payload.count)
        let reported: [Int64] = steps > 0
            ? (1...Int64(steps)).map { length * $0 / Int64(steps) }
            : [262_144, 524_288, length]
        let values = uploads.map(\.completedBytes)
        if fromFile {
            #expect(values == reported)
        } else {
            // Of unknown length, the values are throttled by time: some may be held back, and
            // the last never is.
            #expect(Set(values).isSubset(of: reported) && values == values.sorted() && Set(values).count == values.count)
            #expect(values.last == length)
        }
        #expect(uploads.allSatisfy { $0.totalBytes == (fromFile ? length : nil) })
        #expect(session.receivedRequests.first?.httpBody == payload)
    }
}

