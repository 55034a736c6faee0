import Foundation
import ResourceLoader

/// Downloads a file to disk: `GET <base>/downloads/<name>` → the URL of the placed file.
///
/// The partial file is kept when the transfer stops early, so that the download can resume
/// from it (see ``resumeFrom``); the finished file is checked against ``expectedSHA256`` when it
/// is given, and against the server's `Repr-Digest` either way.
public struct SampleDownload: DownloadResourceType {
    /// The placed file's URL.
    public typealias Model = URL

    /// The file on the server.
    public var url: URL
    /// Where the file is placed once it has arrived whole and verified.
    public var destination: URL
    /// The SHA-256 the file must have, or `nil` to rely on the server's digest alone.
    public var expectedSHA256: SHA256Digest?
    /// A partial download of this file to continue, or `nil` to start from the first byte.
    public var resumeFrom: ResumableDownload?

    /// `true`: an interrupted download keeps its partial file to resume from.
    public var keepsPartialFile: Bool { true }
    /// `.replace`: each run of the demo replaces the file the last one placed.
    public var overwritePolicy: DownloadOverwritePolicy { .replace }

    /// Creates the download of `url` to `destination`.
    public init(url: URL, destination: URL, expectedSHA256: SHA256Digest? = nil, resumeFrom: ResumableDownload? = nil) {
        self.url = url
        self.destination = destination
        self.expectedSHA256 = expectedSHA256
        self.resumeFrom = resumeFrom
    }
}
