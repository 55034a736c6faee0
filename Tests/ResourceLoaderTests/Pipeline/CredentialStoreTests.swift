import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("CredentialStore: one refresh for many, replay once, expiry", .timeLimit(.minutes(1)))
struct CredentialStoreTests {
    let server = TokenCheckingServer()
    let refresher: TokenRefresher
    let recorder = EventRecorder()
    let clock = ManualClock()

    init() {
        refresher = TokenRefresher(server: server)
    }

    func store(_ token: TestToken? = TestToken("t0"), refreshDeadline: Duration = .seconds(60)) -> CredentialStore<TestAuthenticator> {
        CredentialStore(authenticator: TestAuthenticator(refresher: refresher), credential: token, refreshDeadline: refreshDeadline)
    }

    func pipeline(
        _ store: CredentialStore<TestAuthenticator>,
        adapters: [any RequestAdapter] = [],
        retryPolicy: RetryPolicy = .never,
        options: TransferOptions = TransferOptions()
    ) -> ResourcePipeline {
        ResourcePipeline(
            session: server, options: options, adapters: adapters, credentials: store, retryPolicy: retryPolicy,
            monitors: [recorder], clock: clock
        )
    }

    func fetchCities(_ service: ResourceService<CitiesResource>) async -> Result<[City], ResourceError> {
        await Result { () async throws(ResourceError) in try await service.fetch(CitiesResource()) }
    }

    // MARK: - Applying

    @Test func theCredentialIsPutOnTheRequestAfterTheAdapters() async throws {
        server.accept("t0")
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store(), adapters: [
            ClosureRequestAdapter { request in
                var request = request
                // An adapter cannot put a credential of its own in place of the store's.
                request.setValue("Bearer adapter", forHTTPHeaderField: "Authorization")
                return request
            },
        ]))
        let result = await fetchCities(service)
        #expect(result.failure == nil)
        #expect(server.received.map(\.token) == ["t0"])
        #expect(refresher.count == 0)
    }

    @Test func withoutACredentialNothingIsSent() async throws {
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store(nil)))
        let result = await fetchCities(service)
        guard case .authenticationFailed(.noCredential) = result.failure else {
            Issue.record("expected noCredential, got \(result)")
            return
        }
        #expect(server.received.isEmpty)
        #expect(recorder.events == ["finished authenticationFailed attempts=0"])
        #expect(result.failure?.description == "Authentication failed: there is no credential to send")
    }

    @Test func aResourceThatOptsOutCarriesNoCredentialAndIsNotReplayed() async throws {
        // GIVEN a login resource (no adapters, so no credential either) and a server that
        // rejects it
        let pipeline = pipeline(store())
        let login = ResourceService<LoginResource>(pipeline: pipeline)
        let result = await Result { () async throws(ResourceError) in try await login.fetch(LoginResource()) }
        #expect(result.failure?.statusCode == 401)
        #expect(server.received.map(\.token) == [nil])
        #expect(refresher.count == 0)
    }

    @Test func aResourceCanOptOutOfTheCredentialAlone() async throws {
        let service = ResourceService<AnonymousResource>(pipeline: pipeline(store(), adapters: [headerAdapter("X-App", "demo")]))
        _ = await Result { () async throws(ResourceError) in try await service.fetch(AnonymousResource()) }
        let request = try #require(server.received.first)
        #expect(request.token == nil && request.app == "demo")
        #expect(refresher.count == 0)
    }

    // MARK: - Rejection, refresh, replay

    @Test func aRejectedRequestIsReplayedOnceWithTheRefreshedCredential() async throws {
        let store = store()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))

        let result = await fetchCities(service)

        #expect(result.failure == nil)
        #expect(server.received.map(\.token) == ["t0", "t1"])
        #expect(refresher.count == 1 && refresher.refreshed == ["t0"])
        #expect(store.credential == TestToken("t1"))
        #expect(recorder.events == [
            "ready GET /europe.json", "sent 1", "response 1 401 0B", "retry 1 after 0ms credential 401",
            "sent 2", "response 2 200 14B", "model", "finished success attempts=2",
        ])
    }

    @Test func aHundredConcurrentRequestsRejectedWithOneStaleCredentialShareOneRefresh() async throws {
        // GIVEN a stale credential, a server that answers once all 100 requests are in, and a
        // refresh that finishes once all 100 rejected requests wait for it
        let store = store()
        let pipeline = pipeline(store)
        let cities = ResourceService<CitiesResource>(pipeline: pipeline)
        server.hold("/europe.json")
        refresher.holdRefreshes()

        let results = await withTaskGroup(of: Result<[City], ResourceError>.self) { group in
            for _ in 0..<100 {
                group.addTask { await fetchCities(cities) }
            }
            try? await waitUntil { server.heldCount == 100 }
            server.release("/europe.json")
            try? await waitUntil { store.waitingForRefresh == 100 }
            refresher.releaseRefreshes()
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(results.count == 100 && results.allSatisfy { $0.failure == nil })
        #expect(refresher.count == 1)
        let tokens = server.received.map(\.token)
        #expect(tokens.count == 200)
        #expect(tokens.filter { $0 == "t0" }.count == 100 && tokens.filter { $0 == "t1" }.count == 100)
        #expect(recorder.finishedEvents.map(\.attempts) == Array(repeating: 2, count: 100))
        #expect(store.credential == TestToken("t1"))
    }

    @Test func aRequestThatStartsDuringARefreshWaitsForIt() async throws {
        let store = store()
        let pipeline = pipeline(store)
        let cities = ResourceService<CitiesResource>(pipeline: pipeline)
        let array = ResourceService<CityArrayResource>(pipeline: pipeline)
        refresher.holdRefreshes()

        // GIVEN a refresh in progress
        let first = Task { await fetchCities(cities) }
        try await waitUntil { refresher.count == 1 }

        // WHEN another request starts
        let second = Task { await Result { () async throws(ResourceError) in try await array.fetch(CityArrayResource()) } }
        try await waitUntil { store.waitingForRefresh == 2 }
        refresher.releaseRefreshes()

        // THEN it was never sent with the stale credential, and no second refresh ran
        #expect(await first.value.failure == nil)
        #expect(await second.value.failure == nil)
        #expect(server.received.filter { $0.path == "/cities" }.map(\.token) == ["t1"])
        #expect(refresher.count == 1)
    }

    @Test func aRequestRejectedWithAnAlreadyReplacedCredentialIsReplayedWithoutARefresh() async throws {
        // GIVEN a slow request sent with t0, whose 401 arrives after another request has
        // already had t0 replaced by t1
        let store = store()
        let pipeline = pipeline(store)
        server.hold("/cities")
        let slow = Task {
            await Result { () async throws(ResourceError) in
                try await ResourceService<CityArrayResource>(pipeline: pipeline).fetch(CityArrayResource())
            }
        }
        try await waitUntil { server.heldCount == 1 }
        #expect(await fetchCities(ResourceService<CitiesResource>(pipeline: pipeline)).failure == nil)
        #expect(refresher.count == 1)

        server.release("/cities")

        #expect(await slow.value.failure == nil)
        #expect(refresher.count == 1)
        #expect(server.received.filter { $0.path == "/cities" }.map(\.token) == ["t0", "t1"])
    }

    @Test func aReplayThatIsRejectedAgainFailsWithoutAnotherRefresh() async throws {
        // GIVEN a server that rejects every credential
        server.rejectEverything()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store()))

        let result = await fetchCities(service)

        #expect(result.failure?.statusCode == 401)
        #expect(refresher.count == 1)
        #expect(server.received.map(\.token) == ["t0", "t1"])
        #expect(recorder.events.last == "finished httpStatus attempts=2")
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestWithOneTypedError() async throws {
        let store = store()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))
        refresher.failRefreshes(with: RefreshFailure(code: 7))
        server.hold("/europe.json")
        refresher.holdRefreshes()

        let results = await withTaskGroup(of: Result<[City], ResourceError>.self) { group in
            for _ in 0..<10 {
                group.addTask { await fetchCities(service) }
            }
            try? await waitUntil { server.heldCount == 10 }
            server.release("/europe.json")
            try? await waitUntil { store.waitingForRefresh == 10 }
            refresher.releaseRefreshes()
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(results.count == 10)
        for result in results {
            guard case .authenticationFailed(.refreshFailed(let error)) = result.failure else {
                Issue.record("expected refreshFailed, got \(result)")
                continue
            }
            #expect(error as? RefreshFailure == RefreshFailure(code: 7))
        }
        #expect(refresher.count == 1)
        // Nothing was replayed, and the credential is kept.
        #expect(server.received.count == 10)
        #expect(store.credential == TestToken("t0"))
        // The description names the failure, not the refresh error's text.
        #expect(results.first?.failure?.description == "Authentication failed: refreshing the credential failed (RefreshFailure)")

        // AND the next rejection tries again, and can succeed
        refresher.failRefreshes(with: nil)
        #expect(await fetchCities(service).failure == nil)
        #expect(refresher.count == 2)
    }

    @Test func aRefreshIsNotCancelledWithAFetchThatWaitsForIt() async throws {
        let store = store()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))
        refresher.holdRefreshes()
        let cancelled = Task { await fetchCities(service) }
        let waiting = Task { await fetchCities(service) }
        try await waitUntil { store.waitingForRefresh == 2 }

        // WHEN one waiting fetch is cancelled
        cancelled.cancel()

        // THEN it ends at once, while the refresh still runs, and the other still gets its model
        #expect(await cancelled.value.failure?.isCancelled == true)
        refresher.releaseRefreshes()
        #expect(await waiting.value.failure == nil)
        #expect(refresher.count == 1)
    }

    @Test func theDeadlineBoundsTheWaitForARefresh() async throws {
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(store(), options: TransferOptions(deadline: .milliseconds(300)))
        )
        refresher.holdRefreshes()
        let result = await fetchCities(service)
        #expect(result.failure?.caseName == "timedOut")
        refresher.releaseRefreshes()
    }

    @Test func aCredentialTheAppSetsDuringARefreshWins() async throws {
        let store = store()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))
        refresher.holdRefreshes()
        let fetch = Task { await fetchCities(service) }
        try await waitUntil { refresher.count == 1 }

        // WHEN the app logs in again while the refresh runs
        server.accept("login")
        store.setCredential(TestToken("login"))
        refresher.releaseRefreshes()

        // THEN the replay carries the app's credential, and the store keeps it
        #expect(await fetch.value.failure == nil)
        #expect(server.received.map(\.token) == ["t0", "login"])
        #expect(store.credential == TestToken("login"))
    }

    @Test func aRequestRejectedWithACredentialTheAppReplacedIsReplayedWithTheNewOne() async throws {
        let store = store()
        let pipeline = pipeline(store)
        server.hold("/cities")
        let slow = Task {
            await Result { () async throws(ResourceError) in
                try await ResourceService<CityArrayResource>(pipeline: pipeline).fetch(CityArrayResource())
            }
        }
        try await waitUntil { server.heldCount == 1 }
        server.accept("fresh")
        store.setCredential(TestToken("fresh"))
        server.release("/cities")

        #expect(await slow.value.failure == nil)
        #expect(refresher.count == 0)
        #expect(server.received.map(\.token) == ["t0", "fresh"])
    }

    @Test func aLogoutMakesTheNextRequestFailWithoutSending() async throws {
        server.accept("t0")
        let store = store()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))
        #expect(await fetchCities(service).failure == nil)
        store.setCredential(nil)
        guard case .authenticationFailed(.noCredential) = await fetchCities(service).failure else {
            Issue.record("expected noCredential")
            return
        }
        #expect(server.received.count == 1)
    }

    // MARK: - A refresh that never returns

    @Test func aHangingRefreshEndsWhenTheAppSetsACredential() async throws {
        // GIVEN a refresh that never returns (it ignores cancellation, too), and fetches whose
        // deadline is far away
        let store = store()
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(store, options: TransferOptions(deadline: .seconds(300)))
        )
        refresher.holdRefreshes()
        let waiting = Task { await fetchCities(service) }
        try await waitUntil { store.waitingForRefresh == 1 }

        // WHEN the app sets a good credential
        server.accept("good")
        store.setCredential(TestToken("good"))

        // THEN the waiting fetch goes on at once with it, and so does a later one
        #expect(await waiting.value.failure == nil)
        #expect(await fetchCities(service).failure == nil)
        #expect(server.received.map(\.token) == ["t0", "good", "good"])
        #expect(refresher.count == 1)
        #expect(store.waitingForRefresh == 0)

        // AND the refresh was cancelled; when it returns after all, its credential is dropped
        refresher.releaseRefreshes()
        try await waitUntil { refresher.returnedCancelled == 1 }
        #expect(store.credential == TestToken("good"))
        #expect(await fetchCities(service).failure == nil)
        #expect(server.received.last?.token == "good")
    }

    @Test func aHangingRefreshEndsAtTheStoresRefreshDeadlineAndTheNextRejectionRefreshesAgain() async throws {
        // GIVEN a refresh that never returns, a store that gives a refresh 100 ms, and fetches
        // whose own deadline is far away
        let store = store(refreshDeadline: .milliseconds(100))
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(store, options: TransferOptions(deadline: .seconds(300)))
        )
        refresher.holdRefreshes()

        // WHEN the refresh's deadline passes
        let first = await fetchCities(service)

        // THEN the fetch waiting for it fails with the refresh's timeout, and the credential is
        // kept
        guard case .authenticationFailed(.refreshFailed(let error)) = first.failure else {
            Issue.record("expected refreshFailed, got \(first)")
            return
        }
        #expect((error as? ResourceError)?.caseName == "timedOut")
        #expect(first.failure?.description == "Authentication failed: refreshing the credential failed (The request timed out)")
        #expect(store.credential == TestToken("t0"))
        #expect(store.waitingForRefresh == 0)

        // AND the next rejection starts a new refresh (held too, so that no real-time race with
        // the 100 ms bound decides the test), which ends at the bound in the same way
        let second = await fetchCities(service)
        guard case .authenticationFailed(.refreshFailed(let secondError)) = second.failure else {
            Issue.record("expected refreshFailed, got \(second)")
            return
        }
        #expect((secondError as? ResourceError)?.caseName == "timedOut")
        #expect(refresher.count == 2)
        #expect(server.received.map(\.token) == ["t0", "t0"])

        // AND both refreshes, released now, replace nothing
        refresher.releaseRefreshes()
        try await waitUntil { refresher.returnedCancelled == 2 }
        #expect(store.credential == TestToken("t0"))
    }

    @Test func signingOutDuringARefreshReleasesItsWaitersWithNoCredential() async throws {
        // GIVEN three fetches waiting for a refresh that never returns
        let store = store()
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(store, options: TransferOptions(deadline: .seconds(300)))
        )
        refresher.holdRefreshes()
        server.hold("/europe.json")
        let waiting = (0..<3).map { _ in Task { await fetchCities(service) } }
        try await waitUntil { server.heldCount == 3 }
        server.release("/europe.json")
        try await waitUntil { store.waitingForRefresh == 3 }

        // WHEN the app signs out
        store.setCredential(nil)

        // THEN each fails at once with the typed error, and nothing more is sent
        for fetch in waiting {
            let result = await fetch.value
            guard case .authenticationFailed(.noCredential) = result.failure else {
                Issue.record("expected noCredential, got \(result)")
                continue
            }
        }
        #expect(server.received.count == 3)
        #expect(store.waitingForRefresh == 0)
        #expect(store.credential == nil)

        // AND a later fetch fails the same way, without a refresh
        guard case .authenticationFailed(.noCredential) = await fetchCities(service).failure else {
            Issue.record("expected noCredential after signing out")
            return
        }
        #expect(refresher.count == 1)
        #expect(server.received.count == 3)
        refresher.releaseRefreshes()
        try await waitUntil { refresher.returnedCancelled == 1 }
        #expect(store.credential == nil)
    }

    // MARK: - Expiry

    @Test func anExpiredCredentialIsRefreshedBeforeTheRequestIsSent() async throws {
        // GIVEN a credential that expires a minute from now, by the pipeline's clock
        let store = store(TestToken("t0", expiresAt: Date().addingTimeInterval(60)))
        server.accept("t0")
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))
        #expect(await fetchCities(service).failure == nil)
        #expect(refresher.count == 0)

        // WHEN the clock passes the expiry
        clock.advance(by: .seconds(61))
        let result = await fetchCities(service)

        // THEN the new credential goes out first time: no request is rejected
        #expect(result.failure == nil)
        #expect(refresher.count == 1)
        #expect(server.received.map(\.token) == ["t0", "t1"])
        #expect(server.rejections == 0)
        #expect(recorder.finishedEvents.last?.attempts == 1)
    }

    @Test func manyRequestsWithAnExpiredCredentialShareOneRefresh() async throws {
        let store = store(TestToken("t0", expiresAt: Date().addingTimeInterval(-1)))
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))
        refresher.holdRefreshes()

        let results = await withTaskGroup(of: Result<[City], ResourceError>.self) { group in
            for _ in 0..<20 {
                group.addTask { await fetchCities(service) }
            }
            try? await waitUntil { store.waitingForRefresh == 20 }
            refresher.releaseRefreshes()
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(results.allSatisfy { $0.failure == nil })
        #expect(refresher.count == 1)
        #expect(server.received.map(\.token) == Array(repeating: "t1", count: 20))
    }

    @Test func aRefreshedCredentialThatClaimsToBeExpiredIsSentRatherThanRefreshedAgain() async throws {
        refresher.issueExpiredTokens()
        let store = store(TestToken("t0", expiresAt: Date().addingTimeInterval(-1)))
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store))
        let result = await fetchCities(service)
        #expect(result.failure == nil)
        #expect(refresher.count == 1)
        #expect(server.received.map(\.token) == ["t1"])
    }

    @Test func aReplacedCredentialThatClaimsToBeExpiredIsReplayedRatherThanRefreshedAgain() async throws {
        // GIVEN t0, which never expires and which the server rejects, and a refresher whose
        // tokens claim to be expired already
        refresher.issueExpiredTokens()
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store()))
        let result = await fetchCities(service)
        #expect(result.failure == nil)
        #expect(refresher.count == 1)
        #expect(server.received.map(\.token) == ["t0", "t1"])
    }

    @Test func aRejectionFromAnotherOriginAfterARedirectNeverRefreshes() async throws {
        // GIVEN a transport that followed a redirect to another origin, which the credential
        // never reached, and was answered 401 there
        server.accept("t0")
        server.answerFrom(URL(string: "https://cdn.example.net/europe.json")!)
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store()))
        let result = await fetchCities(service)
        #expect(result.failure?.statusCode == 401)
        #expect(refresher.count == 0)
        #expect(server.received.count == 1)
    }

    @Test func aRejectionFromTheSameOriginAfterARedirectRefreshesAndReplays() async throws {
        server.answerFrom(URL(string: "https://API.example.com:443/moved/europe.json")!)
        let service = ResourceService<CitiesResource>(pipeline: pipeline(store()))
        let result = await fetchCities(service)
        #expect(result.failure == nil)
        #expect(refresher.count == 1)
        #expect(server.received.map(\.token) == ["t0", "t1"])
    }

    // MARK: - The fetch the authenticator runs for

    @Test(arguments: [false, true], [false, true])
    func theAuthenticatorRunsWithTheFetchAsCurrentOnEveryAttempt(suspendingAdapter: Bool, completionHandler: Bool) async throws {
        // GIVEN an authenticator that notes which fetch each of its calls runs for, a first
        // attempt made without a task (a synchronous adapter) or in one (a suspending adapter),
        // and a server that rejects the first credential
        let calls = Locked<[String]>([])
        let session = FakeURLSession()
        session.stub(.any, with: [.status(401), .json(#"{"cities": []}"#)])
        let store = CredentialStore(authenticator: FetchNotingAuthenticator(calls: calls), credential: "t0")
        let adapter = suspendingAdapter ? ClosureRequestAdapter { request async in request } : ClosureRequestAdapter { request in request }
        let service = ResourceService<CitiesResource>(
            pipeline: ResourcePipeline(session: session, adapters: [adapter], credentials: store, monitors: [recorder])
        )

        // WHEN it is fetched: rejected, refreshed, replayed
        if completionHandler {
            #expect(await service.fetchWithCompletion(CitiesResource()).failure == nil)
        } else {
            #expect(await fetchCities(service).failure == nil)
        }

        // THEN every call but the refresh (a fetch of its own) ran with the fetch as current,
        // the first attempt's check of the rejection included
        let fetch = try #require(recorder.finishedEvents.first?.context.fetchID)
        #expect(calls.withLock { $0 } == [
            "expirationDate \(fetch)", "apply \(fetch)", "isCredentialRejected \(fetch)", "refresh none",
            "apply \(fetch)", "isCredentialRejected \(fetch)",
        ])
    }

    // MARK: - With retries

    @Test func aRejectedOneShotStreamBodyIsNotReplayed() async throws {
        // GIVEN a server that rejects every credential, and a body that can be read only once
        let session = FakeURLSession()
        session.stub(.any, with: .status(401))
        let pipeline = ResourcePipeline(session: session, credentials: store(), monitors: [recorder], clock: clock)
        let upload = Upload(
            url: URL(string: "https://api.example.com/upload")!, upload: .stream(RequestBodyStream(chunkStream([Data("abc".utf8)]))))
        let result = await Result { () async throws(ResourceError) in try await ResourceService<Upload>(pipeline: pipeline).fetch(upload) }
        // THEN the rejection is the outcome: no replay with an empty body, and no refresh for it
        #expect(result.failure?.statusCode == 401)
        #expect(session.receivedRequests.count == 1)
        #expect(refresher.count == 0)
    }

    @Test func aRejectedPostIsReplayedWithTheNewCredentialThoughThePolicyNeverRetriesIt() async throws {
        // GIVEN a POST, which the default retry policy never sends again, answered 401, then 503
        let session = FakeURLSession()
        session.stub(.any, with: [.status(401), .status(503), .json(#"{"cities": []}"#)])
        let pipeline = ResourcePipeline(
            session: session, credentials: store(), retryPolicy: RetryPolicy(jitter: .none), monitors: [recorder], clock: clock
        )
        let result = await Result { () async throws(ResourceError) in
            try await ResourceService<PostedCities>(pipeline: pipeline).fetch(PostedCities())
        }
        // THEN the rejected POST is sent again once, body and all, with the new credential: a
        // replay; the 503 that answers it is not retried, and is the outcome
        #expect(result.failure?.statusCode == 503)
        let sent = session.receivedRequests
        #expect(sent.map(\.httpMethod) == ["POST", "POST"])
        #expect(sent.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer t0", "Bearer t1"])
        #expect(sent.map(\.httpBody) == Array(repeating: PostedCities.form, count: 2))
        #expect(refresher.count == 1)
        #expect(recorder.events.filter { $0.hasPrefix("retry") } == ["retry 1 after 0ms credential 401"])
    }

    @Test func theReplayDoesNotCountAgainstMaximumAttempts() async throws {
        // GIVEN two attempts at most: t0 rejected (the replay), t1 answered 503 (the one retry),
        // then success
        server.failNextAcceptedRequest(with: 503)
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(store(), retryPolicy: RetryPolicy(maximumAttempts: 2, jitter: .none))
        )
        let task = Task { await fetchCities(service) }
        _ = await clock.advanceToNextSleeper()
        let result = await task.value
        #expect(result.failure == nil)
        #expect(server.received.map(\.token) == ["t0", "t1", "t1"])
        #expect(recorder.finishedEvents.first?.attempts == 3)
    }

    @Test func aReplayAndARetryInOneFetch() async throws {
        // GIVEN t0 rejected, then t1 answered with 503 once, then success
        server.failNextAcceptedRequest(with: 503)
        let service = ResourceService<CitiesResource>(
            pipeline: pipeline(store(), retryPolicy: RetryPolicy(jitter: .none))
        )
        let task = Task { await fetchCities(service) }
        let wait = await clock.advanceToNextSleeper()
        let result = await task.value

        #expect(result.failure == nil)
        #expect(wait == .milliseconds(500))
        #expect(server.received.map(\.token) == ["t0", "t1", "t1"])
        #expect(recorder.events.filter { $0.hasPrefix("retry") } == [
            "retry 1 after 0ms credential 401", "retry 2 after 500ms status 503",
        ])
        #expect(recorder.finishedEvents.first?.attempts == 3)
    }
}

// MARK: - Test doubles

/// A bearer token, with an expiry date when it has one.
struct TestToken: Sendable, Equatable {
    let value: String
    let expiresAt: Date?

    init(_ value: String, expiresAt: Date? = nil) {
        self.value = value
        self.expiresAt = expiresAt
    }
}

struct TestAuthenticator: Authenticator {
    let refresher: TokenRefresher

    func apply(_ token: TestToken, to request: inout URLRequest) {
        request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ token: TestToken, through pipeline: ResourcePipeline) async throws -> TestToken {
        try await refresher.refresh(token)
    }

    func expirationDate(of token: TestToken) -> Date? {
        token.expiresAt
    }

    /// Only ``RefreshFailure/revoked``.
    func isPermanentRefreshFailure(_ error: any Error) -> Bool {
        error as? RefreshFailure == .revoked
    }
}

struct RefreshFailure: Error, Equatable {
    /// What an OAuth token endpoint's `invalid_grant` stands for: the refresh token is revoked.
    static let revoked = RefreshFailure(code: 400)

    let code: Int
}

/// Issues `t1`, `t2`, … and tells the server to accept them; can hold refreshes until released,
/// or fail them.
final class TokenRefresher: @unchecked Sendable {
    // `lock` guards every variable below.
    private let lock = NSLock()
    private var calls: [String] = []
    private var isHolding = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var failure: RefreshFailure?
    private var issuesExpired = false
    private var cancelledReturns = 0
    private let server: TokenCheckingServer

    init(server: TokenCheckingServer) {
        self.server = server
    }

    /// How many refreshes ran.
    var count: Int { lock.withLock { calls.count } }
    /// The tokens refreshed, in order.
    var refreshed: [String] { lock.withLock { calls } }
    /// How many refreshes returned in a task that had been cancelled.
    var returnedCancelled: Int { lock.withLock { cancelledReturns } }

    func holdRefreshes() { lock.withLock { isHolding = true } }

    func releaseRefreshes() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isHolding = false
            defer { held = [] }
            return held
        }
        for continuation in waiting { continuation.resume() }
    }

    func failRefreshes(with failure: RefreshFailure?) { lock.withLock { self.failure = failure } }
    func issueExpiredTokens() { lock.withLock { issuesExpired = true } }

    func refresh(_ token: TestToken) async throws -> TestToken {
        let (number, hold) = lock.withLock { () -> (Int, Bool) in
            calls.append(token.value)
            return (calls.count, isHolding)
        }
        if hold {
            await withCheckedContinuation { continuation in
                let stillHolding = lock.withLock { () -> Bool in
                    if isHolding { held.append(continuation) }
                    return isHolding
                }
                if !stillHolding { continuation.resume() }
            }
        }
        let (failure, expired) = lock.withLock { () -> (RefreshFailure?, Bool) in
            if Task.isCancelled { cancelledReturns += 1 }
            return (self.failure, issuesExpired)
        }
        if let failure { throw failure }
        let value = "t\(number)"
        server.accept(value)
        return TestToken(value, expiresAt: expired ? Date(timeIntervalSince1970: 0) : nil)
    }
}

/// A transport that answers `200` with an empty list of cities to requests whose bearer token it
/// accepts and `401` to the rest, and writes down what it received.
final class TokenCheckingServer: URLSessionType, @unchecked Sendable {
    struct Received: Sendable {
        let path: String
        let token: String?
        let app: String?
    }

    // `lock` guards every variable below.
    private let lock = NSLock()
    private var accepted: Set<String> = []
    private var rejectsAll = false
    private var log: [Received] = []
    private var rejected = 0
    private var heldPaths: Set<String> = []
    private var heldAnswers: [String: [@Sendable () -> Void]] = [:]
    private var nextAcceptedStatus: Int?
    private var publicPaths: Set<String> = []
    private var answeringURL: URL?

    var received: [Received] { lock.withLock { log } }
    var rejections: Int { lock.withLock { rejected } }
    var heldCount: Int { lock.withLock { heldAnswers.values.map(\.count).reduce(0, +) } }

    func accept(_ token: String) { lock.withLock { _ = accepted.insert(token) } }
    func rejectEverything() { lock.withLock { rejectsAll = true } }
    func failNextAcceptedRequest(with status: Int) { lock.withLock { nextAcceptedStatus = status } }
    /// Answers requests for `path` that carry no token with `200`.
    func serveAnonymously(_ path: String) { lock.withLock { _ = publicPaths.insert(path) } }

    /// Answers every request as if a redirect had led it to `url`: the response says `url`, and
    /// a credential is read (and accepted) only when `url` has the request's origin, as a
    /// transport keeps it only there.
    func answerFrom(_ url: URL) { lock.withLock { answeringURL = url } }

    /// Holds the answers to requests for `path` until ``release(_:)``.
    func hold(_ path: String) { lock.withLock { _ = heldPaths.insert(path) } }

    func release(_ path: String) {
        let answers = lock.withLock { () -> [@Sendable () -> Void] in
            heldPaths.remove(path)
            return heldAnswers.removeValue(forKey: path) ?? []
        }
        for answer in answers { answer() }
    }

    func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        let path = request.url?.path ?? ""
        let answeringURL = lock.withLock { self.answeringURL } ?? request.url!
        let sameOrigin = answeringURL.host?.lowercased() == request.url?.host?.lowercased()
        let authorization = sameOrigin ? request.value(forHTTPHeaderField: "Authorization") : nil
        let token = authorization.map { String($0.dropFirst("Bearer ".count)) }
        // The status is decided when the request arrives, as a server would.
        let (status, isHeld) = lock.withLock { () -> (Int, Bool) in
            log.append(Received(path: path, token: token, app: request.value(forHTTPHeaderField: "X-App")))
            var status = 401
            if let token, accepted.contains(token), !rejectsAll {
                status = nextAcceptedStatus ?? 200
                nextAcceptedStatus = nil
            }
            if token == nil, publicPaths.contains(path) { status = 200 }
            if status == 401 { rejected += 1 }
            return (status, heldPaths.contains(path))
        }
        let body = status == 200 ? Data((path == "/cities" ? "[]" : #"{"cities": []}"#).utf8) : Data()
        let response = HTTPURLResponse(url: answeringURL, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
        let answer: @Sendable () -> Void = { completionHandler(.success((body, response))) }
        if isHeld {
            lock.withLock { heldAnswers[path, default: []].append(answer) }
        } else {
            DispatchQueue.global().async(execute: answer)
        }
        return NothingToCancel()
    }
}

private final class NothingToCancel: Cancellable {
    func cancel() {}
}

/// An authenticator of string tokens that notes, for each call, the fetch
/// (``FetchEvent/Context/current``) it runs for.
struct FetchNotingAuthenticator: Authenticator {
    let calls: Locked<[String]>

    private func note(_ call: String) {
        let fetch = FetchEvent.Context.current.map { "\($0.fetchID)" } ?? "none"
        calls.withLock { $0.append("\(call) \(fetch)") }
    }

    func apply(_ token: String, to request: inout URLRequest) {
        note("apply")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ token: String, through pipeline: ResourcePipeline) async throws -> String {
        note("refresh")
        return token + "+"
    }

    func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool {
        note("isCredentialRejected")
        return response.statusCode == 401
    }

    func expirationDate(of token: String) -> Date? {
        note("expirationDate")
        return nil
    }
}

/// A search sent as a `POST`, which the retry policy does not retry by default.
struct PostedCities: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    static let form = Data("q=lis".utf8)
    var url: URL { URL(string: "https://api.example.com/europe.json")! }
    var httpMethod: HTTPMethod { .post }
    var body: RequestBody? { .data(Self.form, contentType: "application/x-www-form-urlencoded") }
    func model(from root: Root) -> [City] { root.cities }
}

/// A resource whose requests carry the adapters' fields but not the credential.
struct AnonymousResource: NetworkResourceType, DataResourceType {
    var url: URL { URL(string: "https://api.example.com/public")! }
    var usesPipelineAuthenticator: Bool { false }

    func model(from data: Data) throws -> Data { data }
}
