import ResourceLoaderWSDL
import Testing

@Suite("XSDBuiltInType")
struct XSDBuiltInTypeTests {
    @Test func everyBuiltInTypeButAnyTypeMapsToASwiftType() {
        #expect(XSDBuiltInType.allCases.count == 46)
        #expect(XSDBuiltInType.allCases.filter { $0.swiftTypeName == nil } == [.anyType])
    }

    @Test(arguments: [
        ("decimal", "Decimal"), ("boolean", "Bool"), ("long", "Int64"), ("int", "Int32"), ("short", "Int16"),
        ("byte", "Int8"), ("unsignedLong", "UInt64"), ("unsignedByte", "UInt8"), ("integer", "Int"),
        ("double", "Double"), ("float", "Float"), ("dateTime", "XMLDateTime"), ("date", "XMLDate"), ("time", "XMLTime"), ("base64Binary", "Data"), ("hexBinary", "Data"),
        ("anyURI", "URL"), ("QName", "String"), ("duration", "String"), ("NMTOKENS", "String"), ("string", "String"),
    ])
    func mapsToTheSwiftType(name: String, swift: String) throws {
        let type = try #require(XSDBuiltInType(name: QualifiedName(namespace: XSDBuiltInType.namespace, name: name)))
        #expect(type.swiftTypeName == swift)
        #expect(type.qualifiedName.name == name)
    }

    @Test func soapEncodingTypesAreTheirBuiltInTypes() {
        #expect(XSDBuiltInType(name: QualifiedName(namespace: WellKnownSchemas.soap11EncodingNamespace, name: "int")) == .int)
        #expect(XSDBuiltInType(name: QualifiedName(namespace: "urn:other", name: "int")) == nil)
        #expect(XSDBuiltInType(name: QualifiedName(namespace: XSDBuiltInType.namespace, name: "Array")) == nil)
    }
}
