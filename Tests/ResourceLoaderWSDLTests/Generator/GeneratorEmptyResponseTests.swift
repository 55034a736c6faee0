import Foundation
import ResourceLoader
import ResourceLoaderWSDL
import Testing

extension GeneratorSnippets {
    /// Document/literal operations whose response messages have no parts: one wrapped, one
    /// whose response's only part is a header block.
    static let emptyResponses = Snippet.wsdl(
        Snippet.types(
            """
            <xsd:element name="Ping"><xsd:complexType><xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="Touch"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
            <xsd:element name="Stamp" type="xsd:string"/>
            """)
            + """
            <wsdl:message name="PingIn"><wsdl:part name="parameters" element="tns:Ping"/></wsdl:message>
            <wsdl:message name="Empty"/>
            <wsdl:message name="TouchIn"><wsdl:part name="parameters" element="tns:Touch"/></wsdl:message>
            <wsdl:message name="TouchOut"><wsdl:part name="stamp" element="tns:Stamp"/></wsdl:message>
            <wsdl:portType name="P">
              <wsdl:operation name="Ping"><wsdl:input message="tns:PingIn"/><wsdl:output message="tns:Empty"/></wsdl:operation>
              <wsdl:operation name="Touch"><wsdl:input message="tns:TouchIn"/><wsdl:output message="tns:TouchOut"/></wsdl:operation>
            </wsdl:portType>
            <wsdl:binding name="B" type="tns:P">
              <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
              <wsdl:operation name="Ping"><soap:operation soapAction="ping"/>
                <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output>
              </wsdl:operation>
              <wsdl:operation name="Touch"><soap:operation soapAction="touch"/>
                <wsdl:input><soap:body use="literal"/></wsdl:input>
                <wsdl:output><soap:body use="literal" parts=""/><soap:header message="tns:TouchOut" part="stamp" use="literal"/></wsdl:output>
              </wsdl:operation>
            </wsdl:binding>
            """)
}

/// A document/literal response without parts: WS-I Basic Profile allows it, and its resource
/// reads an empty SOAP body into an empty struct, as an rpc/literal response without parts is.
@Suite("Generator: responses without parts")
struct GeneratorEmptyResponseTests {
    @Test func aDocumentResponseWithoutPartsIsAnEmptyStructReadFromTheBody() throws {
        // GIVEN document/literal operations whose responses have no body parts
        // WHEN they are generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.emptyResponses)
        // THEN both are generated, with nothing diagnosed
        #expect(output.diagnostics.map(\.message) == [])
        let operations = try #require(output.file(named: "Operations.swift")?.contents)
        let types = try #require(output.file(named: "Types.swift")?.contents)
        // AND the model of each is an empty struct read from the SOAP body itself
        let ping = try #require(GeneratorSnippets.declaration("Ping", in: operations))
        #expect(ping.contains("    typealias Model = PingResponseBody\n"), "\(ping)")
        #expect(ping.contains("    var responsePath: [String] { [] }\n"), "\(ping)")
        #expect(GeneratorSnippets.declaration("PingResponseBody", in: types) == """
            /// The response of the operation Ping, which has no parts: an empty SOAP body.
            struct PingResponseBody: Codable, Sendable, Hashable, XMLSchemaType {
                /// Makes a value from its fields.
                init() {}

                /// How values of the type are written as XML and read back.
                static let xmlSchema = XMLTypeSchema()
            }

            """)
        // AND a response whose only part is a header block has the header beside the empty body
        let touch = try #require(GeneratorSnippets.declaration("Touch", in: operations))
        #expect(touch.contains("    typealias Model = TouchOutput\n    /// The response's content.\n    typealias Root = TouchResponseBody\n"), "\(touch)")
    }

    /// The struct generated for ``GeneratorSnippets/emptyResponses``'s `Ping` response.
    struct PingResponseBody: Codable, Sendable, Hashable, XMLSchemaType {
        init() {}

        static let xmlSchema = XMLTypeSchema()
    }

    /// A resource like the one generated for `Ping`, reduced to what reads the response.
    struct Ping: SOAPResourceType {
        typealias Model = PingResponseBody
        var url: URL { URL(fileURLWithPath: "/") }
        var operation: String { "Ping" }
        var soapBinding: SOAPBinding { .documentLiteralWrapped }
        var soapBody: (any Encodable)? { nil }
        var responsePath: [String] { [] }
    }

    @Test(arguments: [
        #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#,
        #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header/><s:Body>  </s:Body></s:Envelope>"#,
    ])
    func anEmptyBodyIsReadAsTheEmptyStruct(_ response: String) throws {
        // GIVEN a response whose SOAP body is empty
        // WHEN the resource makes its model
        let model = try Ping().model(from: XMLTree(data: Data(response.utf8)))
        // THEN it is the empty struct
        #expect(model == PingResponseBody())
    }
}
