import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``ResourceLoader/HTTPTransport`` that sends every request through another transport and
/// records each exchange as HAR 1.2.
///
/// Wrap the real transport once, run the code under test against the real service, and write the
/// archive for ``ReplayTransport`` to answer from in CI:
///
/// ```swift
/// let recorder = RecordingTransport(wrapping: URLSessionTransport())
/// let service = ResourceService<Cities>(session: recorder)
/// _ = try await service.fetch(Cities(continent: "europe"))
/// try recorder.write(to: URL(fileURLWithPath: "Tests/Fixtures/cities.har"))
/// ```
///
/// Credentials are redacted by default (see ``HARRedaction``); binary bodies are written as
/// base64. A streamed request body (`URLRequest.streamedBody`: a file, a
/// ``ResourceLoader/RequestBodyStream``, a ``ResourceLoader/MultipartFormData`` form) is recorded
/// as it was sent, up to ``maximumRecordedBodyBytes``; past that, its size and a comment are
/// recorded instead of its bytes. A one-shot body (a stream, or a form with a stream part) is
/// tapped as `base` reads it: `base` is handed a stream of the same bytes and length that copies
/// them on the way, so it is still sent once and refused where `base` refuses streams. A body that
/// can be read again (a file, a form of files and bytes) is read again by the recorder once the
/// exchange has completed: its reader yields the same bytes on every read, and fails rather than
/// send fewer than the length the request declared. When that read fails (the file changed
/// meanwhile), the body is recorded with its declared size, empty text and a comment that says
/// why.
///
/// A response body is recorded decoded from any `Content-Encoding`, with its `bodySize` as
/// received: the coded bytes `base` reported
/// (``ResourceLoader/TransferReceiver/transferDidReceive(codedByteCount:)``), and the bytes the
/// coding saved as its `content.compression`.
///
/// Answers, errors and cancellation pass through unchanged, piece by piece as `base` delivers
/// them, so every rule and limit of `base` and of the receiver still holds; an exchange that
/// fails (no response, or a body cut short) is not recorded. Safe to use from any thread.
public struct RecordingTransport: URLSessionType {
    /// The transport requests are sent through.
    public let base: any HTTPTransport
    /// The recorder the exchanges go to.
    public let recorder: HARRecorder
    /// The largest streamed request body whose bytes are recorded; a larger one is recorded
    /// with its size and a comment.
    public let maximumRecordedBodyBytes: Int

    /// Creates a transport that records what `base` sends and receives.
    ///
    /// - Parameters:
    ///   - base: The transport that sends the requests.
    ///   - redaction: What to keep out of the archive; ``HARRedaction/standard`` by default.
    ///   - maximumRecordedBodyBytes: The largest streamed request body whose bytes are
    ///     recorded. Default: ``SentRequestBody/defaultLimit`` (1 MiB).
    public init(
        wrapping base: any HTTPTransport, redaction: HARRedaction = .standard,
        maximumRecordedBodyBytes: Int = SentRequestBody.defaultLimit
    ) {
        self.init(wrapping: base, recorder: HARRecorder(redaction: redaction), maximumRecordedBodyBytes: maximumRecordedBodyBytes)
    }

    /// Creates a transport that records what `base` sends and receives into `recorder`.
    ///
    /// - Parameters:
    ///   - base: The transport that sends the requests.
    ///   - recorder: The recorder the exchanges go to.
    ///   - maximumRecordedBodyBytes: The largest streamed request body whose bytes are
    ///     recorded. Default: ``SentRequestBody/defaultLimit`` (1 MiB).
    public init(wrapping base: any HTTPTransport, recorder: HARRecorder, maximumRecordedBodyBytes: Int = SentRequestBody.defaultLimit) {
        self.base = base
        self.recorder = recorder
        self.maximumRecordedBodyBytes = max(maximumRecordedBodyBytes, 0)
    }

    /// The archive of every exchange recorded so far.
    public var har: HAR { recorder.har }

    /// Writes ``har`` to `url`, atomically.
    ///
    /// - Throws: the file system's error.
    public func write(to url: URL) throws {
        try recorder.write(to: url)
    }

    /// Sends `request` through ``base``, handing `receiver` what arrives, and records the
    /// exchange once the whole body has arrived.
    public func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable {
        guard let body = request.streamedBody else {
            return base.startTransfer(request, options: options, receiver: Tee(request: request, body: .httpBody, receiver: receiver, recorder: recorder))
        }
        if body.isRepeatable {
            let tee = Tee(request: request, body: .rereadOnCompletion(body, limit: maximumRecordedBodyBytes), receiver: receiver, recorder: recorder)
            return base.startTransfer(request, options: options, receiver: tee)
        }
        // A one-shot body: `base` reads a stream of the same bytes that copies them to the tap.
        let tap = RequestBodyTap(limit: maximumRecordedBodyBytes)
        var tapped = request
        tapped.setBody(.stream(RequestBodyStream(TappedBodyChunks(body: body, tap: tap), length: body.length), contentType: body.contentType))
        return base.startTransfer(tapped, options: options, receiver: Tee(request: request, body: .tapped(tap), receiver: receiver, recorder: recorder))
    }

    /// Sends `request` through ``base`` and records the exchange when it answers with an HTTP
    /// response; the body is collected within `options`' size limit.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        startTransfer(request, options: options, receiver: ResponseCollector(for: request, options: options, completion: completionHandler))
    }
}

extension RecordingTransport {
    /// Passes everything on to the receiver, keeping a copy of what it accepted, and records the
    /// exchange when the transfer completes whole.
    private final class Tee: TransferReceiver, @unchecked Sendable {
        /// Where the request body's record comes from.
        enum BodySource {
            /// `httpBody`, or no body.
            case httpBody
            /// A body that can be read again, read once the exchange has completed.
            case rereadOnCompletion(RequestBody, limit: Int)
            /// What the tap copied as the transport read the body.
            case tapped(RequestBodyTap)
        }

        private let request: URLRequest
        private let bodySource: BodySource
        private let receiver: any TransferReceiver
        private let recorder: HARRecorder
        private let place: HARRecorder.Start
        private let start = ContinuousClock.now
        // `lock` guards `head`, `body` and `codedByteCount`.
        private let lock = NSLock()
        private var head: ResponseHead?
        private var body = Data()
        /// The bytes of a content-coded body as they arrived, when the transport reported them.
        private var codedByteCount: Int?

        init(request: URLRequest, body: BodySource, receiver: any TransferReceiver, recorder: HARRecorder) {
            self.request = request
            self.bodySource = body
            self.receiver = receiver
            self.recorder = recorder
            self.place = recorder.startExchange()
        }

        func transferDidSend(_ sent: Int64, of expected: Int64?) {
            receiver.transferDidSend(sent, of: expected)
        }

        func transferDidReceive(head: ResponseHead) -> TransferDecision {
            let decision = receiver.transferDidReceive(head: head)
            if case .proceed = decision { lock.withLock { self.head = head } }
            return decision
        }

        func transferDidReceive(codedByteCount: Int) {
            lock.withLock { self.codedByteCount = (self.codedByteCount ?? 0) + codedByteCount }
            receiver.transferDidReceive(codedByteCount: codedByteCount)
        }

        func transferDidReceive(_ chunk: Data) -> TransferDecision {
            let decision = receiver.transferDidReceive(chunk)
            if case .proceed = decision { lock.withLock { body.append(chunk) } }
            return decision
        }

        func transferDidComplete(with error: (any Error)?) {
            let (head, body, codedByteCount) = lock.withLock { (self.head, self.body, self.codedByteCount) }
            if error == nil, let head {
                let sentBody: SentRequestBody?
                switch bodySource {
                case .httpBody: sentBody = nil
                case .rereadOnCompletion(let requestBody, let limit):
                    do {
                        sentBody = try SentRequestBody.read(requestBody, limit: limit)
                    } catch {
                        sentBody = SentRequestBody(bytes: nil, byteCount: requestBody.length ?? -1, readFailure: error.description)
                    }
                case .tapped(let tap): sentBody = tap.sent
                }
                recorder.record(
                    place, request: request, sentBody: sentBody, head: head, body: body, receivedBodySize: codedByteCount,
                    duration: ContinuousClock.now - start)
            }
            receiver.transferDidComplete(with: error)
        }
    }
}
