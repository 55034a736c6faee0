import Foundation

/// Reads a `multipart/form-data` body (RFC 7578) back into its parts, as the upload endpoint
/// receives it.
///
/// Names and file names are unescaped by the WHATWG form-submission rule (`%22`, `%0D`, `%0A`),
/// the rule the library escapes them by. A body that is not a well-formed form is `nil`.
enum MultipartFormParser {
    /// One part of a form.
    struct Part: Equatable {
        var name: String
        var fileName: String?
        var contentType: String?
        var body: Data
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, unquoted.
    static func boundary(inContentType contentType: String) -> String? {
        let fields = parameters(contentType)
        guard fields.first?.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() {
            guard let (name, value) = parameter(field), name == "boundary", !value.isEmpty, value.count <= 70 else { continue }
            return value
        }
        return nil
    }

    /// The parts of `body`, or `nil` when it is not a form delimited by `boundary`.
    static func parts(of body: Data, boundary: String) -> [Part]? {
        let body = body.startIndex == 0 ? body : Data(Array(body))
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n--\(boundary)".utf8)
        let crlf = Data("\r\n".utf8)
        let headEnd = Data("\r\n\r\n".utf8)
        // The first delimiter opens the body, or follows a preamble that ends with CR LF.
        var position: Int
        if body.starts(with: delimiter) {
            position = delimiter.count
        } else if let first = body.range(of: separator) {
            position = first.upperBound
        } else {
            return nil
        }
        var parts: [Part] = []
        while true {
            if body[position...].starts(with: Data("--".utf8)) { return parts }
            // Transport padding (spaces and tabs) may follow a delimiter before its CR LF.
            while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
            guard body[position...].starts(with: crlf) else { return nil }
            position += crlf.count
            guard let head = body.range(of: headEnd, in: position..<body.count),
                let end = body.range(of: separator, in: head.upperBound..<body.count),
                let headText = String(data: body[position..<head.lowerBound], encoding: .utf8),
                var part = part(head: headText)
            else { return nil }
            part.body = body[head.upperBound..<end.lowerBound]
            parts.append(part)
            position = end.upperBound
        }
    }

    /// A part with the name, file name and content type its header lines give, and no body.
    private static func part(head: String) -> Part? {
        var part: Part?
        var contentType: String?
        for line in head.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-disposition":
                let fields = parameters(value)
                guard fields.first?.lowercased() == "form-data" else { return nil }
                var fieldName: String?
                var fileName: String?
                for field in fields.dropFirst() {
                    guard let (key, text) = parameter(field) else { continue }
                    if key == "name" { fieldName = unescaped(text) }
                    if key == "filename" { fileName = unescaped(text) }
                }
                guard let fieldName else { return nil }
                part = Part(name: fieldName, fileName: fileName, contentType: nil, body: Data())
            case "content-type":
                contentType = value
            default:
                continue
            }
        }
        part?.contentType = contentType
        return part
    }

    /// The `;`-separated pieces of a header value, split outside quoted strings and trimmed.
    private static func parameters(_ value: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ";" && !quoted {
                pieces.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current.trimmingCharacters(in: .whitespaces))
        return pieces
    }

    /// A `name=value` parameter, its name lowercased and its value unquoted.
    private static func parameter(_ piece: String) -> (String, String)? {
        guard let equals = piece.firstIndex(of: "=") else { return nil }
        let name = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        var value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
        }
        return (name, value)
    }

    /// `text` with the WHATWG rule's escapes undone.
    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "%22", with: "\"")
            .replacingOccurrences(of: "%0D", with: "\r")
            .replacingOccurrences(of: "%0A", with: "\n")
    }
}
