/// The request or the response of a bound operation: its body parts, its wrapper element, and its
/// SOAP header blocks.
public struct WSDLOperationMessage: Sendable, Hashable {
    /// The `name` of the port type's `wsdl:input` or `wsdl:output`, if it has one.
    public var name: String?
    /// The message whose parts travel.
    public var message: QualifiedName
    /// The parts in the body: those `soap:body`'s `parts` lists, or all parts that no
    /// `soap:header` of the same message takes.
    public var bodyParts: [WSDLPart]
    /// The element that wraps the parameters: the single part's element for document/literal
    /// wrapped; for rpc, the operation's name (with `Response` appended for the output) in the
    /// `soap:body`'s namespace. `nil` for document/literal bare.
    public var wrapper: QualifiedName?
    /// The `namespace` of the `soap:body`, used by rpc style.
    public var bodyNamespace: String?
    /// Whether the `soap:body` says `use="encoded"`.
    public var isEncoded: Bool
    /// The SOAP header blocks declared for this direction, in document order.
    public var headers: [WSDLHeader]

    /// Makes a bound message.
    public init(
        name: String?, message: QualifiedName, bodyParts: [WSDLPart], wrapper: QualifiedName?, bodyNamespace: String?,
        isEncoded: Bool, headers: [WSDLHeader]
    ) {
        self.name = name
        self.message = message
        self.bodyParts = bodyParts
        self.wrapper = wrapper
        self.bodyNamespace = bodyNamespace
        self.isEncoded = isEncoded
        self.headers = headers
    }
}
