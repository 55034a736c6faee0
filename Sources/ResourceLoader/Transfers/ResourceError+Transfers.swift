import Foundation

extension ResourceError {
    /// What failed on the file system while a download was written, verified or placed.
    public struct FileSystemFailure: Sendable, Hashable, CustomStringConvertible {
        /// The step of a download that touches the file system.
        public enum Operation: String, Sendable, Hashable {
            /// Creating the destination's missing directories.
            case createDirectory
            /// Creating or opening the temporary file beside the destination.
            case open
            /// Writing the body to the temporary file.
            case write
            /// Flushing the temporary file to disk before it is placed.
            case synchronize
            /// Reading a file back (a partial file being resumed, a file being hashed).
            case read
            /// Moving the finished file to the destination.
            case place
        }

        /// The step that failed.
        public let operation: Operation
        /// The file it failed on.
        public let url: URL
        /// The `errno` it failed with (`ENOSPC` for a full disk, `EEXIST` for a destination
        /// that exists under ``DownloadOverwritePolicy/failIfExists``).
        public let code: Int32

        /// Creates a failure.
        public init(operation: Operation, url: URL, code: Int32) {
            self.operation = operation
            self.url = url
            self.code = code
        }

        /// The code as a `POSIXErrorCode`, when it is one.
        public var posixCode: POSIXErrorCode? { POSIXErrorCode(rawValue: code) }

        /// Names the operation, the file and the system's message for the code.
        public var description: String {
            "Could not \(operation.verb) \(url.path): \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// A downloaded file whose SHA-256 is not the one expected.
    public struct IntegrityFailure: Sendable, Hashable, CustomStringConvertible {
        /// Where the expected digest came from.
        public enum Source: String, Sendable, Hashable {
            /// The resource's ``DownloadResourceType/expectedSHA256``.
            case expectedSHA256
            /// The response's `Content-Digest` (RFC 9530): the bytes of that one message.
            case contentDigest
            /// The response's `Repr-Digest` (RFC 9530): the whole representation.
            case reprDigest
        }

        /// Where the expected digest came from.
        public let source: Source
        /// The digest expected.
        public let expected: SHA256Digest
        /// The digest of what arrived.
        public let actual: SHA256Digest

        /// Creates a failure.
        public init(source: Source, expected: SHA256Digest, actual: SHA256Digest) {
            self.source = source
            self.expected = expected
            self.actual = actual
        }

        /// Names the source of the expected digest and both digests.
        public var description: String {
            "The download's SHA-256 \(actual.hex) is not the \(source.rawValue) \(expected.hex)"
        }
    }

    /// How the answer to a resumed download failed to continue its partial file.
    public enum ResumeRefusal: Sendable, Hashable, CustomStringConvertible {
        /// A `206` whose `Content-Range` is not the rest of the representation: it does not
        /// start where the partial file ends, stops short of the last byte (or the last byte is
        /// not known), names another length than the partial file's, is missing or cannot be
        /// read, or disagrees with the `Content-Length`; or a `206` with a content coding, whose
        /// range counts coded bytes. Nothing of the answer is written; the
        /// partial file is kept as it was when the resource keeps partial files (and the error
        /// is then ``ResourceError/downloadInterrupted(_:underlying:)`` carrying it), removed
        /// otherwise.
        case unexpectedContentRange(expectedStart: Int64, received: String?)
        /// A `206` that does not carry the partial file's strong validator (RFC 9110 §15.3.7.3):
        /// another entity tag or `Last-Modified`, a weak entity tag, or none. The resource may
        /// have changed, and the server ignored `If-Range`. The partial file is removed.
        case validatorChanged
        /// A `416`: the range starts past the end of the representation, which is not the one
        /// the partial file came from. The partial file is removed.
        case rangeNotSatisfiable(completeLength: Int64?)

        /// Says what did not fit, without quoting the server's values.
        public var description: String {
            switch self {
            case .unexpectedContentRange(let start, _):
                "Resume refused: the 206 answer's Content-Range does not continue the partial file at byte \(start)"
            case .validatorChanged:
                "Resume refused: the resource changed since the partial file was written"
            case .rangeNotSatisfiable:
                "Resume refused: the server answered 416, the partial file is not of the current resource"
            }
        }
    }
}

extension ResourceError.FileSystemFailure.Operation {
    fileprivate var verb: String {
        switch self {
        case .createDirectory: "create the directory"
        case .open: "open"
        case .write: "write to"
        case .synchronize: "flush"
        case .read: "read"
        case .place: "move the download to"
        }
    }
}
