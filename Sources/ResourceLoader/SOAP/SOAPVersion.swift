/// The version of SOAP a service speaks.
///
/// The version decides the envelope's namespace and how the request announces its action:
///
/// | Version | Content-Type | Action |
/// | --- | --- | --- |
/// | ``v1_1`` | `text/xml; charset=utf-8` | `SOAPAction: "…"` header |
/// | ``v1_2`` | `application/soap+xml; charset=utf-8; action="…"` | in the content type |
public enum SOAPVersion: Sendable, Hashable, CaseIterable {
    /// SOAP 1.1, the most common version.
    case v1_1
    /// SOAP 1.2.
    case v1_2

    /// The namespace of the envelope's elements.
    public var envelopeNamespace: String {
        switch self {
        case .v1_1: "http://schemas.xmlsoap.org/soap/envelope/"
        case .v1_2: "http://www.w3.org/2003/05/soap-envelope"
        }
    }

    /// The version whose envelope namespace is `namespace`, or `nil` if it is neither.
    public init?(envelopeNamespace namespace: String) {
        guard let version = Self.allCases.first(where: { $0.envelopeNamespace == namespace }) else { return nil }
        self = version
    }

    /// The `Content-Type` of a request; for SOAP 1.2 it carries `action` when there is one.
    public func contentType(action: String?) -> String {
        switch self {
        case .v1_1:
            return "text/xml; charset=utf-8"
        case .v1_2:
            guard let action else { return "application/soap+xml; charset=utf-8" }
            return "application/soap+xml; charset=utf-8; action=\(Self.quoted(action))"
        }
    }

    /// The header fields a request needs besides `Content-Type`: `SOAPAction` for SOAP 1.1
    /// (quoted; empty when there is no action), none for SOAP 1.2.
    public func headerFields(action: String?) -> [String: String] {
        switch self {
        case .v1_1: ["SOAPAction": Self.quoted(action ?? "")]
        case .v1_2: [:]
        }
    }

    /// `text` as an HTTP quoted string: `"`…`"` with `\` and `"` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}
