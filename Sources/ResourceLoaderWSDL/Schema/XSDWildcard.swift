/// `xsd:any` or `xsd:anyAttribute`: content from namespaces the schema leaves open.
public struct XSDWildcard: Sendable, Hashable {
    /// How a validator treats what matches the wildcard.
    public enum ProcessContents: String, Sendable, Hashable {
        /// Must be declared and valid (the default).
        case strict
        /// Validated where declared.
        case lax
        /// Not validated.
        case skip
    }

    /// The `namespace` constraint as written: `##any` (the default), `##other`, `##local`,
    /// `##targetNamespace`, or a list of URIs.
    public var namespace: String
    /// The `processContents` value.
    public var processContents: ProcessContents

    /// Makes a wildcard.
    public init(namespace: String = "##any", processContents: ProcessContents = .strict) {
        self.namespace = namespace
        self.processContents = processContents
    }
}
