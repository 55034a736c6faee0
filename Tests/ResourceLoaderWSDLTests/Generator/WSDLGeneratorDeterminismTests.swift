import Foundation
import ResourceLoaderWSDL
import Testing

@Suite("WSDLGenerator determinism")
struct WSDLGeneratorDeterminismTests {
    @Test func theSameInputGivesTheSameBytesInFixedFiles() throws {
        for wsdl in [GeneratorSnippets.wrapped, GeneratorSnippets.constructs, GeneratorSnippets.collisions, GeneratorSnippets.unsupported] {
            let first = try GeneratorSnippets.generate(wsdl)
            for _ in 0..<5 {
                #expect(try GeneratorSnippets.generate(wsdl) == first)
            }
            #expect(first.files.map(\.name) == WSDLGenerator.fileNames)
        }
    }

    @Test func theOutputDoesNotDependOnTheOrderFilesAreGiven() throws {
        // GIVEN the same documents handed over in dictionaries built in opposite orders
        let schema = """
            <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:test" elementFormDefault="qualified">
              \((0..<40).map { #"<xsd:complexType name="T\#($0)"><xsd:sequence><xsd:element name="v" type="xsd:int"/></xsd:sequence></xsd:complexType>"# }.joined())
              <xsd:complexType name="All"><xsd:sequence>\((0..<40).map { #"<xsd:element name="e\#($0)" type="tns:T\#($0)" xmlns:tns="urn:test"/>"# }.joined())</xsd:sequence></xsd:complexType>
            </xsd:schema>
            """
        let main = GeneratorSnippets.operation(requestType: "tns:All", schema: "").replacingOccurrences(
            of: #"<xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">"#,
            with: #"<xsd:schema targetNamespace="urn:test" elementFormDefault="qualified"><xsd:include schemaLocation="types.xsd"/>"#)
        var forward: [String: Data] = [:]
        forward["service.wsdl"] = Data(main.utf8)
        forward["types.xsd"] = Data(schema.utf8)
        var backward: [String: Data] = [:]
        backward["types.xsd"] = Data(schema.utf8)
        backward["service.wsdl"] = Data(main.utf8)
        // WHEN generating from each
        let first = WSDLGenerator().generate(try WSDLReader().read(path: "service.wsdl", in: forward))
        let second = WSDLGenerator().generate(try WSDLReader().read(path: "service.wsdl", in: backward))
        // THEN the bytes are equal, and every type is there
        #expect(first == second)
        #expect(first.diagnostics.isEmpty)
        let types = try #require(first.file(named: "Types.swift")?.contents)
        #expect((0..<40).allSatisfy { types.contains("struct T\($0): Codable") })
    }
}
