import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``ResourceLoader/URLSessionType`` that answers from a recorded HAR 1.2 archive instead of
/// the network.
///
/// Record once against the real service with ``RecordingTransport`` (or export a HAR from a
/// browser, Charles or mitmproxy), commit the file, and replay it in tests:
///
/// ```swift
/// let replay = try ReplayTransport(contentsOf: harFile)
/// let service = ResourceService<Cities>(session: replay)
/// let cities = try await service.fetch(Cities(continent: "europe"))
/// ```
///
/// Requests are matched by ``HARReplayer``: method and URL by default, or the
/// ``HARMatchingRule``s given; repeated requests take the matching entries in recorded order. A
/// request that matches nothing fails with ``HARReplayError``, which names the closest entry and
/// how it differs. Answers arrive on a background queue; cancelling the returned handle answers
/// `URLError(.cancelled)` if the answer has not been delivered yet.
///
/// A recorded redirect (a `301`, `302`, `303`, `307` or `308` with a `Location`, recorded as an
/// entry of its own, as browsers, Charles and mitmproxy record each hop) is followed as a
/// transport follows it: the next request is made by
/// ``ResourceLoader/TransferRules/redirect(statusCode:location:after:original:redirectsFollowed:options:)``,
/// within the options' redirect limit, and matched in turn. The answer is the last hop's, its
/// head's `url` the last hop's URL.
///
/// A streamed request body (`URLRequest.streamedBody`: a file, a stream, a form) is read as a
/// transport would send it, on a background queue, and matched as ``RecordingTransport`` records
/// it: its bytes up to ``maximumRecordedBodyBytes`` (give the recorder's), its size past that. A
/// one-shot stream is consumed.
public struct ReplayTransport: URLSessionType {
    /// The matching logic and its record of used entries.
    public let replayer: HARReplayer
    /// The largest streamed request body whose bytes are compared; a larger one is compared as
    /// a body over the limit, as ``RecordingTransport`` records it.
    public let maximumRecordedBodyBytes: Int

    /// Creates a transport that answers through `replayer`.
    ///
    /// - Parameters:
    ///   - replayer: The matching logic.
    ///   - maximumRecordedBodyBytes: The largest streamed request body whose bytes are compared:
    ///     the recorder's. Default: ``SentRequestBody/defaultLimit`` (1 MiB), the recorder's
    ///     default.
    public init(replayer: HARReplayer, maximumRecordedBodyBytes: Int = SentRequestBody.defaultLimit) {
        self.replayer = replayer
        self.maximumRecordedBodyBytes = max(maximumRecordedBodyBytes, 0)
    }

    /// Creates a transport that answers from `har`.
    ///
    /// - Parameters:
    ///   - har: The archive to answer from.
    ///   - rules: The rules an entry must satisfy; method and URL by default.
    ///   - redaction: Applied to each request before matching; the recorder's (by default
    ///     ``HARRedaction/standard``).
    ///   - exhaustion: What happens once the matching entries have all answered.
    ///   - maximumRecordedBodyBytes: The largest streamed request body whose bytes are compared:
    ///     the recorder's. Default: ``SentRequestBody/defaultLimit`` (1 MiB), the recorder's
    ///     default.
    public init(
        har: HAR, rules: [HARMatchingRule] = HARMatchingRule.standard, redaction: HARRedaction = .standard,
        exhaustion: HARReplayer.Exhaustion = .repeatLast, maximumRecordedBodyBytes: Int = SentRequestBody.defaultLimit
    ) {
        self.init(
            replayer: HARReplayer(har: har, rules: rules, redaction: redaction, exhaustion: exhaustion),
            maximumRecordedBodyBytes: maximumRecordedBodyBytes)
    }

    /// Creates a transport that answers from the HAR file at `url`, with the rules, redaction,
    /// exhaustion and body limit of ``init(har:rules:redaction:exhaustion:maximumRecordedBodyBytes:)``.
    ///
    /// - Throws: the file system's error, or `DecodingError` when the file is not HAR 1.2.
    public init(
        contentsOf url: URL, rules: [HARMatchingRule] = HARMatchingRule.standard, redaction: HARRedaction = .standard,
        exhaustion: HARReplayer.Exhaustion = .repeatLast, maximumRecordedBodyBytes: Int = SentRequestBody.defaultLimit
    ) throws {
        self.init(
            har: try HAR(contentsOf: url), rules: rules, redaction: redaction, exhaustion: exhaustion,
            maximumRecordedBodyBytes: maximumRecordedBodyBytes)
    }

    /// Answers `request` with the matching entry's body and an `HTTPURLResponse`.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        send(request, options: options) { answer in
            completionHandler(answer.flatMap { body, head in
                guard let response = head.httpURLResponse else { return .failure(URLError(.badServerResponse)) }
                return .success((body, response))
            })
        }
    }

    /// Answers `request` with the matching entry's body and its status and header fields, in the
    /// order recorded.
    public func send(
        _ request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) -> any Cancellable {
        let task = ReplayTask(completionHandler: completionHandler)
        guard let body = request.streamedBody else {
            let answer = self.answer(to: request, sentBody: nil, options: options)
            DispatchQueue.global().async { task.complete(answer) }
            return task
        }
        let reader = body.makeReader()
        task.onCancel = { reader.close() }
        DispatchQueue.global().async {
            // Read as a transport reads it, off the cooperative pool: a stream's reader blocks.
            let sent = Result { () throws(ResourceError) -> SentRequestBody in
                defer { reader.close() }
                return try SentRequestBody.read(from: reader, length: body.length, limit: maximumRecordedBodyBytes)
            }
            let answer = sent.mapError { $0 as any Error }.flatMap { sent in
                self.answer(to: request, sentBody: sent, options: options)
            }
            task.complete(answer)
        }
        return task
    }

    /// The status codes of the redirects a transport follows, or refuses by the transfer rules.
    private static let redirectStatusCodes: Set<Int> = [301, 302, 303, 307, 308]

    /// The recorded answer to `request`, whose streamed body was sent as `sentBody`, after the
    /// recorded redirects it leads to; or why there is none.
    private func answer(to request: URLRequest, sentBody: SentRequestBody?, options: TransferOptions) -> Result<(Data, ResponseHead), any Error> {
        var current = request
        var sent = sentBody
        var redirectsFollowed = 0
        while true {
            let entry: HAR.Entry
            switch replayer.entry(for: HAR.Request(live: current, sentBody: sent, redaction: replayer.redaction)) {
            case .success(let found): entry = found
            case .failure(let error): return .failure(error)
            }
            let head = entry.response.head(url: current.url)
            if Self.redirectStatusCodes.contains(head.statusCode), let location = head.value(forHTTPHeaderField: "Location") {
                let decision = TransferRules.redirect(
                    statusCode: head.statusCode, location: location, after: current, original: request,
                    redirectsFollowed: redirectsFollowed, options: options)
                switch decision {
                case .refuse(let refusal):
                    return .failure(ResourceError.redirectRefused(refusal))
                case .follow(let next):
                    // A redirect that sends the body again sends the same bytes.
                    if next.streamedBody == nil { sent = nil }
                    current = next
                    redirectsFollowed += 1
                    continue
                }
            }
            guard let body = entry.response.content.data else {
                let index = replayer.har.log.entries.firstIndex(of: entry) ?? 0
                return .failure(HARReplayError.unreadableBody(entry: index))
            }
            return .success((body, head))
        }
    }
}

/// One replayed answer: delivered exactly once, or `URLError(.cancelled)` when cancelled first.
private final class ReplayTask: Cancellable, @unchecked Sendable {
    // `lock` guards `completionHandler`, cleared once it has been called.
    private let lock = NSLock()
    private var completionHandler: (@Sendable (Result<(Data, ResponseHead), any Error>) -> Void)?
    // `lock` guards `cancellation` too: what cancelling stops besides the answer.
    private var cancellation: (@Sendable () -> Void)?

    /// Called once if the task is cancelled before it has answered.
    var onCancel: (@Sendable () -> Void)? {
        get { lock.withLock { cancellation } }
        set { lock.withLock { cancellation = newValue } }
    }

    init(completionHandler: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void) {
        self.completionHandler = completionHandler
    }

    func complete(_ answer: Result<(Data, ResponseHead), any Error>) {
        let handler = lock.withLock {
            defer { completionHandler = nil }
            return completionHandler
        }
        handler?(answer)
    }

    func cancel() {
        let stop = lock.withLock {
            defer { cancellation = nil }
            return completionHandler == nil ? nil : cancellation
        }
        stop?()
        complete(.failure(URLError(.cancelled)))
    }
}
