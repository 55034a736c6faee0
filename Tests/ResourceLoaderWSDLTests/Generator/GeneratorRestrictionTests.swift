import ResourceLoaderWSDL
import Testing

/// Types derived by restriction: their element content is their own, and they keep every
/// attribute of their base that they neither declare again nor prohibit.
@Suite("Generator: types derived by restriction")
struct GeneratorRestrictionTests {
    /// The generated models and resources, all files together.
    static func text(_ output: WSDLGeneratorOutput) -> String {
        output.files.map(\.contents).joined(separator: "\n")
    }

    /// The diagnostics as `severity construct path` lines.
    static func summary(_ output: WSDLGeneratorOutput) -> [String] {
        output.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" }
    }

    @Test func aComplexContentRestrictionKeepsItsBasesAttributes() throws {
        // GIVEN Base with an element and a required attribute, and Narrow, a complexContent
        // restriction of Base that repeats the element
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Narrow",
            schema: """
                <xsd:complexType name="Base">
                  <xsd:sequence><xsd:element name="a" type="xsd:string"/><xsd:element name="b" type="xsd:string" minOccurs="0"/></xsd:sequence>
                  <xsd:attribute name="version" type="xsd:int" use="required"/>
                </xsd:complexType>
                <xsd:complexType name="Narrow">
                  <xsd:complexContent><xsd:restriction base="tns:Base">
                    <xsd:sequence><xsd:element name="a" type="xsd:string"/></xsd:sequence>
                  </xsd:restriction></xsd:complexContent>
                </xsd:complexType>
                """)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN Narrow has its own element and the base's attribute, not the element it leaves out
        let narrow = try #require(GeneratorSnippets.declaration("Narrow", in: Self.text(output)))
        #expect(narrow.contains("    var version: Int32\n    var a: String\n\n"), "\(narrow)")
        #expect(narrow.contains(#""version": .attribute,"#), "\(narrow)")
        #expect(!narrow.contains("var b:"))
        // AND nothing is diagnosed: Base itself is not used
        #expect(Self.summary(output) == [])
    }

    @Test func aRestrictionLeavesOutWhatItProhibitsAndKeepsWhatItDeclaresAgain() throws {
        // GIVEN Base with the attributes kept, dropped and typed (one of them through an
        // attribute group), and Mid, a restriction that prohibits `dropped` and declares `typed`
        // again as required; and Leaf, a restriction of Mid that declares nothing
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Holder",
            schema: """
                <xsd:attributeGroup name="Audit"><xsd:attribute name="dropped" type="xsd:string"/></xsd:attributeGroup>
                <xsd:complexType name="Base">
                  <xsd:sequence><xsd:element name="a" type="xsd:string"/></xsd:sequence>
                  <xsd:attribute name="kept" type="xsd:string"/>
                  <xsd:attributeGroup ref="tns:Audit"/>
                  <xsd:attribute name="typed" type="xsd:string"/>
                </xsd:complexType>
                <xsd:complexType name="Mid">
                  <xsd:complexContent><xsd:restriction base="tns:Base">
                    <xsd:sequence><xsd:element name="a" type="xsd:string"/></xsd:sequence>
                    <xsd:attribute name="dropped" use="prohibited"/>
                    <xsd:attribute name="typed" type="xsd:string" use="required"/>
                  </xsd:restriction></xsd:complexContent>
                </xsd:complexType>
                <xsd:complexType name="Leaf">
                  <xsd:complexContent><xsd:restriction base="tns:Mid">
                    <xsd:sequence><xsd:element name="a" type="xsd:string"/></xsd:sequence>
                  </xsd:restriction></xsd:complexContent>
                </xsd:complexType>
                <xsd:complexType name="Holder">
                  <xsd:sequence><xsd:element name="mid" type="tns:Mid"/><xsd:element name="leaf" type="tns:Leaf"/></xsd:sequence>
                </xsd:complexType>
                """)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        let text = Self.text(output)
        // THEN Mid keeps `kept`, leaves out `dropped`, and has `typed` once, required, with no
        // diagnostic for a second attribute of the name
        let mid = try #require(GeneratorSnippets.declaration("Mid", in: text))
        #expect(mid.contains("    var kept: String?\n    var a: String\n    var typed: String\n\n"), "\(mid)")
        #expect(!mid.contains("dropped"))
        // AND Leaf inherits what Mid has
        let leaf = try #require(GeneratorSnippets.declaration("Leaf", in: text))
        #expect(leaf.contains("    var kept: String?\n    var typed: String\n    var a: String\n\n"), "\(leaf)")
        #expect(!leaf.contains("dropped"))
        #expect(!output.diagnostics.contains { $0.construct == .unsupportedContent }, "\(Self.summary(output))")
    }

    @Test func aSimpleContentRestrictionLeavesOutWhatItProhibits() throws {
        // GIVEN Money, text with two attributes, and Euros, a simpleContent restriction that
        // prohibits one and declares the other again as required
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Euros",
            schema: """
                <xsd:complexType name="Money">
                  <xsd:simpleContent><xsd:extension base="xsd:decimal">
                    <xsd:attribute name="currency" type="xsd:string"/><xsd:attribute name="rate" type="xsd:decimal"/>
                  </xsd:extension></xsd:simpleContent>
                </xsd:complexType>
                <xsd:complexType name="Euros">
                  <xsd:simpleContent><xsd:restriction base="tns:Money">
                    <xsd:attribute name="currency" type="xsd:string" use="required" fixed="EUR"/>
                    <xsd:attribute name="rate" use="prohibited"/>
                  </xsd:restriction></xsd:simpleContent>
                </xsd:complexType>
                """)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN Euros is the text and the one currency, required
        let euros = try #require(GeneratorSnippets.declaration("Euros", in: Self.text(output)))
        #expect(euros.contains("    var value: Decimal\n    /// The schema fixes its value at `EUR`.\n    var currency: String\n\n"), "\(euros)")
        #expect(!euros.contains("rate"))
        #expect(!output.diagnostics.contains { $0.construct == .unsupportedContent }, "\(Self.summary(output))")
    }
}
