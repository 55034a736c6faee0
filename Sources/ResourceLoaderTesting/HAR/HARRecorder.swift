import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects recorded exchanges into a ``HAR``, redacting each as it arrives.
///
/// ``RecordingTransport`` feeds one; a recorder for any other transport feeds one the same way,
/// with ``record(request:head:body:startedAt:duration:)`` once the response's body is complete.
/// Safe to use from any thread.
public final class HARRecorder: @unchecked Sendable {
    /// What is kept out of the archive.
    public let redaction: HARRedaction
    /// The tool named in the archive's `creator`.
    public let creator: HAR.Creator

    // `lock` guards `entries`.
    private let lock = NSLock()
    private var entries: [HAR.Entry] = []

    /// Creates an empty recorder.
    ///
    /// - Parameters:
    ///   - redaction: What to keep out of the archive; ``HARRedaction/standard`` by default.
    ///   - creator: The tool named in the archive; `ResourceLoaderTesting` by default.
    public init(redaction: HARRedaction = .standard, creator: HAR.Creator = HAR.Creator(name: "ResourceLoaderTesting", version: "1.0")) {
        self.redaction = redaction
        self.creator = creator
    }

    /// Records one exchange, redacted.
    public func record(request: URLRequest, head: ResponseHead, body: Data, startedAt: Date, duration: Duration) {
        record(request: request, sentBody: nil, head: head, body: body, startedAt: startedAt, duration: duration)
    }

    /// Records one exchange whose request body was sent as `sentBody` (a streamed body, which
    /// the request's `httpBody` does not hold), redacted.
    public func record(request: URLRequest, sentBody: SentRequestBody?, head: ResponseHead, body: Data, startedAt: Date, duration: Duration) {
        let entry = HAR.Entry(
            request: request, sentBody: sentBody, head: head, body: body, startedAt: startedAt, duration: duration, redaction: redaction)
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    /// The archive of every exchange recorded so far, in the order the exchanges started.
    public var har: HAR {
        lock.lock()
        let entries = entries
        lock.unlock()
        // Responses complete out of order; the archive lists requests as they were sent.
        let sorted = entries.enumerated().sorted { lhs, rhs in
            lhs.element.startedDateTime == rhs.element.startedDateTime
                ? lhs.offset < rhs.offset : lhs.element.startedDateTime < rhs.element.startedDateTime
        }
        return HAR(log: HAR.Log(creator: creator, entries: sorted.map(\.element)))
    }

    /// Writes ``har`` to `url` (pretty-printed JSON with sorted keys), atomically.
    ///
    /// - Throws: the file system's error.
    public func write(to url: URL) throws {
        try har.write(to: url)
    }

    /// Forgets every recorded exchange.
    public func reset() {
        lock.lock()
        entries = []
        lock.unlock()
    }
}
