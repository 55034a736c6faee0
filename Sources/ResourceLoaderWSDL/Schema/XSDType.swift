/// A type of an XML Schema: simple (text) or complex (children and attributes).
public enum XSDType: Sendable, Hashable {
    /// An `xsd:simpleType`.
    case simple(XSDSimpleType)
    /// An `xsd:complexType`.
    case complex(XSDComplexType)

    /// The type's name, or `nil` for an anonymous type.
    public var name: QualifiedName? {
        switch self {
        case .simple(let type): type.name
        case .complex(let type): type.name
        }
    }

    /// Where the type is declared.
    public var location: WSDLSourceLocation {
        switch self {
        case .simple(let type): type.location
        case .complex(let type): type.location
        }
    }

    /// The type's `xsd:documentation`.
    public var documentation: String? {
        switch self {
        case .simple(let type): type.documentation
        case .complex(let type): type.documentation
        }
    }
}
