/// A SOAP Fault returned by a service in place of a response.
///
/// Reported as ``ResourceError/soapFault(_:)``. SOAP 1.1 faults fill ``code``, ``reason`` and
/// ``role`` (from `faultcode`, `faultstring` and `faultactor`); SOAP 1.2 faults also carry the
/// ``subcodes`` chain and the ``node``.
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

    /// Creates a fault value.
    public init(
        code: String,
        subcodes: [String] = [],
        reason: String,
        role: String? = nil,
        node: String? = nil
    ) {
        self.code = code
        self.subcodes = subcodes
        self.reason = reason
        self.role = role
        self.node = node
    }
}
