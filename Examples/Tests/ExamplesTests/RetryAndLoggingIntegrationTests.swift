import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The facade's retry policy against a fixture server that fails on purpose, over loopback.
@Suite("Retries over loopback")
struct RetryIntegrationTests {
    let server: FixtureServer
    let recorder = FetchRecorder()
    let directory: WorldDirectory

    init() throws {
        server = try FixtureServer()
        // A 1 ms backoff without jitter: retries happen at once and the same way every run.
        directory = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            retryPolicy: RetryPolicy(baseDelay: .milliseconds(1), jitter: .none),
            monitors: [recorder], log: recorder.log)
    }

    @Test func a503ThenA200IsRetriedAndSucceeds() async throws {
        server.fail(next: 1, requestsTo: "/cities/europe.json", status: 503)

        let cities = try await directory.cities(in: "europe")

        #expect(cities.map(\.name) == FixtureServer.continents["europe"])
        #expect(server.requestCount(for: "/cities/europe.json") == 2)
        #expect(recorder.scheduledRetries.map(\.reason) == [.status(503)])
        #expect(recorder.scheduledRetries.map(\.delay) == [.milliseconds(1)])
        #expect(recorder.logLines.count == 1)
        #expect(recorder.logLines.first?.contains("status=200") == true)
        #expect(recorder.logLines.first?.contains("attempts=2") == true)
    }

    @Test func retriesStopAfterTheMaximumAttemptsWithTheLastAnswer() async {
        server.fail(next: 5, requestsTo: "/cities/asia.json", status: 503)

        let error = await resourceError { try await directory.cities(in: "asia") }

        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 503)
        #expect(server.requestCount(for: "/cities/asia.json") == 3)
        #expect(recorder.logLines.first?.contains("attempts=3 ") == true)
    }

    @Test func theSOAPCallOptsInToRetriesButTheLoginIsNeverSentTwice() async throws {
        server.fail(next: 1, requestsTo: "/UserService", status: 503)
        server.fail(next: 1, requestsTo: "/oauth/token", status: 503)

        #expect(try await directory.profile(for: "12345").displayName == "Fred Jones")
        let error = await resourceError {
            try await directory.logIn(username: "fred", password: FixtureServer.passwords["fred"]!)
        }

        #expect(server.requestCount(for: "/UserService") == 2)
        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 503)
        #expect(server.requestCount(for: "/oauth/token") == 1)
        #expect(directory.token == nil)
    }

    @Test func retryAfterIsWaitedOnThePipelinesClock() async throws {
        let clock = ManualClock()
        let recorder = FetchRecorder()
        let directory = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            retryPolicy: RetryPolicy(jitter: .none), monitors: [recorder], clock: clock, log: { _ in })
        server.fail(next: 1, requestsTo: "/cities/africa.json", status: 503, headers: ["Retry-After": "5"])

        let fetch = Task { try await directory.cities(in: "africa") }
        try await waitUntil { clock.sleeperCount == 1 }
        // The fetch waits for the clock, not for time: nothing more is sent while it stands still.
        #expect(recorder.scheduledRetries.map(\.delay) == [.seconds(5)])
        #expect(server.requestCount(for: "/cities/africa.json") == 1)
        clock.advance(by: .seconds(5))

        #expect(try await fetch.value.count == 3)
        #expect(server.requestCount(for: "/cities/africa.json") == 2)
    }
}

/// The logging monitor of the facade's pipeline, fed tokens, passwords and refreshes.
@Suite("Logging over loopback")
struct LoggingIntegrationTests {
    @Test func logsOneLinePerFetchAndNeverATokenOrAPassword() async throws {
        let server = try FixtureServer()
        let recorder = FetchRecorder()
        let password = try #require(FixtureServer.passwords["zoe"])
        let directory = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral), log: recorder.log)

        let first = try await directory.logIn(username: "zoe", password: password)
        _ = try await directory.account()
        server.expireAccessTokens()
        _ = try await directory.favouriteCities()
        let second = try #require(directory.token)
        _ = try await directory.cities(in: "europe")
        _ = await resourceError { try await directory.logIn(username: "zoe", password: "hunter2") }

        let lines = recorder.logLines
        // Login, account, favourites (rejected, replayed), the refresh, cities, the failed login.
        #expect(lines.count == 6)
        #expect(lines.filter { $0.contains(" TokenRequest: POST ") }.count == 3)
        #expect(lines.contains { $0.contains(" FavouriteCities: GET ") && $0.contains("attempts=2") })
        #expect(lines.contains { $0.contains("status=400") && $0.hasSuffix("result=httpStatus") })
        let secrets = [first.accessToken, first.refreshToken, second.accessToken, second.refreshToken, password, "hunter2", "Bearer"]
        for line in lines {
            for secret in secrets {
                #expect(!line.contains(secret), "a log line contains a secret: \(line)")
            }
        }
    }
}
