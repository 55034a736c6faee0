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
}
