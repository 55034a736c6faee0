/// How a type is written as XML and read back: what an ``XMLSchemaType`` declares, the way an
/// XML Schema `complexType` does.
///
/// - ``namespace`` is the `targetNamespace` of the schema that declares the type; `nil` takes the
///   namespace of the element that holds the value.
/// - ``elementForm`` and ``attributeForm`` are the schema's `elementFormDefault` and
///   `attributeFormDefault`: whether local elements and attributes are in ``namespace``
///   (``Form/qualified``) or in no namespace (``Form/unqualified``). `nil` uses the encoder's
///   defaults.
/// - ``typeName`` is the type's `name`, written as `xsi:type` when a value of the type is sent
///   where a base type is declared (see ``XMLTreeEncoder``).
/// - ``fields`` says, by coding key, which properties are attributes or text, which elements
///   are nillable or wrapped, and which `Data` is `xs:hexBinary`; a key with no entry is a plain
///   element.
public struct XMLTypeSchema: Sendable, Hashable {
    /// Whether a local element or attribute is in its schema's namespace.
    public enum Form: Sendable, Hashable {
        /// In the type's ``XMLTypeSchema/namespace`` (`form="qualified"`).
        case qualified
        /// In no namespace (`form="unqualified"`).
        case unqualified
    }

    /// How one property is written.
    public struct Field: Sendable, Hashable {
        /// Where the property's value goes.
        public enum Kind: Sendable, Hashable {
            /// A child element named after the key (arrays: one element per item).
            case element
            /// An attribute of the type's element named after the key; `nil` writes nothing.
            case attribute
            /// The element's own text, as in a `complexType` with `simpleContent`: the value
            /// that the other fields, all attributes, qualify. `nil` writes nothing, and an
            /// optional property reads an element without text as `nil`.
            case text
        }

        /// Where the property's value goes.
        public var kind: Kind
        /// The element's or attribute's namespace when it is not decided by the form: for a
        /// reference (`ref=`) to an element or attribute declared in another schema.
        public var namespace: String?
        /// Overrides the type's ``XMLTypeSchema/elementForm`` or
        /// ``XMLTypeSchema/attributeForm`` for this property (`form=` in the schema).
        public var form: Form?
        /// Whether `nil` is written as `<key xsi:nil="true"/>` (`nillable="true"` in the schema)
        /// rather than omitted.
        public var isNillable: Bool
        /// For an array: the name of each item's element inside a wrapper element named after the
        /// key. `nil` writes the items as elements named after the key, with no wrapper.
        public var itemName: String?
        /// Whether a `Data` value (or an array's `Data` items) is `xs:hexBinary`: written as
        /// upper-case hex digits and read from hex digits in either case, whatever the coders'
        /// ``XMLTreeEncoder/dataEncodingStrategy`` and ``XMLTreeDecoder/dataDecodingStrategy``
        /// say, which the fields without it follow (`xs:base64Binary` by default).
        public var isHexBinary: Bool

        /// Creates a field description.
        public init(
            kind: Kind = .element,
            namespace: String? = nil,
            form: Form? = nil,
            isNillable: Bool = false,
            itemName: String? = nil,
            isHexBinary: Bool = false
        ) {
            self.kind = kind
            self.namespace = namespace?.isEmpty == true ? nil : namespace
            self.form = form
            self.isNillable = isNillable
            self.itemName = itemName
            self.isHexBinary = isHexBinary
        }

        /// A child element; `nil` is omitted.
        public static let element = Field()
        /// A child element written as `xsi:nil="true"` when `nil`.
        public static let nillableElement = Field(isNillable: true)
        /// An attribute.
        public static let attribute = Field(kind: .attribute)
        /// The element's own text (simple content).
        public static let text = Field(kind: .text)

        /// An array in a wrapper element named after the key, each item an element named `item`.
        public static func wrapped(item: String, isNillable: Bool = false) -> Field {
            Field(isNillable: isNillable, itemName: item)
        }
    }

    /// The `targetNamespace` of the type's schema; `nil` for the namespace of the element that
    /// holds the value.
    public var namespace: String?
    /// The type's XML Schema name, written as `xsi:type` for a derived type; `nil` when it has
    /// none.
    public var typeName: XMLQualifiedName?
    /// Whether the type's child elements are in ``namespace``; `nil` uses the encoder's
    /// ``XMLTreeEncoder/elementFormDefault``.
    public var elementForm: Form?
    /// Whether the type's attributes are in ``namespace``; `nil` uses the encoder's
    /// ``XMLTreeEncoder/attributeFormDefault``.
    public var attributeForm: Form?
    /// How each property is written, by its coding key's `stringValue`; a key with no entry is a
    /// plain ``Field/element``.
    public var fields: [String: Field]

    /// Creates a type description.
    public init(
        namespace: String? = nil,
        typeName: XMLQualifiedName? = nil,
        elementForm: Form? = nil,
        attributeForm: Form? = nil,
        fields: [String: Field] = [:]
    ) {
        self.namespace = namespace?.isEmpty == true ? nil : namespace
        self.typeName = typeName
        self.elementForm = elementForm
        self.attributeForm = attributeForm
        self.fields = fields
    }
}
