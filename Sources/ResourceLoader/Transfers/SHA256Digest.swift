import Foundation

/// A SHA-256 digest: the 32 bytes a download is checked against.
///
/// ```swift
/// let expected = SHA256Digest(hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
/// ```
///
/// A value that exists has exactly 32 bytes: the initialisers refuse anything else, decoding
/// included.
public struct SHA256Digest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The digest's 32 bytes.
    public let bytes: [UInt8]

    private enum CodingKeys: String, CodingKey {
        case bytes
    }

    /// A digest from its 32 bytes; `nil` for any other count.
    public init?<Bytes: Sequence<UInt8>>(bytes: Bytes) {
        let bytes = Array(bytes)
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// A digest from 64 hexadecimal digits (either case), as `sha256sum` prints it; `nil` for
    /// anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.value(ofHexDigit: digits[index]), let low = Self.value(ofHexDigit: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// Decodes a digest encoded as ``bytes``.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when there are not exactly 32 bytes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let bytes = try container.decode([UInt8].self, forKey: .bytes)
        guard bytes.count == 32 else {
            throw DecodingError.dataCorruptedError(
                forKey: .bytes, in: container, debugDescription: "A SHA-256 digest has 32 bytes, not \(bytes.count)."
            )
        }
        self.bytes = bytes
    }

    /// The digest of `data`.
    public init(of data: Data) {
        var sha = SHA256()
        sha.update(data)
        self.bytes = sha.finalize()
    }

    /// The digest of the file at `url`, read in pieces of 1 MiB.
    ///
    /// - Throws: ``ResourceError/fileSystem(_:)`` when the file cannot be read.
    public init(ofFileAt url: URL) throws(ResourceError) {
        var sha = SHA256()
        try DownloadFile.hash(contentsOf: url, into: &sha)
        self.bytes = sha.finalize()
    }

    /// The 64 lowercase hexadecimal digits, as `sha256sum` prints them.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The hexadecimal digits.
    public var description: String { hex }

    init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func value(ofHexDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
