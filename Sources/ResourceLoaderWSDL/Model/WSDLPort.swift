import ResourceLoader

/// A `wsdl:port`: a binding served at an address.
public struct WSDLPort: Sendable, Hashable {
    /// The port's name.
    public var name: String
    /// The binding it serves.
    public var binding: QualifiedName
    /// The `location` of its `soap:address` or `soap12:address`, if it has one.
    public var address: String?
    /// The SOAP version its address element says, or `nil` for a port that is not SOAP.
    public var soapVersion: SOAPVersion?
    /// The port's `wsdl:documentation`.
    public var documentation: String?

    /// Makes a port.
    public init(name: String, binding: QualifiedName, address: String?, soapVersion: SOAPVersion?, documentation: String?) {
        self.name = name
        self.binding = binding
        self.address = address
        self.soapVersion = soapVersion
        self.documentation = documentation
    }
}
