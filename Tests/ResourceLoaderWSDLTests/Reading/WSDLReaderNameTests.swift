import Foundation
import ResourceLoaderWSDL
import Testing

/// Declared names: XML Schema and WSDL 1.1 declare components with `NCName`s, whose white space
/// is collapsed (XML Schema Part 2, section 3.3.7).
@Suite("WSDL reader names")
struct WSDLReaderNameTests {
    static func summary(_ document: WSDLDocument) -> [String] {
        document.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" }
    }

    @Test func declaredNamesThatAreNotXMLNamesAreDiagnosedAndLeftOut() throws {
        // GIVEN declarations whose names could not be written as XML: a leading digit, a space,
        // a `$`, a prefix, an empty name
        let document = try Snippet.read(Snippet.wsdl(
            Snippet.types(
                """
                <xsd:element name="1st" type="xsd:string"/>
                <xsd:complexType name="a$b"><xsd:sequence><xsd:element name="x" type="xsd:int"/></xsd:sequence></xsd:complexType>
                <xsd:complexType name="Holder">
                  <xsd:sequence><xsd:element name="good" type="xsd:int"/><xsd:element name="two words" type="xsd:int"/></xsd:sequence>
                  <xsd:attribute name="p:q" type="xsd:string"/>
                  <xsd:attribute name="fine" type="xsd:string"/>
                </xsd:complexType>
                <xsd:attribute name="" type="xsd:string"/>
                <xsd:group name="-g"><xsd:sequence><xsd:element name="y" type="xsd:int"/></xsd:sequence></xsd:group>
                <xsd:element name="Op" type="tns:Holder"/>
                """)
                + """
                <wsdl:message name="In"><wsdl:part name="p" element="tns:Op"/><wsdl:part name="bad part" type="xsd:int"/></wsdl:message>
                <wsdl:portType name="Port">
                  <wsdl:operation name="Op"><wsdl:input message="tns:In"/></wsdl:operation>
                  <wsdl:operation name="9Op"><wsdl:input message="tns:In"/></wsdl:operation>
                </wsdl:portType>
                """))
        // THEN each is an error at its declaration
        let definitions = "/wsdl:definitions[@name='Test']"
        let schema = "\(definitions)/wsdl:types/xsd:schema"
        #expect(Self.summary(document) == [
            "error invalidAttribute \(schema)/xsd:element[@name='1st']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='a$b']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Holder']/xsd:attribute[@name='p:q']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Holder']/xsd:sequence/xsd:element[@name='two words']",
            "error invalidAttribute \(schema)/xsd:attribute[@name='']",
            "error invalidAttribute \(schema)/xsd:group[@name='-g']",
            "error invalidAttribute \(definitions)/wsdl:message[@name='In']/wsdl:part[@name='bad part']",
            "error invalidAttribute \(definitions)/wsdl:portType[@name='Port']/wsdl:operation[@name='9Op']",
        ])
        #expect(document.diagnostics.allSatisfy { $0.message.contains("is not an XML name") })
        // AND nothing is declared under those names; the valid declarations beside them are kept
        let schemas = document.schemas
        #expect(schemas.elements.keys.map(\.name).sorted() == ["Op"])
        #expect(schemas.types.keys.map(\.name).sorted() == ["Holder"])
        #expect(schemas.attributes.isEmpty)
        #expect(schemas.groups.isEmpty)
        let holder = try #require(schemas.complexType("Holder"))
        #expect(holder.particle?.term.particles.compactMap(\.term.element?.name.name) == ["good"])
        #expect(holder.attributes.count == 1)
        #expect(document.messages.first?.parts.map(\.name) == ["p"])
        #expect(document.portTypes.first?.operations.map(\.name) == ["Op"])
    }

    @Test func declaredNamesAreReadWithoutTheirWhiteSpace() throws {
        // GIVEN declarations whose names have white space around them, referred to without it
        let document = try Snippet.read(Snippet.wsdl(
            Snippet.types(
                """
                <xsd:complexType name=" Holder&#9;"><xsd:sequence><xsd:element name="
                  value " type="xsd:int"/></xsd:sequence></xsd:complexType>
                <xsd:element name=" Op " type="tns:Holder"/>
                """)
                + """
                <wsdl:message name="In"><wsdl:part name=" p " element="tns:Op"/></wsdl:message>
                <wsdl:portType name="Port"><wsdl:operation name=" Op "><wsdl:input message="tns:In"/></wsdl:operation></wsdl:portType>
                """))
        // THEN the names are the NCNames, and the references resolve
        #expect(document.diagnostics.isEmpty)
        #expect(document.schemas.element(named: Snippet.name("Op")) != nil)
        let holder = try #require(document.schemas.complexType("Holder"))
        #expect(holder.particle?.term.particles.compactMap(\.term.element?.name.name) == ["value"])
        #expect(document.messages.first?.parts.map(\.name) == ["p"])
        #expect(document.portTypes.first?.operations.map(\.name) == ["Op"])
    }
}
