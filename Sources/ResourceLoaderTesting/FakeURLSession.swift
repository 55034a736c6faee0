import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``ResourceLoader/HTTPTransport`` that answers from stubs instead of the network.
///
/// Inject it into a service in your tests, stub the responses the test needs, and check what
/// was sent:
///
/// ```swift
/// @Test func loadsEuropeanCities() async throws {
///     let session = FakeURLSession()
///     session.stub(.url("https://api.example.com/europe.json"),
///                  with: .json(#"{"cities": [{"name": "Lisbon"}]}"#))
///     let service = ResourceService<Cities>(session: session)
///
///     let cities = try await service.fetch(Cities(continent: "europe"))
///
///     #expect(cities.map(\.name) == ["Lisbon"])
///     #expect(session.receivedRequests.count == 1)
/// }
/// ```
///
/// Stubs are matched newest first, so a test can override a general stub with a specific one.
/// A stub can also answer with a scripted sequence, `stub(_:with:)` given an array, such as
/// a `401` and then a `200`.
/// A request no stub matches fails with ``UnmatchedRequestError``, whose description names the
/// method and URL. Answers arrive on a background queue, after the stub's delay; cancelling the
/// returned handle answers `URLError(.cancelled)` at once, or, while an answer is being handed
/// over, as soon as the receiver's current call returns, and nothing more of it arrives.
public final class FakeURLSession: URLSessionType, @unchecked Sendable {
    private struct Stub {
        let matcher: RequestMatcher
        /// Answered in order; the last one answers every request after it.
        let responses: [FakeResponse]
        var answered = 0

        /// The response for the next request this stub matches.
        mutating func next() -> FakeResponse {
            defer { answered += 1 }
            return responses[min(answered, responses.count - 1)]
        }
    }

    private struct State {
        var stubs: [Stub] = []
        var requests: [URLRequest] = []
    }

    // `state` is guarded by `lock`.
    private let lock = NSLock()
    private var state = State()
    private let queue = DispatchQueue(label: "FakeURLSession", attributes: .concurrent)

    /// Creates a session with no stubs.
    public init() {}

    /// Answers requests that `matcher` accepts with `response`.
    ///
    /// The newest matching stub wins. A stub answers every matching request until the session
    /// is released.
    public func stub(_ matcher: RequestMatcher, with response: FakeResponse) {
        withState { $0.stubs.append(Stub(matcher: matcher, responses: [response])) }
    }

    /// Answers the requests that `matcher` accepts with `responses`, one after another: the
    /// first matching request gets the first response, the second the second, and every request
    /// after the last response gets the last one again.
    ///
    /// Use it to script what a server does over several requests, such as a rejected credential
    /// and then success, to test an app's own adapters and monitors:
    ///
    /// ```swift
    /// session.stub(.path("/profile"), with: [.status(401), .json(#"{"name": "Ada"}"#)])
    /// ```
    ///
    /// The stub is matched like any other (newest first); only the requests it answers move it
    /// along. An empty `responses` adds no stub.
    public func stub(_ matcher: RequestMatcher, with responses: [FakeResponse]) {
        guard !responses.isEmpty else { return }
        withState { $0.stubs.append(Stub(matcher: matcher, responses: responses)) }
    }

    /// Every request this session has received, in the order it received them.
    public var receivedRequests: [URLRequest] {
        withState { $0.requests }
    }

    /// Removes every stub and forgets every received request.
    public func reset() {
        withState { $0 = State() }
    }

    /// Answers `request` from the newest matching stub: the head, the body as one piece, and
    /// the end, on a background queue after the stub's delay.
    ///
    /// A stub whose `Content-Encoding` is `gzip` or `deflate` has its body decoded as a transport
    /// that receives raw bytes decodes it (`TransferRules.decodingContent(for:limit:)`):
    /// checked, and bounded by `options`' size limit.
    ///
    /// A streamed body (a file, a stream, a multipart form: see `RequestBody`) is read whole
    /// first, on a background queue; the request is then matched and recorded in
    /// ``receivedRequests`` with those bytes as its `httpBody`, so a test can check what was
    /// sent. Its progress goes to the receiver before the head: the steps the stub scripts
    /// (``FakeResponse/reportingUpload(inSteps:)``), or else one report for each piece read (of
    /// up to 256 KiB). A body that cannot be read (a stream sent before, a file that shrank) fails
    /// the transfer with the reader's `ResourceError`.
    public func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable {
        let receiver = TransferRules.decodingContent(for: receiver, limit: options.maximumResponseBytes)
        guard let body = request.streamedBody else {
            let task = FakeTask(receiver: receiver)
            answer(request, task: task)
            return task
        }
        let reader = body.makeReader()
        let task = FakeTask(receiver: receiver, onCancel: reader.close)
        queue.async { [self] in
            var sent = Data()
            var pieces: [Int64] = []
            do {
                while let chunk = try reader.read(upTo: 256 * 1024) {
                    sent.append(chunk)
                    pieces.append(Int64(sent.count))
                }
            } catch {
                reader.close()
                task.complete(.failure(error))
                return
            }
            reader.close()
            var consumed = request
            consumed.httpBody = sent
            answer(consumed, task: task, readProgress: (pieces, reader.length))
        }
        return task
    }

    /// Records `request` and answers it through `task` from the newest matching stub.
    /// `readProgress` is a streamed body's progress as it was read: reported before the head
    /// unless the stub scripts steps of its own.
    private func answer(_ request: URLRequest, task: FakeTask, readProgress: (sent: [Int64], expected: Int64?)? = nil) {
        let response = withState { state -> FakeResponse? in
            state.requests.append(request)
            guard let index = state.stubs.lastIndex(where: { $0.matcher.matches(request) }) else { return nil }
            return state.stubs[index].next()
        }
        if let response {
            task.bodyPieces = response.bodyPieces
            task.cut = response.cutAfterBytes
            if response.uploadSteps > 0, let body = request.httpBody {
                let length = Int64(body.count)
                // At most one step a byte (and one for an empty body).
                let steps = Int64(min(response.uploadSteps, max(body.count, 1)))
                task.uploadReports = (1...steps).map { length * $0 / steps }
                task.uploadExpected = readProgress == nil ? length : readProgress?.expected
            } else if let readProgress {
                (task.uploadReports, task.uploadExpected) = readProgress
            }
        }
        guard let response else {
            queue.async { task.complete(.failure(UnmatchedRequestError(request: request))) }
            return
        }
        let answer = response.answer(to: request)
        if response.delay > .zero {
            task.complete(answer, after: response.delay, on: queue)
        } else {
            queue.async { task.complete(answer) }
        }
    }

    /// Answers `request` from the newest matching stub, with the whole body collected within
    /// `options`' size limit.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        startTransfer(request, options: options, receiver: ResponseCollector(for: request, options: options, completion: completionHandler))
    }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}

/// The error a ``FakeURLSession`` answers with when no stub matches a request.
///
/// Its description names the request, never a response, so a ``ResourceLoader/ResourceError``
/// carrying it quotes it in full.
public struct UnmatchedRequestError: Error, ContentFreeDescription {
    /// The request no stub matched.
    public let request: URLRequest

    /// Names the request's method and URL.
    public var description: String {
        "FakeURLSession has no stub for \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "(no URL)")"
    }
}

/// One fake transfer: answers exactly once, or `URLError(.cancelled)` when cancelled first. A
/// cancel while the answer is being handed over stops it before the receiver's next call.
private final class FakeTask: Cancellable, @unchecked Sendable {
    // `lock` guards `receiver`, which is cleared once the answer begins to be handed over,
    // `timer` and `isCancelled`.
    private let lock = NSLock()
    private var receiver: (any TransferReceiver)?
    private var timer: (any DispatchSourceTimer)?
    private var isCancelled = false
    /// How many pieces the body is handed over in; set before the task is answered.
    var bodyPieces = 1
    /// How many body bytes arrive before the connection drops, and the error it drops with;
    /// set before the task is answered.
    var cut: (count: Int, error: any Error)?
    /// The request body's progress, reported before the head, and the length it is reported
    /// against; set before the task is answered.
    var uploadReports: [Int64] = []
    var uploadExpected: Int64?
    /// Stops reading a streamed request body.
    private let onCancel: (@Sendable () -> Void)?

    init(receiver: any TransferReceiver, onCancel: (@Sendable () -> Void)? = nil) {
        self.receiver = receiver
        self.onCancel = onCancel
    }

    /// Answers after `delay`, unless the task completes first. A timer rather than `asyncAfter`,
    /// so that cancelling frees the answer at once instead of leaving it scheduled (a delayed
    /// answer can outlive a test, and the process).
    func complete(_ answer: Result<(Data, URLResponse), any Error>, after delay: Duration, on queue: DispatchQueue) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { self.complete(answer) }
        timer.schedule(deadline: .now() + delay.timeInterval)
        lock.lock()
        let isPending = receiver != nil
        if isPending { self.timer = timer }
        lock.unlock()
        timer.resume()  // releasing a source that was never resumed traps
        if !isPending { timer.cancel() }
    }

    /// Hands `answer` to the receiver, unless the task has completed already; stops with
    /// `URLError(.cancelled)` before the receiver's next call once the task is cancelled.
    func complete(_ answer: Result<(Data, URLResponse), any Error>) {
        lock.lock()
        let receiver = self.receiver
        self.receiver = nil
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        timer?.cancel()
        guard let receiver else { return }
        // Completes the transfer as cancelled if `cancel()` came since the receiver's last call.
        let stopsCancelled = { [self] () -> Bool in
            guard lock.withLock({ isCancelled }) else { return false }
            receiver.transferDidComplete(with: URLError(.cancelled))
            return true
        }
        switch answer {
        case .failure(let error):
            receiver.transferDidComplete(with: error)
        case .success(let (body, response)):
            guard let response = response as? HTTPURLResponse else {
                receiver.transferDidComplete(with: URLError(.badServerResponse))
                return
            }
            for sent in uploadReports {
                if stopsCancelled() { return }
                receiver.transferDidSend(sent, of: uploadExpected)
            }
            if stopsCancelled() { return }
            var decision = receiver.transferDidReceive(head: ResponseHead(response))
            // At most one piece a byte, so that the piece size cannot overflow.
            let pieces = max(1, min(bodyPieces, body.count))
            let pieceSize = max(1, (body.count + pieces - 1) / pieces)
            let arriving = cut.map { body.prefix($0.count) } ?? body
            var start = arriving.startIndex
            while case .proceed = decision, start < arriving.endIndex {
                if stopsCancelled() { return }
                let end = min(start + pieceSize, arriving.endIndex)
                decision = receiver.transferDidReceive(arriving.subdata(in: start..<end))
                start = end
            }
            if case .stop(let error) = decision {
                receiver.transferDidComplete(with: error)
            } else if stopsCancelled() {
                return
            } else if let cut, cut.count < body.count {
                receiver.transferDidComplete(with: cut.error)
            } else {
                receiver.transferDidComplete(with: nil)
            }
        }
    }

    func cancel() {
        lock.withLock { isCancelled = true }
        onCancel?()
        complete(.failure(URLError(.cancelled)))
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
