import Foundation

/// Percent-encoding for query strings and form bodies.
enum PercentEncoding {
    /// RFC 3986 unreserved characters: the only ones left as they are.
    private static let unreserved: Set<UInt8> = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes every byte of the UTF-8 form of `text` that is not unreserved.
    static func encode(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Encodes items as `name=value&name=value`; an item with a `nil` value is just its name.
    static func encode(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = encode(item.name)
            return item.value.map { "\(name)=\(encode($0))" } ?? name
        }
        .joined(separator: "&")
    }
}
