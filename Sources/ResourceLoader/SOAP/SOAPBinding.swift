/// How an operation's message sits in the SOAP `Body`: the WSDL binding's `style` and `use`,
/// and for document style whether the parts are wrapped in the operation element.
///
/// | Binding | Body |
/// | --- | --- |
/// | ``documentLiteralWrapped`` | `<op xmlns="ns"><a>…</a><b>…</b></op>`: the operation element, its children in its namespace |
/// | ``documentLiteralBare`` | `<a xmlns="ns">…</a><b xmlns="ns">…</b>`: each part's element directly in the `Body` |
/// | ``rpcLiteral`` | `<m:op xmlns:m="ns"><a>…</a><b>…</b></m:op>`: the operation element in the `soap:body` namespace, its part accessors unqualified |
///
/// rpc/encoded (`use="encoded"`, SOAP Section 5 encoding) is not supported: an envelope with
/// that binding is refused with ``ResourceError/invalidRequest(reason:)``.
public struct SOAPBinding: Sendable, Hashable {
    /// The WSDL binding's `style`.
    public enum Style: Sendable, Hashable {
        /// `style="document"`: the body holds the parts' elements as the schema declares them.
        case document
        /// `style="rpc"`: the body holds an element named after the operation, whose children
        /// are the parts.
        case rpc
    }

    /// The WSDL binding's `use`.
    public enum Use: Sendable, Hashable {
        /// `use="literal"`: the body is exactly what the schema describes.
        case literal
        /// `use="encoded"`: SOAP Section 5 encoding, which is not supported.
        case encoded
    }

    /// The style.
    public var style: Style
    /// The use.
    public var use: Use
    /// For document style: whether the parts are the children of one element named after the
    /// operation (the "wrapped" convention most WSDLs follow), rather than each directly in the
    /// body. Ignored for rpc style, which always wraps.
    public var isWrapped: Bool

    /// Creates a binding.
    public init(style: Style, use: Use = .literal, isWrapped: Bool = true) {
        self.style = style
        self.use = use
        self.isWrapped = isWrapped
    }

    /// document/literal, wrapped: what most services use, and the default.
    public static let documentLiteralWrapped = SOAPBinding(style: .document)
    /// document/literal, bare: each part's element directly in the `Body`.
    public static let documentLiteralBare = SOAPBinding(style: .document, isWrapped: false)
    /// rpc/literal: the operation element in the `soap:body` namespace, its parts unqualified.
    public static let rpcLiteral = SOAPBinding(style: .rpc)

    /// Throws unless the binding is one ResourceLoader writes.
    func check() throws(ResourceError) {
        guard use == .literal else {
            throw .invalidRequest(
                reason: "the binding uses SOAP encoding (use=\"encoded\"), which ResourceLoader does not support: only literal bindings (document/literal and rpc/literal) are written")
        }
    }
}
