import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects recorded exchanges into a ``HAR``, redacting each as it arrives.
///
/// ``RecordingTransport`` feeds one; a recorder for any other transport feeds one the same way:
/// ``startExchange()`` as the request starts, then
/// ``record(_:request:sentBody:head:body:receivedBodySize:duration:)`` once the response's body
/// is complete. The archive lists the exchanges in the order they started, whatever order they
/// completed in. Safe to use from any thread.
public final class HARRecorder: @unchecked Sendable {
    /// An exchange's place in the archive, taken as its request starts: see
    /// ``startExchange()``.
    public struct Start: Sendable {
        /// The exchange's position among those of its recorder, counted as they start.
        let sequence: Int
        /// When the request started.
        public let date: Date
    }

    /// What is kept out of the archive.
    public let redaction: HARRedaction
    /// The tool named in the archive's `creator`.
    public let creator: HAR.Creator

    // `lock` guards `entries` and `nextSequence`.
    private let lock = NSLock()
    private var entries: [(sequence: Int, entry: HAR.Entry)] = []
    private var nextSequence = 0

    /// Creates an empty recorder.
    ///
    /// - Parameters:
    ///   - redaction: What to keep out of the archive; ``HARRedaction/standard`` by default.
    ///   - creator: The tool named in the archive; `ResourceLoaderTesting` by default.
    public init(redaction: HARRedaction = .standard, creator: HAR.Creator = HAR.Creator(name: "ResourceLoaderTesting", version: "1.0")) {
        self.redaction = redaction
        self.creator = creator
    }

    /// Takes the archive's next place for an exchange whose request starts now.
    public func startExchange() -> Start {
        lock.withLock {
            defer { nextSequence += 1 }
            return Start(sequence: nextSequence, date: Date())
        }
    }

    /// Records one exchange, redacted, in the place it took when it started.
    ///
    /// - Parameters:
    ///   - start: What ``startExchange()`` returned as the request started.
    ///   - request: The request sent.
    ///   - sentBody: What was sent for the request's streamed body (which the request's
    ///     `httpBody` does not hold), or `nil` for `httpBody`.
    ///   - head: The response's status and header fields.
    ///   - body: The response's body, decoded from any `Content-Encoding`.
    ///   - receivedBodySize: The body's size as received, before decoding, recorded as its
    ///     `bodySize`; `nil` when it is the size of `body`.
    ///   - duration: How long the exchange took, to the end of the body.
    public func record(
        _ start: Start, request: URLRequest, sentBody: SentRequestBody?, head: ResponseHead, body: Data, receivedBodySize: Int? = nil,
        duration: Duration
    ) {
        let entry = HAR.Entry(
            request: request, sentBody: sentBody, head: head, body: body, receivedBodySize: receivedBodySize,
            startedAt: start.date, duration: duration, redaction: redaction)
        lock.withLock { entries.append((start.sequence, entry)) }
    }

    /// Records one exchange, redacted, as though it started now: the archive lists it after
    /// every exchange started before this call.
    public func record(request: URLRequest, head: ResponseHead, body: Data, startedAt: Date, duration: Duration) {
        record(request: request, sentBody: nil, head: head, body: body, startedAt: startedAt, duration: duration)
    }

    /// Records one exchange whose request body was sent as `sentBody` (a streamed body, which
    /// the request's `httpBody` does not hold), redacted, as though it started now: the archive
    /// lists it after every exchange started before this call.
    public func record(request: URLRequest, sentBody: SentRequestBody?, head: ResponseHead, body: Data, startedAt: Date, duration: Duration) {
        let place = startExchange()
        record(Start(sequence: place.sequence, date: startedAt), request: request, sentBody: sentBody, head: head, body: body, duration: duration)
    }

    /// The archive of every exchange recorded so far, in the order the exchanges started.
    public var har: HAR {
        let recorded: [(sequence: Int, entry: HAR.Entry)] = lock.withLock { entries }
        return HAR(log: HAR.Log(creator: creator, entries: recorded.sorted { $0.sequence < $1.sequence }.map { $0.entry }))
    }

    /// Writes ``har`` to `url` (pretty-printed JSON with sorted keys), atomically.
    ///
    /// - Throws: the file system's error.
    public func write(to url: URL) throws {
        try har.write(to: url)
    }

    /// Forgets every recorded exchange.
    public func reset() {
        lock.withLock { entries = [] }
    }
}
