// The code blocks of AuthenticationRetriesAndMonitoring.md, verbatim, so that they are compiled
// (and the adopter's test run). `DocumentationSnippetTests` checks that each block stands here
// unchanged.
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum AuthenticationRetriesAndMonitoringSnippets {
    static func onePipeline(savedToken: OAuthToken?, userAgent: ClosureRequestAdapter) {
        let credentials = CredentialStore(authenticator: OAuthAuthenticator(), credential: savedToken)
        let pipeline = ResourcePipeline(
            adapters: [userAgent],
            credentials: credentials,
            retryPolicy: RetryPolicy(),
            monitors: [LoggingFetchMonitor()]
        )
        let profiles = ResourceService<CurrentProfile>(pipeline: pipeline)
        let cities = ResourceService<Cities>(pipeline: pipeline)
        _ = (profiles, cities)
    }

    static func readmePipeline(savedToken: OAuthToken?) {
        let pipeline = ResourcePipeline(
            credentials: CredentialStore(authenticator: OAuthAuthenticator(), credential: savedToken),
            retryPolicy: RetryPolicy(),
            monitors: [LoggingFetchMonitor()]
        )
        let profiles = ResourceService<CurrentProfile>(pipeline: pipeline)
        _ = profiles
    }

    static func logIn(credentials: CredentialStore<OAuthAuthenticator>, pipeline: ResourcePipeline) async throws {
        let tokens = ResourceService<TokenGrant>(pipeline: pipeline)
        let answer = try await tokens.fetch(TokenGrant(.password(username: "ada", password: "…")))
        credentials.setCredential(OAuthToken(answer, receivedAt: pipeline.currentDate))
    }

    static func retryingPipeline() -> ResourcePipeline {
        let pipeline = ResourcePipeline(
            options: TransferOptions(deadline: .seconds(20)),
            retryPolicy: RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(250), maximumDelay: .seconds(4))
        )
        return pipeline
    }

    static func monitoredPipeline(log: @escaping @Sendable (String) -> Void) -> ResourcePipeline {
        let pipeline = ResourcePipeline(
            monitors: [LoggingFetchMonitor(sink: log), RetryReporter(report: log)]
        )
        return pipeline
    }
}

struct OAuthToken: Codable, Sendable {
    var accessToken: String
    var refreshToken: String
    var expiresAt: Date
}

struct TokenGrant: NetworkResourceType, JSONDecodableResourceType {
    enum Grant {
        case password(username: String, password: String)
        case refreshToken(String)
    }

    struct Answer: Decodable {
        let access_token: String
        let refresh_token: String
        let expires_in: Int
    }
    typealias Model = Answer

    let grant: Grant
    init(_ grant: Grant) { self.grant = grant }

    var url: URL { URL(string: "https://auth.example.com/oauth/token")! }
    var httpMethod: HTTPMethod { .post }
    var body: RequestBody? {
        switch grant {
        case .password(let username, let password):
            .form([.init(name: "grant_type", value: "password"),
                   .init(name: "username", value: username), .init(name: "password", value: password)])
        case .refreshToken(let token):
            .form([.init(name: "grant_type", value: "refresh_token"), .init(name: "refresh_token", value: token)])
        }
    }

    // Never sent with the token it replaces, never waiting for a refresh that waits for it.
    var usesPipelineAuthenticator: Bool { false }
}

extension OAuthToken {
    init(_ answer: TokenGrant.Answer, receivedAt date: Date) {
        self.init(
            accessToken: answer.access_token,
            refreshToken: answer.refresh_token,
            expiresAt: date.addingTimeInterval(TimeInterval(answer.expires_in))
        )
    }
}

struct OAuthAuthenticator: Authenticator {
    func apply(_ token: OAuthToken, to request: inout URLRequest) {
        request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ token: OAuthToken, through pipeline: ResourcePipeline) async throws -> OAuthToken {
        let tokens = ResourceService<TokenGrant>(pipeline: pipeline)
        let answer = try await tokens.fetch(TokenGrant(.refreshToken(token.refreshToken)))
        return OAuthToken(answer, receivedAt: pipeline.currentDate)
    }

    func expirationDate(of token: OAuthToken) -> Date? {
        // A little early, so that a request sent just before the expiry is not rejected.
        token.expiresAt.addingTimeInterval(-30)
    }
}

func keepTokens(of credentials: CredentialStore<OAuthAuthenticator>, in keychain: TokenKeychain) -> Task<Void, Never> {
    let changes = credentials.changes()
    return Task {
        for await change in changes {
            switch change {
            case .set(let token), .refreshed(let token):
                keychain.save(token)
            case .cleared, .revoked:
                keychain.delete()
            }
        }
    }
}

extension OAuthAuthenticator {
    // A revoked refresh token never works again: sign out rather than try at every rejection.
    func isPermanentRefreshFailure(_ error: any Error) -> Bool {
        guard case .httpStatus(let failure) = error as? ResourceError, failure.statusCode == 400 else { return false }
        return String(decoding: failure.bodyPrefix, as: UTF8.self).contains("invalid_grant")
    }
}

struct Post: Decodable, Sendable {
    let text: String
}

struct Timeline: NetworkResourceType, JSONDecodableResourceType {
    typealias Model = [Post]
    var url: URL { URL(string: "https://api.example.com/timeline")! }

    // Signed in: the user's own timeline. Anonymous: the public one.
    var requiresCredential: Bool { false }
}

/// Where the app keeps its token: here, what it was asked to do, as a sequence the test reads.
final class TokenKeychain: Sendable {
    let actions: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (actions, continuation) = AsyncStream.makeStream()
    }

    func save(_ token: OAuthToken) {
        continuation.yield("save \(token.accessToken)")
    }

    func delete() {
        continuation.yield("delete")
    }
}

struct Profile: Decodable, Sendable {
    let name: String
}

struct CurrentProfile: NetworkResourceType, JSONDecodableResourceType {
    typealias Model = Profile
    var url: URL { URL(string: "https://api.example.com/me")! }
}

struct SearchResult: Decodable, Sendable {
    let count: Int
}

struct SearchUsers: SOAPResourceType {
    typealias Model = SearchResult
    let query: String
    var url: URL { URL(string: "https://example.com/services/UserService")! }
    var operation: String { "searchUsers" }
    var parameters: SOAPParameters { ["query": .text(query)] }
    var responsePath: [String] { ["searchUsersResponse", "result"] }

    // A search only reads: sending it twice is harmless, although SOAP always POSTs.
    func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy {
        var policy = pipelinePolicy
        policy.retryableMethods.insert(.post)
        return policy
    }
}

struct RetryReporter: FetchMonitor {
    let report: @Sendable (String) -> Void

    func retryScheduled(_ event: FetchEvent.RetryScheduled) {
        switch event.reason {
        case .status(let status):
            report("\(event.context.resourceTypeName): \(status), retrying in \(event.delay)")
        case .transport(let code):
            report("\(event.context.resourceTypeName): error \(code.rawValue), retrying in \(event.delay)")
        case .credentialRejected:
            report("\(event.context.resourceTypeName): token rejected, replaying after a refresh")
        }
    }
}

@Suite("AuthenticationRetriesAndMonitoring article")
struct AuthenticationRetriesAndMonitoringArticleTests {
    @Test func refreshesARejectedTokenOnceAndAnExpiredOneBeforeSending() async throws {
        let session = FakeURLSession()
        session.stub(.path("/me"), with: [.status(401), .json(#"{"name": "Ada"}"#)])
        session.stub(.path("/oauth/token"), with: [
            .json(#"{"access_token": "new", "refresh_token": "r2", "expires_in": 3600}"#),
            .json(#"{"access_token": "newer", "refresh_token": "r3", "expires_in": 3600}"#),
        ])
        let clock = ManualClock()
        let credentials = CredentialStore(
            authenticator: OAuthAuthenticator(),
            credential: OAuthToken(accessToken: "old", refreshToken: "r1", expiresAt: Date().addingTimeInterval(3600))
        )
        let pipeline = ResourcePipeline(session: session, credentials: credentials, clock: clock)
        let profiles = ResourceService<CurrentProfile>(pipeline: pipeline)

        // The server rejects the old token: one refresh, then the request is replayed.
        #expect(try await profiles.fetch(CurrentProfile()).name == "Ada")
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
            "Bearer old", nil, "Bearer new",
        ])

        // An hour later the token has expired: it is refreshed before the request is sent.
        clock.advance(by: .seconds(3600))
        #expect(try await profiles.fetch(CurrentProfile()).name == "Ada")
        #expect(session.receivedRequests.suffix(2).map(\.url?.path) == ["/oauth/token", "/me"])
        #expect(session.receivedRequests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer newer")
    }

    // Not in the article: the other snippets, run.

    @Test func manyRequestsRejectedTogetherShareOneRefresh() async throws {
        let session = FakeURLSession()
        session.stub(.path("/me"), with: .json(#"{"name": "Ada"}"#))
        session.stub(RequestMatcher("the old token") { $0.value(forHTTPHeaderField: "Authorization") == "Bearer old" }, with: .status(401))
        session.stub(.path("/oauth/token"), with: .json(#"{"access_token": "new", "refresh_token": "r2", "expires_in": 3600}"#))
        let credentials = CredentialStore(
            authenticator: OAuthAuthenticator(),
            credential: OAuthToken(accessToken: "old", refreshToken: "r1", expiresAt: .distantFuture)
        )
        let lines = LogLines()
        let service = ResourceService<CurrentProfile>(pipeline: ResourcePipeline(
            session: session, credentials: credentials,
            monitors: [LoggingFetchMonitor(sink: lines.append), RetryReporter(report: lines.append)]))

        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await service.fetch(CurrentProfile()).name } }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(names == Array(repeating: "Ada", count: 20))
        #expect(session.receivedRequests.filter { $0.url?.path == "/oauth/token" }.count == 1)
        #expect(lines.all.filter { $0.hasSuffix("token rejected, replaying after a refresh") }.count
            == session.receivedRequests.filter { $0.value(forHTTPHeaderField: "Authorization") == "Bearer old" }.count)
        #expect(lines.all.allSatisfy { !$0.contains("old") && !$0.contains("new") })
    }

    @Test func theSOAPSearchIsRetriedAndReported() async throws {
        let session = FakeURLSession()
        session.stub(.path("/services/UserService"), with: [
            .status(503, headers: ["Retry-After": "0"]),
            .xml(#"<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><searchUsersResponse xmlns=""><result><count>2</count></result></searchUsersResponse></Body></Envelope>"#),
        ])
        let lines = LogLines()
        let pipeline = ResourcePipeline(session: session, retryPolicy: RetryPolicy(), monitors: [RetryReporter(report: lines.append)])

        let result = try await ResourceService<SearchUsers>(pipeline: pipeline).fetch(SearchUsers(query: "ada"))

        #expect(result.count == 2)
        #expect(session.receivedRequests.count == 2)
        #expect(lines.all == ["SearchUsers: 503, retrying in 0.0 seconds"])
    }

    @Test func theKeychainFollowsTheTokenUntilItsRefreshTokenIsRevoked() async throws {
        // GIVEN a token the server rejects, one refresh that works and one that is refused
        let session = FakeURLSession()
        session.stub(.path("/me"), with: [.status(401), .json(#"{"name": "Ada"}"#), .status(401)])
        session.stub(.path("/oauth/token"), with: [
            .json(#"{"access_token": "new", "refresh_token": "r2", "expires_in": 3600}"#),
            .json(#"{"error": "invalid_grant"}"#, statusCode: 400),
        ])
        let credentials = CredentialStore(
            authenticator: OAuthAuthenticator(),
            credential: OAuthToken(accessToken: "old", refreshToken: "r1", expiresAt: .distantFuture)
        )
        let keychain = TokenKeychain()
        let keeping = keepTokens(of: credentials, in: keychain)
        defer { keeping.cancel() }
        var actions = keychain.actions.makeAsyncIterator()
        let profiles = ResourceService<CurrentProfile>(pipeline: ResourcePipeline(session: session, credentials: credentials))

        // The refreshed token is saved.
        #expect(try await profiles.fetch(CurrentProfile()).name == "Ada")
        #expect(await actions.next() == "save new")

        // The next refresh is refused with invalid_grant: signed out, the token deleted, and
        // later requests fail at once.
        for _ in 0..<2 {
            do {
                _ = try await profiles.fetch(CurrentProfile())
                Issue.record("expected the revocation")
            } catch {
                guard case .authenticationFailed(.credentialRevoked) = error else {
                    Issue.record("expected credentialRevoked, got \(error)")
                    continue
                }
            }
        }
        #expect(await actions.next() == "delete")
        #expect(credentials.credential == nil)
        #expect(session.receivedRequests.filter { $0.url?.path == "/oauth/token" }.count == 2)
        #expect(session.receivedRequests.count == 5)
    }

    @Test func aTimelineGoesOutAnonymouslyWithoutAToken() async throws {
        let session = FakeURLSession()
        session.stub(.path("/timeline"), with: .json(#"[{"text": "hello"}]"#))
        let credentials = CredentialStore(authenticator: OAuthAuthenticator(), credential: nil)
        let timeline = ResourceService<Timeline>(pipeline: ResourcePipeline(session: session, credentials: credentials))
        #expect(try await timeline.fetch(Timeline()).map(\.text) == ["hello"])
        #expect(session.receivedRequests.first?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func theLoginStoresTheTokenAndTheRetryingPipelineKeepsItsSettings() async throws {
        let session = FakeURLSession()
        session.stub(.path("/oauth/token"), with: .json(#"{"access_token": "a", "refresh_token": "r", "expires_in": 60}"#))
        let credentials = CredentialStore(authenticator: OAuthAuthenticator(), credential: nil)
        let pipeline = ResourcePipeline(session: session, credentials: credentials)

        try await AuthenticationRetriesAndMonitoringSnippets.logIn(credentials: credentials, pipeline: pipeline)

        #expect(credentials.credential?.accessToken == "a")
        let body = try #require(session.receivedRequests.first?.httpBody)
        #expect(String(decoding: body, as: UTF8.self).hasPrefix("grant_type=password&username=ada&password="))
        let retrying = AuthenticationRetriesAndMonitoringSnippets.retryingPipeline()
        #expect(retrying.retryPolicy.maximumAttempts == 4)
        #expect(retrying.options.deadline == .seconds(20))
        #expect(AuthenticationRetriesAndMonitoringSnippets.monitoredPipeline(log: { _ in }).monitors.count == 2)
    }
}
