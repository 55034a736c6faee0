import DemoSupport
import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import Testing
import UserServiceClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `GetUserDetails` the build plugin generates from `UserService.wsdl` (the UserServiceClient
/// module), against the fixture server's SOAP endpoint, beside the hand-written one.
@Suite("Generated GetUserDetails over loopback")
struct GeneratedUserDetailsTests {
    let server: FixtureServer
    let session = URLSession(configuration: .ephemeral)

    init() throws {
        server = try FixtureServer()
    }

    var endpoint: URL { server.baseURL.appendingPathComponent("UserService") }

    @Test func theServerPublishesTheWSDLTheClientIsGeneratedFrom() async throws {
        // GIVEN the WSDL the server publishes at UserService?wsdl
        var components = try #require(URLComponents(url: endpoint, resolvingAgainstBaseURL: false))
        components.query = "wsdl"
        let (data, response) = try await session.data(from: try #require(components.url))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let published = String(decoding: data, as: UTF8.self)
        // THEN it names the server's address, and is otherwise the file the plugin generates from
        let address = try #require(URLComponents(url: endpoint, resolvingAgainstBaseURL: false)).url?.absoluteString ?? ""
        #expect(published.contains(#"<soap:address location="\#(address)"/>"#))
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/UserServiceClient/UserService.wsdl")
        let checkedIn = try String(contentsOf: file, encoding: .utf8)
        #expect(
            published.replacingOccurrences(of: address, with: FixtureServer.userServiceWSDLAddress).trimmingCharacters(in: .whitespacesAndNewlines)
                == checkedIn.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func theGeneratedResourceLoadsWhatTheHandWrittenOneLoads() async throws {
        for userID in ["12345", "67890"] {
            let generated = try await ResourceService<UserServiceClient.GetUserDetails>(session: session)
                .fetch(UserServiceClient.GetUserDetails(GetUserDetailsType(userID: userID), url: endpoint))
            let handWritten = try await ResourceService<ExampleResources.GetUserDetails>(session: session)
                .fetch(ExampleResources.GetUserDetails(url: endpoint, userID: userID))
            let user = generated.getUserDetails.userModel
            let expected = try #require(FixtureServer.users[userID])
            #expect(handWritten == expected)
            #expect(
                [user.city, user.email, user.faxNumber, user.firstName, user.lastName, user.phoneNumber, user.postCode, user.street1, user.street2]
                    == [expected.city, expected.email, expected.faxNumber, expected.firstName, expected.lastName, expected.phoneNumber,
                        expected.postCode, expected.street1, expected.street2])
        }
    }

    @Test func theGeneratedResourceCarriesTheWSDLsAction() {
        let resource = UserServiceClient.GetUserDetails(GetUserDetailsType(userID: "1"))
        #expect(resource.url.absoluteString == FixtureServer.userServiceWSDLAddress)
        #expect(resource.soapAction == "getUserDetails")
        #expect(resource.operation == "getUserDetails")
    }

    @Test func anUnknownUserIsASOAPFault() async {
        do {
            _ = try await ResourceService<UserServiceClient.GetUserDetails>(session: session)
                .fetch(UserServiceClient.GetUserDetails(GetUserDetailsType(userID: "99999"), url: endpoint))
            Issue.record("expected a Fault")
        } catch .soapFault(let fault) {
            #expect(fault.reason == "Unknown user 99999")
        } catch {
            Issue.record("expected a Fault, got \(error)")
        }
    }

    @Test(arguments: Demo.Transport.allCases)
    func theDemoBodyAnswersOverEachTransport(transport: Demo.Transport) async {
        let status = await Demo.run(usage: "demo", arguments: ["12345", "--transport", transport.rawValue]) { directory, arguments in
            let service = ResourceService<UserServiceClient.GetUserDetails>(session: arguments.transport.session)
            let response = try await service.fetch(
                UserServiceClient.GetUserDetails(GetUserDetailsType(userID: arguments.positional[0]), url: directory.endpoints.users))
            guard response.getUserDetails.userModel.lastName == "Jones" else { throw ResourceError.emptyResponse(statusCode: nil) }
            return response.getUserDetails.userModel.lastName
        }
        #expect(status == 0)
    }
}
