import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The credential's life in a ``CredentialStore``: resources whose credential is optional, the
/// changes the store reports, and the permanent refresh failure that signs it out.
@Suite("CredentialStore: optional credentials, changes, revocation", .timeLimit(.minutes(1)))
struct CredentialLifecycleTests {
    let server = TokenCheckingServer()
    let refresher: TokenRefresher
    let recorder = EventRecorder()
    let clock = ManualClock()
    let changes = ChangeRecorder()

    init() {
        refresher = TokenRefresher(server: server)
    }

    func store(_ token: TestToken? = TestToken("t0")) -> CredentialStore<TestAuthenticator> {
        CredentialStore(authenticator: TestAuthenticator(refresher: refresher), credential: token, onChange: changes.record)
    }

    func pipeline(_ store: CredentialStore<TestAuthenticator>) -> ResourcePipeline {
        ResourcePipeline(session: server, credentials: store, monitors: [recorder], clock: clock)
    }

    func fetchFeed(_ pipeline: ResourcePipeline) async -> Result<Data, ResourceError> {
        await Result { () async throws(ResourceError) in try await ResourceService<FeedResource>(pipeline: pipeline).fetch(FeedResource()) }
    }

    func fetchCities(_ pipeline: ResourcePipeline) async -> Result<[City], ResourceError> {
        await Result { () async throws(ResourceError) in try await ResourceService<CitiesResource>(pipeline: pipeline).fetch(CitiesResource()) }
    }

    /// Revokes the refresh token: the next refresh fails permanently.
    func revokeRefreshToken() {
        refresher.failRefreshes(with: .revoked)
    }

    // MARK: - Optional credential

    /// Cancels a fetch's task when told of its first response.
    final class CancelOnResponse: FetchMonitor, @unchecked Sendable {
        private let isSet = DispatchSemaphore(value: 0)
        // `lock` guards `task`.
        private let lock = NSLock()
        private var task: Task<Result<[City], ResourceError>, Never>?

        func set(_ task: Task<Result<[City], ResourceError>, Never>) {
            lock.withLock { self.task = task }
            isSet.signal()
        }

        func responseReceived(_ event: FetchEvent.ResponseReceived) {
            _ = isSet.wait(timeout: .now() + 10)
            let task = lock.withLock { () -> Task<Result<[City], ResourceError>, Never>? in
                defer { self.task = nil }
                return self.task
            }
            task?.cancel()
        }
    }

    @Test func aFetchCancelledAsItsCredentialIsRejectedStartsNoRefresh() async throws {
        // GIVEN a server that rejects the credential, a monitor that cancels the fetch as the
        // rejection arrives, and an adapter that runs the attempts in a task of their own
        let canceller = CancelOnResponse()
        let store = store()
        let adapter = ClosureRequestAdapter { (request: URLRequest) async throws -> URLRequest in request }
        let pipeline = ResourcePipeline(
            session: server, adapters: [adapter], credentials: store, monitors: [canceller, recorder], clock: clock)

        // WHEN the fetch is made
        let task = Task { await fetchCities(pipeline) }
        canceller.set(task)
        let result = await task.value

        // THEN it ends cancelled, and no refresh starts for it: nobody waits for one
        #expect(result.failure?.isCancelled == true)
        try await Task.sleep(for: .milliseconds(200))
        #expect(refresher.count == 0)
        #expect(changes.names.isEmpty)
        #expect(server.received.map(\.token) == ["t0"])
    }

    @Test func anOptionalCredentialGoesOutWhenTheStoreHasOne() async throws {
        server.accept("t0")
        let pipeline = pipeline(store())
        #expect(await fetchFeed(pipeline).failure == nil)
        #expect(server.received.map(\.token) == ["t0"])
    }

    @Test func withoutACredentialAnOptionalOneGoesOutAnonymously() async throws {
        server.serveAnonymously("/feed")
        let pipeline = pipeline(store(nil))
        #expect(await fetchFeed(pipeline).failure == nil)
        #expect(server.received.map(\.token) == [nil])
        // A required one still fails without being sent.
        guard case .authenticationFailed(.noCredential) = await fetchCities(pipeline).failure else {
            Issue.record("expected noCredential")
            return
        }
        #expect(server.received.count == 1)
    }

    @Test func anAnonymousRequestIsNeverReplayedNorRefreshed() async throws {
        // GIVEN a server that rejects the anonymous request, and nobody signed in
        let pipeline = pipeline(store(nil))

        let result = await fetchFeed(pipeline)

        // THEN the rejection is the outcome: one attempt, no refresh
        #expect(result.failure?.statusCode == 401)
        #expect(server.received.map(\.token) == [nil])
        #expect(refresher.count == 0)
        #expect(recorder.finishedEvents.map(\.attempts) == [1])
        #expect(!recorder.events.contains { $0.hasPrefix("retry") })
    }

    @Test func aRejectedOptionalCredentialIsRefreshedAndReplayedAsAnyOther() async throws {
        let pipeline = pipeline(store())
        #expect(await fetchFeed(pipeline).failure == nil)
        #expect(server.received.map(\.token) == ["t0", "t1"])
        #expect(refresher.count == 1)
    }

    @Test func anExpiredOptionalCredentialIsRefreshedBeforeItIsSent() async throws {
        // GIVEN a credential that expires a minute from now, by the pipeline's clock
        let store = store(TestToken("t0", expiresAt: Date().addingTimeInterval(60)))
        server.accept("t0")
        let pipeline = pipeline(store)
        #expect(await fetchFeed(pipeline).failure == nil)

        // WHEN the clock passes the expiry
        clock.advance(by: .seconds(61))

        // THEN the optional credential is refreshed first, as a required one is
        #expect(await fetchFeed(pipeline).failure == nil)
        #expect(server.received.map(\.token) == ["t0", "t1"])
        #expect(refresher.count == 1)
        #expect(server.rejections == 0)
    }

    @Test func afterSigningOutAnOptionalCredentialGoesOutAnonymously() async throws {
        server.accept("t0")
        server.serveAnonymously("/feed")
        let store = store()
        let pipeline = pipeline(store)
        #expect(await fetchFeed(pipeline).failure == nil)
        store.setCredential(nil)
        #expect(await fetchFeed(pipeline).failure == nil)
        #expect(server.received.map(\.token) == ["t0", nil])
        #expect(refresher.count == 0)
    }

    // MARK: - Changes

    @Test func everyChangeIsReportedInOrderToTheSequenceAndTheHandler() async throws {
        // GIVEN a sequence of changes read from the start, and a credential that expires a
        // minute from now, by the pipeline's clock
        let store = store(TestToken("t0", expiresAt: Date().addingTimeInterval(60)))
        let sequence = store.changes()
        let read = Task {
            var names: [String] = []
            for await change in sequence {
                names.append(ChangeRecorder.name(of: change))
                if names.count == 6 { break }
            }
            return names
        }
        let pipeline = pipeline(store)

        // WHEN the server rejects t0 (refreshed to t1), the app sets a credential that the
        // clock then takes past its expiry (refreshed to t2), the app signs out and in again,
        // and the refresh token is revoked
        #expect(await fetchCities(pipeline).failure == nil)
        store.setCredential(TestToken("app", expiresAt: Date().addingTimeInterval(120)))
        clock.advance(by: .seconds(121))
        #expect(await fetchCities(pipeline).failure == nil)
        store.setCredential(nil)
        store.setCredential(TestToken("again"))
        revokeRefreshToken()
        _ = await fetchCities(pipeline)

        // THEN both saw the same changes, in order; the first credential is not a change
        let expected = ["refreshed t1", "set app", "refreshed t2", "cleared", "set again", "revoked RefreshFailure(code: 400)"]
        #expect(await read.value == expected)
        #expect(changes.names == expected)
    }

    @Test func aSequenceReportsOnlyTheChangesAfterItWasMadeAndEndsWithTheStore() async throws {
        var store: CredentialStore<TestAuthenticator>? = store()
        store?.setCredential(TestToken("before"))
        let sequence = try #require(store?.changes())
        store?.setCredential(TestToken("after"))
        store = nil

        var names: [String] = []
        for await change in sequence { names.append(ChangeRecorder.name(of: change)) }
        #expect(names == ["set after"])
    }

    @Test func aSequenceMadeBeforeTheTaskThatReadsItMissesNoChangeMadeBeforeTheTaskRuns() async throws {
        // GIVEN a sequence made, as the store's documentation shows, before the task that reads it
        let store = store()
        let changes = store.changes()
        let read = Task { () -> String? in
            for await change in changes { return ChangeRecorder.name(of: change) }
            return nil
        }
        // WHEN a change comes at once, whether or not the task has begun to read
        store.setCredential(TestToken("at once"))
        // THEN the task reads it
        #expect(await read.value == "set at once")
    }

    @Test func changesMadeFromTheHandlerAreReportedAfterTheOneBeingDelivered() async throws {
        // GIVEN a handler that signs out whenever a credential is set
        let names = Locked<[String]>([])
        let box = Locked<CredentialStore<TestAuthenticator>?>(nil)
        let store = CredentialStore(authenticator: TestAuthenticator(refresher: refresher), credential: nil) { change in
            names.withLock { $0.append(ChangeRecorder.name(of: change)) }
            if case .set = change { box.withLock { $0 }?.setCredential(nil) }
        }
        box.withLock { $0 = store }

        store.setCredential(TestToken("a"))

        // THEN no deadlock, and the order is the order of the changes
        #expect(names.withLock { $0 } == ["set a", "cleared"])
        #expect(store.credential == nil)
        box.withLock { $0 = nil }
    }

    // MARK: - Revocation

    @Test func aPermanentRefreshFailureSignsTheStoreOutForWaitingAndLaterRequests() async throws {
        // GIVEN ten requests rejected with t0, waiting for a refresh that will fail permanently
        let store = store()
        let pipeline = pipeline(store)
        revokeRefreshToken()
        server.hold("/europe.json")
        refresher.holdRefreshes()
        let results = await withTaskGroup(of: Result<[City], ResourceError>.self) { group in
            for _ in 0..<10 {
                group.addTask { await fetchCities(pipeline) }
            }
            try? await waitUntil { server.heldCount == 10 }
            server.release("/europe.json")
            try? await waitUntil { store.waitingForRefresh == 10 }
            refresher.releaseRefreshes()
            return await group.reduce(into: []) { $0.append($1) }
        }

        // THEN each fails with the revocation, carrying the refresh's error, and the store has
        // no credential
        #expect(results.count == 10)
        for result in results {
            guard case .authenticationFailed(.credentialRevoked(let error)) = result.failure else {
                Issue.record("expected credentialRevoked, got \(result)")
                continue
            }
            #expect(error as? RefreshFailure == .revoked)
        }
        #expect(store.credential == nil)
        #expect(results.first?.failure?.logName == "authenticationFailed(credentialRevoked)")
        #expect(results.first?.failure?.description
            == "Authentication failed: the credential was revoked and the store is signed out (RefreshFailure)")

        // AND a later request fails at once: nothing sent, no refresh
        guard case .authenticationFailed(.credentialRevoked) = await fetchCities(pipeline).failure else {
            Issue.record("expected credentialRevoked for a later request")
            return
        }
        #expect(server.received.count == 10)
        #expect(refresher.count == 1)
        #expect(recorder.finishedEvents.last?.attempts == 0)

        // AND a new credential signs it in again
        server.accept("login")
        store.setCredential(TestToken("login"))
        #expect(await fetchCities(pipeline).failure == nil)
        #expect(server.received.last?.token == "login")
        #expect(changes.names == ["revoked RefreshFailure(code: 400)", "set login"])
    }

    @Test func anExpiredCredentialWhoseRefreshTokenIsRevokedSignsOutBeforeAnythingIsSent() async throws {
        // GIVEN a credential that expires a minute from now, by the pipeline's clock
        let store = store(TestToken("t0", expiresAt: Date().addingTimeInterval(60)))
        let pipeline = pipeline(store)
        revokeRefreshToken()

        // WHEN the clock passes the expiry
        clock.advance(by: .seconds(61))

        // THEN the refresh before sending fails permanently: signed out, nothing sent
        guard case .authenticationFailed(.credentialRevoked) = await fetchCities(pipeline).failure else {
            Issue.record("expected credentialRevoked")
            return
        }
        #expect(server.received.isEmpty)
        #expect(refresher.count == 1)
        #expect(store.credential == nil)
        // The change is told on the refresh's thread, which may still be delivering it when the
        // failed fetch returns.
        try await waitUntil { changes.names == ["revoked RefreshFailure(code: 400)"] }
    }

    @Test func aRevocationThatComesAfterTheAppSetACredentialIsDropped() async throws {
        // GIVEN a fetch waiting for a refresh that will fail permanently
        let store = store()
        let pipeline = pipeline(store)
        revokeRefreshToken()
        refresher.holdRefreshes()
        let waiting = Task { await fetchCities(pipeline) }
        try await waitUntil { store.waitingForRefresh == 1 }

        // WHEN the app signs in again first, and the refresh fails afterwards
        server.accept("login")
        store.setCredential(TestToken("login"))
        #expect(await waiting.value.failure == nil)
        refresher.releaseRefreshes()
        try await waitUntil { refresher.returnedCancelled == 1 }

        // THEN the store stays signed in with the app's credential
        #expect(store.credential == TestToken("login"))
        #expect(await fetchCities(pipeline).failure == nil)
        #expect(changes.names == ["set login"])
    }

    @Test func signingOutAfterARevocationReportsNoCredential() async throws {
        let store = store()
        let pipeline = pipeline(store)
        revokeRefreshToken()
        _ = await fetchCities(pipeline)
        store.setCredential(nil)
        guard case .authenticationFailed(.noCredential) = await fetchCities(pipeline).failure else {
            Issue.record("expected noCredential")
            return
        }
        #expect(refresher.count == 1)
    }

    @Test func aPassingRefreshFailureKeepsTheCredential() async throws {
        let store = store()
        let pipeline = pipeline(store)
        refresher.failRefreshes(with: RefreshFailure(code: 503))
        guard case .authenticationFailed(.refreshFailed) = await fetchCities(pipeline).failure else {
            Issue.record("expected refreshFailed")
            return
        }
        #expect(store.credential == TestToken("t0"))
        #expect(changes.names.isEmpty)
    }

    @Test func aThousandRequestsAfterARevokedRefreshTokenMakeExactlyOneRefresh() async throws {
        // GIVEN a stale credential, a revoked refresh token, and a server that rejects t0
        let store = store()
        let pipeline = pipeline(store)
        revokeRefreshToken()

        // WHEN a thousand requests run at once, and a thousand more after them
        let first = await withTaskGroup(of: Result<[City], ResourceError>.self) { group in
            for _ in 0..<1000 {
                group.addTask { await fetchCities(pipeline) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let sentBefore = server.received.count
        let second = await withTaskGroup(of: Result<[City], ResourceError>.self) { group in
            for _ in 0..<1000 {
                group.addTask { await fetchCities(pipeline) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        // THEN exactly one refresh ran, every request failed with the revocation, none was
        // sent twice, and none of the later ones was sent at all
        #expect(refresher.count == 1)
        let all = first + second
        #expect(all.count == 2000)
        #expect(all.allSatisfy { if case .authenticationFailed(.credentialRevoked) = $0.failure { true } else { false } })
        #expect(sentBefore <= 1000)
        #expect(server.received.allSatisfy { $0.token == "t0" })
        #expect(server.received.count == sentBefore)
        #expect(changes.names == ["revoked RefreshFailure(code: 400)"])
    }
}

// MARK: - Test doubles

/// A resource that anyone may fetch, and that carries the credential when there is one.
struct FeedResource: NetworkResourceType, DataResourceType {
    var url: URL { URL(string: "https://api.example.com/feed")! }
    var requiresCredential: Bool { false }

    func model(from data: Data) throws -> Data { data }
}

/// Collects a store's changes, as short names.
final class ChangeRecorder: Sendable {
    private let changes = Locked<[String]>([])

    /// The changes so far, in order.
    var names: [String] { changes.withLock { $0 } }

    /// A handler for the store's `onChange`.
    var record: @Sendable (CredentialStore<TestAuthenticator>.Change) -> Void {
        { [changes] change in changes.withLock { $0.append(Self.name(of: change)) } }
    }

    static func name(of change: CredentialStore<TestAuthenticator>.Change) -> String {
        switch change {
        case .set(let token): "set \(token.value)"
        case .refreshed(let token): "refreshed \(token.value)"
        case .cleared: "cleared"
        case .revoked(let error): "revoked \(error)"
        }
    }
}
