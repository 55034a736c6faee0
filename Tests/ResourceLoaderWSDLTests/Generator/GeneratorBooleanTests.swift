import ResourceLoaderWSDL
import Testing

/// XML Schema booleans as the generator sees them: `1` is `true`.
@Suite("Generator: XML Schema booleans")
struct GeneratorBooleanTests {
    @Test func anElementNillableOneIsAnOptionalWrittenAsNil() throws {
        // GIVEN an element declared nillable="1"
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Person",
            schema: """
                <xsd:complexType name="Person">
                  <xsd:sequence><xsd:element name="name" type="xsd:string" nillable="1"/></xsd:sequence>
                </xsd:complexType>
                """)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN its field is optional and nillable in the type's schema
        let person = try #require(GeneratorSnippets.declaration("Person", in: output.files.map(\.contents).joined(separator: "\n")))
        #expect(person.contains("    var name: String?\n"), "\(person)")
        #expect(person.contains(#""name": .nillableElement,"#), "\(person)")
    }
}
