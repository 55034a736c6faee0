import Foundation

/// Decodes `Decodable` values from the elements of an ``XMLTree``.
///
/// ```swift
/// struct User: Decodable {
///     let firstName: String
///     let age: Int?
///     let emails: [String]     // <emails>…</emails> repeated
/// }
/// let user = try XMLTreeDecoder().decode(User.self, from: element)
/// ```
///
/// How XML maps to Swift:
/// - **Keys** match child elements by local name, whatever their prefix. When no child element
///   has the key's name, an attribute with that local name is used instead, so
///   `<user id="7"><name>Fred</name></user>` decodes `id` and `name` alike.
/// - **Values** (`String`, `Bool`, integers, floating point, `Decimal`, `URL`, `Date`) come from an
///   element's ``XMLTree/Element/text`` or an attribute's value. Strings are taken exactly as
///   written; other values have surrounding whitespace trimmed first. `Bool` accepts `true`,
///   `false`, `1` and `0`, as in XML Schema. Empty text (`<homepage/>`) is no `URL`: it is a
///   `DecodingError.dataCorrupted`, for an optional property too, which an empty element does
///   not make `nil` (only a missing one or `xsi:nil` does).
/// - **Arrays** under a key are the child elements repeated with that name; none makes an empty
///   array. An array decoded directly from an element (at the top level, or nested in another
///   array) is made of that element's children.
/// - **Optionals** are `nil` when there is neither an element nor an attribute with the key's
///   name, or when the element has `xsi:nil="true"`.
/// - ``XMLTree/Element`` is itself `Decodable`: a property of that type receives the element, to
///   read by hand.
/// - `Data` is read as base64 (or hex, by ``dataDecodingStrategy``); a field whose schema says
///   ``XMLTypeSchema/Field/isHexBinary`` is read as hex, in either case. Text that is not what
///   the field expects (an odd number of hex digits, a character that is not a digit) is a
///   `DecodingError.dataCorrupted`.
/// - A type that conforms to ``XMLSchemaType`` is read as its ``XMLTypeSchema`` says: attribute
///   and text fields from the attribute or the element's own text only, and wrapped arrays from
///   the items inside the wrapper element.
/// - An ``XMLChoice`` is read from the element that holds its property: the first child whose
///   name is one of its cases'.
/// - An array of ``XMLChoice``s is read from the element that holds its property: every child
///   whose name is one of its cases', in document order.
/// - An element with `xsi:type` naming a type registered with ``registerDerivedType(_:)`` is
///   decoded as that type (a subclass of the one declared).
///
/// This is the mirror of ``XMLTreeEncoder``: what it writes, this reads back to an equal value.
///
/// Errors are `DecodingError`s whose coding path names the elements that led to the failure
/// (array positions as indices), so ``ResourceError/ParsingFailure/codingPath`` shows where
/// decoding stopped. Messages never quote the document's text.
public struct XMLTreeDecoder: Sendable {
    /// How `Date` values are read from text.
    public enum DateDecodingStrategy: Sendable {
        /// ISO 8601 / `xs:dateTime` with a time zone, with or without fractional seconds:
        /// `2026-01-02T03:04:05Z`, `2026-01-02T03:04:05.250+01:00`, or with the offset written
        /// `+0100` or `+01`; the years 0001 to 9999, as ``XMLDateTime`` reads them. A day or a time
        /// that does not exist (`2026-02-30`, `25:00`, an offset beyond ±14:00) is a
        /// `DecodingError.dataCorrupted`, never moved to another day or hour.
        case iso8601
        /// A number of seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// Your own function of the (untrimmed) text. Errors it throws are reported as
        /// `DecodingError.dataCorrupted` with the coding path.
        case custom(@Sendable (String) throws -> Date)
    }

    /// How `Date` values are read. Default: ``DateDecodingStrategy/iso8601``.
    public var dateDecodingStrategy: DateDecodingStrategy
    /// Values handed to every `init(from:)` as the decoder's `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]
    /// How `Data` values are read. Default: ``DataDecodingStrategy/base64``.
    public var dataDecodingStrategy: DataDecodingStrategy = .base64
    /// The types an element's `xsi:type` may name, by their schemas'
    /// ``XMLTypeSchema/typeName``; see ``registerDerivedType(_:)``.
    var derivedTypes: [XMLQualifiedName: DerivedType] = [:]

    /// A registered derived type: its identity and how to decode it.
    struct DerivedType: Sendable {
        let id: ObjectIdentifier
        let decode: @Sendable (XMLElementDecoder) throws -> Any
    }

    /// How `Data` values are read from text.
    public enum DataDecodingStrategy: Sendable, Hashable {
        /// `xs:base64Binary`; XML whitespace inside is ignored.
        case base64
        /// `xs:hexBinary`, in either case.
        case hex
    }

    /// Lets an element's `xsi:type` name `type`: where a base class is decoded and the element
    /// says `xsi:type="ns:Derived"`, the registered type with that ``XMLTypeSchema/typeName`` is
    /// decoded instead, when it is a subclass of the declared type.
    ///
    /// ```swift
    /// var decoder = XMLTreeDecoder()
    /// decoder.registerDerivedType(Dog.self)    // Dog: Animal, typeName {urn:zoo}Dog
    /// let pen = try decoder.decode(Pen.self, from: element)   // pen.animal is a Dog
    /// ```
    ///
    /// A type without a ``XMLTypeSchema/typeName`` is not registered.
    public mutating func registerDerivedType<T: Decodable & XMLSchemaType & SendableMetatype>(_ type: T.Type) {
        guard let name = T.xmlSchema.typeName else { return }
        derivedTypes[name] = DerivedType(id: ObjectIdentifier(type)) { decoder in
            try decoder.decodeDescribed(T.self)
        }
    }

    /// Creates a decoder.
    public init(
        dateDecodingStrategy: DateDecodingStrategy = .iso8601,
        dataDecodingStrategy: DataDecodingStrategy = .base64,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateDecodingStrategy = dateDecodingStrategy
        self.dataDecodingStrategy = dataDecodingStrategy
        self.userInfo = userInfo
    }

    /// Decodes a value from an element.
    ///
    /// - Throws: `DecodingError` when the element does not hold a `T`.
    public func decode<T: Decodable>(_ type: T.Type, from element: XMLTree.Element) throws -> T {
        try decode(type, from: element, path: [])
    }

    /// Parses a document and decodes a value from the element at `path` below its root.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The XML document.
    ///   - path: Child names leading from the root element to the element to decode; empty for
    ///     the root itself.
    ///   - options: The parsing limits.
    /// - Throws: ``XMLParsingError`` when the document is refused; `DecodingError` when the path
    ///   leads nowhere (`keyNotFound`) or the element does not hold a `T`.
    public func decode<T: Decodable>(
        _ type: T.Type,
        from data: Data,
        atPath path: [String] = [],
        options: XMLParsingOptions = XMLParsingOptions()
    ) throws -> T {
        let tree = try XMLTree(data: data, options: options)
        return try decode(type, from: try Self.element(atPath: path, in: tree.root), path: path)
    }

    /// Decodes a value from `element`, reached from the root by the element names `path` (the
    /// start of every coding path).
    func decode<T: Decodable>(_ type: T.Type, from element: XMLTree.Element, path: [String]) throws -> T {
        let decoder = XMLElementDecoder(value: .element(element), path: path, options: self)
        return try decoder.unbox(type)
    }

    /// Follows `path` from `root`, throwing `DecodingError.keyNotFound` at the first missing step.
    static func element(atPath path: [String], in root: XMLTree.Element) throws -> XMLTree.Element {
        var current = root
        for (step, name) in path.enumerated() {
            guard let next = current.child(named: name) else {
                throw DecodingError.keyNotFound(XMLCodingKey(name), DecodingError.Context(
                    codingPath: path[..<step].map { XMLCodingKey($0) },
                    debugDescription: "No element named \(name.debugDescription) below <\(current.qualifiedName)>"))
            }
            current = next
        }
        return current
    }
}
