import Foundation

/// A partial download kept to be resumed: where its bytes are, how many there are, and the
/// validator that says which version of the resource they belong to.
///
/// A download whose resource asks to keep its partial file
/// (``DownloadResourceType/keepsPartialFile``) and that stops early (a cut connection, a
/// cancellation, the deadline) fails with ``ResourceError/downloadInterrupted(_:underlying:)``,
/// which carries one of these. Give it back as the resource's ``DownloadResourceType/resumeFrom``
/// to go on: the service asks for the rest with `Range: bytes=N-` and `If-Range: validator`
/// (RFC 9110 §13.1.5 and §14.2). It is `Codable`, so it can outlive the process.
///
/// A partial is kept only when the response had a validator that `If-Range` may carry (§13.1.5:
/// a strong `ETag`; with no `ETag` at all, a `Last-Modified` date that the response's `Date`,
/// at least one second later, makes strong) and no content coding (a range counts the coded
/// bytes, which were never written to the file).
public struct ResumableDownload: Sendable, Hashable, Codable {
    /// What identifies the version of the resource the partial bytes belong to.
    public enum Validator: Sendable, Hashable, Codable {
        /// A strong entity tag, with its quotes, as in `"\"v1\""`.
        case entityTag(String)
        /// The `Last-Modified` date, as the server wrote it.
        case lastModified(String)

        /// The value of the `If-Range` field.
        public var ifRangeValue: String {
            switch self {
            case .entityTag(let tag): tag
            case .lastModified(let date): date
            }
        }
    }

    /// The file holding the bytes received so far, beside the destination.
    public let partialFile: URL
    /// The number of bytes in ``partialFile``.
    public let byteCount: Int64
    /// The validator of the response the bytes came from.
    public let validator: Validator
    /// The length of the whole representation, when the server said it.
    public let expectedLength: Int64?

    /// Creates a value describing a partial file.
    public init(partialFile: URL, byteCount: Int64, validator: Validator, expectedLength: Int64? = nil) {
        self.partialFile = partialFile
        self.byteCount = byteCount
        self.validator = validator
        self.expectedLength = expectedLength
    }
}

extension ResumableDownload.Validator {
    /// The validator of `head` that `If-Range` may carry (RFC 9110, section 13.1.5): its `ETag`
    /// when strong; with no `ETag` at all, its `Last-Modified` when strong (section 8.8.2.2: a
    /// `Date` at least one second later); else `nil`, and the download cannot be resumed. A weak
    /// `ETag` rules the date out too: a client sends a date only when it has no entity tag.
    static func forIfRange(_ head: ResponseHead) -> Self? {
        if let tag = head.value(forHTTPHeaderField: "ETag")?.trimmingCharacters(in: .whitespaces), !tag.isEmpty {
            return tag.hasPrefix("\"") ? .entityTag(tag) : nil
        }
        guard let text = head.value(forHTTPHeaderField: "Last-Modified")?.trimmingCharacters(in: .whitespaces),
            let modified = HTTPDate.parse(text),
            let date = head.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse),
            date.timeIntervalSince(modified) >= 1
        else { return nil }
        return .lastModified(text)
    }

    /// Whether `head`, a `206` continuing a partial file kept with this validator, carries it
    /// (RFC 9110 §15.3.7.3: parts are combined only under the same strong validator): an entity
    /// tag by strong comparison (§8.8.3.2: a weak `W/` tag never matches), a date as the same
    /// `Last-Modified`. A `206` without it, with a weak tag or with another validator does not.
    func isCarried(by head: ResponseHead) -> Bool {
        switch self {
        case .entityTag(let tag):
            head.value(forHTTPHeaderField: "ETag")?.trimmingCharacters(in: .whitespaces) == tag
        case .lastModified(let date):
            head.value(forHTTPHeaderField: "Last-Modified")?.trimmingCharacters(in: .whitespaces) == date
        }
    }
}
