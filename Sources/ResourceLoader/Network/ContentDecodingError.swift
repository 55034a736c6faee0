/// Why a response body in a content coding (gzip or deflate) could not be decoded.
///
/// ResourceLoader reports it as the `underlying` error of
/// ``ResourceError/transport(_:underlying:)`` with the code `URLError.Code.cannotDecodeContentData`.
/// A body that decodes to more than the size limit is ``ResourceError/responseTooLarge(limit:)``
/// instead. Offsets count bytes of the body as it was received, before decoding.
public enum ContentDecodingError: Error, Sendable, Hashable {
    /// The body does not start as its coding requires: a gzip body without gzip's magic bytes or
    /// with an unknown method or flags, or a zlib header with a bad check or a preset dictionary.
    case invalidHeader
    /// The compressed data is not valid: zlib stopped after `offset` bytes of the body.
    case corrupt(offset: Int)
    /// The data decoded, but the checksum in its trailer (gzip's CRC-32, zlib's Adler-32) does
    /// not match it: the body was damaged on the way.
    case checksumMismatch
    /// A gzip member decoded, but the length in its trailer (ISIZE) is not the length decoded.
    case lengthMismatch
    /// The body ended before its compressed stream did: the connection closed early, or the
    /// server cut the body.
    case truncated
    /// Bytes follow the end of the compressed stream, starting `offset` bytes into the body. A
    /// gzip body may hold several gzip members one after the other; anything else after the last
    /// one, and anything after a zlib or raw deflate stream, is refused.
    case trailingData(offset: Int)
    /// zlib itself failed (it could not allocate its state, for one); `code` is its return code.
    case decompressorFailure(code: Int32)
}

extension ContentDecodingError: ContentFreeDescription {
    /// A one-line description that says what was wrong, with the offset where there is one.
    public var description: String {
        switch self {
        case .invalidHeader: "the compressed body's header is not valid"
        case .corrupt(let offset): "the compressed body is corrupt at about byte \(offset)"
        case .checksumMismatch: "the compressed body's checksum does not match its content"
        case .lengthMismatch: "the gzip body's length field does not match its content"
        case .truncated: "the compressed body ended before its end-of-stream mark"
        case .trailingData(let offset): "bytes follow the end of the compressed body, from byte \(offset)"
        case .decompressorFailure(let code): "zlib failed with code \(code)"
        }
    }
}
