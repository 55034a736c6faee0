import ResourceLoader

/// A SOAP `wsdl:binding`: how the operations of a port type travel, in SOAP 1.1 or 1.2.
public struct WSDLBinding: Sendable, Hashable {
    /// The binding's name.
    public var name: QualifiedName
    /// The port type it binds.
    public var portType: QualifiedName
    /// SOAP 1.1 (`soap:binding`) or SOAP 1.2 (`soap12:binding`).
    public var soapVersion: SOAPVersion
    /// The `transport` of its `soap:binding`, usually `http://schemas.xmlsoap.org/soap/http`.
    public var transport: String?
    /// The binding's `wsdl:documentation`.
    public var documentation: String?
    /// The operations, in document order. Operations that use SOAP encoding are kept, with an
    /// encoded ``WSDLOperation/style`` and one diagnostic for the binding; operations that cannot
    /// be read (MIME content, outbound operations, no port type operation, missing messages) are
    /// left out, each with a diagnostic.
    public var operations: [WSDLOperation]

    /// Makes a binding.
    public init(
        name: QualifiedName, portType: QualifiedName, soapVersion: SOAPVersion, transport: String?,
        documentation: String?, operations: [WSDLOperation]
    ) {
        self.name = name
        self.portType = portType
        self.soapVersion = soapVersion
        self.transport = transport
        self.documentation = documentation
        self.operations = operations
    }
}
