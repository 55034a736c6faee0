import Foundation
import ResourceLoader
import Testing

/// A coding key with any name.
struct NameCheckKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A value that writes one text under `name` through one of the keyed container's
/// non-throwing ways to a child.
struct NameCheckNestedValue: Encodable {
    enum Route: CaseIterable { case keyed, unkeyed, superEncoder }
    let name: String
    let route: Route

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameCheckKey.self)
        switch route {
        case .keyed:
            var nested = container.nestedContainer(keyedBy: NameCheckKey.self, forKey: NameCheckKey(name))
            try nested.encode("v", forKey: NameCheckKey("inner"))
        case .unkeyed:
            var nested = container.nestedUnkeyedContainer(forKey: NameCheckKey(name))
            try nested.encode("v")
        case .superEncoder:
            var single = container.superEncoder(forKey: NameCheckKey(name)).singleValueContainer()
            try single.encode("v")
        }
    }
}

/// An array in a wrapper whose items are named `a"b`.
private struct QuotedItemList: Encodable, XMLSchemaType {
    let list: [String]
    static let xmlSchema = XMLTypeSchema(fields: ["list": .wrapped(item: "a\"b")])
}

private class Shape: Encodable, XMLSchemaType, @unchecked Sendable {
    class var xmlSchema: XMLTypeSchema { XMLTypeSchema(typeName: XMLQualifiedName("Shape", namespaceURI: "urn:shapes")) }
}

private final class QuotedShape: Shape, @unchecked Sendable {
    override class var xmlSchema: XMLTypeSchema { XMLTypeSchema(typeName: XMLQualifiedName("A\"B", namespaceURI: "urn:shapes")) }
}

private struct Drawing: Encodable {
    let shape: Shape
}

@Suite("XMLTreeEncoder: names it writes are XML names")
struct XMLEncoderNameCheckTests {
    @Test func twoNamespacesPreferringOnePrefixAreRefused() throws {
        let encoder = XMLTreeEncoder(namespacePrefixes: ["urn:a": "p", "urn:b": "p"])
        #expect(throws: EncodingError.self) { try encoder.encode("v", as: XMLQualifiedName("r", namespaceURI: "urn:a")) }
        #expect(throws: EncodingError.self) { try encoder.encodeElement("v", as: XMLQualifiedName("r", namespaceURI: "urn:a")) }
        // One namespace per prefix is written as before.
        let data = try XMLTreeEncoder(namespacePrefixes: ["urn:a": "p", "urn:b": "q"]).encode("v", as: XMLQualifiedName("r", namespaceURI: "urn:a"))
        #expect(String(decoding: data, as: UTF8.self).contains(#"<p:r xmlns:p="urn:a" xmlns:q="urn:b">v</p:r>"#))
    }

    @Test(arguments: NameCheckNestedValue.Route.allCases)
    func aNestedContainersKeyMustBeAnXMLName(route: NameCheckNestedValue.Route) throws {
        for name in ["a\"b", "a b", "1a", "a:b", ""] {
            #expect(throws: EncodingError.self, "\(name.debugDescription)") {
                try XMLTreeEncoder().encode(NameCheckNestedValue(name: name, route: route), as: XMLQualifiedName("r"))
            }
            #expect(throws: EncodingError.self, "\(name.debugDescription)") {
                try XMLTreeEncoder().encodeElement(NameCheckNestedValue(name: name, route: route), as: XMLQualifiedName("r"))
            }
        }
        let data = try XMLTreeEncoder().encode(NameCheckNestedValue(name: "ok", route: route), as: XMLQualifiedName("r"))
        #expect(String(decoding: data, as: UTF8.self).contains("<ok>"))
    }

    @Test func aWrappedArraysItemNameMustBeAnXMLName() throws {
        #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(QuotedItemList(list: ["x"]), as: XMLQualifiedName("r")) }
    }

    @Test func anXsiTypeNameMustBeAnXMLName() throws {
        #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(Drawing(shape: QuotedShape()), as: XMLQualifiedName("d")) }
        let data = try XMLTreeEncoder().encode(Drawing(shape: Shape()), as: XMLQualifiedName("d"))
        #expect(String(decoding: data, as: UTF8.self).contains("<shape"))
    }
}

/// Names that Namespaces in XML reserves are refused, and the XML namespace is written with its
/// own prefix, never declared.
@Suite("XMLTreeEncoder: names Namespaces in XML reserves")
struct XMLEncoderReservedNameTests {
    @Test func anAttributeNamedXmlnsIsRefused() throws {
        struct Inner: Encodable, XMLSchemaType {
            let v = "x"
            let xmlns = "urn:evil"
            static let xmlSchema = XMLTypeSchema(elementForm: .unqualified, fields: ["xmlns": .attribute])
        }
        #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(Inner(), as: XMLQualifiedName("inner")) }
        #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(Inner(), as: XMLQualifiedName("inner", namespaceURI: "urn:t")) }
    }

    @Test func anythingInTheXmlnsNamespaceAndAnElementInTheXMLNamespaceAreRefused() throws {
        struct InXmlns: Encodable, XMLSchemaType {
            let a = "x"
            static let xmlSchema = XMLTypeSchema(
                fields: ["a": XMLTypeSchema.Field(kind: .attribute, namespace: "http://www.w3.org/2000/xmlns/")])
        }
        struct ElementInXML: Encodable, XMLSchemaType {
            let a = "x"
            static let xmlSchema = XMLTypeSchema(fields: ["a": XMLTypeSchema.Field(namespace: "http://www.w3.org/XML/1998/namespace")])
        }
        #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(InXmlns(), as: XMLQualifiedName("r")) }
        #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(ElementInXML(), as: XMLQualifiedName("r")) }
        #expect(throws: EncodingError.self) {
            try XMLTreeEncoder().encode("x", as: XMLQualifiedName("r", namespaceURI: "http://www.w3.org/2000/xmlns/"))
        }
        #expect(throws: EncodingError.self) {
            try XMLTreeEncoder().encode("x", as: XMLQualifiedName("r", namespaceURI: "http://www.w3.org/XML/1998/namespace"))
        }
    }

    @Test func anAttributeInTheXMLNamespaceIsWrittenWithTheXmlPrefixUndeclared() throws {
        struct Lang: Codable, Equatable, XMLSchemaType {
            var lang = "en"
            var text = "hi"
            static let xmlSchema = XMLTypeSchema(
                fields: ["lang": XMLTypeSchema.Field(kind: .attribute, namespace: "http://www.w3.org/XML/1998/namespace")])
        }
        let data = try XMLTreeEncoder().encode(Lang(), as: XMLQualifiedName("r"))
        #expect(String(decoding: data, as: UTF8.self).hasSuffix(#"<r xml:lang="en"><text>hi</text></r>"#))
        #expect(try XMLTreeDecoder().decode(Lang.self, from: XMLTree(data: data).root) == Lang())
        // Neither namespace can be given a prefix of its own.
        for namespace in ["http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/"] {
            #expect(throws: EncodingError.self) { try XMLTreeEncoder(namespacePrefixes: [namespace: "p"]).encode(Lang(), as: XMLQualifiedName("r")) }
        }
    }

    @Test func anErrorForACharacterXMLCannotCarryNeverQuotesTheValue() throws {
        struct Secret: Encodable, XMLSchemaType {
            let s: String
            static let xmlSchema = XMLTypeSchema(fields: ["s": .attribute])
        }
        struct Text: Encodable {
            let s: String
        }
        let value = "tok3n-\u{0}-secret"
        for encode in [
            { try XMLTreeEncoder().encode(Secret(s: value), as: XMLQualifiedName("r")) },
            { try XMLTreeEncoder().encode(Text(s: value), as: XMLQualifiedName("r")) },
            { try XMLTreeEncoder().encode(value, as: XMLQualifiedName("r")) },
        ] as [() throws -> Data] {
            do {
                _ = try encode()
                Issue.record("a NUL was encoded")
            } catch {
                #expect(!"\(error)".contains("secret"), "\(error)")
                #expect(!String(reflecting: error).contains("secret"), "\(String(reflecting: error))")
            }
        }
    }
}
