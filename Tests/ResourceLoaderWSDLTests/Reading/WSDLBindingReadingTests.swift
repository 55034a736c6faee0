import Foundation
import ResourceLoader
import ResourceLoaderWSDL
import Testing

@Suite("WSDL binding reading")
struct WSDLBindingReadingTests {
    /// A port type with `operations` (name, input message, output message or nil), bound by
    /// `binding` (the binding element's content after `soap:binding`), served at one port.
    static func service(
        types: String, messages: String, portType: String, bindingStyle: String = "document", binding: String,
        soap: String = "soap"
    ) -> String {
        Snippet.wsdl(
            """
            \(types)
            \(messages)
            <wsdl:portType name="Port">\(portType)</wsdl:portType>
            <wsdl:binding name="Binding" type="tns:Port">
              <\(soap):binding style="\(bindingStyle)" transport="http://schemas.xmlsoap.org/soap/http"/>
              \(binding)
            </wsdl:binding>
            <wsdl:service name="Service">
              <wsdl:documentation>The service.</wsdl:documentation>
              <wsdl:port name="ServicePort" binding="tns:Binding"><\(soap):address location="http://127.0.0.1:8080/service"/></wsdl:port>
            </wsdl:service>
            """)
    }

    static let wrappedTypes = Snippet.types(
        """
        <xsd:element name="GetUser"><xsd:complexType><xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
        <xsd:element name="GetUserResponse"><xsd:complexType><xsd:sequence><xsd:element name="name" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
        <xsd:element name="Session" type="xsd:string"/>
        <xsd:element name="Trace" type="xsd:string"/>
        <xsd:element name="UserFault"><xsd:complexType><xsd:sequence><xsd:element name="code" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
        """)

    static let wrappedMessages = """
        <wsdl:message name="GetUserIn"><wsdl:part name="parameters" element="tns:GetUser"/></wsdl:message>
        <wsdl:message name="GetUserOut"><wsdl:part name="parameters" element="tns:GetUserResponse"/></wsdl:message>
        <wsdl:message name="SessionHeader"><wsdl:part name="session" element="tns:Session"/></wsdl:message>
        <wsdl:message name="TraceHeader"><wsdl:part name="trace" element="tns:Trace"/></wsdl:message>
        <wsdl:message name="UserFaultMessage"><wsdl:part name="fault" element="tns:UserFault"/></wsdl:message>
        """

    static let wrappedPortType = """
        <wsdl:operation name="GetUser">
          <wsdl:documentation>Gets a user.</wsdl:documentation>
          <wsdl:input message="tns:GetUserIn"/><wsdl:output message="tns:GetUserOut"/>
          <wsdl:fault name="UserFault" message="tns:UserFaultMessage"/>
        </wsdl:operation>
        """

    static func wrappedBinding(soap: String = "soap") -> String {
        """
        <wsdl:operation name="GetUser">
          <\(soap):operation soapAction="urn:test#GetUser"/>
          <wsdl:input><\(soap):body use="literal"/><\(soap):header message="tns:SessionHeader" part="session" use="literal"/></wsdl:input>
          <wsdl:output><\(soap):body use="literal"/><\(soap):header message="tns:TraceHeader" part="trace" use="literal"/></wsdl:output>
          <wsdl:fault name="UserFault"><\(soap):fault name="UserFault" use="literal"/></wsdl:fault>
        </wsdl:operation>
        """
    }

    @Test func readsDocumentLiteralWrappedWithHeadersAndFaults() throws {
        // GIVEN a document/literal wrapped operation with a header each way and a fault
        let document = try Snippet.read(
            Self.service(types: Self.wrappedTypes, messages: Self.wrappedMessages, portType: Self.wrappedPortType, binding: Self.wrappedBinding()))
        #expect(document.diagnostics.isEmpty)
        let binding = try #require(document.bindings.first)
        #expect(binding.name == Snippet.name("Binding") && binding.portType == Snippet.name("Port"))
        #expect(binding.soapVersion == .v1_1)
        #expect(binding.transport == "http://schemas.xmlsoap.org/soap/http")
        let operation = try #require(binding.operations.first)
        // THEN the operation is wrapped by its element, with its action, headers and fault
        #expect(operation.style == .documentWrapped)
        #expect(operation.soapAction == "urn:test#GetUser")
        #expect(operation.documentation == "Gets a user.")
        #expect(operation.input?.wrapper == Snippet.name("GetUser"))
        #expect(operation.output?.wrapper == Snippet.name("GetUserResponse"))
        #expect(operation.input?.bodyParts.map(\.name) == ["parameters"])
        #expect(operation.input?.headers.map(\.part.element) == [Snippet.name("Session")])
        #expect(operation.input?.headers.first?.message == Snippet.name("SessionHeader"))
        #expect(operation.output?.headers.map(\.part.element) == [Snippet.name("Trace")])
        #expect(operation.faults.map(\.name) == ["UserFault"])
        #expect(operation.faults.first?.part?.element == Snippet.name("UserFault"))
        #expect(!operation.isOneWay)
        // AND the service's port is at its address
        let port = try #require(document.services.first?.ports.first)
        #expect(document.services.first?.documentation == "The service.")
        #expect(port.binding == Snippet.name("Binding") && port.address == "http://127.0.0.1:8080/service" && port.soapVersion == .v1_1)
    }

    @Test func readsSOAP12Bindings() throws {
        let document = try Snippet.read(
            Self.service(
                types: Self.wrappedTypes, messages: Self.wrappedMessages, portType: Self.wrappedPortType,
                binding: Self.wrappedBinding(soap: "soap12"), soap: "soap12"))
        #expect(document.diagnostics.isEmpty)
        #expect(document.bindings.first?.soapVersion == .v1_2)
        #expect(document.bindings.first?.operations.first?.input?.headers.count == 1)
        #expect(document.services.first?.ports.first?.soapVersion == .v1_2)
    }

    @Test func readsDocumentLiteralBare() throws {
        // GIVEN an operation whose part element is not named after it
        let document = try Snippet.read(
            Self.service(
                types: Snippet.types(#"<xsd:element name="Number" type="xsd:int"/><xsd:element name="Square" type="xsd:long"/>"#),
                messages: """
                    <wsdl:message name="In"><wsdl:part name="number" element="tns:Number"/></wsdl:message>
                    <wsdl:message name="Out"><wsdl:part name="square" element="tns:Square"/></wsdl:message>
                    """,
                portType: #"<wsdl:operation name="Compute"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation>"#,
                binding: """
                    <wsdl:operation name="Compute"><soap:operation soapAction=""/>
                      <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output>
                    </wsdl:operation>
                    """))
        #expect(document.diagnostics.isEmpty)
        let operation = try #require(document.bindings.first?.operations.first)
        #expect(operation.style == .documentBare)
        #expect(operation.soapAction == "")
        #expect(operation.input?.wrapper == nil && operation.output?.wrapper == nil)
        #expect(operation.output?.bodyParts.first?.element == Snippet.name("Square"))
    }

    @Test func readsRPCLiteralWithTheBodyNamespace() throws {
        let document = try Snippet.read(
            Self.service(
                types: "",
                messages: """
                    <wsdl:message name="AddIn"><wsdl:part name="a" type="xsd:int"/><wsdl:part name="b" type="xsd:int"/></wsdl:message>
                    <wsdl:message name="AddOut"><wsdl:part name="sum" type="xsd:long"/></wsdl:message>
                    """,
                portType: #"<wsdl:operation name="Add"><wsdl:input message="tns:AddIn"/><wsdl:output message="tns:AddOut"/></wsdl:operation>"#,
                bindingStyle: "rpc",
                binding: """
                    <wsdl:operation name="Add"><soap:operation soapAction="urn:test#Add"/>
                      <wsdl:input><soap:body use="literal" namespace="urn:calc"/></wsdl:input>
                      <wsdl:output><soap:body use="literal" namespace="urn:calc"/></wsdl:output>
                    </wsdl:operation>
                    """))
        #expect(document.diagnostics.isEmpty)
        let operation = try #require(document.bindings.first?.operations.first)
        #expect(operation.style == .rpcLiteral)
        #expect(operation.input?.wrapper == QualifiedName(namespace: "urn:calc", name: "Add"))
        #expect(operation.output?.wrapper == QualifiedName(namespace: "urn:calc", name: "AddResponse"))
        #expect(operation.input?.bodyParts.map(\.type) == [Snippet.xsd("int"), Snippet.xsd("int")])
        #expect(operation.input?.bodyNamespace == "urn:calc")
    }

    @Test func diagnosesAnRPCEncodedBindingOnceAndNotItsArrays() throws {
        // GIVEN an rpc/encoded binding of two operations that use a soapenc:Array type
        let document = try Snippet.read(
            Self.service(
                types: Snippet.types(
                    """
                    <xsd:import namespace="http://schemas.xmlsoap.org/soap/encoding/" schemaLocation="http://schemas.xmlsoap.org/soap/encoding/"/>
                    <xsd:complexType name="IntArray">
                      <xsd:complexContent>
                        <xsd:restriction base="soapenc:Array"><xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="xsd:int[]"/></xsd:restriction>
                      </xsd:complexContent>
                    </xsd:complexType>
                    """),
                messages: """
                    <wsdl:message name="In"><wsdl:part name="values" type="tns:IntArray"/></wsdl:message>
                    <wsdl:message name="Out"><wsdl:part name="total" type="xsd:int"/></wsdl:message>
                    """,
                portType: """
                    <wsdl:operation name="Sum"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation>
                    <wsdl:operation name="Max"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation>
                    """,
                bindingStyle: "rpc",
                binding: ["Sum", "Max"].map {
                    """
                    <wsdl:operation name="\($0)"><soap:operation soapAction="\($0)"/>
                      <wsdl:input><soap:body use="encoded" namespace="urn:test" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/></wsdl:input>
                      <wsdl:output><soap:body use="encoded" namespace="urn:test" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/></wsdl:output>
                    </wsdl:operation>
                    """
                }.joined()))
        // THEN one diagnostic names the binding and the encoding, and nothing was fetched
        #expect(document.diagnosticSummary == ["error encodedUse /wsdl:definitions[@name='Test']/wsdl:binding[@name='Binding']"])
        #expect(document.diagnostics.first?.message.contains("rpc/encoded") == true)
        #expect(document.bindings.first?.operations.map(\.style) == [.rpcEncoded, .rpcEncoded])
        #expect(document.files == ["service.wsdl"])
    }

    @Test func diagnosesASOAPEncodedArrayThatALiteralOperationUses() throws {
        let document = try Snippet.read(
            Self.service(
                types: Snippet.types(
                    """
                    <xsd:complexType name="IntArray">
                      <xsd:complexContent><xsd:restriction base="soapenc:Array"/></xsd:complexContent>
                    </xsd:complexType>
                    <xsd:complexType name="Unused">
                      <xsd:complexContent><xsd:restriction base="soapenc:Array"/></xsd:complexContent>
                    </xsd:complexType>
                    <xsd:element name="Values"><xsd:complexType><xsd:sequence><xsd:element name="v" type="tns:IntArray"/></xsd:sequence></xsd:complexType></xsd:element>
                    """),
                messages: #"<wsdl:message name="In"><wsdl:part name="values" element="tns:Values"/></wsdl:message>"#,
                portType: #"<wsdl:operation name="Send"><wsdl:input message="tns:In"/></wsdl:operation>"#,
                binding: #"<wsdl:operation name="Send"><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation>"#))
        #expect(
            document.diagnosticSummary == [
                "error soapEncodedArray /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:complexType[@name='IntArray']"
            ])
        let operation = try #require(document.bindings.first?.operations.first)
        #expect(operation.isOneWay)
        #expect(operation.style == .documentBare)
    }

    @Test func diagnosesConstructsThatCannotBeGeneratedAndKeepsTheRest() throws {
        // GIVEN a binding with a MIME operation, an operation missing from the port type, a
        // duplicate, a notification, a headerfault; an HTTP binding; and a port of an unknown binding
        let document = try Snippet.read(
            Snippet.wsdl(
                """
                \(Self.wrappedTypes)
                \(Self.wrappedMessages)
                <wsdl:portType name="Port">
                  \(Self.wrappedPortType)
                  <wsdl:operation name="Upload"><wsdl:input message="tns:GetUserIn"/></wsdl:operation>
                  <wsdl:operation name="Notify"><wsdl:output message="tns:GetUserOut"/></wsdl:operation>
                  <wsdl:operation name="Upload"><wsdl:input message="tns:SessionHeader"/></wsdl:operation>
                </wsdl:portType>
                <wsdl:binding name="Binding" type="tns:Port">
                  <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
                  <wsdl:operation name="GetUser">
                    <wsdl:input><soap:body use="literal"/>
                      <soap:header message="tns:SessionHeader" part="session" use="literal">
                        <soap:headerfault message="tns:UserFaultMessage" part="fault" use="literal"/>
                      </soap:header>
                    </wsdl:input>
                    <wsdl:output><soap:body use="literal"/></wsdl:output>
                  </wsdl:operation>
                  <wsdl:operation name="GetUser"><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation>
                  <wsdl:operation name="Upload">
                    <wsdl:input xmlns:mime="http://schemas.xmlsoap.org/wsdl/mime/"><mime:multipartRelated/></wsdl:input>
                  </wsdl:operation>
                  <wsdl:operation name="Notify"><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
                  <wsdl:operation name="Missing"><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation>
                </wsdl:binding>
                <wsdl:binding name="HTTPBinding" type="tns:Port" xmlns:http="http://schemas.xmlsoap.org/wsdl/http/">
                  <http:binding verb="GET"/>
                </wsdl:binding>
                <wsdl:service name="Service">
                  <wsdl:port name="A" binding="tns:Binding"><soap:address location="http://127.0.0.1/a"/></wsdl:port>
                  <wsdl:port name="B" binding="tns:Nowhere"><soap:address location="http://127.0.0.1/b"/></wsdl:port>
                </wsdl:service>
                """))
        let root = "/wsdl:definitions[@name='Test']"
        let binding = "\(root)/wsdl:binding[@name='Binding']"
        #expect(
            document.diagnosticSummary == [
                "error outboundOperation \(root)/wsdl:portType[@name='Port']/wsdl:operation[@name='Notify']",
                "warning duplicateDefinition \(root)/wsdl:portType[@name='Port']/wsdl:operation[@name='Upload']",
                "warning headerFault \(binding)/wsdl:operation[@name='GetUser']/wsdl:input/soap:header",
                "warning duplicateDefinition \(binding)/wsdl:operation[@name='GetUser']",
                "error mimeContent \(binding)/wsdl:operation[@name='Upload']/wsdl:input",
                "error inconsistentBinding \(binding)/wsdl:operation[@name='Missing']",
                "warning nonSOAPBinding \(root)/wsdl:binding[@name='HTTPBinding']",
                "error unresolvedReference \(root)/wsdl:service[@name='Service']/wsdl:port[@name='B']",
            ])
        // THEN what can be generated is there
        #expect(document.bindings.map(\.name.name) == ["Binding"])
        #expect(document.bindings.first?.operations.map(\.name) == ["GetUser"])
        #expect(document.bindings.first?.operations.first?.input?.headers.count == 1)
        #expect(document.services.first?.ports.map(\.name) == ["A", "B"])
        #expect(document.portTypes.first?.operations.count == 3)
    }

    @Test func readsBodyPartsNamedBySoapBodyAndHeadersOfTheSameMessage() throws {
        // GIVEN a message whose second part is a header and whose soap:body names its parts
        let document = try Snippet.read(
            Self.service(
                types: Snippet.types(
                    #"<xsd:element name="A" type="xsd:string"/><xsd:element name="B" type="xsd:string"/><xsd:element name="H" type="xsd:string"/>"#),
                messages: """
                    <wsdl:message name="In"><wsdl:part name="a" element="tns:A"/><wsdl:part name="h" element="tns:H"/></wsdl:message>
                    <wsdl:message name="Out"><wsdl:part name="a" element="tns:A"/><wsdl:part name="b" element="tns:B"/></wsdl:message>
                    """,
                portType: #"<wsdl:operation name="Op"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation>"#,
                binding: """
                    <wsdl:operation name="Op">
                      <wsdl:input><soap:body use="literal"/><soap:header message="tns:In" part="h" use="literal"/></wsdl:input>
                      <wsdl:output><soap:body use="literal" parts="b"/></wsdl:output>
                    </wsdl:operation>
                    """))
        #expect(document.diagnostics.isEmpty)
        let operation = try #require(document.bindings.first?.operations.first)
        #expect(operation.input?.bodyParts.map(\.name) == ["a"])
        #expect(operation.input?.headers.map(\.part.name) == ["h"])
        #expect(operation.output?.bodyParts.map(\.name) == ["b"])
    }

    @Test func diagnosesMissingMessagesAndPartsAndStyleMismatches() throws {
        let document = try Snippet.read(
            Self.service(
                types: Snippet.types(#"<xsd:element name="A" type="xsd:string"/>"#),
                messages: #"<wsdl:message name="In"><wsdl:part name="a" type="xsd:string"/></wsdl:message>"#,
                portType: """
                    <wsdl:operation name="Typed"><wsdl:input message="tns:In"/></wsdl:operation>
                    <wsdl:operation name="Lost"><wsdl:input message="tns:Nowhere"/></wsdl:operation>
                    <wsdl:operation name="Partless"><wsdl:input message="tns:In"/></wsdl:operation>
                    """,
                binding: """
                    <wsdl:operation name="Typed"><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation>
                    <wsdl:operation name="Lost"><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation>
                    <wsdl:operation name="Partless"><wsdl:input><soap:body use="literal" parts="zzz"/></wsdl:input></wsdl:operation>
                    """))
        let binding = "/wsdl:definitions[@name='Test']/wsdl:binding[@name='Binding']"
        #expect(
            document.diagnosticSummary == [
                "warning partStyleMismatch \(binding)/wsdl:operation[@name='Typed']",
                "error unresolvedReference \(binding)/wsdl:operation[@name='Lost']",
                "error inconsistentBinding \(binding)/wsdl:operation[@name='Partless']/wsdl:input/soap:body",
            ])
        #expect(document.bindings.first?.operations.map(\.name) == ["Typed"])
    }

    @Test func readingTwiceGivesEqualDocuments() throws {
        let text = Self.service(types: Self.wrappedTypes, messages: Self.wrappedMessages, portType: Self.wrappedPortType, binding: Self.wrappedBinding())
        #expect(try Snippet.read(text) == Snippet.read(text))
    }
}
