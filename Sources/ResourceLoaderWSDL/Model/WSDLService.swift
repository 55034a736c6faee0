/// A `wsdl:service`: a named set of ports, each an address where a binding is served.
public struct WSDLService: Sendable, Hashable {
    /// The service's name, in the document's target namespace.
    public var name: QualifiedName
    /// The service's `wsdl:documentation`.
    public var documentation: String?
    /// The ports, in document order, SOAP or not.
    public var ports: [WSDLPort]

    /// Makes a service.
    public init(name: QualifiedName, documentation: String?, ports: [WSDLPort]) {
        self.name = name
        self.documentation = documentation
        self.ports = ports
    }
}
