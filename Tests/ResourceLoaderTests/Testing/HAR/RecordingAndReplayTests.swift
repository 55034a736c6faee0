import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A binary body: every byte value, down and up again, so that it is not UTF-8 (and, starting
/// with bytes above 127, reads as binary to tools that look at the first hundred bytes).
/// Made afresh on each use rather than kept in a global, which the leak sanitizer reports.
var everyByte: Data { Data((0...255).reversed().map { UInt8($0) } + (0...255).map { UInt8($0) }) }

/// A resource whose model is its body's bytes, at any URL and with any method and body.
struct BytesResource: NetworkResourceType, DataResourceType {
    var url: URL
    var httpMethod: HTTPMethod = .get
    var headerFields: [String: String] = [:]
    var requestBody: RequestBody?
    var body: RequestBody? { requestBody }
    func model(from data: Data) throws -> Data { data }
}

/// Sends one request through `transport` and returns its answer.
func exchange(_ request: URLRequest, through transport: any URLSessionType) async -> Result<(Data, ResponseHead), any Error> {
    await withCheckedContinuation { continuation in
        _ = transport.send(request, options: TransferOptions()) { continuation.resume(returning: $0) }
    }
}

@Suite("HAR recording and replay")
struct RecordingAndReplayTests {
    /// The loopback server of these tests: cities as JSON, a binary image, an echo of a posted
    /// body, and a counter that answers each request with the next number.
    static func makeServer() throws -> LoopbackHTTPServer {
        let counter = CounterBox()
        return try LoopbackHTTPServer { request in
            switch request.path {
            case "/europe.json":
                return .json(#"{"cities": [{"name": "Lisbon"}, {"name": "Zürich"}]}"#)
            case "/image.png":
                return .status(200, headers: ["Content-Type": "image/png"], body: everyByte)
            case "/upload":
                return .status(201, headers: ["Content-Type": "application/octet-stream"], body: Data(request.body.reversed()))
            case "/counter":
                return .json(#"{"n": \#(counter.next())}"#)
            default:
                return .status(404)
            }
        }
    }

    @Test func aRecordedSessionReplaysTheSameModelsThroughResourceService() async throws {
        let server = try Self.makeServer()
        let recording = RecordingTransport(wrapping: URLSessionTransport())
        let cities = CitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        let image = BytesResource(url: server.baseURL.appendingPathComponent("image.png"))
        let upload = BytesResource(
            url: server.baseURL.appendingPathComponent("upload"), httpMethod: .post, requestBody: .data(everyByte, contentType: "application/octet-stream"))

        let live = await withTimeLimit {
            (
                try? await ResourceService<CitiesResource>(session: recording).fetch(cities),
                try? await ResourceService<BytesResource>(session: recording).fetch(image),
                try? await ResourceService<BytesResource>(session: recording).fetch(upload)
            )
        }
        server.stop()
        #expect(live?.0 == [City(name: "Lisbon"), City(name: "Zürich")])
        #expect(live?.1 == everyByte)
        #expect(live?.2 == Data(everyByte.reversed()))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try recording.write(to: file)
        let har = try HAR(contentsOf: file)
        #expect(har == recording.har)
        #expect(har.log.version == "1.2")
        #expect(har.log.entries.count == 3)

        // The server is gone: only the archive can answer.
        let replay = try ReplayTransport(contentsOf: file)
        let replayed = await withTimeLimit {
            (
                try? await ResourceService<CitiesResource>(session: replay).fetch(cities),
                try? await ResourceService<BytesResource>(session: replay).fetch(image),
                try? await ResourceService<BytesResource>(session: replay).fetch(upload)
            )
        }
        #expect(replayed?.0 == live?.0)
        #expect(replayed?.1 == live?.1)
        #expect(replayed?.2 == live?.2)
        #expect(replay.replayer.unusedEntries.isEmpty)
    }

    @Test func binaryBodiesAreWrittenAsBase64AndTextAsText() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let recording = RecordingTransport(wrapping: URLSessionTransport())
        var upload = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
        upload.httpMethod = "POST"
        upload.httpBody = everyByte
        upload.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        _ = try await exchange(upload, through: recording).get()
        _ = try await exchange(URLRequest(url: server.baseURL.appendingPathComponent("europe.json")), through: recording).get()

        let entries = recording.har.log.entries
        try #require(entries.count == 2)
        let binary = try #require(entries.first { $0.request.method == "POST" })
        #expect(binary.request.postData?.encoding == "base64")
        #expect(binary.request.postData?.text == everyByte.base64EncodedString())
        #expect(binary.request.postData?.data == everyByte)
        #expect(binary.request.bodySize == everyByte.count)
        #expect(binary.response.content.encoding == "base64")
        #expect(binary.response.content.text == Data(everyByte.reversed()).base64EncodedString())
        #expect(binary.response.content.size == everyByte.count)
        #expect(binary.response.content.mimeType == "application/octet-stream")
        #expect(binary.response.status == 201)
        #expect(binary.response.statusText == "Created")

        let text = try #require(entries.first { $0.request.method == "GET" })
        #expect(text.response.content.encoding == nil)
        #expect(text.response.content.text == #"{"cities": [{"name": "Lisbon"}, {"name": "Zürich"}]}"#)
        #expect(text.response.content.size == Data(text.response.content.text!.utf8).count)

        // The JSON written carries the binary body only as base64.
        let json = try #require(String(data: try recording.har.jsonData(), encoding: .utf8))
        #expect(json.contains(#""encoding" : "base64""#))
        #expect(json.contains(#""_encoding" : "base64""#))
    }

    @Test func repeatedRequestsTakeTheirEntriesInRecordedOrder() async throws {
        let server = try Self.makeServer()
        let recording = RecordingTransport(wrapping: URLSessionTransport())
        let counter = URLRequest(url: server.baseURL.appendingPathComponent("counter"))
        let other = URLRequest(url: server.baseURL.appendingPathComponent("europe.json"))
        for request in [counter, other, counter, counter] {
            _ = try await exchange(request, through: recording).get()
        }
        server.stop()
        let har = recording.har
        #expect(har.log.entries.compactMap(\.response.content.text).filter { $0.hasPrefix(#"{"n""#) } == [
            #"{"n": 1}"#, #"{"n": 2}"#, #"{"n": 3}"#,
        ])

        func body(_ answer: Result<(Data, ResponseHead), any Error>) -> String? {
            (try? answer.get()).map { String(decoding: $0.0, as: UTF8.self) }
        }
        let repeating = ReplayTransport(har: har)
        var answers: [String?] = []
        for request in [counter, counter, other, counter, counter] {
            answers.append(body(await exchange(request, through: repeating)))
        }
        #expect(answers[0] == #"{"n": 1}"#)
        #expect(answers[1] == #"{"n": 2}"#)
        #expect(answers[3] == #"{"n": 3}"#)
        #expect(answers[4] == #"{"n": 3}"#, "after the last entry, the last answers again")

        let strict = ReplayTransport(har: har, exhaustion: .fail)
        for expected in [#"{"n": 1}"#, #"{"n": 2}"#, #"{"n": 3}"#] {
            #expect(body(await exchange(counter, through: strict)) == expected)
        }
        let fourth = await exchange(counter, through: strict)
        let error = try #require(fourth.failure as? HARReplayError)
        #expect(error == .exhausted(request: "GET \(counter.url!.absoluteString)", entries: 3))
        #expect(error.description == "The HAR's 3 entries for GET \(counter.url!.absoluteString) have all been used")
        #expect(strict.replayer.unusedEntries == [1])
    }

    @Test func aRequestThatMatchesNothingNamesTheClosestEntryAndWhatDiffered() async throws {
        let har = HAR(log: HAR.Log(creator: HAR.Creator(name: "test", version: "1"), entries: [
            Self.entry("GET", "https://api.example.com/a"),
            Self.entry("POST", "https://api.example.com/b?page=1"),
        ]))
        let replay = ReplayTransport(har: har)
        var request = URLRequest(url: URL(string: "https://api.example.com/b?page=2")!)
        request.httpMethod = "POST"
        let error = try #require(await exchange(request, through: replay).failure as? HARReplayError)
        #expect(error == .noMatch(
            request: "POST https://api.example.com/b?page=2",
            closest: .init(index: 1, request: "POST https://api.example.com/b?page=1", differences: [
                "URL: recorded https://api.example.com/b?page=1, requested https://api.example.com/b?page=2",
            ])))
        #expect(error.description == "The HAR has no entry for POST https://api.example.com/b?page=2; the closest is entry 1, "
            + "POST https://api.example.com/b?page=1, which differs in URL: recorded https://api.example.com/b?page=1, "
            + "requested https://api.example.com/b?page=2")

        // Through a service, the error keeps its words.
        let service = ResourceService<BytesResource>(session: replay)
        let failure = await withTimeLimit { () -> ResourceError? in
            do throws(ResourceError) {
                _ = try await service.fetch(BytesResource(url: URL(string: "https://api.example.com/c")!))
                return nil
            } catch {
                return error
            }
        }
        let described = failure??.description ?? "(no error)"
        #expect(described.contains("The HAR has no entry for GET https://api.example.com/c; the closest is entry 0, GET https://api.example.com/a"))

        let empty = ReplayTransport(har: HAR(log: HAR.Log(creator: har.log.creator, entries: [])))
        let none = try #require(await exchange(request, through: empty).failure as? HARReplayError)
        #expect(none.description == "The HAR has no entry for POST https://api.example.com/b?page=2: it has no entries")
    }

    @Test func rulesMatchQueriesInAnyOrderChosenHeadersBodiesAndCustomTests() async throws {
        var first = Self.entry("POST", "https://api.example.com/search?b=2&a=1", body: "one")
        first.request.headers = [HAR.Header(name: "Accept", value: "application/json")]
        var second = Self.entry("POST", "https://api.example.com/search?b=2&a=1", body: "two")
        second.request.headers = [HAR.Header(name: "accept", value: "text/xml")]
        second.response.status = 202
        let har = HAR(log: HAR.Log(creator: HAR.Creator(name: "test", version: "1"), entries: [first, second]))

        var request = URLRequest(url: URL(string: "https://api.example.com/search?a=1&b=2")!)
        request.httpMethod = "POST"
        request.httpBody = Data("two".utf8)
        request.setValue("text/xml", forHTTPHeaderField: "Accept")

        // Method and URL: the query's order matters.
        #expect(await exchange(request, through: ReplayTransport(har: har)).failure is HARReplayError)

        let byBody = ReplayTransport(har: har, rules: [.method, .urlIgnoringQueryOrder, .body])
        #expect(try await exchange(request, through: byBody).get().1.statusCode == 202)

        let byHeader = ReplayTransport(har: har, rules: [.method, .urlIgnoringQueryOrder, .headers(["Accept"])])
        #expect(try await exchange(request, through: byHeader).get().1.statusCode == 202)

        request.setValue("text/html", forHTTPHeaderField: "Accept")
        let mismatch = try #require(await exchange(request, through: byHeader).failure as? HARReplayError)
        guard case .noMatch(_, let closest?) = mismatch else {
            Issue.record("expected noMatch, got \(mismatch)")
            return
        }
        #expect(closest.differences == [#"header Accept: recorded "application/json", requested "text/html""#])

        let custom = ReplayTransport(har: har, rules: [.custom("same body length") { $0.bodySize == $1.bodySize }])
        #expect(try await exchange(request, through: custom).get().1.statusCode == 200)
        let never = ReplayTransport(har: har, rules: [.custom("never") { _, _ in false }])
        let refused = try #require(await exchange(request, through: never).failure as? HARReplayError)
        #expect(refused.description.hasSuffix("which differs in never: not satisfied"))
    }

    @Test func aRecordedRedirectIsFollowedToItsTargetsEntry() async throws {
        // GIVEN an archive, as a browser exports one, of a redirect and of the request it led to
        var moved = Self.entry("GET", "https://api.example.com/old")
        moved.response = HAR.Response(
            status: 302, statusText: "Found", headers: [HAR.Header(name: "Location", value: "/new")],
            content: HAR.Content(body: Data(), mimeType: ""), redirectURL: "/new")
        var landed = Self.entry("GET", "https://api.example.com/new")
        landed.response.content = HAR.Content(body: Data("landed".utf8), mimeType: "text/plain")
        let har = HAR(log: HAR.Log(creator: HAR.Creator(name: "t", version: "1"), entries: [moved, landed]))
        let replay = ReplayTransport(har: har)

        // WHEN the first request is replayed
        let (body, head) = try await exchange(URLRequest(url: URL(string: "https://api.example.com/old")!), through: replay).get()

        // THEN the redirect is followed: the answer is the last hop's, from its URL
        #expect(head.statusCode == 200)
        #expect(head.url?.absoluteString == "https://api.example.com/new")
        #expect(body == Data("landed".utf8))
        #expect(replay.replayer.unusedEntries.isEmpty)

        // AND the redirect limit holds: none allowed, the redirect is refused
        var options = TransferOptions()
        options.maximumRedirects = 0
        let refused = await withCheckedContinuation { continuation in
            _ = ReplayTransport(har: har).send(URLRequest(url: URL(string: "https://api.example.com/old")!), options: options) {
                continuation.resume(returning: $0)
            }
        }
        let error = try #require(refused.failure)
        guard case .redirectRefused(.tooManyRedirects(limit: 0)) = ResourceError(transportError: error) else {
            Issue.record("refused with \(error), expected tooManyRedirects(limit: 0)")
            return
        }
    }

    @Test func cancellingBeforeTheAnswerDeliversCancelled() async throws {
        let replay = ReplayTransport(har: HAR(log: HAR.Log(creator: HAR.Creator(name: "t", version: "1"), entries: [
            Self.entry("GET", "https://api.example.com/a"),
        ])))
        let outcomes = Outcomes()
        let task = replay.send(URLRequest(url: URL(string: "https://api.example.com/a")!), options: TransferOptions()) {
            outcomes.append($0)
        }
        task.cancel()
        let delivered = await withTimeLimit { await outcomes.waitForOne() }
        let first = try #require(delivered)
        // Cancelled at once, unless the answer was already on its way; exactly one either way.
        if case .failure(let error) = first {
            #expect((error as? URLError)?.code == .cancelled)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(outcomes.count == 1)
    }

    @Test func theArchiveListsExchangesInTheOrderTheyStartedWhateverOrderTheyEnd() async throws {
        // Several times, so that the two starts fall within one millisecond at least once.
        for _ in 0..<5 {
            let held = HeldTransport()
            let recording = RecordingTransport(wrapping: held)
            let outcomes = Outcomes()
            for path in ["first", "second"] {
                _ = recording.send(URLRequest(url: URL(string: "https://api.example.com/\(path)")!), options: TransferOptions()) {
                    outcomes.append($0)
                }
            }
            held.answer(1, with: "second")
            held.answer(0, with: "first")
            #expect(outcomes.count == 2)
            #expect(recording.har.log.entries.map(\.request.url) == ["https://api.example.com/first", "https://api.example.com/second"])
        }
    }

    @Test func concurrentRequestsTakeDistinctEntries() async throws {
        let count = 64
        let url = "https://api.example.com/counter"
        let entries = (0..<count).map { index in
            var entry = Self.entry("GET", url)
            entry.response.content = HAR.Content(body: Data("\(index)".utf8), mimeType: "text/plain")
            return entry
        }
        let har = HAR(log: HAR.Log(creator: HAR.Creator(name: "t", version: "1"), entries: entries))
        let request = URLRequest(url: URL(string: url)!)
        // Many rounds, so that a race between choosing an entry and counting it used shows.
        for _ in 0..<50 {
            let replay = ReplayTransport(har: har, exhaustion: .fail)
            let bodies = await withTaskGroup(of: String?.self) { group in
                for index in 0..<count {
                    group.addTask {
                        // Half of them with a streamed body, which the replayer matches on
                        // Dispatch's threads rather than the caller's.
                        var sent = request
                        if index.isMultiple(of: 2) { sent.setBody(.stream(RequestBodyStream(chunkStream([Data("x".utf8)])))) }
                        return (try? await exchange(sent, through: replay).get()).map { String(decoding: $0.0, as: UTF8.self) }
                    }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(bodies.compactMap { $0 }.count == count)
            #expect(Set(bodies.compactMap { $0 }) == Set((0..<count).map { "\($0)" }))
            #expect(replay.replayer.unusedEntries.isEmpty)
            #expect(await exchange(request, through: replay).failure is HARReplayError)
        }
    }

    static func entry(_ method: String, _ url: String, body: String? = nil) -> HAR.Entry {
        HAR.Entry(
            startedDateTime: "2026-01-01T00:00:00.000Z", time: 1,
            request: HAR.Request(
                method: method, url: url,
                postData: body.map { HAR.PostData(mimeType: "text/plain", text: $0) }, bodySize: body?.utf8.count ?? 0),
            response: HAR.Response(status: 200, statusText: "OK", content: HAR.Content(body: Data("{}".utf8), mimeType: "application/json")),
            timings: HAR.Timings(send: 0, wait: 1, receive: 0))
    }
}

/// A counter shared with the server's handler.
final class CounterBox: @unchecked Sendable {
    // `lock` guards `value`.
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}

/// The answers a transport delivered, for counting them.
final class Outcomes: @unchecked Sendable {
    // `lock` guards `answers`.
    private let lock = NSLock()
    private var answers: [Result<(Data, ResponseHead), any Error>] = []

    func append(_ answer: Result<(Data, ResponseHead), any Error>) {
        lock.withLock { answers.append(answer) }
    }

    var count: Int { lock.withLock { answers.count } }

    func waitForOne() async -> Result<(Data, ResponseHead), any Error> {
        while true {
            if let first = lock.withLock({ answers.first }) { return first }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// A transport that holds every transfer until the test answers it, in any order.
final class HeldTransport: HTTPTransport, @unchecked Sendable {
    // `lock` guards `transfers`.
    private let lock = NSLock()
    private var transfers: [(request: URLRequest, receiver: any TransferReceiver)] = []

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        lock.withLock { transfers.append((request, receiver)) }
        return HeldTransfer()
    }

    /// Answers the transfer started `index`th with a `200` and `body`.
    func answer(_ index: Int, with body: String) {
        let (request, receiver) = lock.withLock { transfers[index] }
        _ = receiver.transferDidReceive(head: ResponseHead(statusCode: 200, url: request.url, headerFields: [("Content-Type", "text/plain")]))
        _ = receiver.transferDidReceive(Data(body.utf8))
        receiver.transferDidComplete(with: nil)
    }
}

/// The handle of a held transfer; cancelling it does nothing.
private final class HeldTransfer: Cancellable {
    func cancel() {}
}
