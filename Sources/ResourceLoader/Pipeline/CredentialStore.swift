import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Holds the current credential of a ``ResourcePipeline``, puts it on every request, and
/// refreshes it once for all the requests that need a new one.
///
/// For each attempt of a fetch through a pipeline made with
/// ``ResourcePipeline/init(session:options:adapters:credentials:retryPolicy:monitors:clock:cache:)``:
///
/// 1. If a refresh is running, the request waits for it.
/// 2. If the credential's ``Authenticator/expirationDate(of:)`` has come, it is refreshed before
///    the request is sent.
/// 3. ``Authenticator/apply(_:to:)`` puts the credential on the request, after the pipeline's
///    adapters.
/// 4. When the server rejects it (``Authenticator/isCredentialRejected(by:data:)``), the request
///    is replayed once with a new credential:
///    - if the credential it carried is still the current one and no refresh is running,
///      ``Authenticator/refresh(_:through:)`` runs;
///    - if a refresh is running, the request waits for it;
///    - if the credential has already been replaced, it is replayed with the new one at once.
///
///    So for any number of concurrent requests rejected with the same credential, exactly one
///    refresh runs. A replay that is rejected again is not replayed: the fetch fails with the
///    rejection, as ``ResourceError/httpStatus(_:)``, so a server that rejects every credential
///    cannot make the client refresh in a loop.
///
/// A refresh that throws fails every request waiting for it with
/// ``ResourceError/authenticationFailed(_:)`` carrying the refresh's error, and leaves the
/// credential as it was; the next rejection tries again. Unless the authenticator calls the
/// failure permanent (``Authenticator/isPermanentRefreshFailure(_:)``, for a revoked refresh
/// token): then the store drops its credential and is signed out, and the waiting requests and
/// every later one fail at once with
/// ``ResourceError/AuthenticationFailure/credentialRevoked(_:)``, with no refresh, until the app
/// sets a new credential. A store without a credential fails requests with
/// ``ResourceError/AuthenticationFailure/noCredential`` and sends nothing.
///
/// A resource whose ``NetworkResourceType/requiresCredential`` is `false` is sent with the
/// credential when the store has one and without one when it has none (nobody signed in, or
/// signed out after a revocation); a request sent without a credential is never replayed and
/// never starts a refresh.
///
/// The store does not save the credential anywhere. It reports every change (set, refreshed,
/// cleared, revoked) to ``changes()`` and to the `onChange` handler given to
/// ``init(authenticator:credential:refreshDeadline:onChange:)``, in the order the changes
/// happened, so that the app saves the new credential where it belongs. A sequence reports the
/// changes after it was made: make it before the task that reads it, so that none slips in
/// before the task runs:
///
/// ```swift
/// let changes = credentials.changes()
/// Task {
///     for await change in changes {
///         switch change {
///         case .set(let token), .refreshed(let token): keychain.save(token)
///         case .cleared, .revoked: keychain.delete()
///         }
///     }
/// }
/// ```
///
/// Every refresh is bounded by the store's ``refreshDeadline``, measured in real time as a
/// fetch's ``TransferOptions/deadline`` is: a refresh still running then is cancelled, and every
/// request waiting for it fails with ``ResourceError/AuthenticationFailure/refreshFailed(_:)``
/// carrying ``ResourceError/timedOut``. The credential is kept, and the next rejection starts a
/// new refresh, so a token endpoint that never answers cannot wedge the store.
///
/// Waiting for a refresh happens inside the fetch: its deadline bounds the wait, and cancelling
/// the fetch ends it at once. The refresh itself is not cancelled with a fetch that waits for it,
/// since others may be waiting too, and a refresh token the server has already replaced would
/// be lost with its answer.
///
/// The store is shared: give one store to one pipeline and make every service from that
/// pipeline. Set the credential after logging in, and remove it when logging out, with
/// ``setCredential(_:)``; either ends a refresh in progress at once.
public final class CredentialStore<Authenticator: ResourceLoader.Authenticator>: Sendable {
    /// A change of the store's credential, as ``CredentialStore/changes()`` and the store's
    /// `onChange` handler report it.
    public enum Change: Sendable {
        /// The app set this credential with ``CredentialStore/setCredential(_:)``.
        case set(Authenticator.Credential)
        /// A refresh replaced the credential with this one.
        case refreshed(Authenticator.Credential)
        /// The app removed the credential with `setCredential(nil)`: signed out.
        case cleared
        /// A refresh failed permanently (``Authenticator/isPermanentRefreshFailure(_:)``) with
        /// this error: the store dropped its credential and is signed out until the app sets a
        /// new one.
        case revoked(any Error)
    }

    /// Why a request waits, and what it gets.
    private enum Step {
        case use(Authenticator.Credential, generation: UInt64)
        case wait(Refresh)
        case anonymous
        case fail(ResourceError)
    }

    /// One run of ``Authenticator/refresh(_:through:)`` and the requests waiting for it.
    ///
    /// It ends once, with the first of: the refresh returning or throwing, the store's
    /// ``refreshDeadline``, or the app setting a credential. Whoever ends it takes it out of the
    /// store and resumes every waiter with its outcome; a request that comes to wait later finds
    /// the outcome here.
    private final class Refresh: DeadlineExpiring, @unchecked Sendable {
        // The store's `state` lock guards `waiters`, `outcome` and `task`; `deadlineSlot` is
        // read and written only by `Deadlines`, under its own lock.
        /// The requests waiting, by waiter number.
        var waiters: [UInt64: UnsafeContinuation<Result<Void, ResourceError>, Never>] = [:]
        /// How it ended: success means "look at the store again"; `nil` while it runs.
        var outcome: Result<Void, ResourceError>?
        /// Runs the authenticator's refresh.
        var task: Task<Void, Never>?
        var deadlineSlot = -1
        /// The store, told when the deadline passes.
        weak var store: CredentialStore?

        init(store: CredentialStore) {
            self.store = store
        }

        func deadlinePassed() {
            // Off the deadlines' queue, as fetches' deadlines are.
            DispatchQueue.global().async { [self] in store?.refreshDeadlinePassed(self) }
        }
    }

    private struct State {
        var credential: Authenticator.Credential?
        /// Goes up by one every time the credential is replaced, so that a rejection can tell
        /// whether the credential it carried is still the current one.
        var generation: UInt64 = 0
        /// The refresh in progress; everyone who needs a credential waits for it.
        var refresh: Refresh?
        /// Numbers the waiters of refreshes.
        var nextWaiter: UInt64 = 0
        /// The error of the permanent refresh failure that signed the store out; `nil` once the
        /// app sets a credential.
        var revocation: (any Error)?
        /// The streams of ``changes()``, by number.
        var subscribers: [UInt64: AsyncStream<Change>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        /// Changes not delivered yet, in order, each with the streams subscribed when it
        /// happened.
        var undelivered: [(Change, [AsyncStream<Change>.Continuation])] = []
        /// Whether a thread is delivering ``undelivered``: the others only add to it, so that
        /// changes are delivered one at a time, in order.
        var isDelivering = false

        /// Records `change` for delivery; returns whether the caller must deliver.
        mutating func record(_ change: Change) -> Bool {
            undelivered.append((change, Array(subscribers.values)))
            if isDelivering { return false }
            isDelivering = true
            return true
        }
    }

    /// Knows how to apply, recognise the rejection of, and refresh the credential.
    public let authenticator: Authenticator
    /// The longest a refresh may take, in real time, before it is cancelled and the requests
    /// waiting for it fail with ``ResourceError/AuthenticationFailure/refreshFailed(_:)``
    /// carrying ``ResourceError/timedOut``.
    public let refreshDeadline: Duration
    /// Told of every change, in order, on the thread that made it or delivers the ones before.
    private let onChange: (@Sendable (Change) -> Void)?
    // `state` is a `Locked`: its lock guards every field of `State`, and the mutable fields of
    // every `Refresh`.
    private let state: Locked<State>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - authenticator: Applies, recognises rejections of, and refreshes the credential.
    ///   - credential: The credential to start with, such as one saved in the keychain; `nil`
    ///     until the app logs in and calls ``setCredential(_:)``.
    ///   - refreshDeadline: The longest a refresh may take, in real time; a refresh still
    ///     running then is cancelled and fails its waiters. Default: 60 seconds.
    ///   - onChange: Told of every change of the credential (not of the one given here), in
    ///     the order they happen, never with the store's lock held: on the thread of
    ///     ``setCredential(_:)``, of the refresh, or of a change being delivered before it.
    ///     Keep it short (hand slow work to a task): the next change is delivered after it
    ///     returns.
    ///     Default: none; ``changes()`` reports the same changes as an `AsyncSequence`.
    public init(
        authenticator: Authenticator,
        credential: Authenticator.Credential?,
        refreshDeadline: Duration = .seconds(60),
        onChange: (@Sendable (Change) -> Void)? = nil
    ) {
        self.authenticator = authenticator
        self.refreshDeadline = refreshDeadline
        self.onChange = onChange
        self.state = Locked(State(credential: credential))
    }

    deinit {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.finish() }
    }

    /// The current credential.
    public var credential: Authenticator.Credential? {
        state.withLock { $0.credential }
    }

    /// Replaces the credential: after logging in, or with `nil` after logging out.
    ///
    /// Requests sent with the credential it replaces are, if rejected, replayed with this one
    /// without a refresh. A refresh in progress ends at once: it is cancelled and its result, if
    /// it still comes, is dropped; the requests waiting for it go on with this credential, or
    /// with `nil` fail with ``ResourceError/AuthenticationFailure/noCredential`` without being
    /// sent.
    ///
    /// After a revocation it signs the store in again (or, with `nil`, keeps it signed out
    /// with ``ResourceError/AuthenticationFailure/noCredential`` in place of
    /// ``ResourceError/AuthenticationFailure/credentialRevoked(_:)``). Reported as
    /// ``Change/set(_:)``, or ``Change/cleared`` for `nil`.
    public func setCredential(_ credential: Authenticator.Credential?) {
        let (ended, delivers) = state.withLock { state -> (Ended?, Bool) in
            state.credential = credential
            state.generation &+= 1
            state.revocation = nil
            let ended = state.refresh.map { end($0, with: .success(()), in: &state) }
            return (ended, state.record(credential.map(Change.set) ?? .cleared))
        }
        ended?.release(cancellingTask: true)
        if delivers { deliverChanges() }
    }

    /// The changes of the credential from now on, in the order they happen: set by the app,
    /// refreshed, cleared by the app, revoked.
    ///
    /// Each call makes a new sequence, which reports every change after the call and ends when
    /// the store is deinitialized; stop iterating (or cancel the iterating task) to stop
    /// receiving. Changes are buffered until read, so a slow reader misses none.
    public func changes() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream<Change>.makeStream()
        let subscriber = state.withLock { state -> UInt64 in
            state.nextSubscriber &+= 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: subscriber) }
        }
        return stream
    }

    /// How many requests are waiting for a refresh, for tests.
    var waitingForRefresh: Int {
        state.withLock { $0.refresh?.waiters.count ?? 0 }
    }

    /// Delivers the recorded changes, one at a time and in order, until none is left.
    private func deliverChanges() {
        while true {
            let batch = state.withLock { state -> [(Change, [AsyncStream<Change>.Continuation])] in
                if state.undelivered.isEmpty { state.isDelivering = false }
                defer { state.undelivered = [] }
                return state.undelivered
            }
            if batch.isEmpty { return }
            for (change, subscribers) in batch {
                onChange?(change)
                for subscriber in subscribers { subscriber.yield(change) }
            }
        }
    }

    // MARK: Refreshing

    /// A refresh just ended, and what is left to do outside the lock.
    private struct Ended {
        let refresh: Refresh
        let task: Task<Void, Never>?
        let waiters: [UnsafeContinuation<Result<Void, ResourceError>, Never>]
        let outcome: Result<Void, ResourceError>

        /// Takes out the deadline, cancels the refresh's task if asked, and resumes the waiters.
        func release(cancellingTask: Bool) {
            Deadlines.shared.cancel(refresh)
            if cancellingTask { task?.cancel() }
            for waiter in waiters { waiter.resume(returning: outcome) }
        }
    }

    /// Ends `refresh`, the one in progress, with `outcome`. Expects the lock held.
    private func end(_ refresh: Refresh, with outcome: Result<Void, ResourceError>, in state: inout State) -> Ended {
        state.refresh = nil
        refresh.outcome = outcome
        let waiters = Array(refresh.waiters.values)
        refresh.waiters = [:]
        return Ended(refresh: refresh, task: refresh.task, waiters: waiters, outcome: outcome)
    }

    /// Starts a refresh of `credential` through `pipeline`, bounded by ``refreshDeadline``.
    /// Expects the lock held and no refresh running.
    private func startRefresh(
        of credential: Authenticator.Credential,
        through pipeline: ResourcePipeline,
        in state: inout State
    ) -> Refresh {
        let refresh = Refresh(store: self)
        let authenticator = authenticator
        // The task finishes under the lock, which is held until `state.refresh` is set.
        refresh.task = Task {
            // The refresh is not part of the fetch that started it.
            let result: Result<Authenticator.Credential, any Error>
            do {
                result = .success(try await FetchEvent.Context.$current.withValue(nil) {
                    try await authenticator.refresh(credential, through: pipeline)
                })
            } catch {
                result = .failure(error)
            }
            self.refreshFinished(refresh, with: result)
        }
        state.refresh = refresh
        // Under the lock: `Deadlines` never calls back with its own lock held, and the expiry
        // takes this lock on another queue.
        Deadlines.shared.schedule(refresh, after: refreshDeadline)
        return refresh
    }

    /// The authenticator's refresh returned or threw.
    private func refreshFinished(_ refresh: Refresh, with result: Result<Authenticator.Credential, any Error>) {
        // The authenticator's code runs outside the lock.
        var isPermanent = false
        if case .failure(let error) = result { isPermanent = authenticator.isPermanentRefreshFailure(error) }
        let (ended, delivers) = state.withLock { state -> (Ended?, Bool) in
            // Ended already, by the deadline or by the app: the result is dropped.
            guard state.refresh === refresh else { return (nil, false) }
            switch result {
            case .success(let fresh):
                state.credential = fresh
                state.generation &+= 1
                return (end(refresh, with: .success(()), in: &state), state.record(.refreshed(fresh)))
            case .failure(let error) where isPermanent:
                // Signed out: the waiters look again and find the revocation.
                state.credential = nil
                state.generation &+= 1
                state.revocation = error
                return (end(refresh, with: .success(()), in: &state), state.record(.revoked(error)))
            case .failure(let error):
                return (end(refresh, with: .failure(.authenticationFailed(.refreshFailed(error))), in: &state), false)
            }
        }
        ended?.release(cancellingTask: false)
        if delivers { deliverChanges() }
    }

    /// `refresh`'s deadline passed: unless it has ended, it ends with a timeout, and its task
    /// is cancelled.
    private func refreshDeadlinePassed(_ refresh: Refresh) {
        let ended = state.withLock { state -> Ended? in
            guard state.refresh === refresh else { return nil }
            return end(refresh, with: .failure(.authenticationFailed(.refreshFailed(ResourceError.timedOut))), in: &state)
        }
        ended?.release(cancellingTask: true)
    }

    /// Waits for `refresh` to end: the fetch's own cancellation and deadline end the wait from
    /// outside, with ``ResourceError/cancelled``.
    private func outcome(of refresh: Refresh) async -> Result<Void, ResourceError> {
        let waiter = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let ready = state.withLock { _ -> Result<Void, ResourceError>? in
                    if let outcome = refresh.outcome { return outcome }
                    if Task.isCancelled { return .failure(.cancelled) }
                    refresh.waiters[waiter] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let continuation = state.withLock { _ in refresh.waiters.removeValue(forKey: waiter) }
            continuation?.resume(returning: .failure(.cancelled))
        }
    }
}

// MARK: - The pipeline's side

/// What a ``ResourcePipeline`` asks of its credential store, without knowing its credential's
/// type.
protocol RequestAuthenticating: Sendable {
    /// Puts the current credential on `request`, first waiting for a refresh in progress and
    /// refreshing (through `pipeline`) a credential expired by `pipeline`'s date, unless
    /// `afterReplacement` (the fetch has just had its rejected credential replaced: the new one
    /// is sent even if it claims to be expired); returns the request and the credential's
    /// generation, or no generation for a request sent without a credential, which is never
    /// replayed.
    func authenticate(
        _ request: URLRequest, pipeline: ResourcePipeline, afterReplacement: Bool
    ) async -> Result<(URLRequest, UInt64?), ResourceError>

    /// What ``authenticate(_:pipeline:afterReplacement:)`` returns, when it can be had without waiting: `nil`
    /// while a refresh runs or when the credential has expired.
    func authenticateImmediately(_ request: URLRequest, pipeline: ResourcePipeline) -> Result<(URLRequest, UInt64?), ResourceError>?

    /// Whether `response` rejects the credential the request carried.
    func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool

    /// Makes sure the credential of generation `rejected` is replaced: starts a refresh through
    /// `pipeline` if it is still current and none is running, waits for the one running, or
    /// returns at once if it has already been replaced.
    func replaceCredential(rejected: UInt64, pipeline: ResourcePipeline) async -> Result<Void, ResourceError>

    /// The same store for a resource whose credential is optional: its requests go out without
    /// a credential when the store has none.
    var credentialOptional: any RequestAuthenticating { get }
}

extension CredentialStore: RequestAuthenticating {
    func authenticate(
        _ request: URLRequest, pipeline: ResourcePipeline, afterReplacement: Bool
    ) async -> Result<(URLRequest, UInt64?), ResourceError> {
        await authenticate(request, pipeline: pipeline, requiresCredential: true, afterReplacement: afterReplacement)
    }

    func authenticateImmediately(_ request: URLRequest, pipeline: ResourcePipeline) -> Result<(URLRequest, UInt64?), ResourceError>? {
        authenticateImmediately(request, pipeline: pipeline, requiresCredential: true)
    }

    /// The first step of ``authenticate(_:pipeline:requiresCredential:)`` when it needs no wait.
    fileprivate func authenticateImmediately(
        _ request: URLRequest,
        pipeline: ResourcePipeline,
        requiresCredential: Bool
    ) -> Result<(URLRequest, UInt64?), ResourceError>? {
        switch step(requiresCredential: requiresCredential) {
        case .use(let credential, let generation):
            if let expiry = authenticator.expirationDate(of: credential), expiry <= pipeline.currentDate { return nil }
            var request = request
            authenticator.apply(credential, to: &request)
            return .success((request, generation))
        case .wait:
            return nil
        case .anonymous:
            return .success((request, nil))
        case .fail(let error):
            return .failure(error)
        }
    }

    /// What a request needs from the store now.
    private func step(requiresCredential: Bool) -> Step {
        state.withLock { state -> Step in
            // A refresh runs only while there is a credential.
            if let refresh = state.refresh { return .wait(refresh) }
            if let credential = state.credential { return .use(credential, generation: state.generation) }
            if !requiresCredential { return .anonymous }
            if let revocation = state.revocation { return .fail(.authenticationFailed(.credentialRevoked(revocation))) }
            return .fail(.authenticationFailed(.noCredential))
        }
    }

    /// Puts the current credential on `request`; without one, sends it as it is unless
    /// `requiresCredential`.
    fileprivate func authenticate(
        _ request: URLRequest,
        pipeline: ResourcePipeline,
        requiresCredential: Bool,
        afterReplacement: Bool
    ) async -> Result<(URLRequest, UInt64?), ResourceError> {
        // An expired credential is refreshed once; if the new one claims to be expired too, it
        // is sent anyway and the server decides. So is the one that replaced a rejected one.
        var hasRefreshed = afterReplacement
        while true {
            switch step(requiresCredential: requiresCredential) {
            case .use(let credential, let generation):
                if !hasRefreshed, let expiry = authenticator.expirationDate(of: credential), expiry <= pipeline.currentDate {
                    hasRefreshed = true
                    if case .failure(let error) = await replaceCredential(rejected: generation, pipeline: pipeline) {
                        return .failure(error)
                    }
                    continue
                }
                var request = request
                authenticator.apply(credential, to: &request)
                return .success((request, generation))
            case .wait(let refresh):
                if case .failure(let error) = await outcome(of: refresh) { return .failure(error) }
                hasRefreshed = true
            case .anonymous:
                return .success((request, nil))
            case .fail(let error):
                return .failure(error)
            }
        }
    }

    func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool {
        // An `HTTPURLResponse` is made only for an authenticator that takes one.
        guard let response = Authenticator.CheckedResponse.validatable(from: response) else { return false }
        return authenticator.isCredentialRejected(by: response, data: data)
    }

    func replaceCredential(rejected generation: UInt64, pipeline: ResourcePipeline) async -> Result<Void, ResourceError> {
        let refresh = state.withLock { state -> Refresh? in
            if let refresh = state.refresh { return refresh }
            guard state.generation == generation, let credential = state.credential else { return nil }
            return startRefresh(of: credential, through: pipeline, in: &state)
        }
        guard let refresh else { return .success(()) }
        return await outcome(of: refresh)
    }

    var credentialOptional: any RequestAuthenticating {
        OptionalCredential(store: self)
    }
}

/// A ``CredentialStore`` as a resource whose credential is optional uses it.
private struct OptionalCredential<Authenticator: ResourceLoader.Authenticator>: RequestAuthenticating {
    let store: CredentialStore<Authenticator>

    func authenticate(
        _ request: URLRequest, pipeline: ResourcePipeline, afterReplacement: Bool
    ) async -> Result<(URLRequest, UInt64?), ResourceError> {
        await store.authenticate(request, pipeline: pipeline, requiresCredential: false, afterReplacement: afterReplacement)
    }

    func authenticateImmediately(_ request: URLRequest, pipeline: ResourcePipeline) -> Result<(URLRequest, UInt64?), ResourceError>? {
        store.authenticateImmediately(request, pipeline: pipeline, requiresCredential: false)
    }

    func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool {
        store.isCredentialRejected(by: response, data: data)
    }

    func replaceCredential(rejected generation: UInt64, pipeline: ResourcePipeline) async -> Result<Void, ResourceError> {
        await store.replaceCredential(rejected: generation, pipeline: pipeline)
    }

    var credentialOptional: any RequestAuthenticating { self }
}
