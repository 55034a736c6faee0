import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `GetUserDetails` through the facade, the real `URLSession` and the fixture server's SOAP
/// endpoint over loopback.
@Suite("GetUserDetails over loopback")
struct UserDetailsIntegrationTests {
    let server: FixtureServer
    let directory: WorldDirectory

    init() throws {
        server = try FixtureServer()
        directory = WorldDirectory(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral))
    }

    @Test func loadsTheSeedUser() async throws {
        let profile = try await directory.profile(for: "12345")
        #expect(profile.displayName == "Fred Jones")
        #expect(profile.email == "fred.jones@example.com")
        #expect(profile.address == .init(streetLines: ["street1", "street2"], city: "London", postCode: "IG1 1YT"))
    }

    @Test func escapedAndNonASCIIValuesRoundTrip() async throws {
        let profile = try await directory.profile(for: "67890")
        #expect(profile.displayName == "Zoë Ångström")
        #expect(profile.address.streetLines == ["Strandvägen 7 & 9"])
        #expect(profile.faxNumber == nil)
    }

    @Test func theOperationDeliversTheServiceModel() async throws {
        let queue = OperationQueue()
        let operation = directory.userOperation(for: "12345")
        queue.addOperation(operation)
        #expect(try await operation.value == FixtureServer.users["12345"])
    }

    @Test func theCompletionHandlerDeliversTheProfileOnce() async throws {
        let calls = Counter()
        let result = await withCheckedContinuation { continuation in
            directory.profile(for: "12345", callbackQueue: .global()) { result in
                calls.increment()
                continuation.resume(returning: result)
            }
        }
        #expect(try result.get().displayName == "Fred Jones")
        #expect(calls.value == 1)
    }

    @Test func anUnknownUserIsASOAPFault() async {
        do {
            _ = try await directory.profile(for: "99999")
            Issue.record("expected a Fault")
        } catch .soapFault(let fault) {
            #expect(fault.code == "soap:Client")
            #expect(fault.reason == "Unknown user 99999")
        } catch {
            Issue.record("expected a Fault, got \(error)")
        }
    }

    @Test func anInjectionAttemptIsJustAnUnknownUser() async {
        // The envelope writer escapes the ID, so the server sees one odd userID, not new elements.
        do {
            _ = try await directory.profile(for: "1</userID><userID>12345")
            Issue.record("expected a Fault")
        } catch .soapFault(let fault) {
            #expect(fault.reason == "Unknown user 1</userID><userID>12345")
        } catch {
            Issue.record("expected a Fault, got \(error)")
        }
    }

    @Test func theServerRejectsAWrongSOAPAction() async throws {
        struct WrongAction: SOAPResourceType {
            typealias Model = User
            let url: URL
            var operation: String { "getUserDetails" }
            var soapAction: String? { "deleteUser" }
            var parameters: SOAPParameters { ["userID": "12345"] }
            var responsePath: [String] { ["getUserDetailsResponse", "getUserDetails", "userModel"] }
        }
        let service = ResourceService<WrongAction>(session: URLSession(configuration: .ephemeral))
        do {
            _ = try await service.fetch(WrongAction(url: directory.endpoints.users))
            Issue.record("expected a Fault")
        } catch .soapFault(let fault) {
            #expect(fault.reason == "Unsupported SOAPAction 'deleteUser'")
        } catch {
            Issue.record("expected a Fault, got \(error)")
        }
    }

    @Test func aNonSOAPErrorPageStaysAnHTTPStatusError() async {
        // The SOAP resource pointed at a path the server does not serve: a plain-text 404.
        let service = ResourceService<GetUserDetails>(session: URLSession(configuration: .ephemeral))
        do {
            _ = try await service.fetch(GetUserDetails(url: server.baseURL.appendingPathComponent("nowhere"), userID: "12345"))
            Issue.record("expected an HTTP status error")
        } catch .httpStatus(let failure) {
            #expect(failure.statusCode == 404)
        } catch {
            Issue.record("expected httpStatus, got \(error)")
        }
    }
}

@Suite("UserProfile")
struct UserProfileTests {
    @Test func emptyFieldsBecomeNilOrDisappear() {
        let user = User(
            city: " Oslo ", email: "", faxNumber: "  ", firstName: "Ola", lastName: "", phoneNumber: "1",
            postCode: "", street1: "", street2: "Gate 2")
        let profile = UserProfile(userID: "1", user: user)
        #expect(profile.displayName == "Ola")
        #expect(profile.email == nil)
        #expect(profile.faxNumber == nil)
        #expect(profile.address.streetLines == ["Gate 2"])
        #expect(profile.address.singleLine == "Gate 2, Oslo")
    }
}
