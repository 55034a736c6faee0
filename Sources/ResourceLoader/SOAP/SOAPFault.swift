/// A SOAP Fault returned by a service in place of a response.
///
/// Reported as ``ResourceError/soapFault(_:)``, whatever the HTTP status (SOAP 1.1 services
/// usually answer 500, SOAP 1.2 services 400 or 500, and some 200). SOAP 1.1 faults fill ``code``,
/// ``reason``, ``role`` and ``detail`` (from `faultcode`, `faultstring`, `faultactor` and
/// `detail`); SOAP 1.2 faults also carry the ``subcodes`` chain and the ``node``.
///
/// Fault codes are qualified names, and each server picks its own prefix (`soap:Client`,
/// `SOAP-ENV:Client`, `soap11env:Client`). Match them through ``standardCode`` (the fault's class,
/// the same for both SOAP versions) or ``resolvedCode`` and ``resolvedSubcodes`` (namespace and
/// local name, resolved against the response's own namespace declarations), never by comparing
/// ``code`` as text:
///
/// ```swift
/// do {
///     let user = try await service.fetch(GetUserDetails(userID: "12345"))
/// } catch .soapFault(let fault) where fault.standardCode == .sender {
///     // The request was at fault: SOAP 1.1 `Client`, SOAP 1.2 `Sender`.
///     print(fault.resolvedCode.localName, fault.reason, fault.detail?.child(named: "errorCode")?.text ?? "")
/// }
/// ```
///
/// The fault's description names only its standard code, never the server's text: read
/// ``reason`` and the other properties for that.
public struct SOAPFault: Error, Sendable, Hashable {
    /// The fault code as the service wrote it, prefix included (for example `soap:Client` or
    /// `env:Sender`). The prefix is the server's choice: compare ``resolvedCode`` or
    /// ``standardCode`` instead.
    public var code: String
    /// The SOAP 1.2 subcodes as the service wrote them, outermost first; empty for SOAP 1.1.
    public var subcodes: [String]
    /// The fault code resolved to a namespace and local name.
    public var resolvedCode: Code
    /// The SOAP 1.2 subcodes resolved to namespaces and local names, outermost first; empty for
    /// SOAP 1.1.
    public var resolvedSubcodes: [Code]
    /// The human-readable reason (`faultstring` in SOAP 1.1, the first `Reason/Text` in 1.2).
    public var reason: String
    /// The actor (SOAP 1.1 `faultactor`) or role (SOAP 1.2 `Role`) that raised the fault, if any.
    public var role: String?
    /// The SOAP 1.2 `Node` that raised the fault, if any.
    public var node: String?
    /// The fault's detail element (`detail` in SOAP 1.1, `Detail` in 1.2), if any, with the
    /// application-specific elements the service put in it.
    public var detail: XMLTree.Element?

    /// Creates a fault value from resolved codes; ``code`` and ``subcodes`` are their
    /// ``Code/text``.
    public init(
        code: Code,
        subcodes: [Code] = [],
        reason: String,
        role: String? = nil,
        node: String? = nil,
        detail: XMLTree.Element? = nil
    ) {
        self.code = code.text
        self.subcodes = subcodes.map(\.text)
        self.resolvedCode = code
        self.resolvedSubcodes = subcodes
        self.reason = reason
        self.role = role
        self.node = node
        self.detail = detail
    }

    /// Creates a fault value from codes written as text.
    ///
    /// Without the document there are no namespace declarations to resolve a prefix with, so
    /// the resolved codes have no namespace and ``standardCode`` is `nil`. Pass ``Code`` values
    /// to make a fault that has one.
    public init(
        code: String,
        subcodes: [String] = [],
        reason: String,
        role: String? = nil,
        node: String? = nil,
        detail: XMLTree.Element? = nil
    ) {
        self.init(
            code: Code(unresolved: code), subcodes: subcodes.map(Code.init(unresolved:)),
            reason: reason, role: role, node: node, detail: detail)
    }

    /// The fault's standard code, the same for SOAP 1.1 and 1.2; `nil` when the code is not in
    /// a SOAP envelope namespace or is not one the version defines.
    ///
    /// | ``StandardCode`` | SOAP 1.1 `faultcode` | SOAP 1.2 `Code/Value` |
    /// | --- | --- | --- |
    /// | ``StandardCode/versionMismatch`` | `VersionMismatch` | `VersionMismatch` |
    /// | ``StandardCode/mustUnderstand`` | `MustUnderstand` | `MustUnderstand` |
    /// | ``StandardCode/dataEncodingUnknown`` | — | `DataEncodingUnknown` |
    /// | ``StandardCode/sender`` | `Client` | `Sender` |
    /// | ``StandardCode/receiver`` | `Server` | `Receiver` |
    ///
    /// SOAP 1.1 lets a service refine a code with dotted suffixes (`Client.UnknownUser`): the
    /// class is the part before the first dot, and the whole name stays in
    /// ``resolvedCode``'s ``Code/localName``.
    public var standardCode: StandardCode? {
        switch resolvedCode.namespaceURI {
        case SOAPVersion.v1_1.envelopeNamespace?:
            let base = resolvedCode.localName.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            switch base {
            case "VersionMismatch": return .versionMismatch
            case "MustUnderstand": return .mustUnderstand
            case "Client": return .sender
            case "Server": return .receiver
            default: return nil
            }
        case SOAPVersion.v1_2.envelopeNamespace?:
            switch resolvedCode.localName {
            case "VersionMismatch": return .versionMismatch
            case "MustUnderstand": return .mustUnderstand
            case "DataEncodingUnknown": return .dataEncodingUnknown
            case "Sender": return .sender
            case "Receiver": return .receiver
            default: return nil
            }
        default:
            return nil
        }
    }
}

// MARK: - Codes

extension SOAPFault {
    /// A fault code or subcode: a qualified name resolved to its namespace and local name.
    ///
    /// Two codes are equal when their namespaces and local names are: the prefix the server
    /// wrote (kept in ``text``) does not count, so `soap:Client` and `SOAP-ENV:Client` in the
    /// SOAP 1.1 namespace are the same code.
    public struct Code: Sendable, Hashable {
        /// The namespace the code's prefix (or, without a prefix, the default namespace) is bound
        /// to where the code was written; `nil` when nothing binds it.
        public var namespaceURI: String?
        /// The code's local name, without the prefix: `Client` for `soap:Client`,
        /// `Client.UnknownUser` for `soap:Client.UnknownUser`.
        public var localName: String
        /// The code as the service wrote it, prefix included, trimmed of surrounding whitespace.
        public var text: String

        /// Creates a code. `text` defaults to `localName`.
        public init(namespaceURI: String?, localName: String, text: String? = nil) {
            self.namespaceURI = namespaceURI
            self.localName = localName
            self.text = text ?? localName
        }

        /// The code `text` with no namespace: its prefix, if any, is dropped.
        init(unresolved text: String) {
            self.init(namespaceURI: nil, localName: Self.split(text).localName, text: text)
        }

        /// The code written as `text` in `element`, its prefix resolved with the namespace
        /// declarations in scope there (an unprefixed code takes the default namespace, as XML
        /// Schema's `QName` does).
        init(resolving text: String, in element: XMLTree.Element) {
            let (prefix, localName) = Self.split(text)
            self.init(namespaceURI: element.namespaceURI(forPrefix: prefix), localName: localName, text: text)
        }

        /// `p:name` as `("p", "name")`, `name` as `(nil, "name")`.
        private static func split(_ text: String) -> (prefix: String?, localName: String) {
            guard let colon = text.firstIndex(of: ":") else { return (nil, text) }
            return (String(text[..<colon]), String(text[text.index(after: colon)...]))
        }

        /// Whether two codes have the same namespace and local name, whatever their prefixes.
        public static func == (lhs: Code, rhs: Code) -> Bool {
            lhs.namespaceURI == rhs.namespaceURI && lhs.localName == rhs.localName
        }

        /// Hashes the namespace and local name.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(namespaceURI)
            hasher.combine(localName)
        }
    }

    /// The kinds of fault SOAP defines, named as in SOAP 1.2; see ``SOAPFault/standardCode`` for
    /// the SOAP 1.1 names.
    public enum StandardCode: String, Sendable, Hashable, CaseIterable {
        /// The envelope was not in a namespace the service speaks.
        case versionMismatch = "VersionMismatch"
        /// A header block the service had to understand was not understood.
        case mustUnderstand = "MustUnderstand"
        /// A header or body used a data encoding the service does not support (SOAP 1.2 only).
        case dataEncodingUnknown = "DataEncodingUnknown"
        /// The request was at fault and should not be re-sent unchanged (SOAP 1.1 `Client`).
        case sender = "Sender"
        /// The service failed to process a request that may succeed later (SOAP 1.1 `Server`).
        case receiver = "Receiver"
    }
}

// MARK: - Reading

extension SOAPFault {
    /// Reads a `Fault` element of either version. Text is trimmed of surrounding whitespace, and
    /// codes are resolved against the namespace declarations in scope where they are written.
    init(element fault: XMLTree.Element) {
        func text(_ element: XMLTree.Element?) -> String? {
            element.map { trimmingXMLWhitespace($0.text) }
        }
        func code(_ element: XMLTree.Element?) -> Code? {
            element.map { Code(resolving: trimmingXMLWhitespace($0.text), in: $0) }
        }
        if let codeElement = fault.child(named: "Code") {
            // SOAP 1.2: Code/Value, then Subcode/Value, Subcode/Subcode/Value…
            var codes: [Code] = []
            var current: XMLTree.Element? = codeElement
            while let level = current {
                if let value = code(level.child(named: "Value")) { codes.append(value) }
                current = level.child(named: "Subcode")
            }
            self.init(
                code: codes.first ?? Code(namespaceURI: nil, localName: ""),
                subcodes: Array(codes.dropFirst()),
                reason: text(fault.child(named: "Reason")?.child(named: "Text")) ?? "",
                role: text(fault.child(named: "Role")),
                node: text(fault.child(named: "Node")),
                detail: fault.child(named: "Detail"))
        } else {
            self.init(
                code: code(fault.child(named: "faultcode")) ?? Code(namespaceURI: nil, localName: ""),
                reason: text(fault.child(named: "faultstring")) ?? "",
                role: text(fault.child(named: "faultactor")),
                detail: fault.child(named: "detail"))
        }
    }
}

// MARK: - Description

extension SOAPFault: CustomStringConvertible {
    /// Names the fault's ``standardCode``; never the service's code, reason or detail text,
    /// which may quote the request or the service's internals.
    public var description: String {
        guard let standardCode else { return "SOAP Fault with a code SOAP does not define" }
        return "SOAP Fault \(standardCode.rawValue)"
    }
}
