import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("SOAPResourceType")
struct SOAPResourceTypeTests {
    let session = FakeURLSession()
    let endpoint = "https://example.com/services/UserService"

    private func fetch(_ call: UserDetailsCall = UserDetailsCall()) async -> Result<SeedUser, ResourceError> {
        do {
            return .success(try await ResourceService<UserDetailsCall>(session: session).fetch(call))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Requests

    @Test func aSOAP11RequestIsAPostWithTheEnvelopeAndHeaders() async throws {
        // GIVEN the seed response for the endpoint
        session.stub(.url(endpoint), with: .xml(try Fixtures.string("getUserDetails-response")))
        // WHEN the user is fetched
        _ = try await fetch().get()
        // THEN one POST was sent with SOAP 1.1 headers and the envelope
        let request = try #require(session.receivedRequests.first)
        #expect(session.receivedRequests.count == 1)
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/xml; charset=utf-8")
        #expect(request.value(forHTTPHeaderField: "SOAPAction") == #""getUserDetails""#)
        let body = try #require(request.httpBody)
        #expect(body == (try UserDetailsCall().envelope.data()))
        let envelope = try XMLTree(data: body).root
        #expect(envelope.namespaceURI == SOAPVersion.v1_1.envelopeNamespace)
        #expect(envelope.element(atPath: ["Body", "getUserDetails", "userID"])?.text == "12345")
    }

    @Test func aSOAP12RequestCarriesTheActionInTheContentType() throws {
        var call = UserDetailsCall()
        call.soapVersion = .v1_2
        call.operationNamespace = "urn:example:users"
        let request = try call.urlRequest()
        #expect(request.value(forHTTPHeaderField: "Content-Type") == #"application/soap+xml; charset=utf-8; action="getUserDetails""#)
        #expect(request.value(forHTTPHeaderField: "SOAPAction") == nil)
        let envelope = try XMLTree(data: try #require(request.httpBody)).root
        #expect(envelope.namespaceURI == SOAPVersion.v1_2.envelopeNamespace)
        #expect(envelope.element(atPath: ["Body", "getUserDetails"])?.namespaceURI == "urn:example:users")
    }

    @Test func actionsAreQuotedAndMayBeAbsent() throws {
        var call = UserDetailsCall()
        call.soapAction = #"urn:a"b\c"#
        #expect(try call.urlRequest().value(forHTTPHeaderField: "SOAPAction") == #""urn:a\"b\\c""#)
        call.soapAction = nil
        #expect(try call.urlRequest().value(forHTTPHeaderField: "SOAPAction") == #""""#)
        call.soapVersion = .v1_2
        #expect(try call.urlRequest().value(forHTTPHeaderField: "Content-Type") == "application/soap+xml; charset=utf-8")
    }

    @Test func anActionWithALineBreakIsAnInvalidRequest() {
        for version in SOAPVersion.allCases {
            var call = UserDetailsCall()
            call.soapVersion = version
            call.soapAction = "a\r\nX-Injected: 1"
            #expect(throws: ResourceError.self) { try call.urlRequest() }
        }
    }

    @Test func aHostileParameterIsSentEscapedAndAnIllegalOneIsNotSent() async throws {
        // GIVEN a user ID that tries to inject markup
        session.stub(.any, with: .xml(try Fixtures.string("getUserDetails-response")))
        _ = try await fetch(UserDetailsCall(userID: "1</userID><admin>1</admin><userID>")).get()
        let body = try #require(session.receivedRequests.first?.httpBody)
        let operation = try #require(try XMLTree(data: body).root.element(atPath: ["Body", "getUserDetails"]))
        #expect(operation.children.map(\.name) == ["userID"])
        #expect(operation.child(named: "userID")?.text == "1</userID><admin>1</admin><userID>")
        // AND a NUL fails before anything is sent
        session.reset()
        let error = await fetch(UserDetailsCall(userID: "1\u{0}")).failure
        #expect(error?.caseName == "invalidRequest")
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func aResourceCanAddHeaderFields() throws {
        struct Authorised: SOAPResourceType {
            typealias Model = String
            var url: URL { URL(string: "https://example.com/soap")! }
            var operation: String { "ping" }
            var headerFields: [String: String] { soapHeaderFields.merging(["Authorization": "Bearer t"]) { $1 } }
        }
        let request = try Authorised().urlRequest()
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        #expect(request.value(forHTTPHeaderField: "SOAPAction") == #""ping""#)
        #expect(request.httpMethod == "POST")
    }

    // MARK: Responses

    @Test func decodesTheSeedResponseThroughTheService() async throws {
        session.stub(.url(endpoint), with: .xml(try Fixtures.string("getUserDetails-response")))
        #expect(try await fetch().get() == .fred)
    }

    @Test(arguments: ["soap", "env", "S", ""])
    func theEnvelopePrefixDoesNotMatter(prefix: String) throws {
        let response = try Fixtures.string("getUserDetails-response")
            .replacingOccurrences(of: "xmlns:soap=", with: prefix.isEmpty ? "xmlns=" : "xmlns:\(prefix)=")
            .replacingOccurrences(of: "soap:", with: prefix.isEmpty ? "" : "\(prefix):")
            .replacingOccurrences(of: "<getUserDetailsResponse>", with: #"<getUserDetailsResponse xmlns="">"#)
        #expect(try UserDetailsCall().model(from: Data(response.utf8)) == .fred)
    }

    @Test func theDefaultResponsePathIsTheOperationsResponse() throws {
        struct Echo: SOAPResourceType {
            struct Root: Decodable { let value: String }
            var url: URL { URL(string: "https://example.com/soap")! }
            var operation: String { "echo" }
            func model(from root: Root) -> String { root.value }
        }
        let response = #"<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><echoResponse><value>hi</value></echoResponse></s:Body></s:Envelope>"#
        #expect(try Echo().model(from: Data(response.utf8)) == "hi")
        #expect(Echo().elementPath == ["Body", "echoResponse"])
    }

    @Test func aMissingResponseElementIsAParsingErrorWithItsPath() async throws {
        session.stub(.any, with: .xml(#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><other/></soap:Body></soap:Envelope>"#))
        guard case .parsing(let failure) = await fetch().failure else {
            Issue.record("expected parsing")
            return
        }
        #expect(failure.codingPath == "Body.getUserDetailsResponse")
    }

    @Test(arguments: [
        "<html><body>OK</body></html>",
        #"<Envelope xmlns="urn:not-soap"><Body><getUserDetailsResponse/></Body></Envelope>"#,
        #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header/></soap:Envelope>"#,
    ])
    func aResponseThatIsNotAnEnvelopeIsAParsingError(body: String) async {
        session.stub(.any, with: .xml(body))
        #expect(await fetch().failure?.caseName == "parsing")
    }

    // MARK: Faults

    @Test(arguments: [500, 400, 200])
    func aSOAP11FaultIsReportedWhateverTheStatus(status: Int) async throws {
        session.stub(.any, with: .xml(try Fixtures.string("soap11-fault"), statusCode: status))
        guard case .soapFault(let fault) = await fetch().failure else {
            Issue.record("expected soapFault")
            return
        }
        #expect(fault.code == "SOAP-ENV:Client")
        #expect(fault.standardCode == .sender)
        #expect(fault.subcodes.isEmpty)
        #expect(fault.reason == "Unknown user 99999")
        #expect(fault.role == "https://example.com/services/UserService")
        #expect(fault.node == nil)
        #expect(fault.detail?.name == "detail")
        #expect(fault.detail?.firstDescendant(named: "code", namespaceURI: "urn:example:errors")?.text == "USR-404")
    }

    @Test(arguments: [400, 500, 200])
    func aSOAP12FaultIsReportedWithItsSubcodes(status: Int) async throws {
        var call = UserDetailsCall()
        call.soapVersion = .v1_2
        session.stub(.any, with: .status(status, headers: ["Content-Type": "application/soap+xml"], body: try Fixtures.data("soap12-fault")))
        guard case .soapFault(let fault) = await fetch(call).failure else {
            Issue.record("expected soapFault")
            return
        }
        #expect(fault.code == "env:Sender")
        #expect(fault.subcodes == ["m:InvalidUser", "m:UnknownID"])
        #expect(fault.reason == "Unknown user 99999")
        #expect(fault.node == "https://example.com/services/UserService")
        #expect(fault.role == "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver")
        #expect(fault.detail?.name == "Detail")
        #expect(fault.detail?.element(atPath: ["userError", "code"])?.text == "USR-404")
        #expect(fault.standardCode == .sender)
        #expect(ResourceError.soapFault(fault).description == "SOAP Fault Sender")
    }

    @Test func anHTMLErrorPageStaysAnHTTPStatusError() async {
        session.stub(.any, with: .status(500, headers: ["Content-Type": "text/html"], body: Data("""
            <!DOCTYPE html><html><head><title>Fault</title></head><body>Internal Server Error</body></html>
            """.utf8)))
        guard case .httpStatus(let failure) = await fetch().failure else {
            Issue.record("expected httpStatus")
            return
        }
        #expect(failure.statusCode == 500)
    }

    @Test func anErrorStatusWithoutAFaultStaysAnHTTPStatusError() async {
        session.stub(.any, with: .xml(#"<error><Fault>not SOAP</Fault></error>"#, statusCode: 503))
        #expect(await fetch().failure?.statusCode == 503)
        session.stub(.any, with: .xml(try! Fixtures.string("getUserDetails-response"), statusCode: 404))
        #expect(await fetch().failure?.statusCode == 404)
    }

    @Test func theFaultDetailIsComparable() throws {
        let detail = try XMLTree(string: "<detail><code>1</code></detail>").root
        let fault = SOAPFault(code: "soap:Server", reason: "Boom", detail: detail)
        #expect(fault == SOAPFault(code: "soap:Server", reason: "Boom", detail: try XMLTree(string: "<detail><code>1</code></detail>").root))
        #expect(fault != SOAPFault(code: "soap:Server", reason: "Boom"))
        #expect(SOAPFault(code: "c", reason: "r").detail == nil)
    }
}
