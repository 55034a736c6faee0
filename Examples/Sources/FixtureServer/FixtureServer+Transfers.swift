import ExampleResources
import Foundation
import ResourceLoader

extension FixtureServer {
    /// The size of `/downloads/sample.bin` unless the server is made with another: 3 MiB.
    public static let defaultSampleByteCount = 3 * 1024 * 1024
    /// The pause between two 128 KiB slices of a download unless the server is made with
    /// another: 20 ms, so that a progress bar visibly moves.
    public static let defaultDownloadPace: Duration = .milliseconds(20)

    /// One request for `/downloads/sample.bin`, as the server answered it.
    public struct DownloadRequest: Sendable, Hashable {
        /// The request's `Range` field, if any.
        public var range: String?
        /// The request's `If-Range` field, if any.
        public var ifRange: String?
        /// The status answered: 200, 206 or 416.
        public var status: Int
        /// How many bytes of the body the server sent.
        public var bodyBytesSent: Int
        /// Whether the server closed the connection before the body was complete (`cut-after`).
        public var wasCut: Bool

        /// Creates a record.
        public init(range: String?, ifRange: String?, status: Int, bodyBytesSent: Int, wasCut: Bool) {
            self.range = range
            self.ifRange = ifRange
            self.status = status
            self.bodyBytesSent = bodyBytesSent
            self.wasCut = wasCut
        }
    }

    /// The uploads received so far, in order, as the endpoint answered them.
    public var uploads: [UploadReceipt] { transfers.uploads }

    /// The requests for `/downloads/sample.bin` so far, in order.
    public var downloadRequests: [DownloadRequest] { transfers.downloads }

    /// The size of `/downloads/sample.bin`.
    public var sampleByteCount: Int { transfers.sampleByteCount }

    /// The SHA-256 of `/downloads/sample.bin`.
    public var sampleDigest: SHA256Digest { transfers.sample.digest }

    /// The entity tag of `/downloads/sample.bin`.
    public var sampleTag: String { transfers.sample.tag }
}
