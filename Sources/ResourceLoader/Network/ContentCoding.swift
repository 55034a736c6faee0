/// A content coding of a response body (RFC 9110, section 8.4.1) that ResourceLoader can decode
/// itself with ``ContentDecoder``.
package enum ContentCoding: Sendable, Hashable {
    /// No coding: the body is the representation itself.
    case identity
    /// gzip (RFC 1952), checked by its CRC-32 and ISIZE trailer. `x-gzip` is the same coding.
    case gzip
    /// deflate as HTTP means it: a zlib stream (RFC 1950), checked by its Adler-32 trailer. Raw
    /// deflate data (RFC 1951) sent under this name is decoded too; see ``ContentDecoder``.
    case deflate

    /// The `Accept-Encoding` value that asks for every coding ``ContentDecoder`` decodes.
    package static let acceptEncodingValue = "gzip, deflate"

    /// Reads a `Content-Encoding` header value; `nil` when the body is not one that
    /// ``ContentDecoder`` can decode.
    ///
    /// Names are matched without regard to ASCII case, around whitespace; `x-gzip` is `gzip`. An
    /// absent (`nil`) or empty value, or `identity`, is ``identity``. Empty list elements are
    /// skipped. A value that lists more than one coding (`gzip, gzip`, `identity, gzip`) or a
    /// coding not named here (`br`, `compress`, `zstd`) gives `nil`.
    package init?(headerValue: String?) {
        guard let headerValue else {
            self = .identity
            return
        }
        let codings = headerValue.split(separator: ",").map { element in
            element.trimmingASCIIWhitespace().lowercased()
        }.filter { !$0.isEmpty }
        switch codings.count {
        case 0:
            self = .identity
        case 1:
            switch codings[0] {
            case "identity": self = .identity
            case "gzip", "x-gzip": self = .gzip
            case "deflate": self = .deflate
            default: return nil
            }
        default:
            return nil
        }
    }
}

extension Substring {
    /// The substring without the spaces and horizontal tabs (HTTP's optional whitespace) around it.
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
