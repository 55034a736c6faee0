/// A declaration of the generated models, before it is written out.
enum GeneratedModel {
    /// A struct (or, in an extension hierarchy, a class) with fields, `Codable`, `Sendable`,
    /// `Hashable` and `XMLSchemaType`.
    case structure(Structure)
    /// A `String`-backed enumeration that keeps unknown values.
    case enumeration(Enumeration)
    /// A choice: an `XMLChoice` enum with a case per element.
    case choice(Choice)

    /// A generated struct.
    struct Structure {
        var name: String
        var documentation: String?
        /// The `targetNamespace` its children are qualified by.
        var namespace: String?
        /// The schema type's name, for `xsi:type`.
        var typeName: QualifiedName?
        var fields: [Field]
        /// Where its type is declared.
        var location: WSDLSourceLocation
        /// Set when the type is part of an extension hierarchy and is generated as a class.
        var inheritance: Inheritance? = nil
    }

    /// How a type of an extension hierarchy is generated: as a class, a subclass of its base's
    /// class, so that a value of a derived type can stand where its base is declared and
    /// travel with `xsi:type`.
    struct Inheritance {
        /// The base type's class; `nil` for the root of the hierarchy.
        var superclass: String?
        /// The first fields of ``Structure/fields``, which the superclass declares.
        var inheritedFieldCount: Int
        /// Whether no other type derives from this one.
        var isFinal: Bool
    }

    /// One stored property of a generated struct.
    struct Field {
        enum Cardinality { case one, optional, array }
        enum Kind { case element, attribute, text }
        var swiftName: String
        /// The XML local name: the coding key.
        var key: String
        /// The Swift type of one value.
        var type: String
        /// The generated struct `type` names, if it names one: for finding recursion.
        var structTarget: String?
        var cardinality: Cardinality
        var kind: Kind
        /// The element's or attribute's namespace (`nil`: unqualified).
        var namespace: String?
        var isNillable: Bool
        /// Whether the property is a choice, written in place of itself.
        var isChoice: Bool
        var documentation: String?
        /// Whether the values are `xsd:hexBinary` (`Data` written as hex, not base64).
        var isHexBinary = false

        /// The property's full Swift type: an array of a nillable element holds optional items,
        /// each of which may be `xsi:nil`.
        var declaredType: String {
            switch cardinality {
            case .one: type
            case .optional: type + "?"
            case .array: "[" + type + (isNillable ? "?" : "") + "]"
            }
        }
    }

    /// A generated enumeration.
    struct Enumeration {
        var name: String
        var documentation: String?
        var values: [(caseName: String, value: String, documentation: String?)]
    }

    /// A generated choice.
    struct Choice {
        var name: String
        var documentation: String?
        var cases: [(caseName: String, key: String, type: String)]
        /// For a substitution group: the namespace of each case's element, in the order of
        /// ``cases``, and the head's namespace, which the enum's `xmlSchema` names; `nil` for a
        /// choice, whose namespaces are ``namespaces``.
        var substitution: (headNamespace: String?, caseNamespaces: [String?])? = nil
        /// For a choice: the holder's target namespace, and the namespace of each case's element
        /// in the order of ``cases`` (`nil`: unqualified), which the enum's `xmlSchema` names.
        var namespaces: (holder: String?, cases: [String?]) = (nil, [])
        /// The keys of the cases whose elements are `xsd:hexBinary`, which the enum's
        /// `xmlSchema` marks.
        var hexBinaryKeys: Set<String> = []
    }

    /// The declaration's Swift name.
    var name: String {
        switch self {
        case .structure(let model): model.name
        case .enumeration(let model): model.name
        case .choice(let model): model.name
        }
    }
}
