/// The schemas every SOAP toolkit knows, built in so that they are never fetched: XML Schema
/// itself, the XML namespace (`xml:lang`), the SOAP 1.1 and 1.2 envelopes and encodings, WSDL
/// 1.1 (`wsdl:arrayType`), xmime and XOP.
///
/// An `xsd:import` of one of these namespaces loads nothing, whatever its `schemaLocation`, and a
/// reference to one of their components resolves.
public enum WellKnownSchemas {
    /// The XML namespace, `http://www.w3.org/XML/1998/namespace`.
    public static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    /// The XML Schema instance namespace (`xsi:type`, `xsi:nil`).
    public static let schemaInstanceNamespace = "http://www.w3.org/2001/XMLSchema-instance"
    /// The SOAP 1.1 encoding namespace.
    public static let soap11EncodingNamespace = "http://schemas.xmlsoap.org/soap/encoding/"
    /// The SOAP 1.2 encoding namespace.
    public static let soap12EncodingNamespace = "http://www.w3.org/2003/05/soap-encoding"
    /// The WSDL 1.1 namespace.
    public static let wsdlNamespace = "http://schemas.xmlsoap.org/wsdl/"
    /// The xmime namespace (`xmime:contentType`, `xmime:expectedContentTypes`).
    public static let xmimeNamespace = "http://www.w3.org/2005/05/xmlmime"
    /// The XOP namespace (`xop:Include`).
    public static let xopNamespace = "http://www.w3.org/2004/08/xop/include"

    /// The SOAP 1.1 and 1.2 encoding namespaces.
    public static let soapEncodingNamespaces: Set<String> = [soap11EncodingNamespace, soap12EncodingNamespace]

    /// Every namespace built in.
    public static let namespaces: Set<String> = [
        XSDBuiltInType.namespace, xmlNamespace, schemaInstanceNamespace, soap11EncodingNamespace,
        soap12EncodingNamespace, "http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope",
        wsdlNamespace, xmimeNamespace, xopNamespace,
    ]

    /// The kinds of component a reference can name.
    enum Kind {
        case type, element, attribute, group, attributeGroup
    }

    /// Whether `name` is a component of kind `kind` of a built-in schema.
    static func contains(_ name: QualifiedName, kind: Kind) -> Bool {
        guard let namespace = name.namespace, namespaces.contains(namespace) else { return false }
        let local = name.name
        switch namespace {
        case XSDBuiltInType.namespace:
            // `xsd:schema` as an element: .NET's DataSet results carry their schema inline.
            return (kind == .type && XSDBuiltInType(rawValue: local) != nil) || (kind == .element && local == "schema")
        case xmlNamespace:
            return (kind == .attribute && ["lang", "space", "base", "id"].contains(local))
                || (kind == .attributeGroup && local == "specialAttrs")
        case schemaInstanceNamespace:
            return kind == .attribute && ["type", "nil", "schemaLocation", "noNamespaceSchemaLocation"].contains(local)
        case soap11EncodingNamespace, soap12EncodingNamespace:
            switch kind {
            case .type, .element:
                return XSDBuiltInType(rawValue: local) != nil || ["Array", "Struct", "base64"].contains(local)
            case .attribute:
                return ["arrayType", "offset", "position", "root", "id", "href", "ref", "itemType", "arraySize", "nodeType"]
                    .contains(local)
            case .attributeGroup:
                return ["commonAttributes", "arrayAttributes"].contains(local)
            case .group:
                return ["Array"].contains(local)
            }
        case "http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope":
            switch kind {
            case .element: return ["Envelope", "Header", "Body", "Fault", "NotUnderstood", "Upgrade"].contains(local)
            case .type: return ["Envelope", "Header", "Body", "Fault", "detail", "faultcode", "Detail", "Reasontext"].contains(local)
            case .attribute: return ["mustUnderstand", "actor", "role", "relay", "encodingStyle"].contains(local)
            case .group, .attributeGroup: return false
            }
        case wsdlNamespace:
            return kind == .attribute && ["arrayType", "required"].contains(local)
        case xmimeNamespace:
            return (kind == .attribute && ["contentType", "expectedContentTypes"].contains(local))
                || (kind == .type && ["base64Binary", "hexBinary"].contains(local))
        case xopNamespace:
            return (kind == .element && local == "Include") || (kind == .type && local == "Include")
        default:
            return false
        }
    }
}
