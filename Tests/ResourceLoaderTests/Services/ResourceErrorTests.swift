import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("ResourceError")
struct ResourceErrorTests {
    @Test func descriptionsNeverContainHeaderValuesOrBodies() async {
        let session = FakeURLSession()
        session.stub(.any, with: .status(401, headers: ["WWW-Authenticate": "Bearer secret-realm"], body: Data("secret-body".utf8)))
        var endpoint = Endpoint("https://example.com/login")
        endpoint.headerFields = ["Authorization": "Bearer secret-token"]
        endpoint.requestBody = .data(Data("password=secret-password".utf8), contentType: "text/plain")
        let error = await ResourceService<Endpoint>(session: session).fetchError(endpoint)
        let texts = [error?.description, error?.localizedDescription, error.map { "\($0)" }].compactMap { $0 }
        #expect(!texts.isEmpty)
        for text in texts {
            #expect(!text.contains("secret"))
        }
        #expect(error?.description.contains("401") == true)
    }

    @Test func anInvalidHeaderValueIsNotEchoed() {
        var endpoint = Endpoint("https://example.com/")
        endpoint.headerFields = ["Authorization": "secret\r\nX: y"]
        do {
            _ = try endpoint.urlRequest()
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("secret"))
        }
    }

    @Test func transportErrorsKeepTheirCode() {
        let error = ResourceError(transportError: URLError(.cannotFindHost))
        guard case .transport(let code, let underlying) = error else {
            Issue.record("expected transport")
            return
        }
        #expect(code == .cannotFindHost)
        #expect((underlying as? URLError)?.code == .cannotFindHost)
        #expect(ResourceError(transportError: CancellationError()).isCancelled)
        #expect(ResourceError(transportError: ResourceError.timedOut).caseName == "timedOut")
    }

    @Test func soapFaultDescriptionNamesCodeAndReason() {
        let error = ResourceError.soapFault(SOAPFault(code: "soap:Client", reason: "Unknown user"))
        #expect(error.description == "SOAP Fault soap:Client: Unknown user")
    }
}
