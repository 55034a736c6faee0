import Foundation
import ResourceLoaderWSDL
import Testing

extension GeneratorSnippets {
    /// A schema with no `elementFormDefault` (its local elements unqualified) whose type holds a
    /// choice of a local element, a local element with `form="qualified"`, and references to a
    /// global element of its own namespace and to one of another namespace.
    static let unqualifiedChoice = Snippet.wsdl(
        """
        <wsdl:types>
          <xsd:schema targetNamespace="urn:other" elementFormDefault="qualified">
            <xsd:element name="seal" type="xsd:string"/>
          </xsd:schema>
          <xsd:schema targetNamespace="urn:test" xmlns:o="urn:other">
            <xsd:import namespace="urn:other"/>
            <xsd:element name="stamp" type="xsd:int"/>
            <xsd:complexType name="Pick">
              <xsd:sequence>
                <xsd:element name="label" type="xsd:string"/>
                <xsd:choice>
                  <xsd:element name="a" type="xsd:string"/>
                  <xsd:element name="b" type="xsd:int" form="qualified"/>
                  <xsd:element ref="tns:stamp"/>
                  <xsd:element ref="o:seal"/>
                </xsd:choice>
                <xsd:choice minOccurs="0"><xsd:element name="c" type="xsd:string"/><xsd:element ref="o:seal"/></xsd:choice>
              </xsd:sequence>
            </xsd:complexType>
            <xsd:element name="Call" type="tns:Pick"/>
            <xsd:element name="CallResponse"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
          </xsd:schema>
        </wsdl:types>
        <wsdl:message name="In"><wsdl:part name="parameters" element="tns:Call"/></wsdl:message>
        <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:CallResponse"/></wsdl:message>
        <wsdl:portType name="P"><wsdl:operation name="Call"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
        <wsdl:binding name="B" type="tns:P">
          <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Call"><soap:operation soapAction="urn:test/Call"/>
            <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        """)
}

/// The `xmlSchema` of generated choice enums: each case element's namespace and form as the
/// schema declares it.
@Suite("WSDLGenerator: choice namespaces")
struct GeneratorChoiceNamespaceTests {
    static func text(_ output: WSDLGeneratorOutput) -> String {
        output.files.map(\.contents).joined(separator: "\n")
    }

    @Test func aChoiceOfAnUnqualifiedSchemaNamesEachElementsNamespace() throws {
        // GIVEN a choice in a schema with no elementFormDefault, with a qualified local element
        // and references to global elements of two namespaces
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.unqualifiedChoice)
        let text = Self.text(output)
        // THEN the enum's schema puts the unqualified element in no namespace, the qualified one
        // and the reference to its own namespace in it, and the other reference in its own
        let choice = try #require(GeneratorSnippets.declaration("PickChoice", in: text))
        #expect(choice.contains("indirect enum PickChoice: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {\n"))
        #expect(choice.contains("""
                static let xmlSchema = XMLTypeSchema(
                    namespace: "urn:test", elementForm: .qualified,
                    fields: [
                        "a": XMLTypeSchema.Field(form: .unqualified),
                        "seal": XMLTypeSchema.Field(namespace: "urn:other"),
                    ])

            """))
        // AND a choice with no element in the schema's namespace is unqualified
        let second = try #require(GeneratorSnippets.declaration("PickChoice2", in: text))
        #expect(second.contains("""
                static let xmlSchema = XMLTypeSchema(
                    namespace: "urn:test", elementForm: .unqualified,
                    fields: [
                        "seal": XMLTypeSchema.Field(namespace: "urn:other"),
                    ])

            """))
    }

    @Test func aChoiceOfAQualifiedSchemaIsInItsNamespace() throws {
        // GIVEN a choice in a schema whose elements are qualified
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.syntheticFieldNames)
        // THEN the enum's schema says so, whatever the encoder's default form (unqualified in rpc/literal)
        let choice = try #require(GeneratorSnippets.declaration("PickChoice", in: Self.text(output)))
        #expect(choice.contains("indirect enum PickChoice: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {\n"))
        #expect(choice.contains(#"    static let xmlSchema = XMLTypeSchema(namespace: "urn:test", elementForm: .qualified)"# + "\n"))
    }

    @Test func aChoiceOfAnUnqualifiedSchemaIsInNoNamespace() throws {
        // GIVEN the same choice in a schema with no elementFormDefault
        let wsdl = GeneratorSnippets.syntheticFieldNames.replacingOccurrences(of: #"elementFormDefault="qualified""#, with: "")
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN the enum's schema puts its elements in no namespace
        let choice = try #require(GeneratorSnippets.declaration("PickChoice", in: Self.text(output)))
        #expect(choice.contains(#"    static let xmlSchema = XMLTypeSchema(namespace: "urn:test", elementForm: .unqualified)"# + "\n"))
    }
}
