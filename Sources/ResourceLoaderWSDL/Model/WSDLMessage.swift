/// A `wsdl:message`: the parts a request, response or fault is made of.
public struct WSDLMessage: Sendable, Hashable {
    /// The message's name.
    public var name: QualifiedName
    /// The message's `wsdl:documentation`.
    public var documentation: String?
    /// The parts, in document order.
    public var parts: [WSDLPart]

    /// Makes a message.
    public init(name: QualifiedName, documentation: String?, parts: [WSDLPart]) {
        self.name = name
        self.documentation = documentation
        self.parts = parts
    }

    /// The part named `name`, if the message has one.
    public func part(named name: String) -> WSDLPart? { parts.first { $0.name == name } }
}
