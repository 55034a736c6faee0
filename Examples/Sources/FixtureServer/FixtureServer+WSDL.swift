import Foundation

extension FixtureServer {
    /// The WSDL of the SOAP user service, as `GET /UserService?wsdl` publishes it, with the
    /// address `http://127.0.0.1:8080/UserService` that the server replaces with its own.
    ///
    /// `Sources/UserServiceClient/UserService.wsdl`, from which the build plugin generates that
    /// module's `GetUserDetails`, is this text (a test checks that the two stay the same).
    public static let userServiceWSDL = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <wsdl:definitions name="UserService" targetNamespace="urn:example:users"
            xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
            xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:example:users">
          <wsdl:documentation>The example user service: a user's details by ID.</wsdl:documentation>
          <wsdl:types>
            <xsd:schema>
              <xsd:complexType name="UserModel">
                <xsd:annotation><xsd:documentation>A user: name, contact details and address.</xsd:documentation></xsd:annotation>
                <xsd:sequence>
                  <xsd:element name="city" type="xsd:string"/>
                  <xsd:element name="email" type="xsd:string"/>
                  <xsd:element name="faxNumber" type="xsd:string"/>
                  <xsd:element name="firstName" type="xsd:string"/>
                  <xsd:element name="lastName" type="xsd:string"/>
                  <xsd:element name="phoneNumber" type="xsd:string"/>
                  <xsd:element name="postCode" type="xsd:string"/>
                  <xsd:element name="street1" type="xsd:string"/>
                  <xsd:element name="street2" type="xsd:string"/>
                </xsd:sequence>
              </xsd:complexType>
              <xsd:complexType name="UserDetails">
                <xsd:sequence><xsd:element name="userModel" type="UserModel"/></xsd:sequence>
              </xsd:complexType>
              <xsd:element name="getUserDetails">
                <xsd:complexType><xsd:sequence><xsd:element name="userID" type="xsd:string"/></xsd:sequence></xsd:complexType>
              </xsd:element>
              <xsd:element name="getUserDetailsResponse">
                <xsd:complexType><xsd:sequence><xsd:element name="getUserDetails" type="UserDetails"/></xsd:sequence></xsd:complexType>
              </xsd:element>
            </xsd:schema>
          </wsdl:types>
          <wsdl:message name="getUserDetailsRequest"><wsdl:part name="parameters" element="getUserDetails"/></wsdl:message>
          <wsdl:message name="getUserDetailsResponse"><wsdl:part name="parameters" element="getUserDetailsResponse"/></wsdl:message>
          <wsdl:portType name="UserServicePortType">
            <wsdl:operation name="getUserDetails">
              <wsdl:documentation>The details of the user with an ID; a Client Fault for an unknown one.</wsdl:documentation>
              <wsdl:input message="tns:getUserDetailsRequest"/>
              <wsdl:output message="tns:getUserDetailsResponse"/>
            </wsdl:operation>
          </wsdl:portType>
          <wsdl:binding name="UserServiceBinding" type="tns:UserServicePortType">
            <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
            <wsdl:operation name="getUserDetails">
              <soap:operation soapAction="getUserDetails"/>
              <wsdl:input><soap:body use="literal"/></wsdl:input>
              <wsdl:output><soap:body use="literal"/></wsdl:output>
            </wsdl:operation>
          </wsdl:binding>
          <wsdl:service name="UserService">
            <wsdl:port name="UserServicePort" binding="tns:UserServiceBinding">
              <soap:address location="http://127.0.0.1:8080/UserService"/>
            </wsdl:port>
          </wsdl:service>
        </wsdl:definitions>
        """#

    /// The address in ``userServiceWSDL``, which the server replaces with its own.
    public static let userServiceWSDLAddress = "http://127.0.0.1:8080/UserService"
}
