import Foundation

/// A network resource whose body is streamed to a file, and whose model is made from that file.
///
/// ```swift
/// struct Dataset: DownloadResourceType {
///     typealias Model = URL
///     let url = URL(string: "https://example.com/exports/2026.csv")!
///     let destination = URL(fileURLWithPath: "/var/data/2026.csv")
/// }
/// let file = try await DownloadService<Dataset>().fetch(Dataset())
/// ```
///
/// A ``DownloadService`` fetches it. The body is written as it arrives to a temporary file
/// beside ``destination`` (in the same directory, so the final move is an atomic rename), within
/// ``TransferOptions/maximumDownloadBytes``; missing directories are created. Only once the
/// whole body has arrived, ``NetworkResourceType/validate(_:data:)`` accepts the answer's head
/// (a resumed `206`'s too) and the file matches ``expectedSHA256`` and any `Content-Digest` or
/// `Repr-Digest` the server sent, is it moved to ``destination`` as ``overwritePolicy`` says, and
/// ``model(fromFileAt:response:)`` called. A `416` that says a resumed partial file is already
/// whole stands for the `200` that would have carried it: `validate` is given that head (the
/// `416`'s fields, but those that describe its own body, and the file's `Content-Length`), the
/// file is held to ``TransferOptions/maximumDownloadBytes`` and checked against
/// ``expectedSHA256`` alone (a `416`'s digest fields describe its own message), and
/// ``model(fromFileAt:response:)`` gets that head. The answer to a `HEAD` places an empty file: its
/// `Content-Length` and digests describe a body not sent. On any failure,
/// cancellation or the deadline, nothing is at the destination and the temporary file is gone,
/// unless ``keepsPartialFile`` asks to keep it to resume; a file that does not match a digest is
/// never kept.
public protocol DownloadResourceType: NetworkResourceType {
    /// Where the finished file goes.
    var destination: URL { get }

    /// What happens when a file is already at ``destination``. Default:
    /// ``DownloadOverwritePolicy/failIfExists``.
    var overwritePolicy: DownloadOverwritePolicy { get }

    /// The SHA-256 the finished file must have, or `nil` to check only the digests the server
    /// sends. Default: `nil`.
    var expectedSHA256: SHA256Digest? { get }

    /// A partial download to go on with, from an earlier
    /// ``ResourceError/downloadInterrupted(_:underlying:)``; `nil` to start from the first byte.
    /// Default: `nil`.
    var resumeFrom: ResumableDownload? { get }

    /// Whether a download that stops early (a cut connection, the deadline, a cancellation)
    /// keeps its partial file to resume, and fails with
    /// ``ResourceError/downloadInterrupted(_:underlying:)`` carrying it, with what stopped it as
    /// `underlying` (``ResourceError/cancelled`` for a cancellation). A finished file that
    /// cannot be placed (a file appeared at the destination under
    /// ``DownloadOverwritePolicy/failIfExists``), or that a cancellation or the deadline stops
    /// before it is placed, is kept the same way, with every byte. A body that crosses
    /// ``TransferOptions/maximumDownloadBytes`` is never kept, nor a partial file whose resumed
    /// answer says the whole representation is over it, nor one shorter than its
    /// ``ResumableDownload/byteCount``. Default: `false`: the partial file is removed once the download has
    /// failed; until then, each attempt a pipeline's ``RetryPolicy`` makes resumes the partial
    /// file of ``resumeFrom`` as the attempts before it left it.
    var keepsPartialFile: Bool { get }

    /// Makes the model from the placed file at `url` (the ``destination``), with the response
    /// it came from: for a partial file a `416` completed, the `200` that `416` stands for. An
    /// error it throws fails the fetch with ``ResourceError/parsing(_:)``; the
    /// file stays where it was placed.
    func model(fromFileAt url: URL, response: ResponseHead) throws -> Model
}

// MARK: - Default implementations

extension DownloadResourceType {
    /// ``DownloadOverwritePolicy/failIfExists``.
    public var overwritePolicy: DownloadOverwritePolicy { .failIfExists }

    /// `nil`: only the server's digests are checked.
    public var expectedSHA256: SHA256Digest? { nil }

    /// `nil`: the download starts from the first byte.
    public var resumeFrom: ResumableDownload? { nil }

    /// `false`: a partial file is removed.
    public var keepsPartialFile: Bool { false }
}

extension DownloadResourceType where Model == URL {
    /// The file's URL: the model of a resource that only needs the file.
    public func model(fromFileAt url: URL, response: ResponseHead) throws -> URL { url }
}
