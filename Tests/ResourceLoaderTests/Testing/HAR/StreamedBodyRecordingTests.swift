import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The bodies a loopback server received, in order.
private final class ReceivedBodies: @unchecked Sendable {
    // `lock` guards `bodies`.
    private let lock = NSLock()
    private var bodies: [Data] = []

    func append(_ body: Data) { lock.withLock { bodies.append(body) } }
    var all: [Data] { lock.withLock { bodies } }
}

/// A file of its own for one test, removed by the test.
private func temporaryFile(_ data: Data) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("har-body-\(UUID().uuidString).bin")
    try data.write(to: url)
    return url
}

/// `count` bytes that differ from byte to byte, binary (not UTF-8).
private func binaryBytes(_ count: Int, seed: Int = 0) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &+ seed) &* 167 &+ 128) })
}

/// Streamed request bodies (a file, a form, a one-shot stream) in the archive: recorded as they
/// were sent, and matched by the replayer's body rule.
@Suite("HAR recording of streamed request bodies")
struct StreamedBodyRecordingTests {
    /// A server that keeps each body and answers with it reversed.
    private static func echoServer(_ received: ReceivedBodies) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            received.append(request.body)
            return .status(200, headers: ["Content-Type": "application/octet-stream"], body: Data(request.body.reversed()))
        }
    }

    @Test func aFileBodyIsRecordedAsSentAndReplayedByItsBytes() async throws {
        let received = ReceivedBodies()
        let server = try Self.echoServer(received)
        defer { server.stop() }
        let bytes = binaryBytes(100_000)
        let file = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: file) }
        let recording = RecordingTransport(wrapping: URLSessionTransport())
        let resource = BytesResource(url: server.baseURL.appendingPathComponent("upload"), httpMethod: .post, requestBody: try .file(file))

        let answer = try await ResourceService<BytesResource>(session: recording).fetch(resource)

        #expect(received.all == [bytes])
        let entry = try #require(recording.har.log.entries.first)
        #expect(entry.request.bodySize == 100_000)
        #expect(entry.request.postData?.encoding == "base64")
        #expect(entry.request.postData?.data == bytes)
        #expect(entry.request.postData?.mimeType == "application/octet-stream")

        // The archive survives a round trip through JSON, and the body rule matches the file.
        let har = try JSONDecoder().decode(HAR.self, from: JSONEncoder().encode(recording.har))
        let replay = ReplayTransport(har: har, rules: [.method, .url, .body])
        #expect(try await ResourceService<BytesResource>(session: replay).fetch(resource) == answer)

        let other = try temporaryFile(binaryBytes(100_000, seed: 1))
        defer { try? FileManager.default.removeItem(at: other) }
        let changed = BytesResource(url: resource.url, httpMethod: .post, requestBody: try .file(other))
        await #expect(throws: ResourceError.self) { try await ResourceService<BytesResource>(session: replay).fetch(changed) }
    }

    @Test func aMultipartFormIsRecordedAsTheServerReceivedIt() async throws {
        let received = ReceivedBodies()
        let server = try Self.echoServer(received)
        defer { server.stop() }
        let file = try temporaryFile(binaryBytes(20_000))
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartFormData()
        form.append("A caption", named: "caption")
        try form.appendFile(at: file, named: "photo", fileName: "photo.bin")
        let resource = BytesResource(url: server.baseURL.appendingPathComponent("form"), httpMethod: .post, requestBody: try .multipart(form))
        let recording = RecordingTransport(wrapping: URLSessionTransport())

        let answer = try await ResourceService<BytesResource>(session: recording).fetch(resource)

        let sent = try #require(received.all.first)
        let entry = try #require(recording.har.log.entries.first)
        #expect(entry.request.postData?.data == sent)
        #expect(entry.request.bodySize == sent.count)
        #expect(entry.request.postData?.mimeType.hasPrefix("multipart/form-data; boundary=") == true)

        let replay = ReplayTransport(har: recording.har, rules: [.method, .url, .body])
        #expect(try await ResourceService<BytesResource>(session: replay).fetch(resource) == answer)
    }

    @Test func aOneShotStreamIsTappedAsTheTransportReadsIt() async throws {
        let chunks = [Data("first chunk, ".utf8), binaryBytes(5_000), Data(" last".utf8)]
        let whole = chunks.reduce(Data(), +)
        let fake = FakeURLSession()
        fake.stub(.any, with: .status(201, body: Data("stored".utf8)))
        let recording = RecordingTransport(wrapping: fake)
        let stream = RequestBodyStream(chunkStream(chunks))
        let resource = BytesResource(url: URL(string: "https://api.example.com/stream")!, httpMethod: .put, requestBody: .stream(stream))

        #expect(try await ResourceService<BytesResource>(session: recording).fetch(resource) == Data("stored".utf8))

        // The transport got every byte, once, and the archive holds the same bytes.
        #expect(stream.isConsumed)
        #expect(fake.receivedRequests.map(\.httpBody) == [whole])
        let entry = try #require(recording.har.log.entries.first)
        #expect(entry.request.postData?.data == whole)
        #expect(entry.request.bodySize == whole.count)

        // A replay reads a new stream and matches it by its bytes.
        let replay = ReplayTransport(har: recording.har, rules: [.method, .url, .body])
        let again = BytesResource(url: resource.url, httpMethod: .put, requestBody: .stream(RequestBodyStream(chunkStream(chunks))))
        #expect(try await ResourceService<BytesResource>(session: replay).fetch(again) == Data("stored".utf8))
        let other = BytesResource(url: resource.url, httpMethod: .put, requestBody: .stream(RequestBodyStream(chunkStream([Data("other".utf8)]))))
        await #expect(throws: ResourceError.self) { try await ResourceService<BytesResource>(session: replay).fetch(other) }
    }

    @Test func aBodyOverTheLimitIsRecordedByItsSizeWithAComment() async throws {
        let fake = FakeURLSession()
        fake.stub(.any, with: .status(200))
        let recording = RecordingTransport(wrapping: fake, maximumRecordedBodyBytes: 1_000)
        let file = try temporaryFile(binaryBytes(5_000))
        defer { try? FileManager.default.removeItem(at: file) }
        let url = URL(string: "https://api.example.com/big")!

        _ = try await ResourceService<BytesResource>(session: recording).fetch(BytesResource(url: url, httpMethod: .post, requestBody: try .file(file)))
        let unknownLength = RequestBodyStream(chunkStream([binaryBytes(600), binaryBytes(600)]))
        _ = try await ResourceService<BytesResource>(session: recording).fetch(BytesResource(url: url, httpMethod: .post, requestBody: .stream(unknownLength)))
        let small = RequestBodyStream(chunkStream([Data("tiny".utf8)]))
        _ = try await ResourceService<BytesResource>(session: recording).fetch(BytesResource(url: url, httpMethod: .post, requestBody: .stream(small)))

        let requests = recording.har.log.entries.map(\.request)
        #expect(requests.map(\.bodySize) == [5_000, 1_200, 4])
        for request in requests.prefix(2) {
            #expect(request.postData?.text == "")
            #expect(request.postData?.comment?.contains("over the recorder's limit") == true)
        }
        #expect(requests.last?.postData?.text == "tiny")
        #expect(requests.last?.postData?.comment == nil)
        // The transport was sent every byte all the same.
        #expect(fake.receivedRequests.map { $0.httpBody?.count } == [5_000, 1_200, 4])
    }

    @Test func aBodyOverTheLimitReplaysUnderTheSameLimit() async throws {
        let fake = FakeURLSession()
        fake.stub(.any, with: .status(200, body: Data("stored".utf8)))
        let recording = RecordingTransport(wrapping: fake, maximumRecordedBodyBytes: 1_000)
        let file = try temporaryFile(binaryBytes(5_000))
        defer { try? FileManager.default.removeItem(at: file) }
        let upload = BytesResource(url: URL(string: "https://api.example.com/big")!, httpMethod: .post, requestBody: try .file(file))
        _ = try await ResourceService<BytesResource>(session: recording).fetch(upload)

        let replay = ReplayTransport(har: recording.har, rules: [.method, .url, .body], maximumRecordedBodyBytes: 1_000)
        #expect(replay.maximumRecordedBodyBytes == 1_000)
        #expect(try await ResourceService<BytesResource>(session: replay).fetch(upload) == Data("stored".utf8))
        #expect(replay.replayer.unusedEntries.isEmpty)
    }

    @Test func aLiveBodyOverTheLimitDoesNotMatchAnEntryWithoutABody() async throws {
        let url = "https://api.example.com/big"
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        let live = HAR.Request(request, sentBody: SentRequestBody(bytes: nil, byteCount: 5_000))
        let recorded = RecordingAndReplayTests.entry("POST", url)
        let difference = try #require(HARMatchingRule.body.difference(between: live, and: recorded.request))
        #expect(difference.contains("5000 bytes over the limit"))
        // Two bodies over the limit agree.
        #expect(HARMatchingRule.body.difference(between: live, and: live) == nil)

        // The same through the transport, at the default limit.
        let file = try temporaryFile(binaryBytes(SentRequestBody.defaultLimit + 1))
        defer { try? FileManager.default.removeItem(at: file) }
        let replay = ReplayTransport(
            har: HAR(log: HAR.Log(creator: HAR.Creator(name: "t", version: "1"), entries: [recorded])), rules: [.method, .url, .body])
        let upload = BytesResource(url: URL(string: url)!, httpMethod: .post, requestBody: try .file(file))
        await #expect(throws: ResourceError.self) { try await ResourceService<BytesResource>(session: replay).fetch(upload) }
        #expect(replay.replayer.unusedEntries == [0])
    }

    @Test func aBodyThatCannotBeReadAgainIsRecordedWithAComment() async throws {
        let file = try temporaryFile(binaryBytes(2_000))
        defer { try? FileManager.default.removeItem(at: file) }
        let held = HeldTransport()
        let recording = RecordingTransport(wrapping: held)
        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        request.httpMethod = "POST"
        request.setBody(try .file(file))
        let outcomes = Outcomes()
        _ = recording.send(request, options: TransferOptions()) { outcomes.append($0) }

        // The file changes after the transport sent it, before the recorder reads it again.
        try binaryBytes(10).write(to: file)
        held.answer(0, with: "stored")
        _ = try #require(await withTimeLimit { await outcomes.waitForOne() }).get()

        let entry = try #require(recording.har.log.entries.first)
        let comment = try #require(entry.request.postData?.comment)
        #expect(comment.contains("could not be read"))
        #expect(entry.request.postData?.text == "")
        #expect(entry.request.bodySize == 2_000)
    }

    #if canImport(FoundationNetworking)
    @Test func aTransportThatRefusesStreamsStillRefusesThemWhenRecorded() async throws {
        let recording = RecordingTransport(wrapping: URLSessionTransport())
        let stream = RequestBodyStream(chunkStream([Data("never sent".utf8)]))
        let resource = BytesResource(url: URL(string: "http://127.0.0.1:9/refused")!, httpMethod: .post, requestBody: .stream(stream))

        let error = await #expect(throws: ResourceError.self) { try await ResourceService<BytesResource>(session: recording).fetch(resource) }

        guard case .invalidRequest = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(!stream.isConsumed)
        #expect(recording.har.log.entries.isEmpty)
    }
    #endif
}
