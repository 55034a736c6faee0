import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logging in, bearer tokens, expiry and single-flight refresh: the facade's pipeline against the
/// fixture server's token endpoint and protected resources, through the real `URLSession` over
/// loopback.
@Suite("Authentication over loopback")
struct AuthenticationIntegrationTests {
    static let username = "fred"
    static let password = FixtureServer.passwords["fred"]!

    let clock = ManualClock()
    let server: FixtureServer
    let recorder = FetchRecorder()
    let directory: WorldDirectory

    init() throws {
        // The server and the directory read the same manual clock: tokens expire only when a
        // test advances it (or asks the server to expire them).
        server = try FixtureServer(clock: clock)
        directory = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            monitors: [recorder], clock: clock, log: recorder.log)
    }

    @Test func logsInAndSendsTheTokenWithProtectedRequests() async throws {
        let token = try await directory.logIn(username: Self.username, password: Self.password)

        #expect(directory.token == token)
        #expect(try await directory.account() == FixtureServer.accounts["fred"])
        #expect(try await directory.favouriteCities().map(\.name) == FixtureServer.continents["europe"])
        #expect(server.tokenStatistics == .init(passwordGrants: 1, authorizedRequests: 2))
        let sent = recorder.sentRequests
        #expect(sent.map { $0.value(forHTTPHeaderField: "Authorization") } == [nil, "Bearer \(token.accessToken)", "Bearer \(token.accessToken)"])
        #expect(sent.allSatisfy { $0.value(forHTTPHeaderField: "User-Agent") == WorldDirectory.userAgent })
    }

    @Test func publicResourcesWorkWithoutALoginAndNeverCarryTheToken() async throws {
        #expect(try await directory.cities(in: "oceania").count == 2)
        try await directory.logIn(username: Self.username, password: Self.password)
        #expect(try await directory.profile(for: "12345").displayName == "Fred Jones")
        #expect(recorder.sentRequests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
    }

    @Test func aWrongPasswordIsRefusedAndNobodyIsSignedIn() async {
        let error = await resourceError { try await directory.logIn(username: Self.username, password: "wrong") }
        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 400)
        #expect(directory.token == nil)
        #expect(server.tokenStatistics.refusedGrants == 1)
    }

    @Test func withoutATokenProtectedRequestsFailWithoutBeingSent() async throws {
        guard case .authenticationFailed(.noCredential) = await resourceError({ try await directory.account() }) else {
            Issue.record("expected authenticationFailed(.noCredential)")
            return
        }
        try await directory.logIn(username: Self.username, password: Self.password)
        directory.logOut()
        guard case .authenticationFailed(.noCredential) = await resourceError({ try await directory.account() }) else {
            Issue.record("expected authenticationFailed(.noCredential) after logging out")
            return
        }
        #expect(server.requestCount(for: "/account") == 0)
    }

    @Test func aTokenTheServerNoLongerAcceptsIsRefreshedOnceAndTheRequestReplayed() async throws {
        let first = try await directory.logIn(username: Self.username, password: Self.password)
        server.expireAccessTokens()

        #expect(try await directory.account().username == "fred")

        #expect(server.tokenStatistics == .init(passwordGrants: 1, refreshGrants: 1, authorizedRequests: 1, rejectedRequests: 1))
        let second = try #require(directory.token)
        #expect(second.accessToken != first.accessToken)
        #expect(second.refreshToken != first.refreshToken)
        let replays = recorder.scheduledRetries
        #expect(replays.count == 1)
        #expect(replays.first?.reason == .credentialRejected(statusCode: 401))
        // The next request uses the new token at once.
        _ = try await directory.favouriteCities()
        #expect(server.tokenStatistics.refreshGrants == 1)
        #expect(server.tokenStatistics.rejectedRequests == 1)
    }

    @Test func aTokenPastItsExpiryIsRefreshedBeforeItIsSent() async throws {
        let first = try await directory.logIn(username: Self.username, password: Self.password)
        clock.advance(by: FixtureServer.defaultTokenLifetime)

        #expect(try await directory.account().username == "fred")

        // The client knew the token had expired: the server never saw it again.
        #expect(server.tokenStatistics == .init(passwordGrants: 1, refreshGrants: 1, authorizedRequests: 1))
        #expect(directory.token?.accessToken != first.accessToken)
        #expect(recorder.scheduledRetries.isEmpty)
    }

    @Test func aTokenShortOfItsExpiryIsNotRefreshed() async throws {
        try await directory.logIn(username: Self.username, password: Self.password)
        // The authenticator refreshes `leeway` (30 s) before the expiry: a minute before is fine.
        clock.advance(by: FixtureServer.defaultTokenLifetime - .seconds(60))

        _ = try await directory.account()

        #expect(server.tokenStatistics.refreshGrants == 0)
    }

    @Test func manyConcurrentRequestsWithARejectedTokenShareOneRefresh() async throws {
        try await directory.logIn(username: Self.username, password: Self.password)
        server.expireAccessTokens()
        let directory = self.directory

        let accounts = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? try await directory.account().username
                        : try await directory.favouriteCities().first?.name ?? ""
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(accounts.count == 40)
        #expect(accounts.allSatisfy { $0 == "fred" || $0 == "Lisbon" })
        let statistics = server.tokenStatistics
        #expect(statistics.refreshGrants == 1)
        #expect(statistics.refusedGrants == 0)
        #expect(statistics.authorizedRequests == 40)
        // Each rejected request was replayed once; the others started after the refresh.
        #expect((1...40).contains(statistics.rejectedRequests))
        #expect(recorder.scheduledRetries.count == statistics.rejectedRequests)
    }

    @Test func aRevokedRefreshTokenSignsOutOnceAndFailsEveryRequestWithCredentialRevoked() async throws {
        try await directory.logIn(username: Self.username, password: Self.password)
        server.expireAccessTokens()
        server.revokeRefreshTokens()
        let directory = self.directory

        let errors = await withTaskGroup(of: ResourceError?.self) { group in
            for _ in 0..<10 {
                group.addTask { await resourceError { try await directory.account() } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        // Every request fails with the revocation, carrying the token endpoint's answer.
        #expect(errors.count == 10)
        for error in errors {
            guard case .authenticationFailed(.credentialRevoked(let underlying)) = error else {
                Issue.record("expected authenticationFailed(.credentialRevoked), got \(String(describing: error))")
                continue
            }
            guard case .httpStatus(let failure) = underlying as? ResourceError else {
                Issue.record("expected the token endpoint's httpStatus, got \(underlying)")
                continue
            }
            #expect(failure.statusCode == 400)
        }
        // One refresh was asked for, and the user is signed out.
        #expect(server.tokenStatistics.refusedGrants == 1)
        #expect(server.tokenStatistics.refreshGrants == 0)
        #expect(directory.token == nil)

        // Later requests fail at once, without a request or a refresh, until the user logs in.
        let rejectedBefore = server.tokenStatistics.rejectedRequests
        for _ in 0..<20 {
            guard case .authenticationFailed(.credentialRevoked) = await resourceError({ try await directory.favouriteCities() }) else {
                Issue.record("expected authenticationFailed(.credentialRevoked) for a later request")
                break
            }
        }
        #expect(server.tokenStatistics.refusedGrants == 1)
        #expect(server.tokenStatistics.rejectedRequests == rejectedBefore)
        try await directory.logIn(username: Self.username, password: Self.password)
        #expect(try await directory.account().username == "fred")
    }

    @Test func theTokenIsKeptInTheStorageThroughEveryChange() async throws {
        // GIVEN a directory that keeps its token in a file
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = WatchedTokenStorage(FileTokenStorage(fileURL: folder.appendingPathComponent("token.json")))
        let directory = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            tokenStorage: storage, clock: clock, log: { _ in })
        var saved = storage.saves.makeAsyncIterator()

        // WHEN the user logs in, the token is refreshed, and the user logs out
        let first = try await directory.logIn(username: Self.username, password: Self.password)
        #expect(await saved.next() == first)
        clock.advance(by: FixtureServer.defaultTokenLifetime)
        _ = try await directory.account()
        let second = try #require(directory.token)
        #expect(second != first)
        #expect(await saved.next() == second)

        // THEN the next launch signs in with the kept token, without a password
        let nextLaunch = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            tokenStorage: FileTokenStorage(fileURL: folder.appendingPathComponent("token.json")), clock: clock, log: { _ in })
        #expect(nextLaunch.token == second)
        #expect(try await nextLaunch.account().username == "fred")
        #expect(server.tokenStatistics.passwordGrants == 1)

        // AND logging out removes it
        directory.logOut()
        #expect(await saved.next() == .some(nil))
        #expect(storage.base.loadToken() == nil)
    }

    @Test func aRevokedRefreshTokenIsRemovedFromTheStorage() async throws {
        let storage = WatchedTokenStorage(MemoryTokenStorage())
        let directory = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            tokenStorage: storage, clock: clock, log: { _ in })
        var saved = storage.saves.makeAsyncIterator()
        let token = try await directory.logIn(username: Self.username, password: Self.password)
        #expect(await saved.next() == token)

        server.expireAccessTokens()
        server.revokeRefreshTokens()
        guard case .authenticationFailed(.credentialRevoked) = await resourceError({ try await directory.account() }) else {
            Issue.record("expected authenticationFailed(.credentialRevoked)")
            return
        }
        #expect(await saved.next() == .some(nil))
        #expect(storage.base.loadToken() == nil)
    }

    @Test func aTokenKeptFromBeforeSignsInWithoutAPassword() async throws {
        let token = try await directory.logIn(username: Self.username, password: Self.password)
        let saved = try JSONEncoder().encode(token)

        let nextLaunch = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            token: try JSONDecoder().decode(OAuthToken.self, from: saved), clock: clock, log: { _ in })

        #expect(try await nextLaunch.account().displayName == "Fred Jones")
        #expect(server.tokenStatistics.passwordGrants == 1)
    }

    @Test func aTokensDescriptionHidesItsSecrets() async throws {
        let token = try await directory.logIn(username: Self.username, password: Self.password)
        for text in [String(describing: token), String(reflecting: token), "\(TokenRequest.Grant.refreshToken(token.refreshToken))",
                     "\(TokenRequest.Grant.password(username: Self.username, password: Self.password))"] {
            #expect(!text.contains(token.accessToken))
            #expect(!text.contains(token.refreshToken))
            #expect(!text.contains(Self.password))
        }
    }
}
