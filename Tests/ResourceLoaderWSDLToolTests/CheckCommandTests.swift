import Foundation
import ResourceLoaderWSDL
@testable import ResourceLoaderWSDLTool
import Testing

@Suite("resourceloader-wsdl check")
struct CheckCommandTests {
    @Test func parsesThePathAndSchemaLocations() throws {
        let command = try CheckCommand(arguments: ["--schema-location", "http://x/a.xsd=a.xsd", "service.wsdl", "--schema-location", "urn:b=c=d.xsd"])
        #expect(command.path == "service.wsdl")
        #expect(command.schemaLocations == ["http://x/a.xsd": "a.xsd", "urn:b": "c=d.xsd"])
    }

    @Test(arguments: [
        ([], CheckCommand.UsageError.message("no WSDL given")),
        (["a.wsdl", "b.wsdl"], .message("one WSDL at a time; b.wsdl is one too many")),
        (["--verbose", "a.wsdl"], .message("unknown option --verbose")),
        (["a.wsdl", "--schema-location"], .message("--schema-location needs <url>=<path>")),
        (["a.wsdl", "--schema-location", "=a.xsd"], .message("--schema-location needs <url>=<path>, not =a.xsd")),
        (["a.wsdl", "--schema-location", "http://x="], .message("--schema-location needs <url>=<path>, not http://x=")),
        (["--help"], .help),
    ])
    func refusesArgumentsItDoesNotUnderstand(arguments: [String], expected: CheckCommand.UsageError) {
        #expect(throws: expected) { try CheckCommand(arguments: arguments) }
    }

    @Test func exitsWithUsageStatusForUnknownSubcommandsAndZeroForHelp() {
        #expect(Tool.run([]).status == 64)
        #expect(Tool.run(["generate"]).status == 64)
        #expect(Tool.run(["check"]).status == 64)
        #expect(Tool.run(["check", "--help"]).status == 0)
        #expect(Tool.run(["--help"]).output.contains("check <wsdl>"))
    }

    @Test func reportsOperationsAndDiagnosticsAndFailsOnErrors() throws {
        // GIVEN a WSDL on disk whose schema imports a remote URL
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsdl-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let wsdl = """
            <wsdl:definitions targetNamespace="urn:t" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
                xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t">
              <wsdl:types><xsd:schema targetNamespace="urn:t">
                <xsd:import namespace="urn:r" schemaLocation="https://example.com/r.xsd"/>
                <xsd:element name="Ping"><xsd:complexType><xsd:sequence/></xsd:complexType></xsd:element>
              </xsd:schema></wsdl:types>
              <wsdl:message name="In"><wsdl:part name="p" element="tns:Ping"/></wsdl:message>
              <wsdl:portType name="P"><wsdl:operation name="Ping"><wsdl:input message="tns:In"/></wsdl:operation></wsdl:portType>
              <wsdl:binding name="B" type="tns:P"><soap:binding style="document"/>
                <wsdl:operation name="Ping"><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation>
              </wsdl:binding>
              <wsdl:service name="S"><wsdl:port name="SP" binding="tns:B"><soap:address location="http://127.0.0.1/s"/></wsdl:port></wsdl:service>
            </wsdl:definitions>
            """
        let path = folder.appendingPathComponent("s.wsdl").path
        try Data(wsdl.utf8).write(to: URL(fileURLWithPath: path))
        // WHEN it is checked
        let (output, status) = Tool.run(["check", path])
        // THEN the operation and the diagnostic naming the URL are printed, and the status says error
        #expect(status == 1)
        #expect(output.contains("binding B (SOAP 1.1): 1 operation"))
        #expect(output.contains("  Ping: documentWrapped, one-way"))
        #expect(output.contains("  port SP: B at http://127.0.0.1/s"))
        #expect(output.contains("error: \(path):/wsdl:definitions/wsdl:types/xsd:schema/xsd:import: the remote location https://example.com/r.xsd"))
        #expect(output.hasSuffix("1 error, 0 warnings\n"))

        // WHEN the URL is mapped to a local file
        try Data(#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:r"/>"#.utf8)
            .write(to: folder.appendingPathComponent("r.xsd"))
        let mapped = Tool.run(["check", path, "--schema-location", "https://example.com/r.xsd=r.xsd"])
        // THEN it reads without a diagnostic
        #expect(mapped.status == 0)
        #expect(mapped.output.hasSuffix("0 errors, 0 warnings\n"))
        #expect(mapped.output.contains("files: 2"))
    }

    @Test func failsOnADocumentThatCannotBeRead() {
        let (output, status) = Tool.run(["check", "/nonexistent/service.wsdl"])
        #expect(status == 1)
        #expect(output.hasPrefix("error: /nonexistent/service.wsdl cannot be read"))
    }
}
