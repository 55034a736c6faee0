import Foundation
import ResourceLoaderWSDL
import Testing

extension GeneratorSnippets {
    /// A choice, then an element named `choice`; a reference to the head `Shape`, then an
    /// element named `shape`.
    static let syntheticFieldNames = operation(
        requestType: "tns:Pick",
        schema: """
            <xsd:element name="Shape" type="xsd:string" abstract="true"/>
            <xsd:element name="circle" type="xsd:string" substitutionGroup="tns:Shape"/>
            <xsd:complexType name="Pick">
              <xsd:sequence>
                <xsd:choice><xsd:element name="a" type="xsd:string"/><xsd:element name="b" type="xsd:int"/></xsd:choice>
                <xsd:element name="choice" type="xsd:string"/>
                <xsd:element ref="tns:Shape"/>
                <xsd:element name="shape" type="xsd:int"/>
              </xsd:sequence>
            </xsd:complexType>
            """)

    /// A class with a choice, and a subclass with an element named `choice`.
    static let inheritedChoiceName = operation(
        requestType: "tns:Base",
        schema: """
            <xsd:complexType name="Base">
              <xsd:choice><xsd:element name="a" type="xsd:string"/><xsd:element name="b" type="xsd:int"/></xsd:choice>
            </xsd:complexType>
            <xsd:complexType name="Derived">
              <xsd:complexContent><xsd:extension base="tns:Base"><xsd:sequence>
                <xsd:element name="choice" type="xsd:string"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            """)

    /// A choice between an unqualified local element `id` and a reference to the global
    /// element `id`: one local name in two namespaces.
    static let choiceOfOneLocalName = operation(
        requestType: "tns:Ref",
        schema: """
            <xsd:element name="id" type="xsd:int"/>
            <xsd:complexType name="Ref">
              <xsd:choice>
                <xsd:element name="id" type="xsd:string" form="unqualified"/>
                <xsd:element ref="tns:id"/>
              </xsd:choice>
            </xsd:complexType>
            """)

    /// A document/literal bare operation whose request and response each have two parts
    /// whose elements have one local name in two namespaces.
    static let barePartsOfOneLocalName = Snippet.wsdl(
        """
        <wsdl:types>
          <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
            <xsd:element name="item" type="xsd:string"/>
          </xsd:schema>
          <xsd:schema targetNamespace="urn:other" elementFormDefault="qualified">
            <xsd:element name="item" type="xsd:int"/>
          </xsd:schema>
        </wsdl:types>
        <wsdl:message name="In" xmlns:o="urn:other"><wsdl:part name="first" element="tns:item"/><wsdl:part name="second" element="o:item"/></wsdl:message>
        <wsdl:message name="Out" xmlns:o="urn:other"><wsdl:part name="mine" element="tns:item"/><wsdl:part name="theirs" element="o:item"/></wsdl:message>
        <wsdl:portType name="P"><wsdl:operation name="Lookup"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
        <wsdl:binding name="B" type="tns:P">
          <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Lookup"><soap:operation soapAction="lookup"/>
            <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        """)

    /// Types named like the names generated code uses unqualified: a resource's associated
    /// types (`Model`, `Root`, `ValidatedResponse`) and what a class's `Hashable` conformance
    /// names (`Hasher`, `ObjectIdentifier`).
    static let namesGeneratedCodeUses = Snippet.wsdl(
        Snippet.types(
            """
            <xsd:complexType name="Model"><xsd:sequence><xsd:element name="a" type="xsd:string"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Root"><xsd:sequence><xsd:element name="b" type="xsd:string"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="ValidatedResponse"><xsd:sequence><xsd:element name="c" type="xsd:string"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Hasher"><xsd:sequence/></xsd:complexType>
            <xsd:complexType name="ObjectIdentifier">
              <xsd:complexContent><xsd:extension base="tns:Hasher"><xsd:sequence>
                <xsd:element name="d" type="xsd:string"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:element name="Get"><xsd:complexType><xsd:sequence><xsd:element name="h" type="tns:Hasher"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="GetResponse" type="tns:Model"/>
            <xsd:element name="Find"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
            <xsd:element name="FindResponse" type="tns:Root"/>
            <xsd:element name="Stamp" type="tns:ValidatedResponse"/>
            """)
            + """
            <wsdl:message name="GetIn"><wsdl:part name="parameters" element="tns:Get"/></wsdl:message>
            <wsdl:message name="GetOut"><wsdl:part name="parameters" element="tns:GetResponse"/></wsdl:message>
            <wsdl:message name="FindIn"><wsdl:part name="parameters" element="tns:Find"/></wsdl:message>
            <wsdl:message name="FindOut"><wsdl:part name="parameters" element="tns:FindResponse"/></wsdl:message>
            <wsdl:message name="StampHeader"><wsdl:part name="stamp" element="tns:Stamp"/></wsdl:message>
            <wsdl:portType name="P">
              <wsdl:operation name="Get"><wsdl:input message="tns:GetIn"/><wsdl:output message="tns:GetOut"/></wsdl:operation>
              <wsdl:operation name="Find"><wsdl:input message="tns:FindIn"/><wsdl:output message="tns:FindOut"/></wsdl:operation>
            </wsdl:portType>
            <wsdl:binding name="B" type="tns:P">
              <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
              <wsdl:operation name="Get"><soap:operation soapAction="get"/>
                <wsdl:input><soap:body use="literal"/><soap:header message="tns:StampHeader" part="stamp" use="literal"/></wsdl:input>
                <wsdl:output><soap:body use="literal"/></wsdl:output>
              </wsdl:operation>
              <wsdl:operation name="Find"><soap:operation soapAction="find"/>
                <wsdl:input><soap:body use="literal"/></wsdl:input>
                <wsdl:output><soap:body use="literal"/><soap:header message="tns:StampHeader" part="stamp" use="literal"/></wsdl:output>
              </wsdl:operation>
            </wsdl:binding>
            """)
}

/// Names and coding keys that would collide in the generated code: fields the generator adds
/// beside the elements, elements of one local name in two namespaces, and type names the
/// generated code uses.
@Suite("Generator: colliding names and keys")
struct GeneratorCollisionTests {
    /// The diagnostics as `severity construct path` lines.
    static func summary(_ output: WSDLGeneratorOutput) -> [String] {
        output.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" }
    }

    /// The generated models and resources, all files together.
    static func text(_ output: WSDLGeneratorOutput) -> String {
        output.files.map(\.contents).joined(separator: "\n")
    }

    @Test func elementsNamedLikeAChoiceOrAGroupFieldAreKeptAndTheGeneratedFieldIsRenamed() throws {
        // GIVEN a choice followed by an element named `choice`, and a reference to the head
        // `Shape` followed by an element named `shape`
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.syntheticFieldNames)
        // THEN every element is kept, under its own name, and the choice's and the group's
        // fields take the next free names
        #expect(Self.summary(output) == [])
        let pick = try #require(GeneratorSnippets.declaration("Pick", in: Self.text(output)))
        #expect(pick.contains("    var choice2: PickChoice\n    var choice: String\n    var shape2: ShapeGroup\n    var shape: Int32\n"))
        #expect(!pick.contains("CodingKeys"))
    }

    @Test func anElementOfASubclassNamedLikeAnInheritedChoiceFieldIsKept() throws {
        // GIVEN a class with a choice, and a subclass with an element named `choice`
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.inheritedChoiceName)
        // THEN the element is kept under the next free name, keyed by its own name in the
        // subclass's coding keys
        #expect(Self.summary(output) == [])
        let derived = try #require(GeneratorSnippets.declaration("Derived", in: Self.text(output)))
        #expect(derived.contains("    init(choice: BaseChoice, choice2: String) {\n"))
        #expect(derived.contains("        case choice2 = \"choice\"\n"))
    }

    @Test func aChoiceOfTwoElementsOfOneLocalNameKeepsTheFirst() throws {
        // GIVEN a choice of an unqualified `id` and a reference to the qualified `id`
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.choiceOfOneLocalName)
        // THEN the second is left out and diagnosed, so that the enum's coding keys differ
        #expect(Self.summary(output) == [
            "warning unsupportedContent /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:complexType[@name='Ref']",
        ])
        let choice = try #require(GeneratorSnippets.declaration("RefChoice", in: Self.text(output)))
        #expect(choice.contains("    case id(String)\n\n"))
        // AND the element kept is unqualified, as its `form` says
        #expect(choice.contains(#"    static let xmlSchema = XMLTypeSchema(namespace: "urn:test", elementForm: .unqualified)"#))
        #expect(!choice.contains("id2"))
    }

    @Test func barePartsWhoseElementsHaveOneLocalNameKeepTheFirst() throws {
        // GIVEN a bare request and response, each with two parts whose elements are `item` in
        // two namespaces
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.barePartsOfOneLocalName)
        // THEN the second part of each is left out and diagnosed, so that the coding keys and
        // the schema's fields differ
        #expect(Self.summary(output) == [
            "warning unsupportedContent /wsdl:definitions[@name='Test']/wsdl:binding[@name='B']/wsdl:operation[@name='Lookup']",
            "warning unsupportedContent /wsdl:definitions[@name='Test']/wsdl:binding[@name='B']/wsdl:operation[@name='Lookup']",
        ])
        let text = Self.text(output)
        let body = try #require(GeneratorSnippets.declaration("LookupBody", in: text))
        #expect(body.contains("    var first: String\n\n"))
        #expect(!body.contains("second"))
        let response = try #require(GeneratorSnippets.declaration("LookupResponseBody", in: text))
        #expect(response.contains("    var mine: String\n\n"))
        #expect(!response.contains("theirs"))
    }

    @Test func typesNamedLikeWhatGeneratedCodeUsesGetASuffix() throws {
        // GIVEN types named Model, Root, ValidatedResponse, Hasher and ObjectIdentifier
        // WHEN they are generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.namesGeneratedCodeUses)
        #expect(Self.summary(output) == [])
        // THEN none of them takes its name
        let text = Self.text(output)
        for name in ["Model", "Root", "ValidatedResponse", "Hasher", "ObjectIdentifier"] {
            #expect(GeneratorSnippets.declaration(name, in: text) == nil, "\(name) is declared")
            #expect(GeneratorSnippets.declaration(name + "Type", in: text) != nil, "\(name)Type is not declared")
        }
        #expect(text.contains("    typealias Model = ModelType\n"))
        #expect(text.contains("    typealias Root = RootType\n"))
        #expect(text.contains("    var stamp: ValidatedResponseType?\n"))
        #expect(text.contains("func hash(into hasher: inout Hasher)"))
    }
}
