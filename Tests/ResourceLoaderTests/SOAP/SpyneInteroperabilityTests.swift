import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls a real SOAP server, spyne (Python), through a resource written like the README's
/// example: a document/literal operation in the service's target namespace, with the response
/// wrapper that spyne's WSDL describes.
///
/// The server is `Fixtures/spyne-user-service.py`, started per test on 127.0.0.1; it stops on its
/// own after a minute, when its standard input closes, or after a hundred requests. The tests are
/// skipped only when `python3` cannot import spyne and lxml (`pip install spyne lxml`, which
/// `.ci/run` does); on CI (`CI=true`) they run regardless, so a missing install fails instead of
/// skipping.
@Suite("SOAP against spyne", .enabled(if: SpynePeer.shouldRun, "python3 with spyne and lxml is not installed: pip install spyne lxml"))
struct SpyneInteroperabilityTests {
    /// The README's `GetUserDetails`, line for line, except that the URL is the local peer's.
    struct GetUserDetails: SOAPResourceType {
        typealias Model = User
        let userID: String
        let url: URL
        var operationNamespace: String? { "urn:example:users" }
        var operation: String { "getUserDetails" }
        var parameters: SOAPParameters { ["userID": .text(userID)] }
        var responsePath: [String] { ["getUserDetailsResponse", "getUserDetailsResult"] }
    }

    /// The README's `User`.
    struct User: Decodable, Sendable, Equatable {
        let firstName: String
        let lastName: String
        let email: String
        let city: String
    }

    /// Fetches through a `ResourceService` with its default transport.
    static func fetch<Resource: SOAPResourceType>(_ resource: Resource) async -> Result<User, ResourceError> where Resource.Model == User {
        do {
            return .success(try await ResourceService<Resource>().fetch(resource))
        } catch {
            return .failure(error)
        }
    }

    @Test func aDocumentLiteralCallDecodesTheModel() async throws {
        let peer = try await SpynePeer.start()
        defer { peer.stop() }
        let user = await withTimeLimit { await Self.fetch(GetUserDetails(userID: "12345", url: peer.url)) }
        #expect(try user?.get() == User(firstName: "Fred", lastName: "Bloggs", email: "fred@example.com", city: "London (12345)"))
    }

    @Test func aFaultIsASOAPFaultWithItsStandardCode() async throws {
        let peer = try await SpynePeer.start()
        defer { peer.stop() }
        let result = await withTimeLimit { await Self.fetch(GetUserDetails(userID: "99999", url: peer.url)) }
        guard case .failure(.soapFault(let fault))? = result else {
            Issue.record("expected a SOAP Fault, got \(String(describing: result))")
            return
        }
        // spyne writes `soap11env:Client.UnknownUser`: the class does not depend on its prefix.
        #expect(fault.code == "soap11env:Client.UnknownUser")
        #expect(fault.standardCode == .sender)
        #expect(fault.resolvedCode == SOAPFault.Code(namespaceURI: SOAPVersion.v1_1.envelopeNamespace, localName: "Client.UnknownUser"))
        #expect(fault.reason == "Unknown user 99999")
        #expect(ResourceError.soapFault(fault).description == "SOAP Fault Sender")
    }

    /// The README's resource without ``SOAPResourceType/operationNamespace``.
    struct GetUserDetailsWithoutNamespace: SOAPResourceType {
        typealias Model = User
        let userID: String
        let url: URL
        var operation: String { "getUserDetails" }
        var parameters: SOAPParameters { ["userID": .text(userID)] }
        var responsePath: [String] { ["getUserDetailsResponse", "getUserDetailsResult"] }
    }

    @Test func withoutTheOperationNamespaceTheServiceAnswersWithAFault() async throws {
        // GIVEN the README's call with its operation element in no namespace
        let peer = try await SpynePeer.start()
        defer { peer.stop() }
        // WHEN it is sent to the validating service
        let result = await withTimeLimit { await Self.fetch(GetUserDetailsWithoutNamespace(userID: "12345", url: peer.url)) }
        // THEN it cannot be matched to the operation: a Fault from the client's side
        guard case .failure(.soapFault(let fault))? = result else {
            Issue.record("expected a SOAP Fault, got \(String(describing: result))")
            return
        }
        #expect(fault.standardCode == .sender)
        #expect(fault.code.hasSuffix("Client.SchemaValidationError"))
    }

    @Test func theWSDLDescribesTheValuesTheResourceUses() async throws {
        // The three values the README reads off a WSDL, read off spyne's.
        let peer = try await SpynePeer.start()
        defer { peer.stop() }
        var components = try #require(URLComponents(url: peer.url, resolvingAgainstBaseURL: false))
        components.query = "wsdl"
        let (data, _) = try await URLSession.shared.data(from: try #require(components.url))
        let wsdl = try XMLTree(data: data).root
        let resource = GetUserDetails(userID: "1", url: peer.url)
        let schema = try #require(wsdl.element(atPath: ["types", "schema"]))
        #expect(schema.attribute(named: "targetNamespace") == resource.operationNamespace)
        #expect(schema.attribute(named: "elementFormDefault") == "qualified")
        let inputPart = try #require(wsdl.children(named: "message").first { $0.attribute(named: "name") == "getUserDetails" }?.child(named: "part"))
        #expect(inputPart.attribute(named: "element") == "tns:\(resource.operation)")
        let outputPart = try #require(wsdl.children(named: "message").first { $0.attribute(named: "name") == "getUserDetailsResponse" }?.child(named: "part"))
        #expect(outputPart.attribute(named: "element") == "tns:\(resource.responsePath[0])")
        let responseType = try #require(schema.children(named: "complexType").first { $0.attribute(named: "name") == resource.responsePath[0] })
        #expect(responseType.element(atPath: ["sequence", "element"])?.attribute(named: "name") == resource.responsePath[1])
        let soapOperation = try #require(wsdl.child(named: "binding")?.child(named: "operation")?.child(named: "operation"))
        #expect(soapOperation.attribute(named: "soapAction") == resource.soapAction)
    }
}

/// Keeps the resource the spyne tests call the same as the README's.
@Suite("SOAP against spyne: the README's resource")
struct SpyneResourceMatchesTheREADMETests {
    @Test func theTestedResourceIsTheREADMEsExampleWithTheURLInjected() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let readme = testFile.appendingPathComponent("../../../../README.md").standardized
        let readmeLines = try String(contentsOf: readme, encoding: .utf8).components(separatedBy: "\n")
        let testLines = try String(contentsOf: testFile, encoding: .utf8).components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(readmeLines.firstIndex(of: "struct GetUserDetails: SOAPResourceType {"))
        let end = try #require(readmeLines[start...].firstIndex(of: "}"))
        let expected = readmeLines[start...end].map { line -> String in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("var url: URL") ? "let url: URL" : trimmed
        }
        let found = testLines.indices.contains { index in
            index + expected.count <= testLines.count && Array(testLines[index..<index + expected.count]) == expected
        }
        #expect(found, "SpyneInteroperabilityTests.GetUserDetails differs from the README's GetUserDetails")
    }
}

/// A running `spyne-user-service.py`.
struct SpynePeer: Sendable {
    let server: PythonFixtureServer
    var url: URL { URL(string: "http://127.0.0.1:\(server.port)/")! }

    /// Whether the tests should run: spyne is importable, or this is CI, where they must.
    static let shouldRun: Bool = ProcessInfo.processInfo.environment["CI"] == "true" || PythonFixtureServer.pythonRuns("import spyne, lxml")

    /// Starts the server (`Fixtures/<script>.py`) and waits, off the cooperative pool, for the
    /// port it prints.
    static func start(script name: String = "spyne-user-service") async throws -> SpynePeer {
        SpynePeer(server: try await PythonFixtureServer.start(script: name, lifetime: 300, hint: "is spyne installed? pip install spyne lxml"))
    }

    /// Stops the server without waiting for it.
    func stop() { server.stop() }
}
