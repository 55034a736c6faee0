/// A name in a namespace, as XML Schema and WSDL name their components: `{namespace}name`.
///
/// The namespace is `nil` for a name in no namespace (an unqualified local element, or a schema
/// without a `targetNamespace`). Prefixes are resolved when a document is read, so two names are
/// equal whatever prefixes their documents used.
public struct QualifiedName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The namespace URI, or `nil` for no namespace.
    public var namespace: String?
    /// The local name, without any prefix.
    public var name: String

    /// Makes a name from its namespace and local name.
    public init(namespace: String?, name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// The name in James Clark's notation: `{urn:example}Order`, or just `Order` in no namespace.
    public var description: String {
        guard let namespace else { return name }
        return "{\(namespace)}\(name)"
    }

    /// Orders by namespace (no namespace first), then by local name, so that listings are
    /// deterministic.
    public static func < (lhs: QualifiedName, rhs: QualifiedName) -> Bool {
        if lhs.namespace != rhs.namespace { return (lhs.namespace ?? "") < (rhs.namespace ?? "") }
        return lhs.name < rhs.name
    }
}
