import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Resuming downloads by RFC 9110: Range, If-Range, 206, 416")
struct DownloadResumeTests {
    let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

    /// A partial file of `body`'s first `count` bytes beside `destination`, as a cut download
    /// with `keepsPartialFile` leaves it.
    static func partial(of body: Data, count: Int, in scratch: ScratchDirectory, etag: String = "\"v1\"") throws -> ResumableDownload {
        let url = scratch.file(".data.bin.partial")
        try body.prefix(count).write(to: url)
        return ResumableDownload(partialFile: url, byteCount: Int64(count), validator: .entityTag(etag), expectedLength: Int64(body.count))
    }

    @Test func aCutDownloadResumesWithRangeAndIfRangeAndIsWholeAfterwards() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(250_000)
        let requests = Locked<[LoopbackHTTPServer.Request]>([])
        let server = try LoopbackHTTPServer { request in
            let first = requests.withLock { list -> Bool in
                list.append(request)
                return list.count == 1
            }
            guard first else {
                return DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"", extraFields: [("Repr-Digest", DownloadFixtures.digestField(body))])
            }
            return .script([.write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(90_000)), .close])
        }
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true
        resource.expectedSHA256 = SHA256Digest(of: body)

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .downloadInterrupted(let partial, _) = error else {
            Issue.record("expected downloadInterrupted, got \(String(describing: error))")
            return
        }
        resource.resumeFrom = partial
        let placed = try await service.fetch(resource)

        #expect(try Data(contentsOf: placed) == body)
        let second = try #require(requests.withLock { $0.last })
        #expect(second.value(forHeaderField: "Range") == "bytes=90000-")
        #expect(second.value(forHeaderField: "If-Range") == "\"v1\"")
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    /// Validators a cut response may carry, and what `If-Range` may then send (RFC 9110,
    /// section 13.1.5): a strong entity tag; with no entity tag, a `Last-Modified` date that a
    /// `Date` at least one second later makes strong (section 8.8.2.2); else nothing, and the
    /// partial file is not kept.
    static let validatorCases: [(fields: [(String, String)], kept: ResumableDownload.Validator?)] = [
        ([("ETag", "\"v1\""), ("Last-Modified", "Tue, 24 Nov 2026 01:00:00 GMT")], .entityTag("\"v1\"")),
        ([("ETag", "W/\"v1\"")], nil),
        ([("ETag", "W/\"v1\""), ("Last-Modified", "Tue, 24 Nov 2026 01:00:00 GMT"), ("Date", "Wed, 25 Nov 2026 01:00:00 GMT")], nil),
        ([("Last-Modified", "Tue, 24 Nov 2026 01:00:00 GMT"), ("Date", "Tue, 24 Nov 2026 01:00:01 GMT")], .lastModified("Tue, 24 Nov 2026 01:00:00 GMT")),
        ([("Last-Modified", "Tue, 24 Nov 2026 01:00:00 GMT"), ("Date", "Tue, 24 Nov 2026 01:00:00 GMT")], nil),
        ([("Last-Modified", "Tue, 24 Nov 2026 01:00:00 GMT")], nil),
        ([("Last-Modified", "yesterday"), ("Date", "Tue, 24 Nov 2026 01:00:01 GMT")], nil),
    ]

    @Test(arguments: 0..<validatorCases.count)
    func aCutDownloadIsKeptOnlyWithAValidatorIfRangeMaySend(_ index: Int) async throws {
        let (fields, expected) = Self.validatorCases[index]
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            .script([.write(DownloadFixtures.head(200, fields + [("Content-Length", "\(body.count)")]) + body.prefix(30_000)), .close])
        }
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        if let expected {
            guard case .downloadInterrupted(let partial, _) = error else {
                Issue.record("expected downloadInterrupted, got \(String(describing: error))")
                return
            }
            #expect(partial.validator == expected)
            #expect(partial.byteCount == 30_000)
        } else {
            if case .downloadInterrupted = error { Issue.record("kept a partial file that If-Range could not protect: \(fields)") }
            #expect(scratch.contents().isEmpty)
        }
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aServerThatIgnoresTheRangeRestartsTheFileFromZero() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(120_000)
        // The partial bytes are of another version: a splice would corrupt the file.
        let stale = DownloadFixtures.body(120_000, seed: 99)
        let server = try LoopbackHTTPServer { _ in
            .script([.write(DownloadFixtures.head(200, [("ETag", "\"v2\""), ("Content-Length", "\(body.count)")]) + body), .close])
        }
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: stale, count: 40_000, in: scratch)

        let placed = try await service.fetch(resource)

        #expect(try Data(contentsOf: placed) == body)
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test func aWrongContentRangeIsRefusedAndNothingIsSpliced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            let part = body.suffix(from: 50_000)
            return .script([
                .write(DownloadFixtures.head(206, [("ETag", "\"v1\""), ("Content-Range", "bytes 50000-99999/100000"), ("Content-Length", "\(part.count)")]) + part),
                .close,
            ])
        }
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        let partial = try Self.partial(of: body, count: 40_000, in: scratch)
        resource.resumeFrom = partial
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .downloadInterrupted(let kept, .resumeRefused(.unexpectedContentRange(let start, let received))) = error else {
            Issue.record("expected a kept partial after unexpectedContentRange, got \(String(describing: error))")
            return
        }
        #expect(start == 40_000)
        #expect(received == "bytes 50000-99999/100000")
        #expect(kept == partial)
        #expect(try Data(contentsOf: partial.partialFile) == body.prefix(40_000))
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aChangedValidatorIn206IsRefusedAndThePartialFileRemoved() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            let part = body.suffix(from: 40_000)
            return .script([
                .write(DownloadFixtures.head(206, [("ETag", "\"v2\""), ("Content-Range", "bytes 40000-99999/100000"), ("Content-Length", "\(part.count)")]) + part),
                .close,
            ])
        }
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: 40_000, in: scratch)
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .resumeRefused(.validatorChanged) = error else {
            Issue.record("expected resumeRefused(validatorChanged), got \(String(describing: error))")
            return
        }
        #expect(scratch.contents().isEmpty)
    }

    @Test func a416ForAWholePartialFileCompletesIt() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(30_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: body.count, in: scratch)
        resource.expectedSHA256 = SHA256Digest(of: body)

        let placed = try await service.fetch(resource)

        #expect(try Data(contentsOf: placed) == body)
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test func a416ThatCompletesAPartialFileFlushesItBeforeItIsPlaced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a whole partial file that a 416 completes, on a disk whose flush fails
        let body = DownloadFixtures.body(10_000)
        let session = FakeURLSession()
        session.stub(.any, with: .status(416, headers: ["Content-Range": "bytes */10000", "Content-Length": "0"], body: Data()))
        let failingFlush = DownloadWriter(write: DownloadWriter.system.write, synchronize: { _ in -EIO })
        let service = DownloadService<TestDownload>(session: session, options: TransferOptions(), pipeline: nil, writer: failingFlush)
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: body.count, in: scratch)

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        // THEN the file is flushed before it would be placed: the failed flush is the error,
        // and nothing is placed
        guard case .fileSystem(let failure) = error else {
            Issue.record("expected fileSystem, got \(String(describing: error))")
            return
        }
        #expect(failure.operation == .synchronize)
        #expect(failure.posixCode == .EIO)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func a416ForAnotherLengthIsRefusedAndThePartialFileRemoved() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(30_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let longer = DownloadFixtures.body(50_000)
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        let partial = try Self.partial(of: longer, count: 40_000, in: scratch)
        resource.resumeFrom = ResumableDownload(partialFile: partial.partialFile, byteCount: partial.byteCount, validator: partial.validator)
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .resumeRefused(.rangeNotSatisfiable(let length)) = error else {
            Issue.record("expected resumeRefused(rangeNotSatisfiable), got \(String(describing: error))")
            return
        }
        #expect(length == 30_000)
        #expect(scratch.contents().isEmpty)
    }

    @Test func aContentDigestOfA206CoversOnlyItsPart() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let right = try LoopbackHTTPServer { request in
            DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"", extraFields: [("Content-Digest", DownloadFixtures.digestField(body.suffix(from: 60_000)))])
        }
        defer { right.stop() }
        let wholeInstead = try LoopbackHTTPServer { request in
            DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"", extraFields: [("Content-Digest", DownloadFixtures.digestField(body))])
        }
        defer { wholeInstead.stop() }

        var resource = TestDownload(url: right.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: 60_000, in: scratch)
        #expect(try Data(contentsOf: try await service.fetch(resource)) == body)

        resource = TestDownload(url: wholeInstead.baseURL.appendingPathComponent("data"), destination: scratch.file("other.bin"))
        resource.resumeFrom = try Self.partial(of: body, count: 60_000, in: scratch)
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .integrityMismatch(let failure) = error else {
            Issue.record("expected integrityMismatch, got \(String(describing: error))")
            return
        }
        #expect(failure.source == .contentDigest)
        #expect(scratch.contents() == ["data.bin"])
    }
}
