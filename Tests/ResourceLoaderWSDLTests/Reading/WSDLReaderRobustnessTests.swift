import Foundation
import ResourceLoaderWSDL
import Testing

@Suite("WSDL reader robustness")
struct WSDLReaderRobustnessTests {
    /// A document that uses most constructs, each with the attributes it needs.
    static let document = Snippet.wsdl(
        """
        <wsdl:types>
          <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
            <xsd:import namespace="urn:other" schemaLocation="other.xsd"/>
            <xsd:include schemaLocation="same.xsd"/>
            <xsd:group name="G"><xsd:choice><xsd:element name="g1" type="xsd:string"/><xsd:element name="g2" type="xsd:int"/></xsd:choice></xsd:group>
            <xsd:attributeGroup name="AG"><xsd:attribute name="at" type="xsd:string" use="required"/></xsd:attributeGroup>
            <xsd:complexType name="Base" abstract="true"><xsd:sequence><xsd:element name="id" type="xsd:int" minOccurs="0" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Derived"><xsd:complexContent><xsd:extension base="tns:Base"><xsd:sequence><xsd:group ref="tns:G"/><xsd:any namespace="##other"/></xsd:sequence><xsd:attributeGroup ref="tns:AG"/></xsd:extension></xsd:complexContent></xsd:complexType>
            <xsd:complexType name="Text"><xsd:simpleContent><xsd:extension base="xsd:string"><xsd:attribute ref="tns:lang"/></xsd:extension></xsd:simpleContent></xsd:complexType>
            <xsd:attribute name="lang" type="xsd:language"/>
            <xsd:simpleType name="E"><xsd:restriction base="xsd:string"><xsd:enumeration value="a"/><xsd:maxLength value="3"/></xsd:restriction></xsd:simpleType>
            <xsd:simpleType name="L"><xsd:list itemType="tns:E"/></xsd:simpleType>
            <xsd:simpleType name="U"><xsd:union memberTypes="tns:E xsd:int"/></xsd:simpleType>
            <xsd:element name="Op" type="tns:Derived" nillable="true"/>
            <xsd:element name="OpResponse" substitutionGroup="tns:Op"><xsd:complexType><xsd:sequence><xsd:element ref="tns:Op"/></xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="H" type="tns:Text"/>
          </xsd:schema>
        </wsdl:types>
        <wsdl:message name="In"><wsdl:part name="p" element="tns:Op"/></wsdl:message>
        <wsdl:message name="Out"><wsdl:part name="p" element="tns:OpResponse"/></wsdl:message>
        <wsdl:message name="Head"><wsdl:part name="h" element="tns:H"/></wsdl:message>
        <wsdl:portType name="Port">
          <wsdl:operation name="Op"><wsdl:input name="i" message="tns:In"/><wsdl:output message="tns:Out"/><wsdl:fault name="f" message="tns:Head"/></wsdl:operation>
        </wsdl:portType>
        <wsdl:binding name="Binding" type="tns:Port">
          <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Op"><soap:operation soapAction="urn:op" style="document"/>
            <wsdl:input name="i"><soap:body use="literal" parts="p"/><soap:header message="tns:Head" part="h" use="literal"/></wsdl:input>
            <wsdl:output><soap:body use="literal"/></wsdl:output>
            <wsdl:fault name="f"><soap:fault name="f" use="literal"/></wsdl:fault>
          </wsdl:operation>
        </wsdl:binding>
        <wsdl:service name="S"><wsdl:port name="P" binding="tns:Binding"><soap:address location="http://127.0.0.1/"/></wsdl:port></wsdl:service>
        """)

    static let files = [
        "other.xsd": #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:other"><xsd:element name="O" type="xsd:string"/></xsd:schema>"#,
        "same.xsd": #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:element name="S" type="xsd:string"/></xsd:schema>"#,
    ]

    /// The ranges of the document's attributes other than namespace declarations, after the
    /// XML declaration.
    static func attributeRanges(in text: String) throws -> [Range<String.Index>] {
        let pattern = try NSRegularExpression(pattern: #" (?!xmlns)[A-Za-z:]+="[^"]*""#)
        let start = try #require(text.range(of: "?>")).upperBound
        let range = NSRange(start..., in: text)
        return pattern.matches(in: text, range: range).compactMap { Range($0.range, in: text) }
    }

    @Test func theFullDocumentReadsWithoutDiagnostics() throws {
        let document = try Snippet.read(Self.document, files: Self.files)
        #expect(document.diagnostics.isEmpty)
        // The wrapper candidate has attributes (through its attribute group), so the operation is bare.
        #expect(document.bindings.first?.operations.first?.style == .documentBare)
        #expect(document.bindings.first?.operations.first?.input?.headers.count == 1)
    }

    @Test func removingAnyOneAttributeNeverCrashesNorThrows() throws {
        // GIVEN the document with each of its attributes taken out in turn
        let ranges = try Self.attributeRanges(in: Self.document)
        #expect(ranges.count > 80)
        var diagnosed = 0
        for range in ranges {
            var text = Self.document
            text.removeSubrange(range)
            // THEN it is read (it is still a well-formed WSDL 1.1 document), with or without diagnostics
            let document = try Snippet.read(text, files: Self.files)
            if !document.diagnostics.isEmpty { diagnosed += 1 }
            // AND reading it again gives the same model
            #expect(try Snippet.read(text, files: Self.files) == document)
        }
        // Most attributes matter: taking one out is diagnosed, or changes the model.
        #expect(diagnosed > ranges.count / 2)
    }

    @Test func anyTruncatedSchemaFileIsDiagnosedAndTheRestRead() throws {
        let other = try #require(Self.files["other.xsd"])
        for length in stride(from: 0, to: other.utf8.count - 1, by: 7) {
            let truncated = String(decoding: Array(other.utf8.prefix(length)), as: UTF8.self)
            let document = try Snippet.read(Self.document, files: ["other.xsd": truncated, "same.xsd": try #require(Self.files["same.xsd"])])
            #expect(document.diagnostics.first?.construct == .malformedDocument)
            #expect(document.bindings.first?.operations.count == 1)
        }
    }
    @Test(.timeLimit(.minutes(1)))
    func typesDerivedFromThemselvesAreDiagnosedWhenReadAndReadWithoutTheirDerivation() throws {
        // GIVEN types derived from themselves, directly or through another type, complex and
        // simple, and a type that extends one of them
        // WHEN the document is read
        let document = try Snippet.read(GeneratorSnippets.cyclicDerivations)
        // THEN each type of a cycle has an error diagnostic, in name order
        let schema = "/wsdl:definitions[@name='Test']/wsdl:types/xsd:schema"
        #expect(document.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" } == [
            "error invalidAttribute \(schema)/xsd:simpleType[@name='Loop']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Ping']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Pong']",
            "error invalidAttribute \(schema)/xsd:complexType[@name='Self']",
            "error invalidAttribute \(schema)/xsd:simpleType[@name='Tick']",
            "error invalidAttribute \(schema)/xsd:simpleType[@name='Tock']",
        ])
        #expect(document.diagnostics.allSatisfy { $0.message.contains("is derived from itself") })
        // AND no walk along the bases of the model read comes back to where it started
        for (name, type) in document.schemas.types {
            var seen: Set<QualifiedName> = [name]
            var base = Self.namedBase(of: type)
            while let next = base, let nextType = document.schemas.types[next] {
                guard seen.insert(next).inserted else {
                    Issue.record("\(name) leads back to \(next)")
                    break
                }
                base = Self.namedBase(of: nextType)
            }
        }
        // AND the type that extends one of them keeps its own derivation
        guard case .complex(let outside) = try #require(document.schemas.types[Snippet.name("Outside")]) else {
            Issue.record("Outside is not a complex type")
            return
        }
        #expect(outside.derivation?.base == Snippet.name("Ping"))
    }

    /// The named type `type` is derived from, if any.
    static func namedBase(of type: XSDType) -> QualifiedName? {
        switch type {
        case .complex(let complex): return complex.derivation?.base
        case .simple(let simple):
            guard case .restriction(.named(let base), _) = simple.variety else { return nil }
            return base
        }
    }
}
