/// One operation of a SOAP binding, with its port type operation, messages and schema elements
/// resolved: what a generated resource needs to call it.
public struct WSDLOperation: Sendable, Hashable {
    /// The operation's name.
    public var name: String
    /// The port type operation's `wsdl:documentation`, or else the binding operation's.
    public var documentation: String?
    /// The `soapAction` of its `soap:operation`, if it has one (empty strings are kept).
    public var soapAction: String?
    /// How its messages are laid out.
    public var style: WSDLOperationStyle
    /// The request, if the operation has one.
    public var input: WSDLOperationMessage?
    /// The response, or `nil` for a one-way operation.
    public var output: WSDLOperationMessage?
    /// The faults it declares, in document order.
    public var faults: [WSDLFault]
    /// Where the binding operation is.
    public var location: WSDLSourceLocation

    /// Makes an operation.
    public init(
        name: String, documentation: String?, soapAction: String?, style: WSDLOperationStyle,
        input: WSDLOperationMessage?, output: WSDLOperationMessage?, faults: [WSDLFault], location: WSDLSourceLocation
    ) {
        self.name = name
        self.documentation = documentation
        self.soapAction = soapAction
        self.style = style
        self.input = input
        self.output = output
        self.faults = faults
        self.location = location
    }

    /// Whether the operation has no response.
    public var isOneWay: Bool { output == nil }
}
