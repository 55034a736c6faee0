/// The built-in types of XML Schema 1.0, in the namespace `http://www.w3.org/2001/XMLSchema`,
/// with the Swift type each maps to.
///
/// | XML Schema | Swift |
/// | --- | --- |
/// | `string`, `normalizedString`, `token`, `language`, `Name`, `NCName`, `NMTOKEN`, `ID`, `IDREF`, `ENTITY`, `NOTATION`, `anySimpleType` | `String` |
/// | `NMTOKENS`, `IDREFS`, `ENTITIES` | `String`: the whitespace-separated list, as one text |
/// | `boolean` | `Bool` |
/// | `decimal` | `Decimal` |
/// | `float`, `double` | `Float`, `Double` |
/// | `integer`, `nonPositiveInteger`, `negativeInteger`, `nonNegativeInteger`, `positiveInteger` | `Int` |
/// | `long`, `int`, `short`, `byte` | `Int64`, `Int32`, `Int16`, `Int8` |
/// | `unsignedLong`, `unsignedInt`, `unsignedShort`, `unsignedByte` | `UInt64`, `UInt32`, `UInt16`, `UInt8` |
/// | `dateTime`, `date`, `time` | `XMLDateTime`, `XMLDate`, `XMLTime`: their time zone offsets kept |
/// | `duration`, `gYearMonth`, `gYear`, `gMonthDay`, `gDay`, `gMonth` | `String` |
/// | `base64Binary`, `hexBinary` | `Data` |
/// | `anyURI` | `URL` |
/// | `QName` | `String` |
/// | `anyType` | raw XML (`XMLTree.Element`) |
public enum XSDBuiltInType: String, Sendable, Hashable, CaseIterable {
    /// `anyType`: any content, kept as raw XML.
    case anyType
    /// `anySimpleType`: any text.
    case anySimpleType
    /// `string`.
    case string
    /// `normalizedString`.
    case normalizedString
    /// `token`.
    case token
    /// `language`.
    case language
    /// `Name`.
    case name = "Name"
    /// `NCName`.
    case ncName = "NCName"
    /// `NMTOKEN`.
    case nmToken = "NMTOKEN"
    /// `NMTOKENS`.
    case nmTokens = "NMTOKENS"
    /// `ID`.
    case id = "ID"
    /// `IDREF`.
    case idRef = "IDREF"
    /// `IDREFS`.
    case idRefs = "IDREFS"
    /// `ENTITY`.
    case entity = "ENTITY"
    /// `ENTITIES`.
    case entities = "ENTITIES"
    /// `NOTATION`.
    case notation = "NOTATION"
    /// `boolean`.
    case boolean
    /// `decimal`.
    case decimal
    /// `float`.
    case float
    /// `double`.
    case double
    /// `integer`.
    case integer
    /// `nonPositiveInteger`.
    case nonPositiveInteger
    /// `negativeInteger`.
    case negativeInteger
    /// `nonNegativeInteger`.
    case nonNegativeInteger
    /// `positiveInteger`.
    case positiveInteger
    /// `long`.
    case long
    /// `int`.
    case int
    /// `short`.
    case short
    /// `byte`.
    case byte
    /// `unsignedLong`.
    case unsignedLong
    /// `unsignedInt`.
    case unsignedInt
    /// `unsignedShort`.
    case unsignedShort
    /// `unsignedByte`.
    case unsignedByte
    /// `dateTime`.
    case dateTime
    /// `date`.
    case date
    /// `time`.
    case time
    /// `duration`.
    case duration
    /// `gYearMonth`.
    case gYearMonth
    /// `gYear`.
    case gYear
    /// `gMonthDay`.
    case gMonthDay
    /// `gDay`.
    case gDay
    /// `gMonth`.
    case gMonth
    /// `base64Binary`.
    case base64Binary
    /// `hexBinary`.
    case hexBinary
    /// `anyURI`.
    case anyURI
    /// `QName`.
    case qName = "QName"

    /// The XML Schema namespace, `http://www.w3.org/2001/XMLSchema`.
    public static let namespace = "http://www.w3.org/2001/XMLSchema"

    /// The built-in type `name` names: a name in the XML Schema namespace, or, since SOAP
    /// encoding declares an element and type for each built-in type, in the SOAP 1.1 or 1.2
    /// encoding namespace.
    public init?(name: QualifiedName) {
        guard name.namespace == Self.namespace || WellKnownSchemas.soapEncodingNamespaces.contains(name.namespace ?? "")
        else { return nil }
        self.init(rawValue: name.name)
    }

    /// The type's qualified name.
    public var qualifiedName: QualifiedName { QualifiedName(namespace: Self.namespace, name: rawValue) }

    /// The Swift type generated code uses for it; `nil` for `anyType`, which is kept as raw XML.
    public var swiftTypeName: String? {
        switch self {
        case .anyType: nil
        case .anySimpleType, .string, .normalizedString, .token, .language, .name, .ncName, .nmToken, .id, .idRef,
            .entity, .notation, .qName, .duration, .gYearMonth, .gYear, .gMonthDay, .gDay, .gMonth, .nmTokens, .idRefs,
            .entities:
            "String"
        case .boolean: "Bool"
        case .decimal: "Decimal"
        case .float: "Float"
        case .double: "Double"
        case .integer, .nonPositiveInteger, .negativeInteger, .nonNegativeInteger, .positiveInteger: "Int"
        case .long: "Int64"
        case .int: "Int32"
        case .short: "Int16"
        case .byte: "Int8"
        case .unsignedLong: "UInt64"
        case .unsignedInt: "UInt32"
        case .unsignedShort: "UInt16"
        case .unsignedByte: "UInt8"
        case .dateTime: "XMLDateTime"
        case .date: "XMLDate"
        case .time: "XMLTime"
        case .base64Binary, .hexBinary: "Data"
        case .anyURI: "URL"
        }
    }
}
