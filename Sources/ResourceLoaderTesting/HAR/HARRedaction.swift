import Foundation

/// What a ``HARRecorder`` keeps out of the HAR it writes, and what a ``HARReplayer`` hides in its
/// messages.
///
/// The value of a redacted field is replaced by ``HAR/redactedValue``; its name stays, so the
/// archive still shows that a credential was sent. By default (``standard``) that is:
/// - the header fields `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`, and the
///   cookies they carry;
/// - the parameters named `access_token`, `refresh_token`, `id_token`, `client_secret`,
///   `password` and `api_key`, wherever they appear: in a URL's query, in a form body
///   (`application/x-www-form-urlencoded`), and as a member, at any depth, of a JSON body,
///   request or response (so a token endpoint's answer is recorded without its tokens);
/// - the password of a URL's user information.
///
/// Name more fields with ``redacting(headerFields:)`` and ``redacting(parameters:)``, reach
/// anything else (a token inside an XML body, say) with ``init(headerFields:parameters:entry:)``'s
/// `entry` closure, and opt out with ``none``.
///
/// A ``HARReplayer`` applies the same redaction to each live request before matching it, so a
/// request carrying a fresh token matches the recording of one carrying an old token.
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

    /// `value`, or ``HAR/redactedValue`` when the header field `name` is redacted.
    func headerValue(_ value: String, named name: String) -> String {
        redactsHeaderField(name) ? HAR.redactedValue : value
    }

    /// `url` as text, with the values of redacted query parameters and any password replaced;
    /// `url.absoluteString` itself when there is nothing to replace.
    func redactedURL(_ url: URL?) -> String {
        guard let url else { return "" }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
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
        return changed ? components.string ?? url.absoluteString : url.absoluteString
    }

    /// `body` with redacted parameters replaced, when it is a form or JSON body that has any;
    /// otherwise `body` itself.
    func redactedBody(_ body: Data, mimeType: String) -> Data {
        guard !parameters.isEmpty, !body.isEmpty else { return body }
        let type = mimeType.lowercased()
        if type.hasPrefix("application/x-www-form-urlencoded") {
            return redactedForm(body)
        }
        if type.contains("json") || body.first(where: { !$0.isWhitespace }).map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }) == true {
            return redactedJSON(body)
        }
        return body
    }

    private func redactedForm(_ body: Data) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decoded(String(parts[0]).replacingOccurrences(of: "+", with: " "))
            guard redactsParameter(name) else { return String(pair) }
            changed = true
            return "\(parts[0])=%5Bredacted%5D"
        }
        return changed ? Data(pairs.joined(separator: "&").utf8) : body
    }

    private func redactedJSON(_ body: Data) -> Data {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return body }
        var changed = false
        let redacted = redactedJSONValue(object, changed: &changed)
        guard changed,
            let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed])
        else { return body }
        return data
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
