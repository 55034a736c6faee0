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
    /// The bytes done so far (for a resumed download, counting the partial file's).
    public let completedBytes: Int64
    /// The total, when known: the request body's length, or the response's `Content-Length`
    /// (plus a resumed partial file's bytes). `nil` for a body of unknown length, and for a
    /// content-coded response, whose decoded length is not declared.
    public let totalBytes: Int64?
    /// `true` when the response was content-coded (`gzip`, say): ``completedBytes`` then counts
    /// the decoded bytes written, not the coded bytes on the wire, and ``totalBytes`` is `nil`.
    public let countsDecodedBytes: Bool

    /// Creates a value; `FakeURLSession` scripts and tests make their own.
    public init(direction: Direction, completedBytes: Int64, totalBytes: Int64?, countsDecodedBytes: Bool = false) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.countsDecodedBytes = countsDecodedBytes
    }

    /// The fraction done, from 0 to 1, when the total is known (1 for an empty body).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
