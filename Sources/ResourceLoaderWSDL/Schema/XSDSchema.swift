/// One schema document read: an `xsd:schema` inline in `wsdl:types`, or a file it imports or
/// includes.
public struct XSDSchema: Sendable, Hashable {
    /// The file it is in (the WSDL file for an inline schema).
    public var file: String
    /// The namespace its global components are in: its own `targetNamespace`, or for a schema
    /// without one that was included (a chameleon include), the namespace of the schema that
    /// included it.
    public var targetNamespace: String?
    /// Whether it has no `targetNamespace` of its own and took its includer's.
    public var isChameleon: Bool
    /// Whether local elements are qualified unless they say otherwise (`elementFormDefault`).
    public var qualifiesElements: Bool
    /// Whether local attributes are qualified unless they say otherwise (`attributeFormDefault`).
    public var qualifiesAttributes: Bool

    /// Makes a schema record.
    public init(file: String, targetNamespace: String?, isChameleon: Bool, qualifiesElements: Bool, qualifiesAttributes: Bool) {
        self.file = file
        self.targetNamespace = targetNamespace
        self.isChameleon = isChameleon
        self.qualifiesElements = qualifiesElements
        self.qualifiesAttributes = qualifiesAttributes
    }
}
