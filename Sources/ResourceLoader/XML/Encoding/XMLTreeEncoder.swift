import Foundation

/// Encodes `Encodable` values as XML: the mirror of ``XMLTreeDecoder``, whose output it reads
/// back to an equal value.
///
/// ```swift
/// struct User: Codable {
///     let firstName: String
///     let age: Int?
///     let emails: [String]     // <emails>…</emails> repeated
/// }
/// let data = try XMLTreeEncoder().encode(user, as: XMLQualifiedName("user", namespaceURI: "urn:users"))
/// ```
///
/// How Swift maps to XML:
/// - **Properties** become child elements named after their coding keys, in the order
///   `encode(to:)` writes them. A type that conforms to ``XMLSchemaType`` can make some of them
///   attributes or the element's text, and sets its namespace and forms (see ``XMLTypeSchema``).
/// - **Namespaces.** An element is in the namespace its type's schema gives it; a type with no
///   schema puts its children in the namespace of its own element when ``elementFormDefault`` is
///   ``XMLTypeSchema/Form/qualified`` (the default), in none otherwise. An element's namespace
///   is declared where first needed: as the default namespace (`<order xmlns="urn:shop">`, its
///   children in the same namespace then unprefixed), or with a prefix when
///   ``namespacePrefixes`` gives one, one is in scope already, or the element's first child is
///   in another namespace. An element in no namespace under a default namespace declares
///   `xmlns=""`. Attributes and `xsi:type` values always use prefixes, from
///   ``namespacePrefixes`` or made up (`ns1`, `ns2`…); an attribute in the XML namespace uses
///   `xml` (`xml:lang`), which is never declared.
/// - **`nil`** is omitted, or written as `xsi:nil="true"` when the field is nillable (or
///   ``nilEncodingStrategy`` says so for types without a schema). In an array (`[String?]`), a
///   `nil` item is always an element of its own with `xsi:nil`, which the decoder reads back as
///   `nil`.
/// - **Arrays** under a key are repeated elements named after the key, or items inside a wrapper
///   element when the field has an ``XMLTypeSchema/Field/itemName``. A top-level or nested array's
///   items are named `item`. An empty unwrapped array writes nothing, as `nil` does.
/// - **Derived types.** When a class instance of a subclass is encoded where its base class is
///   declared, and the subclass is an ``XMLSchemaType`` with a ``XMLTypeSchema/typeName``, its
///   element carries `xsi:type`. ``XMLTreeDecoder`` reads it back through the types registered
///   with ``XMLTreeDecoder/registerDerivedType(_:)``.
/// - **Choices** (``XMLChoice``) write the chosen case's element in place of the property.
///   An array of choices writes each item's element, in order, in place of the property. A
///   `nil` choice, or `nil` array of them, writes nothing, whatever ``nilEncodingStrategy`` says.
/// - **``XMLTree/Element``** is written with its own name, namespaces, attributes, text and
///   children: the content of an `xsd:any`. Its text (one string in the tree) comes before its
///   children, and comments and processing instructions, which the tree does not keep, are not
///   written (see ``XMLTree/Element/encode(to:)``).
/// - **Values** use XML Schema's lexical forms: `true`/`false`; integers in decimal; `Decimal` as
///   written by its own digits, never through `Double`; `Double` and `Float` shortest round-trip
///   form, `INF`, `-INF` and `NaN`; `Date` by ``dateEncodingStrategy`` (``XMLDateTime``,
///   ``XMLDate`` and ``XMLTime`` keep their time zone offsets); `Data` by
///   ``dataEncodingStrategy``, or as upper-case hex where the field's schema says
///   ``XMLTypeSchema/Field/isHexBinary``; `URL` as its absolute string.
///
/// Every text and attribute value is escaped, and characters XML 1.0 cannot carry (such as NUL)
/// are refused; every name is checked to be an XML name, and the names Namespaces in XML reserves
/// (an attribute `xmlns`, anything in the `xmlns` namespace, an element in the XML namespace) are
/// refused. Failures are `EncodingError.invalidValue`
/// whose coding path names the property, and whose description never quotes the value.
///
/// The markup is written as UTF-8 while the value is encoded, each start tag when the element's
/// first child or text arrives. An `encode(to:)` that writes out of document order (an attribute
/// after a child element, an element's text after its children, or into a nested container after
/// a later sibling's) gets the same output: the encoder notices, and encodes the value a second
/// time into a tree of elements that it writes when it is finished. Such an `encode(to:)` runs
/// twice, so it should have no side effects.
public struct XMLTreeEncoder: Sendable {
    /// How `Date` values are written.
    public enum DateEncodingStrategy: Sendable {
        /// `xs:dateTime` in UTC: `2026-01-02T03:04:05Z`, with milliseconds when the date has a
        /// fraction of a second (`2026-01-02T03:04:05.25Z`). To keep an offset, use
        /// ``XMLDateTime``.
        case iso8601
        /// A number of seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// Your own function; the text it returns is escaped.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How `Data` values are written.
    public enum DataEncodingStrategy: Sendable, Hashable {
        /// `xs:base64Binary`.
        case base64
        /// `xs:hexBinary`, in upper case.
        case hex
    }

    /// How `nil` is written for a property that its type's schema does not describe.
    public enum NilEncodingStrategy: Sendable, Hashable {
        /// Nothing is written.
        case omit
        /// An empty element with `xsi:nil="true"`.
        case xsiNil
    }

    /// How `Date` values are written. Default: ``DateEncodingStrategy/iso8601``.
    public var dateEncodingStrategy: DateEncodingStrategy
    /// How `Data` values are written. Default: ``DataEncodingStrategy/base64``.
    public var dataEncodingStrategy: DataEncodingStrategy
    /// How `nil` is written where no schema says. Default: ``NilEncodingStrategy/omit``.
    public var nilEncodingStrategy: NilEncodingStrategy
    /// Whether child elements of a type whose schema does not say are in its namespace.
    /// Default: ``XMLTypeSchema/Form/qualified``, as most WSDLs declare.
    public var elementFormDefault: XMLTypeSchema.Form
    /// Whether attributes of a type whose schema does not say are in its namespace. Default:
    /// ``XMLTypeSchema/Form/unqualified``, as XML Schema's own default.
    public var attributeFormDefault: XMLTypeSchema.Form
    /// The prefixes to use for namespaces, by namespace URI; other namespaces get `ns1`, `ns2`….
    /// All of them are declared on the root element, so a prefix given for two namespaces, or for
    /// the XML or `xmlns` namespace (bound by Namespaces in XML itself), makes encoding throw
    /// `EncodingError.invalidValue`.
    public var namespacePrefixes: [String: String]
    /// Values handed to every `encode(to:)` as the encoder's `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder.
    public init(
        dateEncodingStrategy: DateEncodingStrategy = .iso8601,
        dataEncodingStrategy: DataEncodingStrategy = .base64,
        nilEncodingStrategy: NilEncodingStrategy = .omit,
        elementFormDefault: XMLTypeSchema.Form = .qualified,
        attributeFormDefault: XMLTypeSchema.Form = .unqualified,
        namespacePrefixes: [String: String] = [:],
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateEncodingStrategy = dateEncodingStrategy
        self.dataEncodingStrategy = dataEncodingStrategy
        self.nilEncodingStrategy = nilEncodingStrategy
        self.elementFormDefault = elementFormDefault
        self.attributeFormDefault = attributeFormDefault
        self.namespacePrefixes = namespacePrefixes
        self.userInfo = userInfo
    }

    /// Encodes `value` as a UTF-8 XML document whose root element is `root`.
    ///
    /// - Throws: `EncodingError.invalidValue` when a name is not an XML name, a value holds a
    ///   character XML 1.0 does not allow, or a value has no XML form (a `Decimal` NaN).
    public func encode<T: Encodable>(_ value: T, as root: XMLQualifiedName) throws -> Data {
        var document = Array(#"<?xml version="1.0" encoding="utf-8"?>"#.utf8)
        document.append(contentsOf: try markup(of: value, as: root))
        return Data(document)
    }

    /// Encodes `value` as a UTF-8 XML document whose root element is `rootName`, in `namespace`.
    ///
    /// - Throws: `EncodingError.invalidValue`, as ``encode(_:as:)``.
    public func encode<T: Encodable>(_ value: T, rootName: String, namespace: String? = nil) throws -> Data {
        try encode(value, as: XMLQualifiedName(rootName, namespaceURI: namespace))
    }

    /// Encodes `value` and parses the result: the element as ``XMLTreeDecoder`` would receive it.
    ///
    /// - Throws: `EncodingError.invalidValue`, as ``encode(_:as:)``.
    public func encodeElement<T: Encodable>(_ value: T, as root: XMLQualifiedName) throws -> XMLTree.Element {
        try XMLTree(data: try encode(value, as: root)).root
    }

    /// The markup of `value` as the element `root`, with no XML declaration: escaped and
    /// checked, ready to go inside another document.
    ///
    /// The markup is written as the value is encoded; when `encode(to:)` writes out of document
    /// order, the value is encoded again into a tree of nodes, written when it is finished.
    ///
    /// With `unqualifiedParts`, the root's own child elements are in no namespace whatever the
    /// forms say (the part accessors of an rpc/literal body), unless their field names one; the
    /// elements below them are qualified as usual.
    func markup<T: Encodable>(of value: T, as root: XMLQualifiedName, unqualifiedParts: Bool = false) throws -> [UInt8] {
        try XMLEncodingNode.checkPreferred(namespacePrefixes)
        let stream = XMLEncodingSink(options: self, mode: .streaming)
        stream.unqualifiedParts = unqualifiedParts
        do {
            try encode(value, as: root, into: stream)
            if let markup = try stream.finish() { return markup }
        } catch {
            guard stream.mustRestart else { throw error }
        }
        let tree = XMLEncodingSink(options: self, mode: .tree)
        tree.unqualifiedParts = unqualifiedParts
        try encode(value, as: root, into: tree)
        return try tree.finish() ?? []
    }

    /// Encodes `value` as the element `root` (or, for an ``XMLChoice`` or an array, elements)
    /// into `sink`'s document.
    func encode<T: Encodable>(_ value: T, as root: XMLQualifiedName, into sink: XMLEncodingSink) throws {
        try sink.checkName(root.localName, codingPath: [])
        try XMLEncodingNode.checkReserved(root.localName, namespace: root.namespaceURI, isAttribute: false, codingPath: [])
        let encoder = XMLElementEncoder(
            sink: sink, parent: nil, step: .none,
            target: .pending(XMLElementEncoder.Placement(parent: sink.document, name: root, field: nil, repeatsInParent: false)))
        try encoder.box(value)
    }
}
