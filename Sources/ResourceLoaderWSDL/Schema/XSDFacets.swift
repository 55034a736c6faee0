/// The facets of a restriction: the values, lengths, bounds and patterns it allows.
public struct XSDFacets: Sendable, Hashable {
    /// One `xsd:enumeration`.
    public struct Enumeration: Sendable, Hashable {
        /// The value, as written.
        public var value: String
        /// Its `xsd:documentation`.
        public var documentation: String?

        /// Makes an enumerated value.
        public init(value: String, documentation: String? = nil) {
            self.value = value
            self.documentation = documentation
        }
    }

    /// The enumerated values, in document order.
    public var enumerations: [Enumeration] = []
    /// The `pattern`s, in document order.
    public var patterns: [String] = []
    /// `length`.
    public var length: Int?
    /// `minLength`.
    public var minLength: Int?
    /// `maxLength`.
    public var maxLength: Int?
    /// `minInclusive`, as written.
    public var minInclusive: String?
    /// `maxInclusive`, as written.
    public var maxInclusive: String?
    /// `minExclusive`, as written.
    public var minExclusive: String?
    /// `maxExclusive`, as written.
    public var maxExclusive: String?
    /// `totalDigits`.
    public var totalDigits: Int?
    /// `fractionDigits`.
    public var fractionDigits: Int?
    /// `whiteSpace`: `preserve`, `replace` or `collapse`.
    public var whiteSpace: String?

    /// Makes an empty set of facets.
    public init() {}
}
