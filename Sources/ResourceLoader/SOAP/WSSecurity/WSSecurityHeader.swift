import Foundation

/// The WS-Security `Security` header block (OASIS WSS 1.1): a `Timestamp` and a
/// `UsernameToken`, either or both.
///
/// Add it to every SOAP request with a ``WSSecurityAdapter``; make the block yourself with
/// ``headerBlock(at:nonce:)`` to put it in ``SOAPResourceType/soapHeaders``.
///
/// ```swift
/// let security = WSSecurityHeader(
///     usernameToken: WSSecurityUsernameToken(username: "ada", password: secret, passwordType: .digest),
///     timestampValidity: .seconds(300))
/// ```
///
/// The block written, for a digest:
///
/// ```xml
/// <wsse:Security xmlns:wsse="…wssecurity-secext-1.0.xsd" xmlns:wsu="…wssecurity-utility-1.0.xsd" soap:mustUnderstand="1">
///   <wsu:Timestamp wsu:Id="TS-1"><wsu:Created>2026-01-02T03:04:05Z</wsu:Created><wsu:Expires>2026-01-02T03:09:05Z</wsu:Expires></wsu:Timestamp>
///   <wsse:UsernameToken wsu:Id="UT-1"><wsse:Username>ada</wsse:Username>
///     <wsse:Password Type="…#PasswordDigest">…</wsse:Password>
///     <wsse:Nonce EncodingType="…#Base64Binary">…</wsse:Nonce><wsu:Created>2026-01-02T03:04:05Z</wsu:Created>
///   </wsse:UsernameToken>
/// </wsse:Security>
/// ```
public struct WSSecurityHeader: Sendable, Hashable {
    /// The `wsse` namespace (WSS 1.0 secext).
    public static let securityNamespace = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
    /// The `wsu` namespace (WSS 1.0 utility).
    public static let utilityNamespace = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
    static let base64EncodingType = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"

    /// The token, if any.
    public var usernameToken: WSSecurityUsernameToken?
    /// How long after `Created` the `Timestamp` expires; `nil` sends no `Timestamp`.
    public var timestampValidity: Duration?
    /// Whether the block has `mustUnderstand`. Default: `true`, as services expect.
    public var mustUnderstand: Bool
    /// The role (SOAP 1.2) or actor (SOAP 1.1) the block is for; `nil` for the ultimate receiver.
    public var role: String?

    /// Creates a header.
    public init(
        usernameToken: WSSecurityUsernameToken? = nil,
        timestampValidity: Duration? = .seconds(300),
        mustUnderstand: Bool = true,
        role: String? = nil
    ) {
        self.usernameToken = usernameToken
        self.timestampValidity = timestampValidity
        self.mustUnderstand = mustUnderstand
        self.role = role
    }

    /// The header block for a request made at `date`.
    ///
    /// - Parameters:
    ///   - date: The `Created` time of the timestamp and the token, written in UTC to the
    ///     millisecond.
    ///   - nonce: The token's nonce: random bytes, different for every request (16 is usual).
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when the user name or password holds a
    ///   character XML 1.0 does not allow, or the date has no `xs:dateTime` form; the reason never
    ///   quotes either.
    public func headerBlock(at date: Date, nonce: [UInt8]) throws(ResourceError) -> SOAPHeaderBlock {
        try headerBlock(at: date, nonce: nonce, appending: "")
    }

    /// The header block for a request made at `date`, with `markup` (escaped and checked
    /// already: a `BinarySecurityToken` and a `Signature`) after the timestamp and the token.
    func headerBlock(at date: Date, nonce: [UInt8], appending markup: String) throws(ResourceError) -> SOAPHeaderBlock {
        guard let created = XMLDateTime(date, utcOffset: 0).lexicalForm else {
            throw .invalidRequest(reason: "the WS-Security timestamp's date has no xs:dateTime form")
        }
        var writer = XMLWriter()
        try writer.start("wsse:Security", prefixed: true, attributes: [
            ("xmlns:wsse", Self.securityNamespace), ("xmlns:wsu", Self.utilityNamespace),
        ])
        if let validity = timestampValidity {
            let seconds = Double(validity.components.seconds) + Double(validity.components.attoseconds) / 1e18
            guard let expires = XMLDateTime(date.addingTimeInterval(seconds), utcOffset: 0).lexicalForm else {
                throw .invalidRequest(reason: "the WS-Security timestamp's expiry has no xs:dateTime form")
            }
            try writer.start("wsu:Timestamp", prefixed: true, attributes: [("wsu:Id", "TS-1")])
            try writer.start("wsu:Created", prefixed: true)
            try writer.characters(created)
            writer.end()
            try writer.start("wsu:Expires", prefixed: true)
            try writer.characters(expires)
            writer.end()
            writer.end()
        }
        if let token = usernameToken {
            do {
                try writer.start("wsse:UsernameToken", prefixed: true, attributes: [("wsu:Id", "UT-1")])
                try writer.start("wsse:Username", prefixed: true)
                try writer.characters(token.username)
                writer.end()
                try writer.start("wsse:Password", prefixed: true, attributes: [("Type", token.passwordType.uri)])
                switch token.passwordType {
                case .text: try writer.characters(token.password)
                case .digest: try writer.characters(token.passwordDigest(nonce: nonce, created: created))
                }
                writer.end()
                try writer.start("wsse:Nonce", prefixed: true, attributes: [("EncodingType", Self.base64EncodingType)])
                try writer.characters(Data(nonce).base64EncodedString())
                writer.end()
                try writer.start("wsu:Created", prefixed: true)
                try writer.characters(created)
                writer.end()
                writer.end()
            } catch {
                // The writer's reason names the element only, but say nothing of the token at all.
                throw .invalidRequest(reason: "the WS-Security user name or password holds a character XML 1.0 does not allow")
            }
        }
        writer.append(markup: markup)
        writer.end()
        let element: XMLTree.Element
        do {
            element = try XMLTree(string: writer.text).root
        } catch {
            throw .invalidRequest(reason: "the WS-Security header could not be read back")
        }
        return SOAPHeaderBlock(element: element, mustUnderstand: mustUnderstand, role: role)
    }
}

extension WSSecurityHeader: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the header holds; never the password.
    public var description: String {
        "WSSecurityHeader(usernameToken: \(usernameToken.map(\.description) ?? "nil"), timestampValidity: \(timestampValidity.map { "\($0)" } ?? "nil"))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What the header holds; never the password.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "usernameToken": usernameToken as Any, "timestampValidity": timestampValidity as Any,
            "mustUnderstand": mustUnderstand, "role": role as Any,
        ])
    }
}
