import Foundation
@testable import ResourceLoaderWSDL
import Testing

extension GeneratorSnippets {
    /// Texts and names that carry line breaks (`&#13;`, `&#13;&#10;`, `&#x2028;`, `&#x2029;`),
    /// quotes and backslashes into documentation, names, enumeration values, fault names,
    /// `soapAction` and a header element; and fields named like the locals and members generated
    /// code uses, in a struct and in a class hierarchy.
    static let hostile = Snippet.wsdl(
        Snippet.types(
            """
            <xsd:simpleType name="Mode">
              <xsd:annotation><xsd:documentation>Mode&#13;public let injected1 = 1</xsd:documentation></xsd:annotation>
              <xsd:restriction base="xsd:string">
                <xsd:enumeration value="a&#13;public let injected2 = 1"/>
                <xsd:enumeration value="q&quot;\\&#x2028;x&#x85;y"/>
              </xsd:restriction>
            </xsd:simpleType>
            <xsd:complexType name="Base">
              <xsd:annotation><xsd:documentation>Base&#13;&#10;public let injected3 = 1&#x2028;public let injected4 = 1&#x2029;public let injected5 = 1</xsd:documentation></xsd:annotation>
              <xsd:sequence>
                <xsd:element name="type" type="xsd:string"/>
                <xsd:element name="self" type="xsd:string"/>
                <xsd:element name="Self" type="xsd:int"/>
                <xsd:element name="super" type="xsd:string"/>
                <xsd:element name="hashValue" type="xsd:int"/>
                <xsd:element name="lhs" type="xsd:string"/>
                <xsd:element name="rhs" type="xsd:string" minOccurs="0"/>
              </xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Derived">
              <xsd:complexContent><xsd:extension base="tns:Base"><xsd:sequence>
                <xsd:element name="other" type="xsd:string"/>
                <xsd:element name="container" type="xsd:string" minOccurs="0"/>
                <xsd:element name="decoder" type="xsd:string" maxOccurs="unbounded"/>
                <xsd:element name="encoder" type="xsd:string"/>
                <xsd:element name="hasher" type="xsd:string"/>
                <xsd:element name="isEqual" type="xsd:boolean"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:element name="Tok&#13;public let injected8 = 1" type="xsd:string"/>
            <xsd:element name="Holder">
              <xsd:complexType><xsd:sequence>
                <xsd:element name="self" type="xsd:string"/>
                <xsd:element name="hashValue" type="xsd:int"/>
                <xsd:element name="mode" type="tns:Mode">
                  <xsd:annotation><xsd:documentation>Line&#13;public let injected10 = 1</xsd:documentation></xsd:annotation>
                </xsd:element>
                <xsd:element name="base" type="tns:Base" minOccurs="0"/>
                <xsd:choice>
                  <xsd:element name="c&#13;public let injected9 = 1" type="xsd:string"/>
                  <xsd:element name="d" type="xsd:int"/>
                </xsd:choice>
              </xsd:sequence></xsd:complexType>
            </xsd:element>
            <xsd:element name="HolderResponse"><xsd:complexType><xsd:sequence><xsd:element name="derived" type="tns:Derived"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="Oops"><xsd:complexType><xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
            """)
            + """
            <wsdl:message name="In"><wsdl:part name="parameters" element="tns:Holder"/></wsdl:message>
            <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:HolderResponse"/></wsdl:message>
            <wsdl:message name="Header"><wsdl:part name="token" element="tns:Tok&#13;public let injected8 = 1"/></wsdl:message>
            <wsdl:message name="Fault"><wsdl:part name="fault" element="tns:Oops"/></wsdl:message>
            <wsdl:portType name="Holders">
              <wsdl:operation name="Holder">
                <wsdl:documentation>Holds.&#13;public let injected6 = 1</wsdl:documentation>
                <wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/><wsdl:fault name="Oops&#13;public let injected7 = 1" message="tns:Fault"/>
              </wsdl:operation>
            </wsdl:portType>
            <wsdl:binding name="HoldersSoap" type="tns:Holders">
              <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
              <wsdl:operation name="Holder">
                <soap:operation soapAction="urn:a&#13;b&quot;c\\d&#x2028;e"/>
                <wsdl:input><soap:body use="literal"/><soap:header message="tns:Header" part="token" use="literal"/></wsdl:input>
                <wsdl:output><soap:body use="literal"/></wsdl:output>
                <wsdl:fault name="Oops&#13;public let injected7 = 1"><soap:fault name="Oops&#13;public let injected7 = 1" use="literal"/></wsdl:fault>
              </wsdl:operation>
            </wsdl:binding>
            <wsdl:service name="HolderService">
              <wsdl:port name="HoldersPort" binding="tns:HoldersSoap"><soap:address location="http://example.com/my service/a&quot;b"/></wsdl:port>
            </wsdl:service>
            """)

    /// A group that holds itself through a local element of an anonymous type, used by a
    /// named type.
    static let recursiveGroup = operation(
        requestType: "tns:Filter",
        schema: """
            <xsd:group name="Expr">
              <xsd:sequence>
                <xsd:element name="field" type="xsd:string" minOccurs="0"/>
                <xsd:element name="and" minOccurs="0">
                  <xsd:complexType><xsd:sequence><xsd:group ref="tns:Expr"/></xsd:sequence></xsd:complexType>
                </xsd:element>
              </xsd:sequence>
            </xsd:group>
            <xsd:complexType name="Filter"><xsd:sequence><xsd:group ref="tns:Expr"/></xsd:sequence></xsd:complexType>
            """)

    /// A named type with a local element whose anonymous type extends the named type.
    static let anonymousExtensionOfItsHolder = operation(
        requestType: "tns:Node",
        schema: """
            <xsd:complexType name="Node">
              <xsd:sequence>
                <xsd:element name="label" type="xsd:string"/>
                <xsd:element name="child" minOccurs="0">
                  <xsd:complexType><xsd:complexContent><xsd:extension base="tns:Node"><xsd:sequence>
                    <xsd:element name="depth" type="xsd:int"/>
                  </xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>
                </xsd:element>
              </xsd:sequence>
            </xsd:complexType>
            """)

    /// A base type reached first whose element has a type derived from it.
    static let baseHoldingItsDerivedType = operation(
        requestType: "tns:Node",
        schema: """
            <xsd:complexType name="Node">
              <xsd:sequence>
                <xsd:element name="name" type="xsd:string"/>
                <xsd:element name="child" type="tns:Special" minOccurs="0"/>
              </xsd:sequence>
              <xsd:attribute name="id" type="xsd:int" use="required"/>
            </xsd:complexType>
            <xsd:complexType name="Special">
              <xsd:complexContent><xsd:extension base="tns:Node"><xsd:sequence>
                <xsd:element name="flag" type="xsd:boolean"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            """)

    /// Types derived from themselves: directly and through another type, complex and simple,
    /// and a type that extends one of them.
    static let cyclicDerivations = operation(
        requestType: "tns:Holder",
        schema: """
            <xsd:complexType name="Self">
              <xsd:complexContent><xsd:extension base="tns:Self"><xsd:sequence>
                <xsd:element name="own" type="xsd:string"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Ping">
              <xsd:complexContent><xsd:extension base="tns:Pong"><xsd:sequence>
                <xsd:element name="ping" type="xsd:string"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Pong">
              <xsd:complexContent><xsd:extension base="tns:Ping"><xsd:sequence>
                <xsd:element name="pong" type="xsd:string"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Outside">
              <xsd:complexContent><xsd:extension base="tns:Ping"><xsd:sequence>
                <xsd:element name="outside" type="xsd:string"/>
              </xsd:sequence></xsd:extension></xsd:complexContent>
            </xsd:complexType>
            <xsd:simpleType name="Loop"><xsd:restriction base="tns:Loop"><xsd:maxLength value="3"/></xsd:restriction></xsd:simpleType>
            <xsd:simpleType name="Tick"><xsd:restriction base="tns:Tock"/></xsd:simpleType>
            <xsd:simpleType name="Tock"><xsd:restriction base="tns:Tick"/></xsd:simpleType>
            <xsd:complexType name="Holder">
              <xsd:sequence>
                <xsd:element name="self" type="tns:Self"/>
                <xsd:element name="ping" type="tns:Ping"/>
                <xsd:element name="outside" type="tns:Outside"/>
                <xsd:element name="loop" type="tns:Loop"/>
                <xsd:element name="tick" type="tns:Tick"/>
              </xsd:sequence>
            </xsd:complexType>
            """)
}

@Suite("Generator: hostile input")
struct GeneratorHostileInputTests {
    /// Every character Swift's lexer or a reader may take as the end of a line.
    static let lineBreaks: [Unicode.Scalar] = ["\r", "\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]

    @Test func textsAndNamesCannotBreakOutOfCommentsOrLiterals() throws {
        // GIVEN a WSDL whose texts and names hold line breaks, quotes and backslashes
        let output = try GeneratorSnippets.generate(GeneratorSnippets.hostile)
        let text = output.files.map(\.contents).joined(separator: "\n")
        // WHEN it is generated
        // THEN no line break is there but the line feeds that end lines
        for scalar in Self.lineBreaks where scalar != "\n" {
            #expect(!text.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16, uppercase: true)) is in the output")
        }
        // AND every injected declaration is in a comment or a string literal
        for line in text.split(separator: "\n") where line.contains("injected") {
            let trimmed = line.drop { $0 == " " }
            #expect(trimmed.hasPrefix("///") || trimmed.hasPrefix("//") || trimmed.contains("\"") , "\(line)")
            #expect(!trimmed.hasPrefix("public let injected"), "\(line)")
        }
        // AND the values are written as escapes
        #expect(text.contains(#"case "a\rpublic let injected2 = 1": self = .aPublicLetInjected21"#))
        #expect(text.contains(#""q\"\\\u{2028}x\u{85}y""#))
        #expect(text.contains(#"var soapAction: String? { "urn:a\rb\"c\\d\u{2028}e" }"#))
    }

    /// The diagnostics as `severity construct path` lines.
    static func summary(_ output: WSDLGeneratorOutput) -> [String] {
        output.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" }
    }

    /// The generated models, all files together.
    static func types(_ output: WSDLGeneratorOutput) -> String {
        output.files.filter { $0.name.hasPrefix("Types") }.map(\.contents).joined(separator: "\n")
    }

    @Test func aGroupThatHoldsItselfThroughAnAnonymousTypeIsRecursiveContent() throws {
        // GIVEN a group whose local element's anonymous type refers to the group again
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.recursiveGroup)
        // THEN the anonymous type is one struct that holds itself through an array of at most
        // one item, and the recursion is diagnosed once
        #expect(Self.summary(output) == [
            "warning recursiveContent /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:group[@name='Expr']/xsd:sequence/xsd:element[@name='and']/xsd:complexType",
        ])
        let types = Self.types(output)
        let filter = try #require(GeneratorSnippets.declaration("Filter", in: types))
        #expect(filter.contains("    var field: String?\n    var and: FilterAnd?\n"))
        let and = try #require(GeneratorSnippets.declaration("FilterAnd", in: types))
        #expect(and.contains("    var field: String?\n    /// At most one item: the type holds itself through this element.\n    var and: [FilterAnd]\n"))
        #expect(!types.contains("FilterAndAnd"))
    }

    @Test func anAnonymousTypeThatExtendsItsHolderIsRecursiveContent() throws {
        // GIVEN a named type whose local element's anonymous type extends the named type
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.anonymousExtensionOfItsHolder)
        // THEN the anonymous type has the base's content and its own, and holds itself through
        // an array of at most one item
        #expect(Self.summary(output).contains(
            "warning recursiveContent /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:complexType[@name='Node']/xsd:sequence/xsd:element[@name='child']/xsd:complexType"))
        let types = Self.types(output)
        let node = try #require(GeneratorSnippets.declaration("Node", in: types))
        #expect(node.contains("    var label: String\n    var child: NodeChild?\n"))
        let child = try #require(GeneratorSnippets.declaration("NodeChild", in: types))
        #expect(child.contains("    var label: String\n    /// At most one item: the type holds itself through this element.\n    var child: [NodeChild]\n    var depth: Int32\n"))
        #expect(!types.contains("NodeChildChild"))
    }

    @Test func aBaseTypeThatHoldsItsDerivedTypeIsInheritedInFull() throws {
        // GIVEN a base type, reached first, one of whose elements has a type derived from it
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.baseHoldingItsDerivedType)
        #expect(Self.summary(output) == [])
        // THEN the derived class takes the base's fields and passes them on, and its schema
        // has the base's entries
        let types = Self.types(output)
        let special = try #require(GeneratorSnippets.declaration("Special", in: types))
        #expect(special.contains("    init(name: String, child: Special? = nil, id: Int32, flag: Bool) {\n"))
        #expect(special.contains("        super.init(name: name, child: child, id: id)\n"))
        #expect(special.contains(#""id": .attribute"#))
        let node = try #require(GeneratorSnippets.declaration("Node", in: types))
        #expect(node.contains("    let child: Special?\n"))
    }

    @Test(.timeLimit(.minutes(1)))
    func typesDerivedFromThemselvesAreDiagnosedAndGeneratedWithoutTheirDerivation() throws {
        // GIVEN types derived from themselves, directly or through another type, and a type
        // that extends one of them
        // WHEN it is generated
        let output = try GeneratorSnippets.generate(GeneratorSnippets.cyclicDerivations)
        // THEN each type of a cycle has an error diagnostic, in name order
        let schema = "/wsdl:definitions[@name='Test']/wsdl:types/xsd:schema"
        #expect(Self.summary(output) == [
            "error invalidAttribute \(schema)/xsd:simpleType[@name='Loop']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Ping']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Pong']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Self']",
            "error invalidAttribute \(schema)/xsd:simpleType[@name='Tick']",
            "error invalidAttribute \(schema)/xsd:simpleType[@name='Tock']",
        ])
        // AND is generated with its own content only: a complex type as a struct, a simple type
        // as text; a type that extends one of them is a subclass of its class
        let types = Self.types(output)
        let holder = try #require(GeneratorSnippets.declaration("Holder", in: types))
        #expect(holder.contains("    var self2: SelfType\n    var ping: Ping\n    var outside: Outside\n    var loop: String\n    var tick: String\n"))
        let selfType = try #require(GeneratorSnippets.declaration("SelfType", in: types))
        #expect(selfType.contains("struct SelfType: Codable") && selfType.contains("    var own: String\n"))
        let outside = try #require(GeneratorSnippets.declaration("Outside", in: types))
        #expect(outside.contains("final class Outside: Ping, @unchecked Sendable {"))
        #expect(outside.contains("    init(ping: String, outside: String) {\n"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aDerivationCycleMadeByHandIsDiagnosedAndGeneratedWithoutIt() throws {
        // GIVEN a document read without diagnostics, whose type is then made to extend itself
        var document = try Snippet.read(GeneratorSnippets.cyclicDerivations)
        document.diagnostics = []
        let name = Snippet.name("Outside")
        guard case .complex(var outside) = try #require(document.schemas.types[name]) else {
            Issue.record("Outside is not a complex type")
            return
        }
        outside.derivation = XSDDerivation(method: .extension, content: .complex, base: name)
        document.schemas.types[name] = .complex(outside)
        // WHEN it is generated
        let output = WSDLGenerator().generate(document)
        // THEN the generator diagnoses the cycle and generates the type without its derivation
        let schema = "/wsdl:definitions[@name='Test']/wsdl:types/xsd:schema"
        #expect(Self.summary(output) == ["error invalidAttribute \(schema)/xsd:complexType[@name='Outside']"])
        let types = Self.types(output)
        let generated = try #require(GeneratorSnippets.declaration("Outside", in: types))
        #expect(generated.contains("struct Outside: Codable") && generated.contains("    var outside: String\n"))
    }

    @Test func documentationWithLineBreaksIsOnlyCommentLines() {
        for lineBreak in Self.lineBreaks.map(String.init) + ["\r\n"] {
            #expect(
                SwiftNaming.docComment("Total" + lineBreak + "public let injected = 1", indent: "    ")
                    == "    /// Total\n    /// public let injected = 1\n", "\(lineBreak.debugDescription)")
        }
        // Other control characters are written as spaces.
        #expect(SwiftNaming.docComment("a\u{0}b\u{1B}c\u{7F}", indent: "") == "/// a b c\n")
        #expect(SwiftNaming.docComment("\r\n\r\nOne\r\rTwo\u{2028}", indent: "") == "/// One\n///\n/// Two\n")
    }

    @Test func literalsEscapeLineSeparators() {
        #expect(SwiftNaming.literal("a\u{2028}b\u{2029}c\u{85}d") == #""a\u{2028}b\u{2029}c\u{85}d""#)
    }

    /// Groups that each refer to the one before twice double at every level: the content a type
    /// expands to through them is bounded, with a diagnostic, instead of keeping the generator
    /// busy for ever.
    @Test(.timeLimit(.minutes(5)), arguments: [false, true])
    func groupsThatDoubleAtEveryLevelAreExpandedToABound(attributes: Bool) throws {
        let depth = 24
        var schema = attributes
            ? #"<xsd:attributeGroup name="G0"><xsd:attribute name="leaf" type="xsd:string"/></xsd:attributeGroup>"#
            : #"<xsd:group name="G0"><xsd:sequence><xsd:element name="leaf" type="xsd:string"/></xsd:sequence></xsd:group>"#
        for level in 1...depth {
            schema += attributes
                ? #"<xsd:attributeGroup name="G\#(level)"><xsd:attributeGroup ref="tns:G\#(level - 1)"/><xsd:attributeGroup ref="tns:G\#(level - 1)"/></xsd:attributeGroup>"#
                : #"<xsd:group name="G\#(level)"><xsd:sequence><xsd:group ref="tns:G\#(level - 1)"/><xsd:group ref="tns:G\#(level - 1)"/></xsd:sequence></xsd:group>"#
        }
        schema += attributes
            ? #"<xsd:complexType name="Deep"><xsd:sequence><xsd:element name="v" type="xsd:string"/></xsd:sequence><xsd:attributeGroup ref="tns:G\#(depth)"/></xsd:complexType>"#
            : #"<xsd:complexType name="Deep"><xsd:sequence><xsd:group ref="tns:G\#(depth)"/></xsd:sequence></xsd:complexType>"#
        let output = try GeneratorSnippets.generate(GeneratorSnippets.operation(requestType: "tns:Deep", schema: schema))
        let types = try #require(output.file(named: "Types.swift")?.contents)
        let deep = try #require(GeneratorSnippets.declaration("Deep", in: types))
        #expect(deep.contains("var leaf: String"))
        #expect(output.diagnostics.contains { $0.message.contains("expands to more than 10000 particles and attributes") })
    }

    /// Anonymous types inside groups that each refer to the one before twice double at every
    /// level: the structs made for them are bounded, with a diagnostic.
    @Test(.timeLimit(.minutes(5)))
    func anonymousTypesThatDoubleAtEveryLevelAreBounded() throws {
        let depth = 16
        var schema = #"<xsd:group name="G0"><xsd:sequence><xsd:element name="leaf" type="xsd:string"/></xsd:sequence></xsd:group>"#
        for level in 1...depth {
            let inner = #"<xsd:complexType><xsd:sequence><xsd:group ref="tns:G\#(level - 1)"/></xsd:sequence></xsd:complexType>"#
            schema += #"<xsd:group name="G\#(level)"><xsd:sequence><xsd:element name="a\#(level)">\#(inner)</xsd:element><xsd:element name="b\#(level)">\#(inner)</xsd:element></xsd:sequence></xsd:group>"#
        }
        schema += #"<xsd:complexType name="Deep"><xsd:sequence><xsd:group ref="tns:G\#(depth)"/></xsd:sequence></xsd:complexType>"#
        let output = try GeneratorSnippets.generate(GeneratorSnippets.operation(requestType: "tns:Deep", schema: schema))
        let types = output.files.map(\.contents).joined()
        #expect(types.components(separatedBy: "An anonymous type of the schema.").count - 1 == 10_000)
        #expect(output.diagnostics.contains { $0.message.contains("more than 10000 anonymous types would be generated") })
    }

    /// A name that holds a line break (`&#10;` in an attribute) cannot make a diagnostic read as
    /// more lines, such as a forged `warning:` line of a build log.
    @Test func aDiagnosticIsOneLineWhateverTheWSDLNames() throws {
        let wsdl = Snippet.wsdl(
            Snippet.types(#"<xsd:element name="Call" type="q&#10;warning: forged.wsdl:1: fine&#13;&#10;0 errors&#x2028;x:y"/>"#))
        let document = try Snippet.read(wsdl)
        let output = WSDLGenerator().generate(document)
        let diagnostics = document.diagnostics + output.diagnostics
        #expect(!diagnostics.isEmpty)
        for diagnostic in diagnostics {
            #expect(!diagnostic.description.contains { $0.isNewline }, "\(diagnostic.description.debugDescription)")
        }
        #expect(diagnostics.contains { $0.description.contains("warning: forged.wsdl:1: fine") })
    }

    /// Bidirectional controls would reorder a generated line as an editor shows it: literals
    /// escape them, comments write them as spaces.
    @Test func bidirectionalControlsAreEscapedInLiteralsAndSpacesInComments() {
        #expect(SwiftNaming.literal("a\u{202E}b\u{2066}c\u{061C}d\u{200F}") == #""a\u{202e}b\u{2066}c\u{61c}d\u{200f}""#)
        #expect(SwiftNaming.literal("é ü ✓") == #""é ü ✓""#)
        #expect(SwiftNaming.docComment("fixed at \u{202E}evil\u{2069} ok", indent: "") == "/// fixed at  evil  ok\n")
        #expect(SwiftNaming.commentText("x\u{061C}y") == "x y")
        #expect(SwiftNaming.docComment("ت ث", indent: "") == "/// ت ث\n")
    }
}
