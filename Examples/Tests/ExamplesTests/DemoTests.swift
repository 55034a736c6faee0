import DemoSupport
import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import ResourceLoaderAsyncHTTPClient
import FixtureServer
import Testing

@Suite("Demo command line")
struct DemoTests {
    @Test func parsesPositionalArgumentsAndOptions() throws {
        let arguments = try Demo.Arguments(parsing: ["12345", "--via", "operation", "--base-url", "https://example.com/api/"])
        #expect(arguments.positional == ["12345"])
        #expect(arguments.style == .operation)
        #expect(arguments.baseURL?.absoluteString == "https://example.com/api/")
    }

    @Test(arguments: [["--via"], ["--via", "carrier-pigeon"], ["--base-url", "ftp://x"], ["--verbose"]])
    func rejectsBadOptions(arguments: [String]) {
        #expect(throws: Demo.UsageError.self) { try Demo.Arguments(parsing: arguments) }
    }

    @Test func exitCodesSaySuccessFailureAndUsage() async {
        #expect(await Demo.run(usage: "demo", arguments: []) { _, _ in "ok" } == 0)
        #expect(await Demo.run(usage: "demo", arguments: []) { _, _ in throw ResourceError.timedOut } == 1)
        #expect(await Demo.run(usage: "demo", arguments: ["--nope"]) { _, _ in "never" } == 2)
        #expect(await Demo.run(usage: "demo", arguments: []) { _, _ in throw Demo.UsageError(message: "name one") } == 2)
    }

    @Test func theEmbeddedServerAnswersTheDemo() async {
        let status = await Demo.run(usage: "demo", arguments: ["europe"]) { directory, arguments in
            let cities = try await directory.cities(in: arguments.positional[0])
            guard cities.count == 4 else { throw ResourceError.emptyResponse(statusCode: nil) }
            return "\(cities.count) cities"
        }
        #expect(status == 0)
    }

    @Test func theEmbeddedServerSignsInTheDemoUser() async {
        let status = await Demo.run(usage: "demo", arguments: []) { directory, _ in
            try await directory.logIn(username: "fred", password: FixtureServer.passwords["fred"] ?? "")
            let account = try await directory.account()
            guard account.displayName == "Fred Jones" else { throw ResourceError.emptyResponse(statusCode: nil) }
            return account.displayName
        }
        #expect(status == 0)
    }

    @Test func aFaultIsDescribedByItsReason() {
        let text = Demo.describe(.soapFault(SOAPFault(code: "soap:Client", reason: "Unknown user 99999")))
        #expect(text.contains("Unknown user 99999"))
        #expect(Demo.describe(.transport(.cannotConnectToHost, underlying: URLError(.cannotConnectToHost)))
            .contains("could not connect to the server"))
    }
}

/// The demos' `--transport async-http-client`, which the Examples package makes available by
/// enabling ResourceLoader's `AsyncHTTPClient` trait.
@Suite("Demo transports")
struct DemoTransportTests {
    @Test func parsesTheTransport() throws {
        #expect(try Demo.Arguments(parsing: ["europe"]).transport == .urlSession)
        #expect(try Demo.Arguments(parsing: ["europe", "--transport", "async-http-client"]).transport == .asyncHTTPClient)
        #expect(try Demo.Arguments(parsing: ["--transport", "url-session", "europe"]).transport == .urlSession)
        #expect(throws: Demo.UsageError.self) { try Demo.Arguments(parsing: ["--transport", "carrier-pigeon"]) }
        #expect(throws: Demo.UsageError.self) { try Demo.Arguments(parsing: ["--transport"]) }
    }

    @Test func eachTransportIsTheOneItNames() {
        #expect(Demo.Transport.urlSession.session as? URLSessionTransport === URLSessionTransport.shared)
        #expect(Demo.Transport.asyncHTTPClient.session as? AsyncHTTPClientTransport === AsyncHTTPClientTransport.shared)
    }

    @Test(arguments: Demo.Transport.allCases)
    func bothDemosAnswerOverEachTransport(transport: Demo.Transport) async {
        // The JSON demo's resource and the SOAP demo's, through the embedded server.
        let cities = await Demo.run(usage: "demo", arguments: ["europe", "--transport", transport.rawValue]) {
            directory, arguments in
            #expect(arguments.transport == transport)
            let cities = try await directory.cities(in: arguments.positional[0])
            guard cities.map(\.name) == FixtureServer.continents["europe"] else { throw ResourceError.emptyResponse(statusCode: nil) }
            let missing = try? await directory.cities(in: "atlantis")
            guard missing == nil else { throw ResourceError.emptyResponse(statusCode: nil) }
            return "\(cities.count) cities"
        }
        #expect(cities == 0)
        let user = await Demo.run(usage: "demo", arguments: ["12345", "--transport", transport.rawValue]) {
            directory, arguments in
            let profile = try await directory.profile(for: arguments.positional[0])
            guard profile.userID == "12345" else { throw ResourceError.emptyResponse(statusCode: nil) }
            return profile.userID
        }
        #expect(user == 0)
    }
}
