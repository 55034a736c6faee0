import Foundation
import ResourceLoaderWSDL

extension GeneratorSnippets {
    /// Substitution groups of every shape, and header blocks of derived types: the WSDL whose
    /// generated code is checked in under `Generated/`.
    ///
    /// - `shape` is an abstract head whose members (`circle`, `square`, and `ellipse` in another
    ///   namespace) have types derived from its type, and `Ball` extends `Circle`;
    /// - `vehicle` is a concrete head with a member declared without a type (`car`, which has
    ///   `vehicle`'s);
    /// - `note` heads nested groups: `memo`, whose own member is `postIt`, and the abstract
    ///   `draft`, whose member is `sketch`;
    /// - `Drawing` refers to the heads repeated, optional and once, and `Ride` in a choice;
    /// - the `pen` input header block and the `stamp` output one are declared as the abstract
    ///   `Shape`;
    /// - `Paint` is document/literal bare, and its parts are heads: `shape` in the request and
    ///   `note` in the response, so that the body's element is a member.
    static let substitutionGroups = Snippet.wsdl(
        """
        <wsdl:types>
          <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified" xmlns:o="urn:other">
            <xsd:import namespace="urn:other"/>
            <xsd:complexType name="Shape" abstract="true"><xsd:sequence><xsd:element name="label" type="xsd:string"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Circle">
              <xsd:complexContent><xsd:extension base="tns:Shape"><xsd:sequence><xsd:element name="radius" type="xsd:double"/></xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Ball">
              <xsd:complexContent><xsd:extension base="tns:Circle"><xsd:sequence><xsd:element name="bounces" type="xsd:boolean"/></xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Square">
              <xsd:complexContent><xsd:extension base="tns:Shape"><xsd:sequence><xsd:element name="side" type="xsd:int"/></xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:element name="shape" type="tns:Shape" abstract="true"/>
            <xsd:element name="circle" type="tns:Circle" substitutionGroup="tns:shape"/>
            <xsd:element name="square" type="tns:Square" substitutionGroup="tns:shape"/>
            <xsd:element name="vehicle" type="xsd:string"/>
            <xsd:element name="truck" type="xsd:string" substitutionGroup="tns:vehicle"/>
            <xsd:element name="car" substitutionGroup="tns:vehicle"/>
            <xsd:element name="note" type="xsd:string"/>
            <xsd:element name="memo" type="xsd:string" substitutionGroup="tns:note"/>
            <xsd:element name="postIt" type="xsd:string" substitutionGroup="tns:memo"/>
            <xsd:element name="draft" type="xsd:string" abstract="true" substitutionGroup="tns:note"/>
            <xsd:element name="sketch" type="xsd:string" substitutionGroup="tns:draft"/>
            <xsd:complexType name="Drawing">
              <xsd:sequence>
                <xsd:element name="title" type="xsd:string"/>
                <xsd:element ref="tns:shape" maxOccurs="unbounded"/>
                <xsd:element ref="tns:vehicle" minOccurs="0"/>
                <xsd:element ref="tns:note"/>
                <xsd:element name="ride" type="tns:Ride"/>
              </xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Ride">
              <xsd:choice><xsd:element ref="tns:vehicle"/><xsd:element name="walk" type="xsd:boolean"/></xsd:choice>
            </xsd:complexType>
            <xsd:element name="Draw"><xsd:complexType><xsd:sequence><xsd:element name="drawing" type="tns:Drawing"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="DrawResponse"><xsd:complexType><xsd:sequence><xsd:element name="drawing" type="tns:Drawing"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="pen" type="tns:Shape"/>
            <xsd:element name="stamp" type="tns:Shape"/>
          </xsd:schema>
          <xsd:schema targetNamespace="urn:other" elementFormDefault="qualified" xmlns:t="urn:test">
            <xsd:import namespace="urn:test"/>
            <xsd:element name="ellipse" type="t:Circle" substitutionGroup="t:shape"/>
          </xsd:schema>
        </wsdl:types>
        <wsdl:message name="In"><wsdl:part name="parameters" element="tns:Draw"/></wsdl:message>
        <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:DrawResponse"/></wsdl:message>
        <wsdl:message name="PaintIn"><wsdl:part name="shape" element="tns:shape"/></wsdl:message>
        <wsdl:message name="PaintOut"><wsdl:part name="note" element="tns:note"/></wsdl:message>
        <wsdl:message name="Headers"><wsdl:part name="pen" element="tns:pen"/><wsdl:part name="stamp" element="tns:stamp"/></wsdl:message>
        <wsdl:portType name="Board"><wsdl:operation name="Draw"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation>
          <wsdl:operation name="Paint"><wsdl:input message="tns:PaintIn"/><wsdl:output message="tns:PaintOut"/></wsdl:operation>
        </wsdl:portType>
        <wsdl:binding name="BoardBinding" type="tns:Board">
          <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Draw"><soap:operation soapAction="draw"/>
            <wsdl:input><soap:body use="literal"/><soap:header message="tns:Headers" part="pen" use="literal"/></wsdl:input>
            <wsdl:output><soap:body use="literal"/><soap:header message="tns:Headers" part="stamp" use="literal"/></wsdl:output>
          </wsdl:operation>
          <wsdl:operation name="Paint"><soap:operation soapAction="paint"/>
            <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        <wsdl:service name="Board"><wsdl:port name="BoardPort" binding="tns:BoardBinding"><soap:address location="http://127.0.0.1:8080/board"/></wsdl:port></wsdl:service>
        """)
}
