import DemoSupport
import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
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
