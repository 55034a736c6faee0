import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Downloads to a file: placement, overwrite policy, limits, digests, failures")
struct DownloadServiceTests {
    let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

    @Test func theBodyIsPlacedAtTheDestinationInDirectoriesItCreates() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(300_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let destination = scratch.file("a/b/data.bin")

        let placed = try await service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: destination))

        #expect(placed == destination)
        #expect(try Data(contentsOf: destination) == body)
        #expect(scratch.contents() == ["a", "a/b", "a/b/data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func anExistingFileIsKeptUnderFailIfExistsAndReplacedUnderReplace() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(10_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let destination = scratch.file("data.bin")
        try Data("old".utf8).write(to: destination)
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: destination)

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .fileSystem(let failure) = error else {
            Issue.record("expected fileSystem, got \(String(describing: error))")
            return
        }
        #expect(failure.operation == .place)
        #expect(failure.posixCode == .EEXIST)
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(scratch.contents() == ["data.bin"])

        resource.overwritePolicy = .replace
        _ = try await service.fetch(resource)
        #expect(try Data(contentsOf: destination) == body)
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test func theExpectedSHA256IsCheckedAndAMismatchPlacesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(70_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let right = SHA256Digest(of: body)
        let wrong = SHA256Digest(of: body + Data([0]))
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"), expectedSHA256: wrong)

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .integrityMismatch(let failure) = error else {
            Issue.record("expected integrityMismatch, got \(String(describing: error))")
            return
        }
        #expect(failure.source == .expectedSHA256)
        #expect(failure.expected == wrong)
        #expect(failure.actual == right)
        #expect(scratch.contents().isEmpty)

        resource.expectedSHA256 = right
        _ = try await service.fetch(resource)
        #expect(try Data(contentsOf: scratch.file("data.bin")) == body)
    }

    @Test(arguments: ["Content-Digest", "Repr-Digest"])
    func theServersDigestIsCheckedAndAMismatchPlacesNothing(field: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(50_000)
        let honest = try LoopbackHTTPServer { request in
            DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"", extraFields: [(field, "sha-512=:AAAA:, " + DownloadFixtures.digestField(body))])
        }
        defer { honest.stop() }
        let lying = try LoopbackHTTPServer { request in
            DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"", extraFields: [(field, DownloadFixtures.digestField(Data("other".utf8)))])
        }
        defer { lying.stop() }

        _ = try await service.fetch(TestDownload(url: honest.baseURL.appendingPathComponent("data"), destination: scratch.file("good.bin")))
        #expect(try Data(contentsOf: scratch.file("good.bin")) == body)

        let error = await #expect(throws: ResourceError.self) {
            try await service.fetch(TestDownload(url: lying.baseURL.appendingPathComponent("data"), destination: scratch.file("bad.bin")))
        }
        guard case .integrityMismatch(let failure) = error else {
            Issue.record("expected integrityMismatch, got \(String(describing: error))")
            return
        }
        #expect(failure.source == (field == "Content-Digest" ? .contentDigest : .reprDigest))
        #expect(failure.actual == SHA256Digest(of: body))
        #expect(scratch.contents() == ["good.bin"])
    }

    @Test func anEmptyContentEncodingIsIdentityAndItsDigestIsChecked() async throws {
        // GIVEN a 200 whose Content-Encoding is empty, with an ETag and a Repr-Digest of other bytes
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(5_000)
        let session = FakeURLSession()
        session.stub(.path("/data"), with: .status(200, headers: [
            "Content-Encoding": "", "ETag": "\"v1\"", "Content-Length": "\(body.count)",
            "Repr-Digest": DownloadFixtures.digestField(Data("other".utf8)),
        ], body: body))
        let service = DownloadService<TestDownload>(session: session)

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) {
            try await service.fetch(TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin")))
        }

        // THEN the digest is checked like any identity body's, and nothing is placed
        guard case .integrityMismatch(let failure) = error else {
            Issue.record("expected integrityMismatch, got \(String(describing: error))")
            return
        }
        #expect(failure.source == .reprDigest)
        #expect(scratch.contents().isEmpty)
    }

    @Test func anUnpaddedContentDigestIsCheckedAndAMismatchPlacesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a 200 whose Content-Digest is the digest of another body, its base64 without the
        // "=" padding RFC 8941 lets a byte sequence leave out
        let body = DownloadFixtures.body(5_000)
        let other = Data(SHA256.hash(Data("other".utf8))).base64EncodedString()
        #expect(other.hasSuffix("="))
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: [
            "Content-Length": "5000", "Content-Digest": "sha-256=:\(other.prefix { $0 != "=" }):",
        ], body: body))

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) {
            try await DownloadService<TestDownload>(session: session).fetch(
                TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
            )
        }

        // THEN the digest is checked, and the file that does not match it is not placed
        guard case .integrityMismatch(let failure) = error else {
            Issue.record("expected integrityMismatch, got \(String(describing: error))")
            return
        }
        #expect(failure.source == .contentDigest)
        #expect(failure.actual == SHA256Digest(of: body))
        #expect(scratch.contents().isEmpty)
    }

    @Test func anErrorStatusIsTheResourcesErrorAndWritesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try LoopbackHTTPServer { _ in .status(404, body: Data("no such export".utf8)) }
        defer { server.stop() }

        let error = await #expect(throws: ResourceError.self) {
            try await service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("x/data.bin")))
        }
        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 404)
        #expect(failure.bodyPrefix == Data("no such export".utf8))
        #expect(scratch.contents().isEmpty)
    }

    @Test func aBodyOverTheDownloadLimitStopsAndLeavesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let declared = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { declared.stop() }
        let undeclared = try LoopbackHTTPServer { _ in
            .script([.write(DownloadFixtures.head(200, [("Transfer-Encoding", "chunked")]) + Data("186a0\r\n".utf8) + body + Data("\r\n0\r\n\r\n".utf8)), .close])
        }
        defer { undeclared.stop() }
        let limited = DownloadService<TestDownload>(session: URLSessionTransport.shared, options: TransferOptions(maximumDownloadBytes: 60_000))

        for server in [declared, undeclared] {
            let error = await #expect(throws: ResourceError.self) {
                try await limited.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")))
            }
            guard case .responseTooLarge(let limit) = error else {
                Issue.record("expected responseTooLarge, got \(String(describing: error))")
                continue
            }
            #expect(limit == 60_000)
            #expect(scratch.contents().isEmpty)
            #expect(scratch.openDescriptors().isEmpty)
        }
    }

    @Test func aBodyOverTheDownloadLimitLeavesNothingEvenWhenPartialFilesAreKept() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a body with a strong ETag and no declared length, over the download limit, for
        // a resource that keeps partial files
        let session = FakeURLSession()
        session.stub(.any, with: FakeResponse.status(200, headers: ["ETag": "\"v1\""], body: DownloadFixtures.body(100_000)).inPieces(10))
        let limited = DownloadService<TestDownload>(session: session, options: TransferOptions(maximumDownloadBytes: 60_000))
        var resource = TestDownload(url: URL(string: "https://x.test/data")!, destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await limited.fetch(resource) }

        // THEN it stops as too large, and the bytes written so far are not kept
        guard case .responseTooLarge(let limit) = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 60_000)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [
        String(repeating: "n", count: 251) + ".bin",
        String(repeating: "é", count: 125) + ".bin",
        String(repeating: "😀", count: 62) + ".bin",
    ])
    func aDestinationWithALongNameIsDownloadedBesideItself(name: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a destination whose name is NAME_MAX bytes long, or nearly, in UTF-8
        #expect(name.utf8.count <= 255)
        let session = FakeURLSession()
        let body = DownloadFixtures.body(10_000)
        session.stub(.any, with: .status(200, headers: ["Content-Length": "10000"], body: body))

        // WHEN it is downloaded
        let placed = try await DownloadService<TestDownload>(session: session).fetch(
            TestDownload(url: URL(string: "https://x.test/data")!, destination: scratch.file(name))
        )

        // THEN its temporary file had a name the file system takes, and it is placed
        #expect(try Data(contentsOf: placed) == body)
        #expect(scratch.contents() == [name])
    }

    @Test(arguments: [
        "data.bin",
        String(repeating: "n", count: 255),
        String(repeating: "é", count: 127) + "n",
        String(repeating: "😀", count: 63) + "nnn",
    ])
    func aTemporaryFileNameFitsInNameMaxWithoutSplittingACharacter(name: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var file = try DownloadFile.temporary(beside: scratch.file(name))
        file.close()
        defer { DownloadFile.remove(file.url) }
        let temporary = file.url.lastPathComponent
        #expect(temporary.utf8.count <= 255)
        #expect(file.url.deletingLastPathComponent().standardizedFileURL == scratch.url.standardizedFileURL)
        #expect(temporary.hasPrefix("."))
        #expect(temporary.hasSuffix(".download"))
        // The part of the destination's name kept is a prefix of whole characters: the whole
        // name when it fits.
        let kept = String(temporary.dropFirst().dropLast(".download".count + 37))
        #expect(!kept.isEmpty && name.hasPrefix(kept))
        if name.utf8.count <= 200 {
            #expect(kept == name)
        } else {
            // As much as fits: no room left for one more character (of at most 4 bytes).
            #expect(kept.utf8.count > 255 - temporary.utf8.count + kept.utf8.count - 4)
        }
    }

    @Test(arguments: [false, true])
    func aHEADDownloadPlacesAnEmptyFileWhateverItsFieldsSayOfTheBodyNotSent(withDigests: Bool) async throws {
        // GIVEN the answer to a HEAD, which has no body: its Content-Length is over the download
        // limit, or within it with the digests of the body a GET would get
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let notSent = DownloadFixtures.body(500)
        let session = FakeURLSession()
        let fields = withDigests
            ? ["Content-Length": "500", "Content-Digest": DownloadFixtures.digestField(notSent), "Repr-Digest": DownloadFixtures.digestField(notSent)]
            : ["Content-Length": "1000000"]
        session.stub(.any, with: .status(200, headers: fields, body: Data()))
        let limited = DownloadService<TestDownload>(session: session, options: TransferOptions(maximumDownloadBytes: 1_000))
        var resource = TestDownload(url: URL(string: "https://x.test/data")!, destination: scratch.file("data.bin"))
        resource.httpMethod = .head
        let seen = Locked<[TransferProgress]>([])

        // WHEN it is downloaded
        let placed = try await limited.fetch(resource, progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress) }
        }

        // THEN the empty body is placed, and the progress counts no body
        #expect(session.receivedRequests.first?.httpMethod == "HEAD")
        #expect(try Data(contentsOf: placed) == Data())
        #expect(scratch.contents() == ["data.bin"])
        let values = seen.withLock { $0 }
        #expect(!values.isEmpty)
        #expect(values.allSatisfy { $0.completedBytes == 0 && $0.totalBytes == 0 }, "\(values)")
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aRepeatedDeclaredLengthOverTheDownloadLimitFailsOnTheHead() async throws {
        // GIVEN a head that declares its length twice, over the download limit, and a connection
        // that drops before any of the body: only a refusal on the head fails as too large
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Content-Length": "10, 10"], body: Data(count: 10))
            .cut(afterBytes: 0, with: URLError(.networkConnectionLost)))
        let limited = DownloadService<TestDownload>(session: session, options: TransferOptions(maximumDownloadBytes: 5))

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) {
            try await limited.fetch(TestDownload(url: URL(string: "https://x.test/data")!, destination: scratch.file("data.bin")))
        }

        // THEN the download fails as too large, and leaves nothing
        guard case .responseTooLarge(let limit) = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 5)
        #expect(scratch.contents().isEmpty)
    }

    @Test func aCutConnectionLeavesNothingUnlessThePartialFileIsKept() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(200_000)
        let server = try LoopbackHTTPServer { _ in
            .script([.write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(80_000)), .close])
        }
        defer { server.stop() }
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        if case .downloadInterrupted = error { Issue.record("a partial file was kept unasked") }
        #expect(scratch.contents().isEmpty)

        resource.keepsPartialFile = true
        let kept = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .downloadInterrupted(let partial, let underlying) = kept else {
            Issue.record("expected downloadInterrupted, got \(String(describing: kept))")
            return
        }
        #expect(partial.byteCount == 80_000)
        #expect(partial.validator == .entityTag("\"v1\""))
        #expect(partial.expectedLength == 200_000)
        #expect(try Data(contentsOf: partial.partialFile) == body.prefix(80_000))
        #expect(partial.partialFile.deletingLastPathComponent().standardizedFileURL == scratch.url.standardizedFileURL)
        #expect(!underlying.isCancelled)
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aFullDiskFailsWithENOSPCAndLeavesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(200_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        // A disk with room for 50,000 bytes, that writes a few at a time and is interrupted now
        // and then, as write(2) may be.
        let written = Locked(0)
        let fullDisk = DownloadWriter { descriptor, bytes, count in
            written.withLock { total -> Int in
                if total % 3 == 1 {
                    total += 1
                    return -Int(EINTR)
                }
                let room = 50_000 - total
                guard room > 0 else { return -Int(ENOSPC) }
                let accepted = min(count, room, 4_099)
                let result = DownloadWriter.system.write(descriptor, bytes, accepted)
                if result > 0 { total += result }
                return result
            }
        }
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared, options: TransferOptions(), pipeline: nil, writer: fullDisk)
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = false

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .fileSystem(let failure) = error else {
            Issue.record("expected fileSystem, got \(String(describing: error))")
            return
        }
        #expect(failure.operation == .write)
        #expect(failure.posixCode == .ENOSPC)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func cancellationMidBodyLeavesNothingBehind() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            .script([
                .write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(30_000)),
                .pause(.seconds(20)),
                .write(body.suffix(from: 30_000)),
                .close,
            ])
        }
        defer { server.stop() }
        let task = service.fetchTask(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")))
        for await progress in task.progress where progress.completedBytes >= 30_000 {
            task.cancel()
            break
        }

        let error = await #expect(throws: ResourceError.self) { try await task.value }
        #expect(error?.isCancelled == true)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func theDeadlineMidBodyLeavesNothingBehind() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            .script([
                .write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(30_000)),
                .pause(.seconds(20)),
                .close,
            ])
        }
        defer { server.stop() }
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared, options: TransferOptions(deadline: .milliseconds(700)))
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .downloadInterrupted(let partial, .timedOut) = error else {
            Issue.record("expected downloadInterrupted after timedOut, got \(String(describing: error))")
            return
        }
        #expect(partial.byteCount == 30_000)
        #expect(scratch.openDescriptors().isEmpty)
        try FileManager.default.removeItem(at: partial.partialFile)
        #expect(scratch.contents().isEmpty)
    }
}
