import Foundation
import ResourceLoader
@testable import ResourceLoaderWSDL
import Testing

@Suite("WSDL and schema imports")
struct WSDLImportReadingTests {
    static func schema(_ targetNamespace: String?, _ body: String) -> String {
        let namespace = targetNamespace.map { #"targetNamespace="\#($0)" xmlns:tns="\#($0)""# } ?? ""
        return #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" \#(namespace) elementFormDefault="qualified">\#(body)</xsd:schema>"#
    }

    @Test func readsTransitiveImportsRelativeToEachFileOnce() throws {
        // GIVEN an inline schema that imports a file, which imports another in a sibling folder,
        // which imports the first back (a cycle)
        let main = Snippet.wsdl(
            Snippet.types(
                """
                <xsd:import namespace="urn:a" schemaLocation="schemas/a.xsd"/>
                <xsd:element name="Root" xmlns:a="urn:a" type="a:A"/>
                """))
        let document = try Snippet.read(
            main,
            files: [
                "schemas/a.xsd": Self.schema(
                    "urn:a",
                    #"<xsd:import namespace="urn:b" schemaLocation="../other/./b.xsd"/><xsd:complexType name="A"><xsd:sequence><xsd:element name="b" xmlns:b="urn:b" type="b:B"/></xsd:sequence></xsd:complexType>"#
                ),
                "other/b.xsd": Self.schema(
                    "urn:b",
                    #"<xsd:import namespace="urn:a" schemaLocation="../schemas/a.xsd"/><xsd:simpleType name="B"><xsd:restriction base="xsd:string"/></xsd:simpleType>"#
                ),
            ])
        // THEN each file is read once and every reference resolves
        #expect(document.diagnostics.isEmpty)
        #expect(document.files == ["service.wsdl", "schemas/a.xsd", "other/b.xsd"])
        #expect(document.schemas.schemas.map(\.file) == ["service.wsdl", "schemas/a.xsd", "other/b.xsd"])
        #expect(document.schemas.types[QualifiedName(namespace: "urn:b", name: "B")] != nil)
    }

    @Test func aChameleonIncludeTakesTheIncludersNamespace() throws {
        // GIVEN a schema without a target namespace, included by two schemas of different namespaces
        let chameleon = #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:complexType name="Money"><xsd:sequence><xsd:element name="code" type="Code"/></xsd:sequence></xsd:complexType><xsd:simpleType name="Code"><xsd:restriction base="xsd:string"/></xsd:simpleType></xsd:schema>"#
        let document = try Snippet.read(
            Snippet.wsdl(
                """
                <wsdl:types>
                  <xsd:schema targetNamespace="urn:one"><xsd:include schemaLocation="money.xsd"/></xsd:schema>
                  <xsd:schema targetNamespace="urn:two"><xsd:include schemaLocation="money.xsd"/></xsd:schema>
                </wsdl:types>
                """),
            files: ["money.xsd": chameleon])
        // THEN its components are in each includer's namespace, and its unprefixed references too
        #expect(document.diagnostics.isEmpty)
        for namespace in ["urn:one", "urn:two"] {
            guard case .complex(let money) = try #require(document.schemas.types[QualifiedName(namespace: namespace, name: "Money")]) else {
                Issue.record("Money is not complex in \(namespace)")
                continue
            }
            #expect(money.particle?.term.particles.first?.term.element?.type == .named(QualifiedName(namespace: namespace, name: "Code")))
        }
        #expect(document.schemas.schemas.filter(\.isChameleon).map(\.targetNamespace) == ["urn:one", "urn:two"])
    }

    @Test func includeCyclesAndSelfIncludesEndAndTheFileLimitHolds() throws {
        // GIVEN chameleon schemas that include each other and themselves
        let a = #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:include schemaLocation="a.xsd"/><xsd:include schemaLocation="b.xsd"/><xsd:element name="A" type="B"/></xsd:schema>"#
        let b = #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:include schemaLocation="a.xsd"/><xsd:simpleType name="B"><xsd:restriction base="xsd:string"/></xsd:simpleType></xsd:schema>"#
        let main = Snippet.wsdl(Snippet.types(#"<xsd:include schemaLocation="a.xsd"/>"#))
        let document = try Snippet.read(main, files: ["a.xsd": a, "b.xsd": b])
        // THEN each is read once, in the includer's namespace
        #expect(document.diagnostics.isEmpty)
        #expect(document.files == ["service.wsdl", "a.xsd", "b.xsd"])
        #expect(document.schemas.element(named: Snippet.name("A"))?.type == .named(Snippet.name("B")))

        // AND with a limit of two files, the third is refused with a diagnostic
        let limited = try Snippet.read(main, files: ["a.xsd": a, "b.xsd": b], options: WSDLReaderOptions(maximumFileCount: 2))
        #expect(limited.files == ["service.wsdl", "a.xsd"])
        #expect(limited.diagnostics.map(\.construct) == [.missingFile, .unresolvedReference])
        #expect(limited.diagnostics.first?.message.contains("limit of 2 files") == true)
    }

    @Test func readsSeveralInlineSchemasOfOneNamespace() throws {
        let document = try Snippet.read(
            Snippet.wsdl(
                """
                <wsdl:types>
                  <xsd:schema targetNamespace="urn:test"><xsd:element name="First" type="xsd:string"/></xsd:schema>
                  <xsd:schema targetNamespace="urn:test"><xsd:element name="Second" type="xsd:string"/></xsd:schema>
                </wsdl:types>
                """))
        #expect(document.diagnostics.isEmpty)
        #expect(document.schemas.schemas.count == 2)
        #expect(document.schemas.elements.keys.map(\.name).sorted() == ["First", "Second"])
    }

    @Test func inlineSchemasImportEachOtherByNamespaceAlone() throws {
        // GIVEN WCF's layout: inline schemas that import each other's namespace without a location
        let document = try Snippet.read(
            Snippet.wsdl(
                """
                <wsdl:types>
                  <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
                    <xsd:import namespace="urn:contracts"/>
                    <xsd:element name="Get"><xsd:complexType><xsd:sequence>
                      <xsd:element name="request" type="c:Request" nillable="true" xmlns:c="urn:contracts"/>
                    </xsd:sequence></xsd:complexType></xsd:element>
                  </xsd:schema>
                  <xsd:schema targetNamespace="urn:contracts" elementFormDefault="qualified">
                    <xsd:complexType name="Request"><xsd:sequence><xsd:element name="Id" type="xsd:int"/></xsd:sequence></xsd:complexType>
                  </xsd:schema>
                </wsdl:types>
                """))
        #expect(document.diagnostics.isEmpty)
        #expect(document.files == ["service.wsdl"])
        #expect(document.schemas.types[QualifiedName(namespace: "urn:contracts", name: "Request")] != nil)
    }

    @Test func wellKnownSchemasAreNeverFetchedAndResolve() throws {
        // GIVEN imports of well-known namespaces, even with remote schema locations
        let document = try Snippet.readSchema(
            """
            <xsd:import namespace="http://www.w3.org/XML/1998/namespace" schemaLocation="http://www.w3.org/2001/xml.xsd"/>
            <xsd:import namespace="http://schemas.xmlsoap.org/soap/encoding/" schemaLocation="http://schemas.xmlsoap.org/soap/encoding/"/>
            <xsd:import namespace="http://www.w3.org/2005/05/xmlmime" schemaLocation="http://www.w3.org/2005/05/xmlmime"/>
            <xsd:import namespace="http://schemas.xmlsoap.org/soap/envelope/"/>
            <xsd:complexType name="Doc" xmlns:xml="http://www.w3.org/XML/1998/namespace" xmlns:xmime="http://www.w3.org/2005/05/xmlmime"
                xmlns:env="http://schemas.xmlsoap.org/soap/envelope/">
              <xsd:sequence>
                <xsd:element name="file" type="xsd:base64Binary"/>
                <xsd:element name="s" type="soapenc:string"/>
                <xsd:element ref="env:Fault"/>
                <xsd:element ref="xsd:schema"/>
              </xsd:sequence>
              <xsd:attribute ref="xml:lang"/>
              <xsd:attribute ref="xmime:contentType"/>
            </xsd:complexType>
            """)
        #expect(document.diagnostics.isEmpty)
        #expect(document.files == ["service.wsdl"])
    }

    @Test func refusesRemoteLocationsUnlessMappedAndNamesTheURL() throws {
        let main = Snippet.wsdl(
            Snippet.types(
                """
                <xsd:import namespace="urn:a" schemaLocation="https://example.com/a.xsd"/>
                <xsd:import namespace="urn:b" schemaLocation="https://example.com/b.xsd"/>
                """))
        let files = ["local/b.xsd": Self.schema("urn:b", #"<xsd:element name="B" type="xsd:string"/>"#)]
        let document = try Snippet.read(main, files: files, options: WSDLReaderOptions(schemaLocations: ["https://example.com/b.xsd": "local/b.xsd"]))
        // THEN the unmapped URL is named in one diagnostic, and the mapped one is read locally
        #expect(document.diagnostics.map(\.construct) == [.remoteLocation])
        #expect(document.diagnostics.first?.message.contains("https://example.com/a.xsd") == true)
        #expect(document.files == ["service.wsdl", "local/b.xsd"])
        #expect(document.schemas.element(named: QualifiedName(namespace: "urn:b", name: "B")) != nil)
    }

    @Test func diagnosesMissingAndMalformedFilesAndReadsTheRest() throws {
        let main = Snippet.wsdl(
            Snippet.types(
                """
                <xsd:import namespace="urn:a" schemaLocation="missing.xsd"/>
                <xsd:import namespace="urn:b" schemaLocation="broken.xsd"/>
                <xsd:import namespace="urn:c" schemaLocation="not-a-schema.xsd"/>
                <xsd:include/>
                <xsd:element name="Kept" type="xsd:string"/>
                """))
        let document = try Snippet.read(main, files: ["broken.xsd": "<xsd:schema", "not-a-schema.xsd": "<html/>"])
        let schema = "/wsdl:definitions[@name='Test']/wsdl:types/xsd:schema"
        #expect(
            document.diagnosticSummary == [
                "error invalidAttribute \(schema)/xsd:include",
                "error missingFile \(schema)/xsd:import",
                "error malformedDocument \(schema)/xsd:import",
                "error malformedDocument \(schema)/xsd:import",
            ])
        #expect(document.diagnostics[1].message.contains("missing.xsd"))
        #expect(document.schemas.element(named: Snippet.name("Kept")) != nil)
    }

    @Test func readsAnImportDirectlyInTypesWithAWarning() throws {
        let document = try Snippet.read(
            Snippet.wsdl(#"<wsdl:types><xsd:import namespace="urn:a" schemaLocation="a.xsd"/></wsdl:types>"#),
            files: ["a.xsd": Self.schema("urn:a", #"<xsd:element name="A" type="xsd:string"/>"#)])
        #expect(document.diagnosticSummary == ["warning importOutsideSchema /wsdl:definitions[@name='Test']/wsdl:types/xsd:import"])
        #expect(document.schemas.element(named: QualifiedName(namespace: "urn:a", name: "A")) != nil)
    }

    @Test func readsImportedWSDLDocuments() throws {
        // GIVEN a WSDL that imports the definitions of its messages and port type from another
        let abstract = """
            <wsdl:definitions targetNamespace="urn:abstract" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
              <wsdl:message name="In"><wsdl:part name="n" type="xsd:int"/></wsdl:message>
              <wsdl:portType name="Port"><wsdl:operation name="Op"><wsdl:input message="abs:In" xmlns:abs="urn:abstract"/></wsdl:operation></wsdl:portType>
            </wsdl:definitions>
            """
        let document = try Snippet.read(
            Snippet.wsdl(
                """
                <wsdl:import namespace="urn:abstract" location="abstract.wsdl"/>
                <wsdl:binding name="B" type="abs:Port" xmlns:abs="urn:abstract">
                  <soap:binding style="rpc"/>
                  <wsdl:operation name="Op"><wsdl:input><soap:body use="literal" namespace="urn:test"/></wsdl:input></wsdl:operation>
                </wsdl:binding>
                """),
            files: ["abstract.wsdl": abstract])
        #expect(document.diagnostics.isEmpty)
        #expect(document.files == ["service.wsdl", "abstract.wsdl"])
        #expect(document.bindings.first?.operations.first?.input?.bodyParts.first?.type == Snippet.xsd("int"))
    }

    @Test func readsASchemaNamedByWSDLImportAndTheTypesOfAWSDLNamedBySchemaLocation() throws {
        // GIVEN a wsdl:import of a schema file, and an xsd:import of a WSDL file's types
        let typesWSDL = """
            <wsdl:definitions targetNamespace="urn:w" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
              <wsdl:types><xsd:schema targetNamespace="urn:w"><xsd:element name="W" type="xsd:string"/></xsd:schema></wsdl:types>
            </wsdl:definitions>
            """
        let document = try Snippet.read(
            Snippet.wsdl(
                """
                <wsdl:import namespace="urn:a" location="a.xsd"/>
                \(Snippet.types(#"<xsd:import namespace="urn:w" schemaLocation="types.wsdl"/><xsd:import namespace="urn:w" schemaLocation="./types.wsdl"/>"#))
                """),
            files: ["a.xsd": Self.schema("urn:a", #"<xsd:element name="A" type="xsd:string"/>"#), "types.wsdl": typesWSDL])
        #expect(document.diagnostics.isEmpty)
        #expect(Set(document.schemas.elements.keys.map(\.name)) == ["A", "W"])
    }

    @Test func readsFilesFromDiskRelativeToTheMainDocument() throws {
        // GIVEN a WSDL and its schema in a temporary folder, and a remote location mapped to a
        // path relative to the main document
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsdl-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("xsd"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            Snippet.wsdl(
                Snippet.types(
                    """
                    <xsd:import namespace="urn:a" schemaLocation="xsd/a.xsd"/>
                    <xsd:import namespace="urn:b" schemaLocation="http://example.com/b.xsd"/>
                    """)
            ).utf8
        ).write(to: folder.appendingPathComponent("service.wsdl"))
        try Data(Self.schema("urn:a", #"<xsd:element name="A" type="xsd:string"/>"#).utf8).write(to: folder.appendingPathComponent("xsd/a.xsd"))
        try Data(Self.schema("urn:b", #"<xsd:element name="B" type="xsd:string"/>"#).utf8).write(to: folder.appendingPathComponent("xsd/b.xsd"))
        let reader = WSDLReader(options: WSDLReaderOptions(schemaLocations: ["http://example.com/b.xsd": "xsd/b.xsd"]))
        let document = try reader.read(contentsOf: folder.appendingPathComponent("service.wsdl"))
        #expect(document.diagnostics.isEmpty)
        #expect(document.files.map { URL(fileURLWithPath: $0).lastPathComponent } == ["service.wsdl", "a.xsd", "b.xsd"])
        #expect(document.schemas.elements.count == 2)
    }

    @Test func throwsForAMainDocumentThatCannotBeRead() {
        #expect(throws: WSDLReadingError.unreadable(file: "nothing.wsdl", reason: "no such file")) {
            try WSDLReader().read(path: "nothing.wsdl", in: [:])
        }
        #expect(throws: WSDLReadingError.malformed(file: "a.wsdl", .noRoot)) {
            try WSDLReader().read(path: "a.wsdl", in: ["a.wsdl": Data("<?xml version=\"1.0\"?>".utf8)])
        }
        let wsdl2 = #"<description xmlns="http://www.w3.org/ns/wsdl"/>"#
        #expect(throws: WSDLReadingError.notWSDL11(file: "a.wsdl", root: QualifiedName(namespace: "http://www.w3.org/ns/wsdl", name: "description"))) {
            try WSDLReader().read(path: "a.wsdl", in: ["a.wsdl": Data(wsdl2.utf8)])
        }
        #expect(throws: WSDLReadingError.self) {
            try WSDLReader().read(contentsOf: URL(fileURLWithPath: "/nonexistent/folder/service.wsdl"))
        }
    }

    @Test(arguments: [
        ("a.xsd", "main.wsdl", "a.xsd"),
        ("a.xsd", "x/y/main.wsdl", "x/y/a.xsd"),
        ("../a.xsd", "x/y/main.wsdl", "x/a.xsd"),
        ("./../../../a.xsd", "x/main.wsdl", "../../a.xsd"),
        ("/abs/a.xsd", "x/main.wsdl", "/abs/a.xsd"),
        ("a.xsd", "/main.wsdl", "/a.xsd"),
        ("../../a.xsd", "/r/main.wsdl", "/a.xsd"),
    ])
    func resolvesLocationsAgainstTheReferringFile(location: String, file: String, expected: String) {
        #expect(DocumentSource.resolve(location, relativeTo: file) == expected)
    }
}
