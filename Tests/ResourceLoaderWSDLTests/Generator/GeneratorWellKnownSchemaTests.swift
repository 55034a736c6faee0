import ResourceLoaderWSDL
import Testing

extension GeneratorSnippets {
    /// A request that holds the components of the built-in schemas the generator makes fields
    /// of: the XML namespace's attributes, the SOAP envelope's and XOP's elements, and xmime's
    /// binary types.
    static let wellKnownComponents = operation(
        requestType: "tns:Everything",
        schema: """
            <xsd:complexType name="Note">
              <xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence>
              <xsd:attributeGroup ref="xml:specialAttrs"/>
            </xsd:complexType>
            <xsd:complexType name="Everything">
              <xsd:sequence>
                <xsd:element name="note" type="tns:Note"/>
                <xsd:element ref="env:Fault" minOccurs="0"/>
                <xsd:choice><xsd:element ref="xop:Include"/><xsd:element name="inline" type="xmime:base64Binary"/></xsd:choice>
                <xsd:element name="digest" type="xmime:hexBinary"/>
              </xsd:sequence>
              <xsd:attribute ref="xml:lang" use="required"/>
            </xsd:complexType>
            """, schemaAttributes: GeneratorWellKnownSchemaTests.prefixes)
}

/// Components of the built-in schemas (``WellKnownSchemas``) that a type refers to: generated
/// where the generated code can hold them, diagnosed where it cannot, never dropped in silence.
@Suite("Generator: components of the well-known schemas")
struct GeneratorWellKnownSchemaTests {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// The schema attributes the snippets need: qualified elements and the prefixes of the
    /// well-known namespaces they refer to.
    static let prefixes = #"""
        elementFormDefault="qualified" xmlns:env="http://schemas.xmlsoap.org/soap/envelope/" \#
        xmlns:xmime="http://www.w3.org/2005/05/xmlmime" xmlns:xop="http://www.w3.org/2004/08/xop/include" \#
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
        """#

    /// The generated models and resources, all files together.
    static func text(_ output: WSDLGeneratorOutput) -> String {
        output.files.map(\.contents).joined(separator: "\n")
    }

    @Test func theAttributesOfTheXMLNamespaceAreOptionalStringsInIt() throws {
        // GIVEN a type that refers to xml:lang, and one that refers to the group xml:specialAttrs
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Holder",
            schema: """
                <xsd:complexType name="Label">
                  <xsd:simpleContent><xsd:extension base="xsd:string"><xsd:attribute ref="xml:lang"/></xsd:extension></xsd:simpleContent>
                </xsd:complexType>
                <xsd:complexType name="Note">
                  <xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence>
                  <xsd:attributeGroup ref="xml:specialAttrs"/>
                </xsd:complexType>
                <xsd:complexType name="Holder">
                  <xsd:sequence><xsd:element name="label" type="tns:Label"/><xsd:element name="note" type="tns:Note"/></xsd:sequence>
                </xsd:complexType>
                """, schemaAttributes: Self.prefixes)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        let text = Self.text(output)
        // THEN nothing is diagnosed, and each attribute is an optional String in the XML namespace
        #expect(output.diagnostics.map(\.message) == [])
        let field = #"XMLTypeSchema.Field(kind: .attribute, namespace: "\#(Self.xmlNamespace)")"#
        let label = try #require(GeneratorSnippets.declaration("Label", in: text))
        #expect(label.contains("    var value: String\n    var lang: String?\n\n"), "\(label)")
        #expect(label.contains(#"        "lang": \#(field),"#), "\(label)")
        let note = try #require(GeneratorSnippets.declaration("Note", in: text))
        #expect(note.contains("    var text: String\n    var base: String?\n    var lang: String?\n    var space: String?\n    var id: String?\n\n"), "\(note)")
        for name in ["base", "lang", "space", "id"] {
            #expect(note.contains(#"        "\#(name)": \#(field),"#), "\(name): \(note)")
        }
    }

    @Test func elementsOfTheBuiltInSchemasAreRawXMLInTheirNamespaces() throws {
        // GIVEN a type that refers to the SOAP envelope's Fault, and a choice of XOP's Include
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Report",
            schema: """
                <xsd:complexType name="Report">
                  <xsd:sequence>
                    <xsd:element ref="env:Fault" minOccurs="0"/>
                    <xsd:choice><xsd:element ref="xop:Include"/><xsd:element name="inline" type="xsd:base64Binary"/></xsd:choice>
                  </xsd:sequence>
                </xsd:complexType>
                """, schemaAttributes: Self.prefixes)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        let text = Self.text(output)
        // THEN nothing is diagnosed: the Fault is an optional raw XML field in the envelope's
        // namespace, and the Include a case of the choice in XOP's
        #expect(output.diagnostics.map(\.message) == [])
        let report = try #require(GeneratorSnippets.declaration("Report", in: text))
        #expect(report.contains("    var fault: XMLTree.Element?\n    var choice: ReportChoice\n\n"), "\(report)")
        #expect(report.contains(#"        "Fault": XMLTypeSchema.Field(namespace: "http://schemas.xmlsoap.org/soap/envelope/"),"#), "\(report)")
        let choice = try #require(GeneratorSnippets.declaration("ReportChoice", in: text))
        #expect(choice.contains("    case include(XMLTree.Element)\n"), "\(choice)")
        #expect(choice.contains(#""Include": XMLTypeSchema.Field(namespace: "http://www.w3.org/2004/08/xop/include")"#), "\(choice)")
    }

    @Test func aHeaderBlockOfABuiltInElementIsRawXML() throws {
        // GIVEN a SOAP 1.2 operation whose response declares the envelope's Upgrade header block
        let wsdl = GeneratorSnippets.outputHeaders
            .replacingOccurrences(of: #"<soap:header message="tns:Headers" part="server" use="literal"/>"#, with: #"<soap:header message="tns:Headers" part="upgrade" use="literal"/>"#)
            .replacingOccurrences(
                of: #"<wsdl:part name="server" type="xsd:string"/>"#,
                with: #"<wsdl:part name="upgrade" element="env12:Upgrade" xmlns:env12="http://www.w3.org/2003/05/soap-envelope"/>"#)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN the block is read into the output as raw XML, by its name in its namespace
        #expect(output.diagnostics.map(\.message) == [])
        let operations = try #require(output.file(named: "Operations.swift")?.contents)
        #expect(operations.contains(#"upgrade: try headers.decode(XMLTree.Element.self, named: "Upgrade", namespaceURI: "http://www.w3.org/2003/05/soap-envelope")"#), "\(operations)")
    }

    @Test func theXMIMEBinaryTypesAreData() throws {
        // GIVEN MTOM elements of the types xmime:base64Binary and xmime:hexBinary
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Upload",
            schema: """
                <xsd:complexType name="Upload">
                  <xsd:sequence>
                    <xsd:element name="content" type="xmime:base64Binary"/>
                    <xsd:element name="digest" type="xmime:hexBinary"/>
                  </xsd:sequence>
                </xsd:complexType>
                """, schemaAttributes: Self.prefixes)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN both are Data, the second written as hex
        #expect(output.diagnostics.map(\.message) == [])
        let upload = try #require(GeneratorSnippets.declaration("Upload", in: Self.text(output)))
        #expect(upload.contains("    var content: Data\n    var digest: Data\n\n"), "\(upload)")
        #expect(upload.contains(#""digest": XMLTypeSchema.Field(isHexBinary: true),"#), "\(upload)")
        #expect(!upload.contains(#""content""#), "\(upload)")
    }

    @Test func attributesAndGroupsTheGeneratedCodeCannotHoldAreDiagnosed() throws {
        // GIVEN a type that refers to attributes and attribute groups of the built-in schemas
        // that are not the XML namespace's
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Odd",
            schema: """
                <xsd:complexType name="Odd">
                  <xsd:sequence><xsd:element name="a" type="xsd:string"/></xsd:sequence>
                  <xsd:attribute ref="xsi:type"/>
                  <xsd:attribute ref="soapenc:arrayType"/>
                  <xsd:attributeGroup ref="soapenc:commonAttributes"/>
                </xsd:complexType>
                """, schemaAttributes: Self.prefixes)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN each is left out with a warning that names it
        let messages = output.diagnostics.filter { $0.construct == .unsupportedContent }.map(\.message)
        #expect(messages.count == 3, "\(messages)")
        #expect(messages.contains { $0.contains("{http://www.w3.org/2001/XMLSchema-instance}type") }, "\(messages)")
        #expect(messages.contains { $0.contains("{http://schemas.xmlsoap.org/soap/encoding/}arrayType") }, "\(messages)")
        #expect(messages.contains { $0.contains("{http://schemas.xmlsoap.org/soap/encoding/}commonAttributes") }, "\(messages)")
        #expect(output.diagnostics.allSatisfy { $0.location.path.hasSuffix("xsd:complexType[@name='Odd']") })
        let odd = try #require(GeneratorSnippets.declaration("Odd", in: Self.text(output)))
        #expect(odd.contains("    var a: String\n\n"), "\(odd)")
    }
}
