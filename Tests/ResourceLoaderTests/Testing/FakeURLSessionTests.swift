import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("FakeURLSession")
struct FakeURLSessionTests {
    let session = FakeURLSession()

    private func send(_ request: URLRequest) async -> Result<(Data, URLResponse), any Error> {
        await withCheckedContinuation { continuation in
            _ = session.data(for: request, options: TransferOptions()) { continuation.resume(returning: $0) }
        }
    }

    private func request(_ url: String, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        return request
    }

    @Test func answersWithTheStubbedStatusHeadersAndBody() async throws {
        session.stub(.url("https://x.test/a"), with: .status(201, headers: ["ETag": "v1"], body: Data("hi".utf8)))
        let (data, response) = try await send(request("https://x.test/a")).get()
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 201)
        #expect(http.value(forHTTPHeaderField: "ETag") == "v1")
        #expect(data == Data("hi".utf8))
    }

    @Test func matchesByMethodPathAndPredicate() async throws {
        session.stub(.method(.post).and(.path("/users")), with: .status(201))
        session.stub(.matching("has a token") { $0.value(forHTTPHeaderField: "Authorization") != nil }, with: .status(204))
        let created = try await send(request("https://x.test/users?x=1", method: "POST")).get()
        #expect((created.1 as? HTTPURLResponse)?.statusCode == 201)
        var authorised = request("https://x.test/me")
        authorised.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        #expect((try await send(authorised).get().1 as? HTTPURLResponse)?.statusCode == 204)
        #expect(await send(request("https://x.test/users")).failure is UnmatchedRequestError)
    }

    @Test func theNewestMatchingStubWins() async throws {
        session.stub(.any, with: .status(500))
        session.stub(.path("/ok"), with: .status(200))
        #expect((try await send(request("https://x.test/ok")).get().1 as? HTTPURLResponse)?.statusCode == 200)
        #expect((try await send(request("https://x.test/other")).get().1 as? HTTPURLResponse)?.statusCode == 500)
    }

    @Test func recordsEveryRequestInOrder() async {
        session.stub(.any, with: .status(200))
        _ = await send(request("https://x.test/1"))
        _ = await send(request("https://x.test/2", method: "DELETE"))
        #expect(session.receivedRequests.map(\.url?.path) == ["/1", "/2"])
        #expect(session.receivedRequests.map(\.httpMethod) == ["GET", "DELETE"])
        session.reset()
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func anUnmatchedRequestFailsWithAMessageNamingIt() async {
        session.stub(.path("/known"), with: .status(200))
        let result = await send(request("https://x.test/unknown?q=1", method: "PUT"))
        let error = result.failure as? UnmatchedRequestError
        #expect(error?.description == "FakeURLSession has no stub for PUT https://x.test/unknown?q=1")
    }

    @Test func anUnmatchedRequestSurfacesThroughAServiceWithItsName() async {
        let error = await ResourceService<CitiesResource>(session: session).fetchError(CitiesResource())
        #expect(error?.description.contains("no stub for GET https://api.example.com/europe.json") == true)
    }

    @Test func answersWithAStubbedError() async {
        session.stub(.any, with: .error(URLError(.notConnectedToInternet)))
        #expect((await send(request("https://x.test/")).failure as? URLError)?.code == .notConnectedToInternet)
    }

    @Test func cancellingAnswersCancelledAtOnce() async {
        session.stub(.any, with: .status(200).delayed(by: .seconds(60)))
        let result = await withCheckedContinuation { continuation in
            session.data(for: request("https://x.test/"), options: TransferOptions()) { continuation.resume(returning: $0) }.cancel()
        }
        #expect((result.failure as? URLError)?.code == .cancelled)
    }

    @Test func cancellingWhileTheBodyArrivesStopsItAndAnswersCancelledOnce() async throws {
        // GIVEN a body in ten pieces, and a receiver that cancels the transfer on the third
        session.stub(.any, with: .status(200, body: Data(count: 100)).inPieces(10))
        let receiver = RecordingReceiver(cancellingOnPiece: 3)
        let handle = session.startTransfer(request("https://x.test/"), options: TransferOptions(), receiver: receiver)
        receiver.hold(handle)

        // WHEN the transfer runs
        try await waitUntil { receiver.completions.count == 1 }

        // THEN the pieces stop at the third, and the transfer completes once (its last call),
        // cancelled
        #expect(receiver.pieces == 3)
        #expect(receiver.completions.count == 1)
        #expect((receiver.completions.first as? URLError)?.code == .cancelled)
    }

    @Test func asManyPiecesAsAnIntHoldsAreOneAByte() async throws {
        // GIVEN a stub asking for Int.max pieces
        session.stub(.any, with: .status(200, body: Data("hello".utf8)).inPieces(.max))
        let receiver = RecordingReceiver()

        // WHEN it answers
        _ = session.startTransfer(request("https://x.test/"), options: TransferOptions(), receiver: receiver)
        try await waitUntil { receiver.completions.count == 1 }

        // THEN the body arrives a byte at a piece, whole
        #expect(receiver.pieces == 5)
        #expect(receiver.completions.map { $0 == nil } == [true])
    }

    @Test func asManyUploadStepsAsAnIntHoldsAreOneAByte() async throws {
        // GIVEN a stub asking for Int.max upload steps
        session.stub(.any, with: .status(200).reportingUpload(inSteps: .max))
        var upload = request("https://x.test/", method: "POST")
        upload.httpBody = Data("abc".utf8)
        let receiver = RecordingReceiver()

        // WHEN a request with a body is answered
        _ = session.startTransfer(upload, options: TransferOptions(), receiver: receiver)
        try await waitUntil { receiver.completions.count == 1 }

        // THEN the upload is reported a byte at a step
        #expect(receiver.sent == [1, 2, 3])
        #expect(receiver.completions.map { $0 == nil } == [true])
    }

    @Test func aDelayedAnswerArrivesAfterOthers() async throws {
        session.stub(.path("/slow"), with: .status(200).delayed(by: .milliseconds(200)))
        session.stub(.path("/fast"), with: .status(200))
        let order = OrderRecorder()
        await withCheckedContinuation { continuation in
            let remaining = Counter()
            for path in ["/slow", "/fast"] {
                _ = session.data(for: request("https://x.test" + path), options: TransferOptions()) { _ in
                    order.append(path)
                    remaining.increment()
                    if remaining.value == 2 { continuation.resume() }
                }
            }
        }
        #expect(order.values == ["/fast", "/slow"])
    }
}

final class OrderRecorder: @unchecked Sendable {
    // `lock` guards `items`.
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
    var values: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

/// A receiver that records what arrives; it can cancel its transfer on a given piece of the body.
/// It waits in ``transferDidReceive(head:)`` until it holds its transfer's handle (when it is to
/// cancel it).
final class RecordingReceiver: TransferReceiver, @unchecked Sendable {
    private let cancellingOnPiece: Int?
    private let handleArrived = DispatchSemaphore(value: 0)
    // `lock` guards the fields below.
    private let lock = NSLock()
    private var handle: (any Cancellable)?
    private var pieceCount = 0
    private var sentCounts: [Int64] = []
    private var completionErrors: [(any Error)?] = []

    init(cancellingOnPiece: Int? = nil) {
        self.cancellingOnPiece = cancellingOnPiece
    }

    var pieces: Int { lock.withLock { pieceCount } }
    var sent: [Int64] { lock.withLock { sentCounts } }
    var completions: [(any Error)?] { lock.withLock { completionErrors } }

    func hold(_ handle: any Cancellable) {
        lock.withLock { self.handle = handle }
        handleArrived.signal()
    }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        lock.withLock { sentCounts.append(sent) }
    }

    func transferDidReceive(codedByteCount: Int) {}

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        if cancellingOnPiece != nil { _ = handleArrived.wait(timeout: .now() + 60) }
        return .proceed
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        let (count, handle) = lock.withLock { () -> (Int, (any Cancellable)?) in
            pieceCount += 1
            return (pieceCount, self.handle)
        }
        if count == cancellingOnPiece { handle?.cancel() }
        return .proceed
    }

    func transferDidComplete(with error: (any Error)?) {
        lock.withLock { completionErrors.append(error) }
    }
}
