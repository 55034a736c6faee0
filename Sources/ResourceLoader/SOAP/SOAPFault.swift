/// A SOAP Fault returned by a service in place of a response.
///
/// Reported as ``ResourceError/soapFault(_:)``, whatever the HTTP status (SOAP 1.1 services
/// usually answer 500, SOAP 1.2 services 400 or 500, and some 200). SOAP 1.1 faults fill ``code``,
/// ``reason``, ``role`` and ``detail`` (from `faultcode`, `faultstring`, `faultactor` and
/// `detail`); SOAP 1.2 faults also carry the ``subcodes`` chain and the ``node``.
///
/// ```swift
/// do {
///     let user = try await service.fetch(GetUserDetails(userID: "12345"))
/// } catch .soapFault(let fault) {
///     print(fault.code, fault.reason, fault.detail?.child(named: "errorCode")?.text ?? "")
/// }
/// ```
public struct SOAPFault: Error, Sendable, Hashable {
    /// The fault code, as the service wrote it (for example `soap:Client` or `env:Sender`).
    public var code: String
    /// The SOAP 1.2 subcodes, outermost first; empty for SOAP 1.1.
    public var subcodes: [String]
    /// The human-readable reason (`faultstring` in SOAP 1.1, the first `Reason/Text` in 1.2).
    public var reason: String
    /// The actor (SOAP 1.1 `faultactor`) or role (SOAP 1.2 `Role`) that raised the fault, if any.
    public var role: String?
    /// The SOAP 1.2 `Node` that raised the fault, if any.
    public var node: String?
    /// The fault's detail element (`detail` in SOAP 1.1, `Detail` in 1.2), if any, with the
    /// application-specific elements the service put in it.
    public var detail: XMLTree.Element?

    /// Creates a fault value.
    public init(
        code: String,
        subcodes: [String] = [],
        reason: String,
        role: String? = nil,
        node: String? = nil,
        detail: XMLTree.Element? = nil
    ) {
        self.code = code
        self.subcodes = subcodes
        self.reason = reason
        self.role = role
        self.node = node
        self.detail = detail
    }
}

// MARK: - Reading

extension SOAPFault {
    /// Reads a `Fault` element of either version. Text is trimmed of surrounding whitespace.
    init(element fault: XMLTree.Element) {
        func text(_ element: XMLTree.Element?) -> String? {
            element.map { trimmingXMLWhitespace($0.text) }
        }
        if let code = fault.child(named: "Code") {
            // SOAP 1.2: Code/Value, then Subcode/Value, Subcode/Subcode/Value…
            var codes: [String] = []
            var current: XMLTree.Element? = code
            while let level = current {
                if let value = text(level.child(named: "Value")) { codes.append(value) }
                current = level.child(named: "Subcode")
            }
            self.init(
                code: codes.first ?? "",
                subcodes: Array(codes.dropFirst()),
                reason: text(fault.child(named: "Reason")?.child(named: "Text")) ?? "",
                role: text(fault.child(named: "Role")),
                node: text(fault.child(named: "Node")),
                detail: fault.child(named: "Detail"))
        } else {
            self.init(
                code: text(fault.child(named: "faultcode")) ?? "",
                reason: text(fault.child(named: "faultstring")) ?? "",
                role: text(fault.child(named: "faultactor")),
                detail: fault.child(named: "detail"))
        }
    }
}
