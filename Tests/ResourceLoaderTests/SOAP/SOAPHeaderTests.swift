import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session header, as Salesforce's `SessionHeader`.
struct SessionHeader: Codable, Equatable, Sendable {
    let sessionId: String
}

/// A call whose model includes a response header block.
struct SessionUserCall: SOAPResourceType {
    struct SessionUser: Equatable, Sendable { let user: SeedUser; let session: SessionHeader? }
    typealias Root = SeedUser
    typealias Model = SessionUser
    var url: URL { URL(string: "https://example.com/services/UserService")! }
    var operation: String { "getUserDetails" }
    var responsePath: [String] { ["getUserDetailsResponse", "getUserDetails", "userModel"] }

    func model(from root: SeedUser) -> SessionUser {
        SessionUser(user: root, session: nil)
    }

    func model(from root: SeedUser, headers: SOAPResponseHeaders) throws -> SessionUser {
        SessionUser(user: root, session: try headers.decode(SessionHeader.self, named: "SessionHeader", namespaceURI: "urn:session"))
    }
}

@Suite("SOAP headers")
struct SOAPHeaderTests {
    @Test func typedAndParameterBlocksCarryMustUnderstandAndRoleOrActor() throws {
        let typed = try SOAPHeaderBlock(
            SessionHeader(sessionId: "s<1>"), as: XMLQualifiedName("SessionHeader", namespaceURI: "urn:session"),
            mustUnderstand: true, role: "http://example.com/gateway")
        let plain = try SOAPHeaderBlock(name: "Trace", namespace: "urn:trace", parameters: ["id": "42"])
        for version in SOAPVersion.allCases {
            var call = PlaceOrder()
            call.soapVersion = version
            call.headers = [typed, plain]
            let envelope = try XMLTree(data: try #require(try call.urlRequest().httpBody)).root
            let header = try #require(envelope.child(named: "Header", namespaceURI: version.envelopeNamespace))
            #expect(header.children.map(\.name) == ["SessionHeader", "Trace"])
            let session = header.children[0]
            #expect(session.namespaceURI == "urn:session")
            #expect(session.child(named: "sessionId")?.text == "s<1>")
            #expect(session.attribute(named: "mustUnderstand", namespaceURI: version.envelopeNamespace) == (version == .v1_1 ? "1" : "true"))
            let roleName = version == .v1_1 ? "actor" : "role"
            #expect(session.attribute(named: roleName, namespaceURI: version.envelopeNamespace) == "http://example.com/gateway")
            #expect(header.children[1].attributes.isEmpty)
            #expect(header.children[1].child(named: "id")?.namespaceURI == "urn:trace")
            // The body follows the header.
            #expect(envelope.children.map(\.name) == ["Header", "Body"])
        }
    }

    @Test func aBlockThatRebindsTheEnvelopePrefixGetsAnotherOne() throws {
        let element = try XMLTree(string: #"<soap:Odd xmlns:soap="urn:not-the-envelope">x</soap:Odd>"#).root
        let envelope = SOAPEnvelope(operation: "get", headers: [SOAPHeaderBlock(element: element, mustUnderstand: true)])
        let block = try #require(try XMLTree(data: try envelope.data()).root.child(named: "Header")?.children.first)
        #expect(block.namespaceURI == "urn:not-the-envelope")
        #expect(block.attribute(named: "mustUnderstand", namespaceURI: SOAPVersion.v1_1.envelopeNamespace) == "1")
    }

    @Test func aBlockThatCarriesMustUnderstandAndActorGetsThemOnceEach() throws {
        // A block echoed from a response, with its own mustUnderstand and actor, under another prefix.
        let element = try XMLTree(string: """
            <s:Session xmlns:s="urn:session" xmlns:e="\(SOAPVersion.v1_1.envelopeNamespace)" \
            e:mustUnderstand="0" e:actor="urn:old">abc</s:Session>
            """).root
        let block = SOAPHeaderBlock(element: element, mustUnderstand: true, role: "urn:new")
        let data = try SOAPEnvelope(operation: "get", headers: [block]).data()
        // Well-formed: no attribute twice.
        let written = try #require(try XMLTree(data: data).root.child(named: "Header")?.children.first)
        let namespace = SOAPVersion.v1_1.envelopeNamespace
        #expect(written.attribute(named: "mustUnderstand", namespaceURI: namespace) == "1")
        #expect(written.attribute(named: "actor", namespaceURI: namespace) == "urn:new")
        #expect(written.attributes.filter { $0.namespaceURI == namespace }.count == 2)
        #expect(written.text == "abc")
        // Without mustUnderstand or a role, the block's own attributes stay.
        let kept = try #require(
            try XMLTree(data: try SOAPEnvelope(operation: "get", headers: [SOAPHeaderBlock(element: element)]).data())
                .root.child(named: "Header")?.children.first)
        #expect(kept.attribute(named: "mustUnderstand", namespaceURI: namespace) == "0")
        #expect(kept.attribute(named: "actor", namespaceURI: namespace) == "urn:old")
    }

    @Test func theModelReadsResponseHeaderBlocks() async throws {
        let session = FakeURLSession()
        var response = try Fixtures.string("getUserDetails-response")
        let body = try #require(response.range(of: "<soap:Body"))
        response.insert(contentsOf: #"<soap:Header><s:SessionHeader xmlns:s="urn:session"><s:sessionId>abc</s:sessionId></s:SessionHeader></soap:Header>"#, at: body.lowerBound)
        session.stub(.any, with: .xml(response))
        let result = try await ResourceService<SessionUserCall>(session: session).fetch(SessionUserCall())
        #expect(result.user == .fred)
        #expect(result.session == SessionHeader(sessionId: "abc"))
        // Without the header block, the model has none.
        session.stub(.any, with: .xml(try Fixtures.string("getUserDetails-response")))
        #expect(try await ResourceService<SessionUserCall>(session: session).fetch(SessionUserCall()).session == nil)
    }

    @Test func aMustUnderstandFaultArrivesWithCodeSubcodeReasonAndDetail() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">
              <env:Header><env:NotUnderstood qname="s:SessionHeader" xmlns:s="urn:session"/></env:Header>
              <env:Body><env:Fault>
                <env:Code><env:Value>env:MustUnderstand</env:Value>
                  <env:Subcode><env:Value>wsse:FailedAuthentication</env:Value></env:Subcode></env:Code>
                <env:Reason><env:Text xml:lang="en">Header not understood</env:Text></env:Reason>
                <env:Detail><code>H-1</code></env:Detail>
              </env:Fault></env:Body>
            </env:Envelope>
            """, statusCode: 500))
        var call = PlaceOrder()
        call.soapVersion = .v1_2
        do {
            _ = try await ResourceService<PlaceOrder>(session: session).fetch(call)
            Issue.record("a Fault was not reported")
        } catch .soapFault(let fault) {
            #expect(fault.standardCode == .mustUnderstand)
            #expect(fault.resolvedSubcodes == [SOAPFault.Code(
                namespaceURI: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd", localName: "FailedAuthentication")])
            #expect(fault.reason == "Header not understood")
            #expect(fault.detail?.child(named: "code")?.text == "H-1")
        }
    }

    @Test func aSecurityClientFaultOfSOAP11ArrivesAsASenderFault() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>
              <faultcode xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">wsse:FailedAuthentication</faultcode>
              <faultstring>The security token could not be authenticated</faultstring>
              <detail><reason>bad password</reason></detail>
            </soap:Fault></soap:Body></soap:Envelope>
            """, statusCode: 500))
        do {
            _ = try await ResourceService<PlaceOrder>(session: session).fetch(PlaceOrder())
            Issue.record("a Fault was not reported")
        } catch .soapFault(let fault) {
            #expect(fault.resolvedCode.localName == "FailedAuthentication")
            #expect(fault.reason == "The security token could not be authenticated")
            #expect(fault.detail?.child(named: "reason")?.text == "bad password")
        }
    }
}
