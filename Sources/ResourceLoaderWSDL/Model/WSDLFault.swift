/// A fault an operation declares: the message whose part is the fault's `detail`.
public struct WSDLFault: Sendable, Hashable {
    /// The fault's name, unique within its operation.
    public var name: String
    /// The message that carries the detail.
    public var message: QualifiedName
    /// The message's part (a fault message has one), usually declared by an element.
    public var part: WSDLPart?
    /// Whether the `soap:fault` says `use="encoded"`.
    public var isEncoded: Bool

    /// Makes a fault.
    public init(name: String, message: QualifiedName, part: WSDLPart?, isEncoded: Bool) {
        self.name = name
        self.message = message
        self.part = part
        self.isEncoded = isEncoded
    }
}
