import Foundation
import ResourceLoaderWSDL

/// Small WSDLs for the generator's tests, each written for a few constructs, and helpers to
/// generate from them and cut one declaration out of a file.
enum GeneratorSnippets {
    /// A document/literal wrapped SOAP 1.2 operation with a header, a fault and documentation.
    static let wrapped = Snippet.wsdl(
        Snippet.types(
            """
            <xsd:element name="GetOrder">
              <xsd:complexType><xsd:sequence>
                <xsd:element name="orderID" type="xsd:string"/>
                <xsd:element name="placed" type="xsd:dateTime" minOccurs="0"/>
              </xsd:sequence></xsd:complexType>
            </xsd:element>
            <xsd:element name="GetOrderResponse">
              <xsd:complexType><xsd:sequence>
                <xsd:element name="total" type="xsd:decimal"/>
                <xsd:element name="lines" type="xsd:int" maxOccurs="unbounded"/>
              </xsd:sequence></xsd:complexType>
            </xsd:element>
            <xsd:element name="Session"><xsd:complexType><xsd:sequence><xsd:element name="token" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="NotFound"><xsd:complexType><xsd:sequence><xsd:element name="id" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
            """)
            + """
            <wsdl:message name="In"><wsdl:part name="parameters" element="tns:GetOrder"/></wsdl:message>
            <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:GetOrderResponse"/></wsdl:message>
            <wsdl:message name="Header"><wsdl:part name="session" element="tns:Session"/></wsdl:message>
            <wsdl:message name="Fault"><wsdl:part name="fault" element="tns:NotFound"/></wsdl:message>
            <wsdl:portType name="Orders">
              <wsdl:operation name="GetOrder">
                <wsdl:documentation>Finds an order by its number.</wsdl:documentation>
                <wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/><wsdl:fault name="NotFound" message="tns:Fault"/>
              </wsdl:operation>
            </wsdl:portType>
            <wsdl:binding name="OrdersSoap12" type="tns:Orders">
              <soap12:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
              <wsdl:operation name="GetOrder">
                <soap12:operation soapAction="urn:test/GetOrder"/>
                <wsdl:input><soap12:body use="literal"/><soap12:header message="tns:Header" part="session" use="literal"/></wsdl:input>
                <wsdl:output><soap12:body use="literal"/></wsdl:output>
                <wsdl:fault name="NotFound"><soap12:fault name="NotFound" use="literal"/></wsdl:fault>
              </wsdl:operation>
            </wsdl:binding>
            <wsdl:service name="OrderService">
              <wsdl:port name="OrdersPort" binding="tns:OrdersSoap12"><soap12:address location="https://example.com/orders"/></wsdl:port>
            </wsdl:service>
            """)

    /// A wrapped operation whose response declares two header blocks, one of them of a simple
    /// type (`type=`) and one named like the output's `body`.
    static let outputHeaders = Snippet.wsdl(
        Snippet.types(
            """
            <xsd:element name="Ping"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
            <xsd:element name="PingResponse"><xsd:complexType><xsd:sequence><xsd:element name="ok" type="xsd:boolean"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="body"><xsd:complexType><xsd:sequence><xsd:element name="remaining" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
            """)
            + """
            <wsdl:message name="In"><wsdl:part name="parameters" element="tns:Ping"/></wsdl:message>
            <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:PingResponse"/></wsdl:message>
            <wsdl:message name="Headers"><wsdl:part name="quota" element="tns:body"/><wsdl:part name="server" type="xsd:string"/></wsdl:message>
            <wsdl:portType name="P"><wsdl:operation name="Ping"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
            <wsdl:binding name="B" type="tns:P">
              <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
              <wsdl:operation name="Ping"><soap:operation soapAction="ping"/>
                <wsdl:input><soap:body use="literal"/></wsdl:input>
                <wsdl:output>
                  <soap:body use="literal"/>
                  <soap:header message="tns:Headers" part="quota" use="literal"/>
                  <soap:header message="tns:Headers" part="server" use="literal"/>
                </wsdl:output>
              </wsdl:operation>
            </wsdl:binding>
            """)

    /// An rpc/literal operation with two typed parts, and no address.
    static let rpc = Snippet.wsdl(
        """
        <wsdl:message name="AddIn"><wsdl:part name="a" type="xsd:int"/><wsdl:part name="b" type="xsd:int"/></wsdl:message>
        <wsdl:message name="AddOut"><wsdl:part name="sum" type="xsd:long"/></wsdl:message>
        <wsdl:portType name="Calc"><wsdl:operation name="add"><wsdl:input message="tns:AddIn"/><wsdl:output message="tns:AddOut"/></wsdl:operation></wsdl:portType>
        <wsdl:binding name="CalcBinding" type="tns:Calc">
          <soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="add">
            <soap:operation soapAction=""/>
            <wsdl:input><soap:body use="literal" namespace="urn:calc"/></wsdl:input>
            <wsdl:output><soap:body use="literal" namespace="urn:calc"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        """)

    /// A document/literal bare operation whose parts are elements of simple types.
    static let bare = Snippet.wsdl(
        Snippet.types(
            """
            <xsd:element name="symbol" type="xsd:string"/>
            <xsd:element name="when" type="xsd:date"/>
            <xsd:element name="price" type="xsd:decimal"/>
            """)
            + """
            <wsdl:message name="QuoteIn"><wsdl:part name="symbol" element="tns:symbol"/><wsdl:part name="when" element="tns:when"/></wsdl:message>
            <wsdl:message name="QuoteOut"><wsdl:part name="price" element="tns:price"/></wsdl:message>
            <wsdl:portType name="Quotes"><wsdl:operation name="Quote"><wsdl:input message="tns:QuoteIn"/><wsdl:output message="tns:QuoteOut"/></wsdl:operation></wsdl:portType>
            <wsdl:binding name="QuotesBinding" type="tns:Quotes">
              <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
              <wsdl:operation name="Quote">
                <soap:operation soapAction="quote"/>
                <wsdl:input><soap:body use="literal"/></wsdl:input>
                <wsdl:output><soap:body use="literal"/></wsdl:output>
              </wsdl:operation>
            </wsdl:binding>
            """)

    /// A wrapped operation whose request element has the type `type`, declared with `schema`.
    static func operation(requestType type: String, schema: String, schemaAttributes: String = #"elementFormDefault="qualified""#) -> String {
        Snippet.wsdl(
            Snippet.types(
                schema + """
                    <xsd:element name="Call" type="\(type)"/>
                    <xsd:element name="CallResponse"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
                    """, schemaAttributes: schemaAttributes)
                + """
                <wsdl:message name="In"><wsdl:part name="parameters" element="tns:Call"/></wsdl:message>
                <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:CallResponse"/></wsdl:message>
                <wsdl:portType name="P"><wsdl:operation name="Call"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
                <wsdl:binding name="B" type="tns:P">
                  <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
                  <wsdl:operation name="Call"><soap:operation soapAction="call"/>
                    <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output>
                  </wsdl:operation>
                </wsdl:binding>
                """)
    }

    /// Generates from `wsdl`, read as `service.wsdl`.
    static func generate(_ wsdl: String, configuration: WSDLGeneratorConfiguration = WSDLGeneratorConfiguration()) throws -> WSDLGeneratorOutput {
        WSDLGenerator(configuration: configuration).generate(try Snippet.read(wsdl, options: configuration.readerOptions))
    }

    /// The declaration of `name` in `text`, from its doc comment to its closing brace.
    static func declaration(_ name: String, in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let kinds = ["struct", "enum", "indirect enum", "class", "final class"].flatMap { kind in ["", "public ", "package "].map { "\($0)\(kind) \(name):" } }
        guard let start = lines.firstIndex(where: { line in kinds.contains { line.hasPrefix($0) } }) else { return nil }
        var first = start
        while first > 0, lines[first - 1].hasPrefix("///") { first -= 1 }
        guard let end = lines[start...].firstIndex(of: "}") else { return nil }
        return lines[first...end].joined(separator: "\n") + "\n"
    }
}

extension GeneratorSnippets {
    /// Types for most schema constructs, reached from one operation's request.
    static let constructs = operation(
        requestType: "tns:Shipment",
        schema: """
            <xsd:simpleType name="Speed">
              <xsd:annotation><xsd:documentation>How fast it travels.</xsd:documentation></xsd:annotation>
              <xsd:restriction base="xsd:string">
                <xsd:enumeration value="standard"/>
                <xsd:enumeration value="next day"><xsd:annotation><xsd:documentation>Before noon.</xsd:documentation></xsd:annotation></xsd:enumeration>
                <xsd:enumeration value="unknown"/>
                <xsd:enumeration value="2"/>
              </xsd:restriction>
            </xsd:simpleType>
            <xsd:complexType name="Weight">
              <xsd:simpleContent><xsd:extension base="xsd:decimal"><xsd:attribute name="unit" type="xsd:string" use="required"/></xsd:extension></xsd:simpleContent>
            </xsd:complexType>
            <xsd:complexType name="Parcel">
              <xsd:sequence><xsd:element name="weight" type="tns:Weight"/></xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Shipment">
              <xsd:annotation><xsd:documentation>A shipment.</xsd:documentation></xsd:annotation>
              <xsd:sequence>
                <xsd:element name="Speed" type="tns:Speed"/>
                <xsd:element name="Ship_x0020_Date" type="xsd:date"/>
                <xsd:element name="protocol" type="xsd:anyURI" minOccurs="0"/>
                <xsd:element name="parcels" type="tns:Parcel" maxOccurs="unbounded"/>
                <xsd:element name="note" type="xsd:string" nillable="true"/>
                <xsd:element name="Note" type="xsd:base64Binary"/>
                <xsd:element name="extra" type="xsd:anyType"/>
                <xsd:choice minOccurs="0">
                  <xsd:element name="Pickup" type="xsd:time"/>
                  <xsd:element name="dropOff" type="xsd:boolean"/>
                </xsd:choice>
                <xsd:element name="Date">
                  <xsd:complexType><xsd:attribute name="day" type="xsd:unsignedByte"/></xsd:complexType>
                </xsd:element>
              </xsd:sequence>
              <xsd:attribute name="id" type="xsd:long" use="required"/>
              <xsd:attribute name="lang" form="qualified" type="xsd:language"/>
            </xsd:complexType>
            """)

    /// `xsd:hexBinary` beside `xsd:base64Binary`, as an element and an attribute, and the .NET
    /// `ArrayOfString`: a repeated element that is also nillable.
    static let hexBinaryAndNilItems = operation(
        requestType: "tns:Blob",
        schema: """
            <xsd:complexType name="ArrayOfString">
              <xsd:sequence><xsd:element name="string" type="xsd:string" nillable="true" minOccurs="0" maxOccurs="unbounded"/></xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Blob">
              <xsd:sequence>
                <xsd:element name="sum" type="xsd:hexBinary"/><xsd:element name="raw" type="xsd:base64Binary"/>
                <xsd:element name="strings" type="tns:ArrayOfString"/>
              </xsd:sequence>
              <xsd:attribute name="digest" type="xsd:hexBinary"/>
            </xsd:complexType>
            """)

    /// A document/literal bare operation whose request, response and header blocks are bare
    /// `xsd:hexBinary` values (the response and its header through a restriction of it).
    static let hexBinaryBlocks = Snippet.wsdl(
        """
        <wsdl:types>
          <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
            <xsd:simpleType name="Hash"><xsd:restriction base="xsd:hexBinary"><xsd:length value="2"/></xsd:restriction></xsd:simpleType>
            <xsd:element name="Put" type="xsd:hexBinary"/>
            <xsd:element name="PutResponse" type="tns:Hash"/>
            <xsd:element name="Token" type="xsd:hexBinary"/>
            <xsd:element name="Receipt" type="tns:Hash"/>
            <xsd:element name="Note" type="xsd:base64Binary"/>
          </xsd:schema>
        </wsdl:types>
        <wsdl:message name="In"><wsdl:part name="body" element="tns:Put"/></wsdl:message>
        <wsdl:message name="Out"><wsdl:part name="body" element="tns:PutResponse"/></wsdl:message>
        <wsdl:message name="H"><wsdl:part name="t" element="tns:Token"/><wsdl:part name="n" element="tns:Note"/></wsdl:message>
        <wsdl:message name="R"><wsdl:part name="r" element="tns:Receipt"/><wsdl:part name="n" element="tns:Note"/></wsdl:message>
        <wsdl:portType name="P"><wsdl:operation name="Put"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
        <wsdl:binding name="B" type="tns:P">
          <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Put"><soap:operation soapAction="put"/>
            <wsdl:input>
              <soap:body use="literal" parts="body"/>
              <soap:header message="tns:H" part="t" use="literal"/><soap:header message="tns:H" part="n" use="literal"/>
            </wsdl:input>
            <wsdl:output>
              <soap:body use="literal" parts="body"/>
              <soap:header message="tns:R" part="r" use="literal"/><soap:header message="tns:R" part="n" use="literal"/>
            </wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        """)

    /// Constructs the generator leaves out or changes, each with a diagnostic.
    static let unsupported = operation(
        requestType: "tns:Node",
        schema: """
            <xsd:complexType name="Base" abstract="true"><xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Node" mixed="true">
              <xsd:complexContent><xsd:extension base="tns:Base">
                <xsd:sequence>
                  <xsd:element name="next" type="tns:Node" minOccurs="0"/>
                  <xsd:choice maxOccurs="unbounded"><xsd:element name="a" type="xsd:string"/><xsd:element name="b" type="xsd:string"/></xsd:choice>
                  <xsd:choice><xsd:element name="c" type="xsd:string"/><xsd:sequence><xsd:element name="d" type="xsd:string"/></xsd:sequence></xsd:choice>
                  <xsd:any namespace="##other" processContents="lax" minOccurs="0"/>
                  <xsd:element name="tree" type="tns:Tree"/>
                </xsd:sequence>
                <xsd:anyAttribute/>
              </xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Tree"><xsd:sequence><xsd:element name="child" type="tns:Tree" minOccurs="0"/></xsd:sequence></xsd:complexType>
            """)

    /// An extension hierarchy: an abstract base, a type that extends it and one that extends
    /// that, declared where the base is; and a reference to an element that heads a substitution group.
    static let polymorphism = operation(
        requestType: "tns:Zoo",
        schema: """
            <xsd:complexType name="Animal" abstract="true">
              <xsd:sequence><xsd:element name="name" type="xsd:string"/></xsd:sequence>
              <xsd:attribute name="id" type="xsd:int"/>
            </xsd:complexType>
            <xsd:complexType name="Dog">
              <xsd:complexContent><xsd:extension base="tns:Animal">
                <xsd:sequence><xsd:element name="barks" type="xsd:boolean"/></xsd:sequence>
              </xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Puppy">
              <xsd:complexContent><xsd:extension base="tns:Dog">
                <xsd:sequence><xsd:element name="weeks" type="xsd:int" minOccurs="0"/><xsd:element name="toys" type="xsd:string" maxOccurs="unbounded"/></xsd:sequence>
              </xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:element name="vehicle" type="xsd:string"/>
            <xsd:element name="car" type="xsd:string" substitutionGroup="tns:vehicle"/>
            <xsd:complexType name="Zoo">
              <xsd:sequence>
                <xsd:element name="animals" type="tns:Animal" maxOccurs="unbounded"/>
                <xsd:element name="keeper" type="tns:Dog" minOccurs="0"/>
                <xsd:element ref="tns:vehicle"/>
              </xsd:sequence>
            </xsd:complexType>
            """)
}

extension GeneratorSnippets {
    /// Names that collide: a type named like a Foundation type, case-only collisions, an element
    /// named like a type, and two headers with the same local name.
    static let collisions = Snippet.wsdl(
        """
        <wsdl:types>
          <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified" xmlns:b="urn:b">
            <xsd:import namespace="urn:b"/>
            <xsd:complexType name="Date"><xsd:sequence><xsd:element name="day" type="xsd:int"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="date"><xsd:sequence><xsd:element name="Value" type="xsd:int"/><xsd:element name="value" type="xsd:int"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Lookup"><xsd:sequence><xsd:element name="a" type="tns:Date"/><xsd:element name="b" type="tns:date"/></xsd:sequence></xsd:complexType>
            <xsd:element name="Lookup"><xsd:complexType><xsd:sequence><xsd:element name="q" type="tns:Lookup"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="LookupResponse" type="xsd:string"/>
            <xsd:element name="Auth" type="xsd:string"/>
          </xsd:schema>
          <xsd:schema targetNamespace="urn:b"><xsd:element name="Auth" type="xsd:string"/></xsd:schema>
        </wsdl:types>
        <wsdl:message name="In"><wsdl:part name="parameters" element="tns:Lookup"/></wsdl:message>
        <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:LookupResponse"/></wsdl:message>
        <wsdl:message name="H"><wsdl:part name="a" element="tns:Auth"/><wsdl:part name="b" element="b:Auth" xmlns:b="urn:b"/></wsdl:message>
        <wsdl:portType name="P"><wsdl:operation name="Lookup"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
        <wsdl:binding name="B" type="tns:P">
          <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Lookup"><soap:operation soapAction="lookup"/>
            <wsdl:input><soap:body use="literal" parts="parameters"/><soap:header message="tns:H" part="a" use="literal"/><soap:header message="tns:H" part="b" use="literal"/></wsdl:input>
            <wsdl:output><soap:body use="literal"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        """)

    /// An rpc/encoded binding, a one-way operation and a literal operation.
    static let operations = Snippet.wsdl(
        """
        <wsdl:message name="M"><wsdl:part name="a" type="xsd:string"/></wsdl:message>
        <wsdl:portType name="Encoded"><wsdl:operation name="Old"><wsdl:input message="tns:M"/><wsdl:output message="tns:M"/></wsdl:operation></wsdl:portType>
        <wsdl:portType name="Literal">
          <wsdl:operation name="Notify"><wsdl:input message="tns:M"/></wsdl:operation>
          <wsdl:operation name="Echo"><wsdl:input message="tns:M"/><wsdl:output message="tns:M"/></wsdl:operation>
        </wsdl:portType>
        <wsdl:binding name="EncodedBinding" type="tns:Encoded">
          <soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Old"><soap:operation soapAction="old"/>
            <wsdl:input><soap:body use="encoded" namespace="urn:old" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/></wsdl:input>
            <wsdl:output><soap:body use="encoded" namespace="urn:old" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        <wsdl:binding name="LiteralBinding" type="tns:Literal">
          <soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Notify"><soap:operation soapAction="notify"/><wsdl:input><soap:body use="literal" namespace="urn:lit"/></wsdl:input></wsdl:operation>
          <wsdl:operation name="Echo"><soap:operation soapAction="echo"/>
            <wsdl:input><soap:body use="literal" namespace="urn:lit"/></wsdl:input><wsdl:output><soap:body use="literal" namespace="urn:lit"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        """)
}
