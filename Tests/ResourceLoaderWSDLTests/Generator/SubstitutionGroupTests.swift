import Foundation
import ResourceLoaderWSDL
import Testing

/// Substitution groups and header blocks of derived types: exact generated text for each shape,
/// the diagnostics that remain, and the checked-in code of ``GeneratorSnippets/substitutionGroups``.
@Suite("WSDLGenerator substitution groups")
struct SubstitutionGroupTests {
    /// Expects the declaration `name` in `Types.swift` of `output` to be exactly `expected`.
    func expectDeclaration(_ name: String, in output: WSDLGeneratorOutput, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let contents = try #require(output.file(named: "Types.swift")?.contents, sourceLocation: sourceLocation)
        let declaration = try #require(GeneratorSnippets.declaration(name, in: contents), "no declaration of \(name)", sourceLocation: sourceLocation)
        #expect(declaration == expected, sourceLocation: sourceLocation)
    }

    /// The diagnostics as `severity construct path` lines.
    static func summary(_ output: WSDLGeneratorOutput) -> [String] {
        output.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" }
    }

    /// The generated struct of `name` holds the line `field`.
    func expectField(_ field: String, of name: String, in output: WSDLGeneratorOutput, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let contents = try #require(output.file(named: "Types.swift")?.contents, sourceLocation: sourceLocation)
        let declaration = try #require(GeneratorSnippets.declaration(name, in: contents), "no declaration of \(name)", sourceLocation: sourceLocation)
        #expect(declaration.contains("\n    var \(field)\n"), "\(declaration)", sourceLocation: sourceLocation)
    }

    @Test func anAbstractHeadIsAnEnumOfItsMembersOnly() throws {
        let output = try GeneratorSnippets.generate(
            GeneratorSnippets.operation(
                requestType: "tns:Pen",
                schema: """
                    <xsd:element name="ink" type="xsd:string" abstract="true"/>
                    <xsd:element name="blue" type="xsd:string" substitutionGroup="tns:ink"/>
                    <xsd:element name="red" type="xsd:int" substitutionGroup="tns:ink"/>
                    <xsd:complexType name="Pen"><xsd:sequence><xsd:element ref="tns:ink"/></xsd:sequence></xsd:complexType>
                    """))
        #expect(Self.summary(output) == [])
        try expectField("ink: InkGroup", of: "Pen", in: output)
        try expectDeclaration("InkGroup", in: output, """
            /// An element of the substitution group of the abstract element `ink`: the case names the element that is written and read.
            indirect enum InkGroup: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {
                /// The element `blue`.
                case blue(String)
                /// The element `red`.
                case red(Int32)

                /// The namespaces of the elements.
                static let xmlSchema = XMLTypeSchema(namespace: "urn:test", elementForm: .qualified)
            }

            """)
    }

    @Test func aConcreteHeadIsACaseBeforeItsMembersAndAnUntypedMemberHasItsType() throws {
        let output = try GeneratorSnippets.generate(
            GeneratorSnippets.operation(
                requestType: "tns:Garage",
                schema: """
                    <xsd:complexType name="Wheels"><xsd:sequence><xsd:element name="count" type="xsd:int"/></xsd:sequence></xsd:complexType>
                    <xsd:element name="vehicle" type="tns:Wheels"/>
                    <xsd:element name="car" substitutionGroup="tns:vehicle"/>
                    <xsd:element name="bike" type="xsd:string" substitutionGroup="tns:vehicle"/>
                    <xsd:complexType name="Garage"><xsd:sequence><xsd:element ref="tns:vehicle" minOccurs="0"/></xsd:sequence></xsd:complexType>
                    """))
        #expect(Self.summary(output) == [])
        try expectField("vehicle: VehicleGroup?", of: "Garage", in: output)
        try expectDeclaration("VehicleGroup", in: output, """
            /// The element `vehicle` or an element of its substitution group, which may stand in its place: the case names the element that is written and read.
            indirect enum VehicleGroup: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {
                /// The element `vehicle`.
                case vehicle(Wheels)
                /// The element `bike`.
                case bike(String)
                /// The element `car`.
                case car(Wheels)

                /// The namespaces of the elements.
                static let xmlSchema = XMLTypeSchema(namespace: "urn:test", elementForm: .qualified)
            }

            """)
    }

    @Test func nestedGroupsAreFlattenedDepthFirstAndAbstractMembersLeftOut() throws {
        let output = try GeneratorSnippets.generate(
            GeneratorSnippets.operation(
                requestType: "tns:Board",
                schema: """
                    <xsd:element name="note" type="xsd:string"/>
                    <xsd:element name="memo" type="xsd:string" substitutionGroup="tns:note"/>
                    <xsd:element name="postIt" type="xsd:string" substitutionGroup="tns:memo"/>
                    <xsd:element name="draft" type="xsd:string" abstract="true" substitutionGroup="tns:note"/>
                    <xsd:element name="sketch" type="xsd:string" substitutionGroup="tns:draft"/>
                    <xsd:complexType name="Board"><xsd:sequence><xsd:element ref="tns:note" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>
                    """))
        #expect(Self.summary(output) == [])
        try expectField("note: [NoteGroup]", of: "Board", in: output)
        let types = try #require(output.file(named: "Types.swift")?.contents)
        let declaration = try #require(GeneratorSnippets.declaration("NoteGroup", in: types))
        #expect(declaration.contains("""
                case note(String)
                /// The element `sketch`.
                case sketch(String)
                /// The element `memo`.
                case memo(String)
                /// The element `postIt`.
                case postIt(String)

            """))
        #expect(!declaration.contains("draft"))
    }

    @Test func membersOfDerivedTypesHoldTheirClassesAndOtherNamespacesAreFields() throws {
        let output = try GeneratorSnippets.generate(GeneratorSnippets.substitutionGroups)
        #expect(Self.summary(output) == [])
        try expectField("shape: [ShapeGroup]", of: "Drawing", in: output)
        try expectDeclaration("ShapeGroup", in: output, """
            /// An element of the substitution group of the abstract element `shape`: the case names the element that is written and read.
            indirect enum ShapeGroup: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {
                /// The element `ellipse`.
                case ellipse(Circle)
                /// The element `circle`.
                case circle(Circle)
                /// The element `square`.
                case square(Square)

                /// The namespaces of the elements.
                static let xmlSchema = XMLTypeSchema(
                    namespace: "urn:test", elementForm: .qualified,
                    fields: [
                        "ellipse": XMLTypeSchema.Field(namespace: "urn:other"),
                    ])
            }

            """)
        let types = try #require(output.file(named: "Types.swift")?.contents)
        #expect(types.contains("        decoder.registerDerivedType(Ball.self)\n        decoder.registerDerivedType(Circle.self)\n        decoder.registerDerivedType(Square.self)\n"))
    }

    @Test func aHeadInAChoiceIsACasePerElementOfItsGroup() throws {
        let output = try GeneratorSnippets.generate(GeneratorSnippets.substitutionGroups)
        try expectDeclaration("RideChoice", in: output, """
            /// One of the elements of a choice.
            indirect enum RideChoice: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {
                /// The element `vehicle`.
                case vehicle(String)
                /// The element `car`.
                case car(String)
                /// The element `truck`.
                case truck(String)
                /// The element `walk`.
                case walk(Bool)

                /// The namespaces of the elements.
                static let xmlSchema = XMLTypeSchema(namespace: "urn:test", elementForm: .qualified)
            }

            """)
    }

    @Test func headerBlocksOfDerivedTypesAreReadWithTheDerivedTypesDecoder() throws {
        let output = try GeneratorSnippets.generate(GeneratorSnippets.substitutionGroups)
        let operations = try #require(output.file(named: "Operations.swift")?.contents)
        #expect(operations.contains("    var pen: Shape?\n"))
        #expect(operations.contains(#"if let value = self.pen {"#))
        #expect(operations.contains(#"blocks.append(try SOAPHeaderBlock(value, as: XMLQualifiedName("pen", namespaceURI: "urn:test")))"#))
        #expect(operations.contains(#"stamp: try headers.decode(Shape.self, named: "stamp", namespaceURI: "urn:test", decoder: xmlDecoder))"#))
    }

    @Test func aHeadWhoseMembersAreAllAbstractIsGeneratedAsItselfAndDiagnosed() throws {
        let output = try GeneratorSnippets.generate(
            GeneratorSnippets.operation(
                requestType: "tns:Box",
                schema: """
                    <xsd:element name="ghost" type="xsd:string" abstract="true"/>
                    <xsd:element name="shade" type="xsd:string" abstract="true" substitutionGroup="tns:ghost"/>
                    <xsd:complexType name="Box"><xsd:sequence><xsd:element ref="tns:ghost"/></xsd:sequence></xsd:complexType>
                    """))
        #expect(Self.summary(output) == ["warning polymorphism /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:element[@name='ghost']"])
        try expectField("ghost: String", of: "Box", in: output)
        let types = try #require(output.file(named: "Types.swift")?.contents)
        #expect(!types.contains("GhostGroup"))
    }

    @Test func anAbstractHeadWithoutMembersAndAClashingMemberAreDiagnosed() throws {
        // GIVEN an abstract element nothing substitutes for, and a group with two members of one
        // local name in different namespaces
        let wsdl = Snippet.wsdl(
            """
            <wsdl:types>
              <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
                <xsd:element name="ghost" type="xsd:string" abstract="true"/>
                <xsd:element name="item" type="xsd:string"/>
                <xsd:element name="part" type="xsd:int" substitutionGroup="tns:item"/>
                <xsd:complexType name="Box"><xsd:sequence><xsd:element ref="tns:ghost" minOccurs="0"/><xsd:element ref="tns:item"/></xsd:sequence></xsd:complexType>
                <xsd:element name="Call" type="tns:Box"/>
                <xsd:element name="CallResponse"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
              </xsd:schema>
              <xsd:schema targetNamespace="urn:b" elementFormDefault="qualified">
                <xsd:element name="part" type="xsd:string" substitutionGroup="tns:item"/>
              </xsd:schema>
            </wsdl:types>
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
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN each gets one diagnostic: the abstract element is generated as itself, and the
        // second member of the name (in name order, urn:test after urn:b) is left out
        #expect(Self.summary(output) == [
            "warning polymorphism /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:element[@name='ghost']",
            "warning unsupportedContent /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:element[@name='part']",
        ])
        try expectField("ghost: String?", of: "Box", in: output)
        try expectField("item: ItemGroup", of: "Box", in: output)
        let types = try #require(output.file(named: "Types.swift")?.contents)
        let group = try #require(GeneratorSnippets.declaration("ItemGroup", in: types))
        #expect(group.contains("    case item(String)\n    /// The element `part`.\n    case part(String)\n"))
        #expect(group.contains(#""part": XMLTypeSchema.Field(namespace: "urn:b")"#))
    }

    @Test func aRequestElementNamedAfterItsOperationThatMembersMayStandForIsSentBare() throws {
        // GIVEN an operation whose request element has the wrapped form but heads a group, and a
        // bare response of two parts, the second a head
        let wsdl = Snippet.wsdl(
            """
            <wsdl:types>
              <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
                <xsd:complexType name="Lines"><xsd:sequence><xsd:element name="line" type="xsd:string" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>
                <xsd:element name="Order" type="tns:Lines"/>
                <xsd:element name="RushOrder" type="tns:Lines" substitutionGroup="tns:Order"/>
                <xsd:element name="receipt" type="xsd:string"/>
                <xsd:element name="status" type="xsd:string" abstract="true"/>
                <xsd:element name="shipped" type="xsd:date" substitutionGroup="tns:status"/>
                <xsd:element name="held" type="xsd:string" substitutionGroup="tns:status"/>
              </xsd:schema>
            </wsdl:types>
            <wsdl:message name="In"><wsdl:part name="order" element="tns:Order"/></wsdl:message>
            <wsdl:message name="Out"><wsdl:part name="receipt" element="tns:receipt"/><wsdl:part name="status" element="tns:status"/></wsdl:message>
            <wsdl:portType name="P"><wsdl:operation name="Order"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
            <wsdl:binding name="B" type="tns:P">
              <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
              <wsdl:operation name="Order"><soap:operation soapAction="order"/>
                <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output>
              </wsdl:operation>
            </wsdl:binding>
            """)
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(wsdl)
        // THEN nothing is diagnosed, the request is a bare part of the group's enum, and the
        // response's parts are read from the body
        #expect(Self.summary(output) == [])
        try expectField("order: OrderGroup", of: "OrderBody", in: output)
        try expectField("receipt: String", of: "OrderResponseBody", in: output)
        try expectField("status: StatusGroup", of: "OrderResponseBody", in: output)
        let operations = try #require(output.file(named: "Operations.swift")?.contents)
        let resource = try #require(GeneratorSnippets.declaration("Order", in: operations))
        #expect(resource.hasPrefix("/// The operation `Order` of the binding `B` (document/literal bare, SOAP 1.1).\n"))
        #expect(resource.contains("    typealias Model = OrderResponseBody\n"))
        #expect(resource.contains("    var request: OrderBody\n"))
        #expect(resource.contains("    var soapBinding: SOAPBinding { .documentLiteralBare }\n"))
        #expect(resource.contains("    var responsePath: [String] { [] }\n"))
    }
}
