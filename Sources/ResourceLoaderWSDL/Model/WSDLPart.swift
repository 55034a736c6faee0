/// A `wsdl:part`: one piece of a message, declared by a global element (document style) or by a
/// type (rpc style).
public struct WSDLPart: Sendable, Hashable {
    /// What a part is declared by.
    public enum Content: Sendable, Hashable {
        /// A global element of the schemas (`element=`): the element is the part on the wire.
        case element(QualifiedName)
        /// A type (`type=`): the part is an element named after the part, of that type.
        case type(QualifiedName)
    }

    /// The part's name.
    public var name: String
    /// The element or type the part is declared by.
    public var content: Content
    /// The part's `wsdl:documentation`.
    public var documentation: String?

    /// Makes a part.
    public init(name: String, content: Content, documentation: String?) {
        self.name = name
        self.content = content
        self.documentation = documentation
    }

    /// The element that declares the part, if it is declared by an element.
    public var element: QualifiedName? {
        if case .element(let name) = content { return name }
        return nil
    }

    /// The type that declares the part, if it is declared by a type.
    public var type: QualifiedName? {
        if case .type(let name) = content { return name }
        return nil
    }
}
