import Foundation
import ResourceLoader
import ResourceLoaderWSDL
import Testing

/// A repeated element inside a repeated choice matches the same XML as a single element in that
/// choice, so it is a case of the choice's enum; in a choice that does not repeat it is left out.
@Suite("Generator: repeated elements in choices")
struct GeneratorRepeatedChoiceTests {
    /// The diagnostics as `severity construct path` lines.
    static func summary(_ output: WSDLGeneratorOutput) -> [String] {
        output.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" }
    }

    @Test func aRepeatedElementOfARepeatedChoiceIsACase() throws {
        // GIVEN a choice with maxOccurs="unbounded" whose elements repeat too, as EPCIS's
        // EventListType has it, through a group as well
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:EventList",
            schema: """
                <xsd:group name="More"><xsd:choice><xsd:element name="c" type="xsd:string" maxOccurs="3"/></xsd:choice></xsd:group>
                <xsd:complexType name="EventList">
                  <xsd:sequence>
                    <xsd:choice minOccurs="0" maxOccurs="unbounded">
                      <xsd:element name="a" type="xsd:string" minOccurs="0" maxOccurs="unbounded"/>
                      <xsd:element name="b" type="xsd:int" maxOccurs="2"/>
                    </xsd:choice>
                    <xsd:group ref="tns:More" maxOccurs="unbounded"/>
                  </xsd:sequence>
                </xsd:complexType>
                """)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN nothing is left out: each choice is an array of its enum, a case per element
        #expect(Self.summary(output) == [])
        let text = output.files.map(\.contents).joined(separator: "\n")
        let list = try #require(GeneratorSnippets.declaration("EventList", in: text))
        #expect(list.contains("    var choice: [EventListChoice]\n    var choice2: [EventListChoice2]\n"), "\(list)")
        let choice = try #require(GeneratorSnippets.declaration("EventListChoice", in: text))
        #expect(choice.contains("    case a(String)\n") && choice.contains("    case b(Int32)\n"), "\(choice)")
        let more = try #require(GeneratorSnippets.declaration("EventListChoice2", in: text))
        #expect(more.contains("    case c(String)\n"), "\(more)")
    }

    @Test func aRepeatedElementOfAChoiceThatDoesNotRepeatIsLeftOut() throws {
        // GIVEN a choice that occurs once, with a repeated element and a single one
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Pick",
            schema: """
                <xsd:complexType name="Pick">
                  <xsd:choice>
                    <xsd:element name="many" type="xsd:string" maxOccurs="unbounded"/>
                    <xsd:element name="one" type="xsd:string"/>
                  </xsd:choice>
                </xsd:complexType>
                """)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN the repeated element is left out with a diagnostic, and the other is a case
        #expect(Self.summary(output) == [
            "warning unsupportedContent /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:complexType[@name='Pick']",
        ])
        let text = output.files.map(\.contents).joined(separator: "\n")
        let choice = try #require(GeneratorSnippets.declaration("PickChoice", in: text))
        #expect(choice.contains("    case one(String)\n") && !choice.contains("many"), "\(choice)")
    }

    /// The enum generated for ``aRepeatedElementOfARepeatedChoiceIsACase()``'s first choice.
    indirect enum EventListChoice: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {
        case a(String)
        case b(Int32)

        static let xmlSchema = XMLTypeSchema(namespace: "urn:test", elementForm: .qualified)
    }

    /// The struct generated for it, without its group.
    struct EventList: Codable, Sendable, Hashable, XMLSchemaType {
        var choice: [EventListChoice]

        static let xmlSchema = XMLTypeSchema(namespace: "urn:test", typeName: XMLQualifiedName("EventList", namespaceURI: "urn:test"), elementForm: .qualified)
    }

    @Test func consecutiveElementsOfOneBranchAreReadAsItemsInDocumentOrder() throws {
        // GIVEN a list whose choice has several elements of one branch in a row
        let xml = #"<EventList xmlns="urn:test"><a>1</a><a>2</a><b>3</b><a>4</a><b>5</b><b>6</b></EventList>"#
        // WHEN it is read
        let list = try XMLTreeDecoder().decode(EventList.self, from: XMLTree(data: Data(xml.utf8)).root)
        // THEN each element is an item, in document order, and they are written back the same way
        #expect(list.choice == [.a("1"), .a("2"), .b(3), .a("4"), .b(5), .b(6)])
        let data = try XMLTreeEncoder().encode(list, as: XMLQualifiedName("EventList", namespaceURI: "urn:test"))
        #expect(try XMLTreeDecoder().decode(EventList.self, from: XMLTree(data: data).root) == list)
    }
}
