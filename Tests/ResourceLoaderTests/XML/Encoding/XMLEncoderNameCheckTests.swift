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
