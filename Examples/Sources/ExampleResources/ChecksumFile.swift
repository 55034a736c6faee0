import Foundation
import ResourceLoader

/// A file's published SHA-256: `GET <url>` → the ``SHA256Digest`` of the first word of a line
/// as `sha256sum` prints it (`<hex>  <name>`).
public struct ChecksumFile: NetworkResourceType, DataResourceType {
    /// The published digest.
    public typealias Model = SHA256Digest

    /// Where the checksum is published, such as `<file>.sha256`.
    public let url: URL

    /// Creates the resource.
    public init(url: URL) {
        self.url = url
    }

    /// The digest in the body's first word.
    ///
    /// - Throws: ``ResourceError/parsing(_:)`` when it is not 64 hexadecimal digits.
    public func model(from data: Data) throws -> SHA256Digest {
        let text = String(decoding: data, as: UTF8.self)
        guard let word = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first,
            let digest = SHA256Digest(hex: String(word))
        else {
            throw ResourceError.parsing(ResourceError.ParsingFailure(context: "reading a SHA-256 from a checksum file"))
        }
        return digest
    }
}
