import Foundation

/// What the upload endpoint received: how the body was framed, and each part of the form as the
/// server parsed it back, with the SHA-256 of its bytes.
public struct UploadReceipt: Codable, Sendable, Hashable {
    /// One part of the form as the server received it.
    public struct Part: Codable, Sendable, Hashable {
        /// The part's field name, unescaped.
        public var name: String
        /// The part's file name, unescaped, or `nil` for a field without one.
        public var fileName: String?
        /// The part's `Content-Type`, or `nil` when it had none.
        public var contentType: String?
        /// How many bytes the part's body has.
        public var byteCount: Int
        /// The SHA-256 of the part's body, as `sha256sum` prints it.
        public var sha256: String

        /// Creates a part's record.
        public init(name: String, fileName: String?, contentType: String?, byteCount: Int, sha256: String) {
            self.name = name
            self.fileName = fileName
            self.contentType = contentType
            self.byteCount = byteCount
            self.sha256 = sha256
        }
    }

    /// How the request body was framed: `"Content-Length: N"` or `"chunked"`.
    public var framing: String
    /// The parts, in the order they arrived.
    public var parts: [Part]

    /// Creates a receipt.
    public init(framing: String, parts: [Part]) {
        self.framing = framing
        self.parts = parts
    }

    /// The first part whose field name is `name`.
    public func part(named name: String) -> Part? {
        parts.first { $0.name == name }
    }
}
