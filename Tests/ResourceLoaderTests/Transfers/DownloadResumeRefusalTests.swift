import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download whose `validate(_:data:)` accepts only answers that say `X-Api-Version: 2`.
struct VersionedDownload: DownloadResourceType {
    typealias Model = URL
    var url: URL
    var destination: URL
    var resumeFrom: ResumableDownload?
    var keepsPartialFile = false

    func validate(_ response: ResponseHead, data: Data) throws(ResourceError) {
        guard acceptableStatusCodes.contains(response.statusCode), response.value(forHTTPHeaderField: "X-Api-Version") == "2" else {
            throw .httpStatus(.init(head: response, body: data))
        }
    }
}

/// A download that accepts only answers that say `X-Api-Version: 2`, as ``VersionedDownload``
/// does, records each head its `validate(_:data:)` is given, and whose model is the head the
/// placed file came with.
struct HeadRecordingDownload: DownloadResourceType {
    typealias Model = ResponseHead
    var url: URL
    var destination: URL
    var resumeFrom: ResumableDownload?
    let validated = Locked<[ResponseHead]>([])

    func validate(_ response: ResponseHead, data: Data) throws(ResourceError) {
        validated.withLock { $0.append(response) }
        guard acceptableStatusCodes.contains(response.statusCode), response.value(forHTTPHeaderField: "X-Api-Version") == "2" else {
            throw .httpStatus(.init(head: response, body: data))
        }
    }

    func model(fromFileAt url: URL, response: ResponseHead) throws -> ResponseHead { response }
}

/// What a resumed download refuses to splice or place (RFC 9110 §14.4, §13.1.5, §15.3.7.3), and
/// what happens to its partial file and its destination when it cannot be placed.
@Suite("Resumed downloads: answers refused, destinations kept, partial files reported")
struct DownloadResumeRefusalTests {
    let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

    /// The whole representation the partial files are cut from: 100,000 bytes.
    static let length = 100_000

    /// A resource resuming the first 40,000 of ``length`` bytes, kept with the strong entity tag
    /// `"v1"`, from the server at `base`.
    static func resuming(
        from base: URL,
        in scratch: ScratchDirectory,
        validator: ResumableDownload.Validator = .entityTag("\"v1\""),
        count: Int = 40_000
    ) throws -> (TestDownload, Data) {
        let body = DownloadFixtures.body(length)
        let url = scratch.file(".data.bin.partial")
        try body.prefix(count).write(to: url)
        var resource = TestDownload(url: base.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.resumeFrom = ResumableDownload(partialFile: url, byteCount: Int64(count), validator: validator, expectedLength: Int64(length))
        return (resource, body)
    }

    /// A `206` with `fields` and `body`, then the connection closes (the body's end, when no
    /// `Content-Length` says it).
    static func partialContent(_ fields: [(String, String)], _ body: Data) -> LoopbackHTTPServer.Response {
        .script([.write(DownloadFixtures.head(206, fields) + body), .close])
    }

    /// `206` answers to `Range: bytes=40000-` that do not carry the rest of the 100,000 bytes:
    /// the fields, and how many body bytes follow the head.
    static let unfittingAnswers: [(fields: [(String, String)], bodyBytes: Int)] = [
        // Stops short of the end.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-59999/100000"), ("Content-Length", "20000")], 20_000),
        // The range's end is not known to be the representation's.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-59999/*"), ("Content-Length", "20000")], 20_000),
        // A body past the range, delimited by the connection's close.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-99999/100000")], 70_000),
        // A body past the range, and a Content-Length that says so.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-99999/100000"), ("Content-Length", "70000")], 70_000),
        // A body short of the range, delimited by the connection's close.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-99999/100000")], 30_000),
        // Another complete length than the partial file's.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-99999/120000"), ("Content-Length", "60000")], 60_000),
        // The unsatisfied-range form, on a 206.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes */100000"), ("Content-Length", "60000")], 60_000),
        // No Content-Range at all.
        ([("ETag", "\"v1\""), ("Content-Length", "60000")], 60_000),
        // A last byte at the largest 64-bit number, with the length unknown.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-9223372036854775807/*"), ("Content-Length", "60000")], 60_000),
        // A complete length at the largest 64-bit number.
        ([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-9223372036854775806/9223372036854775807"), ("Content-Length", "60000")], 60_000),
    ]

    @Test func aResumeAsksForTheRepresentationUncoded() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let partialFile = scratch.file(".data.bin.partial")
        try Data("abcd".utf8).write(to: partialFile)
        // A transport that adds no Accept-Encoding of its own: what is asked for is the service's.
        let origin = ScriptedOrigin()
        origin.enqueue(status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 4-7/8", "Content-Length": "4"], body: "efgh")
        var resource = TestDownload(url: URL(string: "http://origin.test/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = ResumableDownload(partialFile: partialFile, byteCount: 4, validator: .entityTag("\"v1\""), expectedLength: 8)

        let placed = try await DownloadService<TestDownload>(session: origin).fetch(resource)

        #expect(try Data(contentsOf: placed) == Data("abcdefgh".utf8))
        let request = try #require(origin.receivedRequests.first)
        #expect(request.value(forHTTPHeaderField: "Range") == "bytes=4-")
        #expect(request.value(forHTTPHeaderField: "Accept-Encoding") == "identity")
    }

    @Test(arguments: 0..<unfittingAnswers.count)
    func a206ThatDoesNotCarryTheRestIsNeverPlaced(_ index: Int) async throws {
        let (fields, bodyBytes) = Self.unfittingAnswers[index]
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let whole = DownloadFixtures.body(Self.length + 20_000)
        let server = try LoopbackHTTPServer { _ in Self.partialContent(fields, whole.subdata(in: 40_000..<(40_000 + bodyBytes))) }
        defer { server.stop() }
        let (resource, _) = try Self.resuming(from: server.baseURL, in: scratch)

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        if case .downloadInterrupted = error { Issue.record("a partial file was kept unasked: \(String(describing: error))") }
        if index != 2, index != 4 {
            // Refused at the head.
            guard case .resumeRefused(.unexpectedContentRange(let start, _)) = error else {
                Issue.record("expected unexpectedContentRange, got \(String(describing: error))")
                return
            }
            #expect(start == 40_000)
        }
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func a206ThatIsNotTheRestKeepsThePartialFileAsItWasWhenAsked() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let server = try LoopbackHTTPServer { _ in
            Self.partialContent([("ETag", "\"v1\""), ("Content-Range", "bytes 40000-59999/100000"), ("Content-Length", "20000")], body.subdata(in: 40_000..<60_000))
        }
        defer { server.stop() }
        var (resource, _) = try Self.resuming(from: server.baseURL, in: scratch)
        resource.keepsPartialFile = true
        let partial = try #require(resource.resumeFrom)

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        guard case .downloadInterrupted(let kept, .resumeRefused(.unexpectedContentRange)) = error else {
            Issue.record("expected the partial file kept after unexpectedContentRange, got \(String(describing: error))")
            return
        }
        #expect(kept == partial)
        #expect(try Data(contentsOf: partial.partialFile) == body.prefix(40_000))
        #expect(scratch.contents() == [".data.bin.partial"])
    }

    @Test func a206WithoutResumeFromIsRefused() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let server = try LoopbackHTTPServer { _ in
            Self.partialContent([("ETag", "\"v1\""), ("Content-Range", "bytes 0-99999/100000"), ("Content-Length", "100000")], body)
        }
        defer { server.stop() }
        let resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        guard case .resumeRefused(.unexpectedContentRange(0, "bytes 0-99999/100000")) = error else {
            Issue.record("expected unexpectedContentRange, got \(String(describing: error))")
            return
        }
        #expect(scratch.contents().isEmpty)
    }

    /// `206` answers that carry the right range but not the partial file's strong validator, or
    /// that are content-coded.
    static let unvalidatedAnswers: [(fields: [(String, String)], coded: Bool)] = [
        ([("ETag", "W/\"v1\"")], false),
        ([("ETag", "W/\"v2\"")], false),
        ([], false),
        ([("Last-Modified", "Tue, 24 Nov 2026 01:00:00 GMT"), ("Date", "Wed, 25 Nov 2026 01:00:00 GMT")], false),
        ([("ETag", "\"v1\""), ("Content-Encoding", "gzip")], true),
    ]

    @Test(arguments: 0..<unvalidatedAnswers.count)
    func a206WithoutThePartialFilesStrongValidatorOrWithACodingIsNeverSpliced(_ index: Int) async throws {
        let (fields, coded) = Self.unvalidatedAnswers[index]
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let rest = body.suffix(from: 40_000)
        let sent = coded ? Data(Compressor.compress(Array(rest), .gzip)) : Data(rest)
        let server = try LoopbackHTTPServer { _ in
            // A coded body without a Content-Length, whose decoded bytes fill the range exactly:
            // only its coding is wrong.
            Self.partialContent(fields + [("Content-Range", "bytes 40000-99999/100000")] + (coded ? [] : [("Content-Length", "\(sent.count)")]), sent)
        }
        defer { server.stop() }
        var (resource, _) = try Self.resuming(from: server.baseURL, in: scratch)
        resource.keepsPartialFile = true

        // A coded body reaches the file only when the request asked for the coding.
        let askingForGzip = ClosureRequestAdapter { request in
            var request = request
            request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
            return request
        }
        let service = coded ? DownloadService<TestDownload>(pipeline: ResourcePipeline(adapters: [askingForGzip])) : service

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        if coded {
            guard case .downloadInterrupted(_, .resumeRefused(.unexpectedContentRange)) = error else {
                Issue.record("expected unexpectedContentRange, got \(String(describing: error))")
                return
            }
            #expect(try Data(contentsOf: try #require(resource.resumeFrom).partialFile) == body.prefix(40_000))
        } else {
            guard case .resumeRefused(.validatorChanged) = error else {
                Issue.record("expected validatorChanged, got \(String(describing: error))")
                return
            }
            #expect(scratch.contents().isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [false, true])
    func a206InACodingTheRequestDidNotAcceptIsTheTransportsRefusal(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let coded = Data(Compressor.compress(Array(body.suffix(from: 40_000)), .gzip))
        let server = try LoopbackHTTPServer { _ in
            Self.partialContent([("ETag", "\"v1\""), ("Content-Encoding", "gzip"), ("Content-Range", "bytes 40000-99999/100000")], coded)
        }
        defer { server.stop() }
        var (resource, _) = try Self.resuming(from: server.baseURL, in: scratch)
        resource.keepsPartialFile = keepsPartialFile

        // The resume asks for `Accept-Encoding: identity`, which a gzip body does not meet.
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        // THEN the transport refuses it; the partial file is kept as it was, or removed
        if keepsPartialFile {
            guard case .downloadInterrupted(_, .transport(.cannotDecodeContentData, _)) = error else {
                Issue.record("expected cannotDecodeContentData, got \(String(describing: error))")
                return
            }
            #expect(try Data(contentsOf: try #require(resource.resumeFrom).partialFile) == body.prefix(40_000))
        } else {
            guard case .transport(.cannotDecodeContentData, _) = error else {
                Issue.record("expected cannotDecodeContentData, got \(String(describing: error))")
                return
            }
            #expect(scratch.contents().isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func a206WithTheKeptLastModifiedIsSpliced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let modified = "Tue, 24 Nov 2026 01:00:00 GMT"
        let body = DownloadFixtures.body(Self.length)
        let server = try LoopbackHTTPServer { _ in
            Self.partialContent(
                [("Last-Modified", modified), ("Content-Range", "bytes 40000-99999/100000"), ("Content-Length", "60000")], body.suffix(from: 40_000))
        }
        defer { server.stop() }
        let (resource, _) = try Self.resuming(from: server.baseURL, in: scratch, validator: .lastModified(modified))

        let placed = try await service.fetch(resource)

        #expect(try Data(contentsOf: placed) == body)
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test func a200ToAResumeWhosePartialFileIsGoneStartsAFreshFile() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let server = try LoopbackHTTPServer { _ in
            .script([.write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body), .close])
        }
        defer { server.stop() }
        let (resource, _) = try Self.resuming(from: server.baseURL, in: scratch)
        try FileManager.default.removeItem(at: try #require(resource.resumeFrom).partialFile)

        let placed = try await service.fetch(resource)

        #expect(try Data(contentsOf: placed) == body)
        #expect(scratch.contents() == ["data.bin"])
    }

    @Test(arguments: [206, 416])
    func aResumeToAnExistingDestinationUnderFailIfExistsStopsAtTheHeadAndKeepsThePartialFile(status: Int) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        var (resource, _) = try Self.resuming(from: server.baseURL, in: scratch, count: status == 416 ? Self.length : 40_000)
        resource.keepsPartialFile = true
        let partial = try #require(resource.resumeFrom)
        let intruder = Data("already here".utf8)
        try intruder.write(to: resource.destination)

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        guard case .downloadInterrupted(let kept, .fileSystem(let failure)) = error else {
            Issue.record("expected the partial file kept after EEXIST, got \(String(describing: error))")
            return
        }
        #expect(failure.code == EEXIST)
        #expect(failure.operation == .place)
        #expect(kept == partial)
        #expect(try Data(contentsOf: partial.partialFile) == body.prefix(Int(partial.byteCount)))
        #expect(try Data(contentsOf: resource.destination) == intruder)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [false, true])
    func aFileThatAppearsAtTheDestinationMidBodyIsKept(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let server = try LoopbackHTTPServer { _ in
            .script([
                .write(DownloadFixtures.head(206, [("ETag", "\"v1\""), ("Content-Range", "bytes 40000-99999/100000"), ("Content-Length", "60000")]) + body.subdata(in: 40_000..<50_000)),
                .pause(.seconds(3)),
                .write(body.suffix(from: 50_000)),
                .close,
            ])
        }
        defer { server.stop() }
        var (resource, _) = try Self.resuming(from: server.baseURL, in: scratch)
        resource.keepsPartialFile = keepsPartialFile
        let partial = try #require(resource.resumeFrom)
        let fetching = Task { try await service.fetch(resource) }
        // The body has begun once the partial file grows.
        let started = ContinuousClock.now
        while ((try? FileManager.default.attributesOfItem(atPath: partial.partialFile.path)[.size] as? Int) ?? 0) <= 40_000,
            ContinuousClock.now - started < .seconds(10)
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let intruder = Data("written meanwhile".utf8)
        try intruder.write(to: resource.destination)

        let error = await #expect(throws: ResourceError.self) { try await fetching.value }

        #expect(try Data(contentsOf: resource.destination) == intruder)
        if keepsPartialFile {
            guard case .downloadInterrupted(let kept, .fileSystem(let failure)) = error else {
                Issue.record("expected the whole file kept after EEXIST, got \(String(describing: error))")
                return
            }
            #expect(failure.code == EEXIST)
            #expect(kept.byteCount == Int64(Self.length))
            #expect(kept.validator == .entityTag("\"v1\""))
            #expect(try Data(contentsOf: kept.partialFile) == body)
            #expect(scratch.contents() == [".data.bin.partial", "data.bin"])
        } else {
            guard case .fileSystem(let failure) = error else {
                Issue.record("expected fileSystem(EEXIST), got \(String(describing: error))")
                return
            }
            #expect(failure.code == EEXIST)
            #expect(scratch.contents() == ["data.bin"])
        }
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [503, 404])
    func aPartialFileKeptByAnEarlierAttemptIsReportedWhenTheRetryFails(status: Int) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(Self.length)
        let attempts = Locked(0)
        let server = try LoopbackHTTPServer { _ in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            guard attempt > 1 else {
                return .script([.write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(30_000)), .close])
            }
            return .status(status, body: Data("no".utf8))
        }
        defer { server.stop() }
        // The cut is networkConnectionLost, which the default policy retries.
        let retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10))
        let pipeline = ResourcePipeline(retryPolicy: retryPolicy)
        let service = DownloadService<TestDownload>(pipeline: pipeline)
        var resource = TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin"))
        resource.keepsPartialFile = true

        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }

        #expect(attempts.withLock { $0 } == 2)
        guard case .downloadInterrupted(let kept, let underlying) = error else {
            Issue.record("expected the kept partial file reported, got \(String(describing: error))")
            return
        }
        #expect(underlying.statusCode == status)
        #expect(error?.statusCode == status)
        #expect(kept.byteCount == 30_000)
        #expect(try Data(contentsOf: kept.partialFile) == body.prefix(30_000))
        #expect(scratch.contents() == [kept.partialFile.lastPathComponent])
        #expect(scratch.openDescriptors().isEmpty)
    }
    // MARK: - A resumed answer held to the resource's validation, the size limit and its own fields

    /// A resource resuming `abcd`, 4 of the 8 bytes `abcdefgh`, kept under `"v1"`.
    static func resumingFourOfEight(in scratch: ScratchDirectory, byteCount: Int64 = 4) throws -> ResumableDownload {
        let partial = scratch.file(".data.bin.partial")
        try Data("abcd".utf8).write(to: partial)
        return ResumableDownload(partialFile: partial, byteCount: byteCount, validator: .entityTag("\"v1\""), expectedLength: 8)
    }

    @Test(arguments: [false, true])
    func aResumed206TheResourceDoesNotAcceptIsReportedByItsValidationAndNeverPlaced(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resource that accepts only answers with X-Api-Version: 2, resumed, and a 206
        // that continues its partial file exactly but does not say that version
        let session = FakeURLSession()
        session.stub(.any, with: .status(206, headers: [
            "ETag": "\"v1\"", "Content-Range": "bytes 4-7/8", "Content-Length": "4", "X-Api-Version": "1",
        ], body: Data("efgh".utf8)))
        var resource = VersionedDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.resumingFourOfEight(in: scratch)
        resource.keepsPartialFile = keepsPartialFile

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await DownloadService<VersionedDownload>(session: session).fetch(resource) }

        // THEN the resource's validation reports the answer, nothing is placed, and the partial
        // file is kept as it was only when the resource keeps partial files
        if keepsPartialFile {
            guard case .downloadInterrupted(let kept, .httpStatus(let failure)) = error else {
                Issue.record("expected the partial file kept after httpStatus, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 206)
            #expect(kept == resource.resumeFrom)
            #expect(try Data(contentsOf: kept.partialFile) == Data("abcd".utf8))
            #expect(scratch.contents() == [".data.bin.partial"])
        } else {
            guard case .httpStatus(let failure) = error else {
                Issue.record("expected httpStatus, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 206)
            #expect(scratch.contents().isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    /// A resource resuming `abcdefgh`, all 8 of its bytes, kept under `"v1"`: a partial file a
    /// `416` completes.
    static func resumingEightOfEight(in scratch: ScratchDirectory) throws -> ResumableDownload {
        let partial = scratch.file(".data.bin.partial")
        try Data("abcdefgh".utf8).write(to: partial)
        return ResumableDownload(partialFile: partial, byteCount: 8, validator: .entityTag("\"v1\""), expectedLength: 8)
    }

    @Test(arguments: [false, true])
    func aResumed416TheResourceDoesNotAcceptIsReportedByItsValidationAndNeverPlaced(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resource that accepts only answers with X-Api-Version: 2, resuming a partial
        // file that is already whole, and a 416 that says so but does not say that version
        let session = FakeURLSession()
        session.stub(.any, with: .status(416, headers: ["Content-Range": "bytes */8", "Content-Length": "0", "X-Api-Version": "1"]))
        var resource = VersionedDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.resumingEightOfEight(in: scratch)
        resource.keepsPartialFile = keepsPartialFile

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await DownloadService<VersionedDownload>(session: session).fetch(resource) }

        // THEN the resource's validation reports the 416, nothing is placed, and the partial
        // file is kept as it was only when the resource keeps partial files, as for a 206 it
        // refuses
        if keepsPartialFile {
            guard case .downloadInterrupted(let kept, .httpStatus(let failure)) = error else {
                Issue.record("expected the partial file kept after httpStatus, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 416)
            #expect(kept == resource.resumeFrom)
            #expect(try Data(contentsOf: kept.partialFile) == Data("abcdefgh".utf8))
            #expect(scratch.contents() == [".data.bin.partial"])
        } else {
            guard case .httpStatus(let failure) = error else {
                Issue.record("expected httpStatus, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 416)
            #expect(scratch.contents().isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: resource.destination.path))
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aResumed416IsValidatedAsThe200ItStandsForWhichTheModelIsGiven() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resource that accepts only answers with X-Api-Version: 2, resuming a partial
        // file that is already whole, and a 416 that says so and says that version, with an
        // error page of its own
        let session = FakeURLSession()
        session.stub(.any, with: .status(416, headers: [
            "Content-Range": "bytes */8", "Content-Type": "text/html", "X-Api-Version": "2", "ETag": "\"v1\"",
        ], body: Data("<p>Range Not Satisfiable</p>".utf8)))
        var resource = HeadRecordingDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.resumingEightOfEight(in: scratch)

        // WHEN it is downloaded
        let head = try await DownloadService<HeadRecordingDownload>(session: session).fetch(resource)

        // THEN the file is placed, and the resource validated, and made its model with, the
        // 200 that would have carried the whole file: the 416's fields but those describing
        // its own body, and the file's length
        #expect(try Data(contentsOf: resource.destination) == Data("abcdefgh".utf8))
        #expect(scratch.contents() == ["data.bin"])
        let validated = resource.validated.withLock { $0 }
        #expect(validated.count == 1)
        for seen in validated + [head] {
            #expect(seen.statusCode == 200)
            #expect(seen.value(forHTTPHeaderField: "Content-Length") == "8")
            #expect(seen.value(forHTTPHeaderField: "Content-Range") == nil)
            #expect(seen.value(forHTTPHeaderField: "Content-Type") == nil)
            #expect(seen.value(forHTTPHeaderField: "X-Api-Version") == "2")
            #expect(seen.value(forHTTPHeaderField: "ETag") == "\"v1\"")
            #expect(seen.url == URL(string: "https://example.com/data"))
        }
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [false, true])
    func aPartialFileA416CompletesOverTheDownloadLimitIsRemovedAndNothingPlaced(keepsPartialFile: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a partial file that already holds all 100,000 bytes, a limit of 50,000, and a
        // 416 that says the partial file is whole
        let session = FakeURLSession()
        session.stub(.any, with: .status(416, headers: ["Content-Range": "bytes */100000", "Content-Length": "0"]))
        var (resource, _) = try Self.resuming(from: URL(string: "https://example.com")!, in: scratch, count: Self.length)
        resource.keepsPartialFile = keepsPartialFile
        let limited = DownloadService<TestDownload>(session: session, options: TransferOptions(maximumDownloadBytes: 50_000))

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await limited.fetch(resource) }

        // THEN it is too large, as a 200 or 206 of that representation would be: nothing is
        // placed, and the partial file is removed rather than kept to be refused again
        guard case .responseTooLarge(let limit) = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 50_000)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aResumed206WhoseContentLengthIsRepeatedWithEqualValuesIsSpliced() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a 206 that continues the partial file, its Content-Length field given twice with
        // the same value (RFC 9112 §6.3 lets a recipient take it as one)
        let session = FakeURLSession()
        session.stub(.any, with: .status(206, headers: [
            "ETag": "\"v1\"", "Content-Range": "bytes 4-7/8", "Content-Length": "4, 4",
        ], body: Data("efgh".utf8)))
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        resource.resumeFrom = try Self.resumingFourOfEight(in: scratch)

        // WHEN it is downloaded
        let placed = try await DownloadService<TestDownload>(session: session).fetch(resource)

        // THEN the rest is appended and the whole file placed
        #expect(try Data(contentsOf: placed) == Data("abcdefgh".utf8))
        #expect(scratch.contents() == ["data.bin"])
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aCodedBodyWhoseContentLengthIsRepeatedWithEqualValuesCountsItsWireBytesAgainstIt() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a gzip body whose Content-Length is given twice with the same value
        let body = DownloadOutcomeTests.incompressible(20_000)
        let gzipped = Data(Compressor.compress(Array(body), .gzip))
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: [
            "Content-Encoding": "gzip", "Content-Length": "\(gzipped.count), \(gzipped.count)",
        ], body: gzipped).inPieces(4))
        let seen = Locked<[TransferProgress]>([])

        // WHEN it is downloaded with progress
        let placed = try await DownloadService<TestDownload>(session: session).fetch(
            TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin")), progressQueue: DispatchQueue(label: "progress")
        ) { progress in seen.withLock { $0.append(progress) } }

        // THEN the coded bytes are counted against that length
        #expect(try Data(contentsOf: placed) == body)
        let values = seen.withLock { $0 }
        #expect(!values.isEmpty)
        #expect(values.allSatisfy { $0.counting == .wireBytes && $0.totalBytes == Int64(gzipped.count) }, "\(values)")
    }

    /// Answers to a resume of 40,000 of 100,000 bytes whose representation is over a limit of
    /// 50,000 bytes: a `206` that continues the partial file, and a `200` that starts over.
    /// (Made for each test, not kept in a static: a `Data` held by a global is reported as a
    /// leak by LeakSanitizer.)
    static func answersOverTheLimit() -> [FakeResponse] {
        let body = DownloadFixtures.body(length)
        return [
            .status(206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 40000-99999/100000", "Content-Length": "60000"], body: body.suffix(from: 40_000)),
            .status(200, headers: ["ETag": "\"v1\"", "Content-Length": "100000"], body: body),
        ]
    }

    @Test(arguments: [false, true], 0..<2)
    func aResumeWhoseRepresentationIsOverTheDownloadLimitRemovesThePartialFile(keepsPartialFile: Bool, answer: Int) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume whose answer says the whole representation is over the limit
        let session = FakeURLSession()
        session.stub(.any, with: Self.answersOverTheLimit()[answer])
        var (resource, _) = try Self.resuming(from: URL(string: "https://example.com")!, in: scratch)
        resource.keepsPartialFile = keepsPartialFile
        let limited = DownloadService<TestDownload>(session: session, options: TransferOptions(maximumDownloadBytes: 50_000))

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await limited.fetch(resource) }

        // THEN it is too large, and no partial file is kept to be resumed into the same refusal
        guard case .responseTooLarge(let limit) = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 50_000)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test(arguments: [false, true], [206, 416])
    func aPartialFileShorterThanItsByteCountIsRefusedAndNotHandedBack(keepsPartialFile: Bool, status: Int) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a resume that says its partial file holds 6 bytes, when it holds 4, answered by a
        // 206 with the bytes after 6, or a 416 that says the representation is 6 bytes long
        let session = FakeURLSession()
        if status == 206 {
            session.stub(.any, with: .status(206, headers: [
                "ETag": "\"v1\"", "Content-Range": "bytes 6-7/8", "Content-Length": "2",
            ], body: Data("gh".utf8)))
        } else {
            session.stub(.any, with: .status(416, headers: ["Content-Range": "bytes */6", "Content-Length": "0"]))
        }
        var resource = TestDownload(url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"))
        let partial = try Self.resumingFourOfEight(in: scratch, byteCount: 6)
        resource.resumeFrom = ResumableDownload(
            partialFile: partial.partialFile, byteCount: 6, validator: partial.validator, expectedLength: status == 206 ? 8 : 6
        )
        resource.keepsPartialFile = keepsPartialFile

        // WHEN it is downloaded
        let error = await #expect(throws: ResourceError.self) { try await DownloadService<TestDownload>(session: session).fetch(resource) }

        // THEN the file is refused as not the partial file described, and neither handed back
        // nor left behind
        guard case .fileSystem(let failure) = error else {
            Issue.record("expected fileSystem(EINVAL), got \(String(describing: error))")
            return
        }
        #expect(failure.code == EINVAL)
        #expect(failure.url == partial.partialFile)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func renamingWithoutReplacingNeverReplacesAFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = scratch.file("source")
        let destination = scratch.file("destination")
        try Data("new".utf8).write(to: source)
        try Data("old".utf8).write(to: destination)

        let error = #expect(throws: ResourceError.self) { try DownloadFile.renameExclusively(source, to: destination) }

        guard case .fileSystem(let failure) = error else {
            Issue.record("expected fileSystem(EEXIST), got \(String(describing: error))")
            return
        }
        #expect(failure.code == EEXIST)
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        try FileManager.default.removeItem(at: destination)
        try DownloadFile.renameExclusively(source, to: destination)
        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        #expect(scratch.contents() == ["destination"])
    }
}
