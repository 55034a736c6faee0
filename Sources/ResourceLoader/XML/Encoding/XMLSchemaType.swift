/// A type that says how it is written as XML: its namespace, which properties are attributes,
/// which may be `xsi:nil`, which arrays have a wrapper element, and its XML Schema type name.
///
/// ``XMLTreeEncoder`` writes and ``XMLTreeDecoder`` reads a conforming type by its
/// ``xmlSchema``; a type that does not conform is written with the encoder's defaults (every
/// property an element, `nil` omitted, arrays as repeated elements).
///
/// ```swift
/// struct Order: Codable, XMLSchemaType {
///     let id: String            // <Order id="…">
///     let note: String?         // <note xsi:nil="true"/> when nil
///     let items: [Item]         // <items><item>…</item><item>…</item></items>
///
///     static let xmlSchema = XMLTypeSchema(
///         namespace: "urn:example:shop",
///         typeName: XMLQualifiedName("Order", namespaceURI: "urn:example:shop"),
///         fields: ["id": .attribute, "note": .nillableElement, "items": .wrapped(item: "item")])
/// }
/// ```
///
/// Fields are named by their coding keys' `stringValue`, which is also the element or attribute
/// name written. A derived type's schema lists its base type's fields too, since a subclass
/// encodes and decodes its base's properties through the same container.
///
/// The protocol does not refine `Sendable`: its one requirement is static, and the types that
/// carry `xsi:type` are class hierarchies, whose non-final base classes cannot be `Sendable`.
public protocol XMLSchemaType {
    /// How values of the type are written and read as XML.
    static var xmlSchema: XMLTypeSchema { get }
}
