/// How far a transfer has got: the bytes done and, when known, the total.
///
/// Reported for a download's body as it is written (``DownloadService``), and for a request body
/// as it is sent (``ResourceService/fetch(_:progressQueue:progress:)``). Values are throttled: a
/// new one is reported when at least 100 ms have passed since the last, or when at least 1% more
/// of a known total is done; the last value is always reported, before the outcome.
///
/// ```swift
/// let file = try await service.fetch(Dataset(), progressQueue: .main) { progress in
///     bar.value = progress.fractionCompleted ?? 0
/// }
/// ```
public struct TransferProgress: Sendable, Hashable {
    /// Which body is moving.
    public enum Direction: Sendable, Hashable {
        /// The request body, going out.
        case upload
        /// The response body, coming in.
        case download
    }

    /// Which body is moving.
    public let direction: Direction
    /// What a value's bytes are, for a response body in a content coding.
    public enum Counting: Sendable, Hashable {
        /// The body's own bytes: a request body, or a response body without content coding.
        case bodyBytes
        /// The coded bytes of a content-coded response (`gzip`, say), counted as they arrive on
        /// the wire, before the library decodes them: ``TransferProgress/totalBytes`` is the
        /// response's `Content-Length`, the length of the coded body.
        case wireBytes
        /// The decoded bytes of a content-coded response that the transport decoded before the
        /// library saw it (`URLSessionTransport` with an `Accept-Encoding` of the request's own):
        /// the decoded length is not declared, so ``TransferProgress/totalBytes`` is `nil`.
        case decodedBytes
    }

    /// The bytes done so far (for a resumed download, counting the partial file's).
    public let completedBytes: Int64
    /// The total, when known: the request body's length, or the response's `Content-Length`
    /// (plus a resumed partial file's bytes). `nil` for a body of unknown length.
    public let totalBytes: Int64?
    /// What ``completedBytes`` and ``totalBytes`` count: the body's bytes, or for a
    /// content-coded response, its coded bytes on the wire (the transports of the library and
    /// `FakeURLSession`) or its decoded bytes (a transport that decoded it before the library saw
    /// it).
    public let counting: Counting

    /// Creates a value; `FakeURLSession` scripts and tests make their own.
    public init(direction: Direction, completedBytes: Int64, totalBytes: Int64?, counting: Counting = .bodyBytes) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.counting = counting
    }

    /// The fraction done, from 0 to 1, when the total is known (1 for an empty body).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
