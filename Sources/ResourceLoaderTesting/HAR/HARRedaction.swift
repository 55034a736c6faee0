import Foundation

/// What a ``HARRecorder`` keeps out of the HAR it writes, and what a ``HARReplayer`` hides in its
/// messages.
///
/// The value of a redacted field is replaced by ``HAR/redactedValue``; its name stays, so the
/// archive still shows that a credential was sent. By default (``standard``) that is:
/// - the header fields `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`, and the
///   cookies they carry;
/// - the parameters named `access_token`, `refresh_token`, `id_token`, `client_secret`,
///   `password` and `api_key`, wherever they appear: in the query or fragment of a request's URL
///   and of the URL-valued header fields `Location`, `Content-Location` and `Referer` (and so in
///   the response's `redirectURL`), of a `Link` field's URLs and a `Refresh` field's `url`, in a
///   form body (`application/x-www-form-urlencoded`, or a body without a `Content-Type` that is
///   not JSON), as a member, at any depth, of a JSON body, request or response (so a token
///   endpoint's answer is recorded without its tokens), as a part of a `multipart/form-data`
///   body (named by its `Content-Disposition`'s `name` or `name*` parameter, wherever it stands
///   among the others and however it is quoted), and as the text of an XML element of that local
///   name, compared without regard to case (so a WS-Security `wsse:Password` is recorded without
///   it);
/// - the password of a URL's user information.
///
/// Redaction fails closed. A JSON body (a JSON `Content-Type`, or a body that starts with `{` or
/// `[`) that cannot be parsed, such as newline-delimited JSON or a body cut short, is recorded
/// as ``HAR/redactedValue`` with a comment that says why, unless it is UTF-8 holding neither a
/// listed name nor a backslash (which could spell one as an escape), so that it cannot hold a
/// listed member. An XML element of a listed name that holds more than text (a CDATA section, a
/// child element), an XML body that is not UTF-8, a multipart body without its boundary or whose
/// parts cannot be told apart by their CR LF delimiters (line feeds alone, no close delimiter, a
/// part without its empty line after the header fields), and a part whose `Content-Disposition`
/// cannot be read are replaced the same way, and so is a
/// URL-valued header field that does not parse as a URL when it holds a listed name.
///
/// Name more fields with ``redacting(headerFields:)`` and ``redacting(parameters:)``, reach
/// anything else (a token in a plain-text body, say) with ``init(headerFields:parameters:entry:)``'s
/// `entry` closure, and opt out with ``none``.
///
/// A ``HARReplayer`` applies the same redaction to each live request before matching it, so a
/// request carrying a fresh token matches the recording of one carrying an old token. The
/// `entry` closure runs there too, on an entry of the live request with an empty response
/// (status `0`).
public struct HARRedaction: Sendable {
    /// The redacted header field names, lowercased (matched without regard to case).
    public let headerFields: Set<String>
    /// The redacted query, form and JSON parameter names (matched exactly).
    public let parameters: Set<String>
    /// Applied to every entry after the named fields are redacted, for what names cannot reach.
    public let entry: (@Sendable (inout HAR.Entry) -> Void)?

    /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let defaultHeaderFields: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// `access_token`, `refresh_token`, `id_token`, `client_secret`, `password` and `api_key`.
    public static let defaultParameters: Set<String> = [
        "access_token", "refresh_token", "id_token", "client_secret", "password", "api_key",
    ]

    /// The default redaction: ``defaultHeaderFields`` and ``defaultParameters``.
    public static let standard = HARRedaction()

    /// No redaction: the archive holds every value as sent and received. Only for traffic that
    /// carries no secret.
    public static let none = HARRedaction(headerFields: [], parameters: [])

    /// Creates a redaction.
    ///
    /// - Parameters:
    ///   - headerFields: The header fields whose values are replaced, matched without regard to
    ///     case.
    ///   - parameters: The query, form and JSON parameters whose values are replaced.
    ///   - entry: Applied to every entry after that, for anything else to hide.
    public init(
        headerFields: Set<String> = HARRedaction.defaultHeaderFields,
        parameters: Set<String> = HARRedaction.defaultParameters,
        entry: (@Sendable (inout HAR.Entry) -> Void)? = nil
    ) {
        self.headerFields = Set(headerFields.map { $0.lowercased() })
        self.parameters = parameters
        self.entry = entry
    }

    /// This redaction, also hiding the values of the header fields `names`.
    public func redacting(headerFields names: Set<String>) -> HARRedaction {
        HARRedaction(headerFields: headerFields.union(names), parameters: parameters, entry: entry)
    }

    /// This redaction, also hiding the values of the query, form and JSON parameters `names`.
    public func redacting(parameters names: Set<String>) -> HARRedaction {
        HARRedaction(headerFields: headerFields, parameters: parameters.union(names), entry: entry)
    }

    /// Whether the value of the header field `name` is hidden.
    public func redactsHeaderField(_ name: String) -> Bool {
        headerFields.contains(name.lowercased())
    }

    /// Whether the value of the parameter `name` is hidden.
    public func redactsParameter(_ name: String) -> Bool {
        parameters.contains(name)
    }

    // MARK: - Applying

    /// The header fields whose values are URLs, redacted as a request's URL is.
    static let urlHeaderFields: Set<String> = ["location", "content-location", "referer"]

    /// `value`, or ``HAR/redactedValue`` when the header field `name` is redacted; the value of a
    /// URL-valued field (`Location`, `Content-Location`, `Referer`), the URLs of a `Link` field
    /// (RFC 8288) and the `url` of a `Refresh` field with their redacted parameters replaced.
    func headerValue(_ value: String, named name: String) -> String {
        if redactsHeaderField(name) { return HAR.redactedValue }
        switch name.lowercased() {
        case let field where Self.urlHeaderFields.contains(field): return redactedURL(value)
        case "link": return redactedLinks(value)
        case "refresh": return redactedRefresh(value)
        default: return value
        }
    }

    /// `value`, a `Link` field, with each `<URI-reference>` redacted as a URL; whole, as
    /// ``HAR/redactedValue``, when a `<` is not closed and the rest may hold a listed name.
    private func redactedLinks(_ value: String) -> String {
        var result = ""
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: ">") else {
                return mayHoldParameter(Data(rest.utf8)) ? HAR.redactedValue : value
            }
            result += "<" + redactedURL(String(rest[afterOpen..<close])) + ">"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// `value`, a `Refresh` field (`5; url=/next`), with its URL redacted.
    private func redactedRefresh(_ value: String) -> String {
        guard let separator = value.firstIndex(where: { $0 == ";" || $0 == "," }) else { return value }
        let parameter = value[value.index(after: separator)...].drop { $0 == " " || $0 == "\t" }
        guard parameter.lowercased().hasPrefix("url=") else {
            return mayHoldParameter(Data(parameter.utf8)) ? HAR.redactedValue : value
        }
        var url = parameter.dropFirst(4)
        if let first = url.first, first == "\"" || first == "'", url.last == first, url.count >= 2 {
            url = url.dropFirst().dropLast()
        }
        return String(value[..<url.startIndex]) + redactedURL(String(url)) + value[url.endIndex...]
    }

    /// `url` as text, with the values of redacted query and fragment parameters and any password
    /// replaced; `url.absoluteString` itself when there is nothing to replace.
    func redactedURL(_ url: URL?) -> String {
        guard let url else { return "" }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        return redact(&components) ? components.string ?? url.absoluteString : url.absoluteString
    }

    /// `text`, a URL or a relative reference, with the values of redacted query and fragment
    /// parameters and any password replaced; ``HAR/redactedValue`` when it does not parse and
    /// holds a redacted parameter's name.
    func redactedURL(_ text: String) -> String {
        guard var components = URLComponents(string: text) else {
            return mayHoldParameter(Data(text.utf8)) ? HAR.redactedValue : text
        }
        return redact(&components) ? components.string ?? HAR.redactedValue : text
    }

    /// Replaces the password and the values of redacted query and fragment parameters of
    /// `components`; whether there were any.
    private func redact(_ components: inout URLComponents) -> Bool {
        var changed = false
        if components.password != nil {
            components.password = HAR.redactedValue
            changed = true
        }
        if let items = components.percentEncodedQueryItems, items.contains(where: { redactsParameter(Self.decoded($0.name)) }) {
            components.percentEncodedQueryItems = items.map { item in
                redactsParameter(Self.decoded(item.name)) ? URLQueryItem(name: item.name, value: "%5Bredacted%5D") : item
            }
            changed = true
        }
        // An implicit grant's redirect carries its token as a form in the fragment.
        if let fragment = components.percentEncodedFragment, let redacted = redactedPairs(fragment) {
            components.percentEncodedFragment = redacted
            changed = true
        }
        return changed
    }

    /// `body` with redacted parameters replaced, when it is a form or JSON body that has any,
    /// and the comment to record with it when it was replaced whole (a JSON body that cannot be
    /// parsed and may hold one); otherwise `body` itself.
    func redactedBody(_ body: Data, mimeType: String) -> (body: Data, comment: String?) {
        guard !parameters.isEmpty, !body.isEmpty else { return (body, nil) }
        let type = mimeType.trimmingCharacters(in: .whitespaces).lowercased()
        if type.hasPrefix("application/x-www-form-urlencoded") {
            return (redactedForm(body), nil)
        }
        if type.contains("json") || body.first(where: { !$0.isWhitespace }).map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }) == true {
            return redactedJSON(body)
        }
        if type.hasPrefix("multipart/form-data") {
            return redactedMultipart(body, contentType: mimeType)
        }
        if type.contains("xml") || body.first(where: { !$0.isWhitespace }) == UInt8(ascii: "<") {
            return redactedXML(body)
        }
        if type.isEmpty {
            // No type to go by: a form, if it has a listed parameter.
            return (redactedForm(body), nil)
        }
        return (body, nil)
    }

    /// `body`, an XML document, with the text of every element named like a redacted parameter
    /// (its local name compared without regard to case, so WS-Security's `wsse:Password` is one)
    /// replaced; replaced whole, with a comment, when such an element holds more than text (a
    /// CDATA section, a child) or the body is not UTF-8 and may hold one.
    private func redactedXML(_ body: Data) -> (body: Data, comment: String?) {
        guard let text = String(data: body, encoding: .utf8) else { return unparseable(body, as: "XML") }
        guard parameters.contains(where: { text.range(of: $0, options: .caseInsensitive) != nil }) else { return (body, nil) }
        let names = parameters.map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        let name = #"(?:[A-Za-z_][\w.\-]*:)?(?:"# + names + ")"
        guard let opening = try? NSRegularExpression(pattern: "<" + name + #"(?:\s[^>]*[^/>])?\s*>"#, options: [.caseInsensitive]),
            let element = try? NSRegularExpression(
                pattern: "(<(" + name + #")(?:\s[^>]*[^/>])?\s*>)[^<]*(</\2\s*>)"#, options: [.caseInsensitive])
        else { return unparseable(body, as: "XML") }
        let whole = NSRange(text.startIndex..., in: text)
        let opened = opening.numberOfMatches(in: text, range: whole)
        guard opened > 0 else { return (body, nil) }
        let redacted = element.stringByReplacingMatches(in: text, range: whole, withTemplate: "$1" + HAR.redactedValue + "$3")
        guard element.numberOfMatches(in: text, range: whole) == opened else { return unparseable(body, as: "XML") }
        return (Data(redacted.utf8), nil)
    }

    /// `body`, a `multipart/form-data` form, with the content of every part named like a
    /// redacted parameter replaced; replaced whole, with a comment, when it cannot be split into
    /// its parts.
    private func redactedMultipart(_ body: Data, contentType: String) -> (body: Data, comment: String?) {
        let boundary = contentType.split(separator: ";").dropFirst().lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.lowercased().hasPrefix("boundary=") }
            .map { String($0.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        guard let boundary, !boundary.isEmpty else { return unparseable(body, as: "multipart/form-data") }
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var result = Data()
        var changed = false
        var position = body.startIndex
        // Each part: from after a delimiter line to the CR LF before the next delimiter.
        guard let first = body.range(of: delimiter, in: position..<body.endIndex) else {
            return unparseable(body, as: "multipart/form-data")
        }
        result.append(body[position..<first.upperBound])
        position = first.upperBound
        let partEnd = Data("\r\n".utf8) + delimiter
        while let next = body.range(of: partEnd, in: position..<body.endIndex) {
            let part = body[position..<next.lowerBound]
            // A part whose header section does not end in an empty CR LF line cannot be told
            // from its content.
            guard let headers = part.range(of: headerEnd) else { return unparseable(body, as: "multipart/form-data") }
            if Self.formDataNames(String(decoding: part[part.startIndex..<headers.lowerBound], as: UTF8.self))
                .map({ $0.contains(where: redactsParameter) }) ?? true
            {
                result.append(part[part.startIndex..<headers.upperBound])
                result.append(Data(HAR.redactedValue.utf8))
                changed = true
            } else {
                result.append(part)
            }
            result.append(body[next])
            position = next.upperBound
        }
        // What follows the last delimiter is the close delimiter's `--`; anything else is a part
        // whose end was not found (line feeds alone, a body cut short).
        guard body[position..<body.endIndex].starts(with: Data("--".utf8)) else { return unparseable(body, as: "multipart/form-data") }
        result.append(body[position..<body.endIndex])
        return changed ? (result, nil) : (body, nil)
    }

    /// The names a part's `Content-Disposition: form-data` header field gives it: its `name`
    /// parameter, quoted (unescaped as WHATWG's form submission escapes it, and as RFC 9110's
    /// quoted pairs) or a token, and its RFC 8187 `name*`, whatever their case and order
    /// among the parameters. Empty for a part without the field; `nil` when the field cannot be
    /// read, so that the part is redacted.
    private static func formDataNames(_ headers: String) -> [String]? {
        guard let line = headers.components(separatedBy: "\r\n").first(where: { $0.lowercased().hasPrefix("content-disposition:") })
        else { return [] }
        var names: [String] = []
        var rest = Substring(line.drop { $0 != ";" })
        while let separator = rest.first, separator == ";" {
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var closed = false
                while let character = rest.popFirst() {
                    if character == "\"" {
                        closed = true
                        break
                    }
                    if character == "\\" {
                        guard let escaped = rest.popFirst() else { return nil }
                        value.append(escaped)
                    } else {
                        value.append(character)
                    }
                }
                guard closed else { return nil }
                rest = rest.drop { $0 == " " || $0 == "\t" }
                guard rest.isEmpty || rest.first == ";" else { return nil }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            switch key {
            case "name":
                names.append(value.replacingOccurrences(of: "%22", with: "\"")
                    .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n"))
            case "name*":
                // charset'language'percent-encoded
                let encoded = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                guard encoded.count == 3, let decoded = String(encoded[2]).removingPercentEncoding else { return nil }
                names.append(decoded)
            default:
                break
            }
        }
        guard rest.isEmpty else { return nil }
        return names
    }

    /// `body` as a form with the values of redacted parameters replaced. A body that is not
    /// UTF-8 is read with replacement characters, and written that way only when a value was
    /// replaced.
    private func redactedForm(_ body: Data) -> Data {
        redactedPairs(String(decoding: body, as: UTF8.self)).map { Data($0.utf8) } ?? body
    }

    /// `text`, `name=value` pairs separated by `&`, with the values of redacted parameters
    /// replaced; `nil` when it has none.
    private func redactedPairs(_ text: String) -> String? {
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decoded(String(parts[0]).replacingOccurrences(of: "+", with: " "))
            guard redactsParameter(name) else { return String(pair) }
            changed = true
            return "\(parts[0])=%5Bredacted%5D"
        }
        return changed ? pairs.joined(separator: "&") : nil
    }

    private func redactedJSON(_ body: Data) -> (body: Data, comment: String?) {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return unparseable(body)
        }
        var changed = false
        let redacted = redactedJSONValue(object, changed: &changed)
        guard changed else { return (body, nil) }
        guard let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed]) else {
            return unparseable(body)
        }
        return (data, nil)
    }

    /// A body that could not be redacted part by part: replaced whole when it may hold a
    /// redacted parameter.
    private func unparseable(_ body: Data, as format: String = "JSON") -> (body: Data, comment: String?) {
        guard mayHoldParameter(body) else { return (body, nil) }
        return (
            Data(HAR.redactedValue.utf8),
            "The body could not be parsed as \(format) to redact its parameters and may hold one, so it is replaced"
        )
    }

    /// Whether `bytes` may hold a redacted parameter's name: they are not UTF-8, or hold a
    /// backslash (the start of an escape that could spell one), or hold the name itself.
    private func mayHoldParameter(_ bytes: Data) -> Bool {
        guard !parameters.isEmpty else { return false }
        guard String(data: bytes, encoding: .utf8) != nil, !bytes.contains(UInt8(ascii: "\\")) else { return true }
        return parameters.contains { bytes.range(of: Data($0.utf8)) != nil }
    }

    private func redactedJSONValue(_ value: Any, changed: inout Bool) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, member) in object {
                if redactsParameter(key) {
                    result[key] = HAR.redactedValue
                    changed = true
                } else {
                    result[key] = redactedJSONValue(member, changed: &changed)
                }
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactedJSONValue($0, changed: &changed) }
        }
        return value
    }

    static func decoded(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}

extension UInt8 {
    fileprivate var isWhitespace: Bool {
        self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D
    }
}
