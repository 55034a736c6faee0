/// What a schema document's components need to know about it while they are read.
struct SchemaContext {
    let file: String
    let targetNamespace: String?
    /// The includer's namespace, for a chameleon include: unprefixed names in no namespace take it.
    let chameleonNamespace: String?
    let qualifiesElements: Bool
    let qualifiesAttributes: Bool
}
