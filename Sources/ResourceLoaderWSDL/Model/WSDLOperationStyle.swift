/// How an operation's messages are laid out in the SOAP body.
public enum WSDLOperationStyle: String, Sendable, Hashable, CaseIterable {
    /// Document/literal, with one input part whose element is named after the operation and has
    /// a complex type: the element's children are the operation's parameters.
    case documentWrapped
    /// Document/literal, any other way: each body part's element is written as it is.
    case documentBare
    /// RPC/literal: the parts are elements named after the parts, wrapped in an element named
    /// after the operation (`…Response` for the output) in the `soap:body` namespace.
    case rpcLiteral
    /// RPC/encoded (SOAP section 5 encoding): read, but cannot be generated.
    case rpcEncoded
    /// Document/encoded: read, but cannot be generated.
    case documentEncoded

    /// Whether the body uses SOAP encoding, which generated code does not support.
    public var isEncoded: Bool { self == .rpcEncoded || self == .documentEncoded }
}
