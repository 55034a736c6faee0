import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Holds the current credential of a ``ResourcePipeline``, puts it on every request, and
/// refreshes it once for all the requests that need a new one.
///
/// For each attempt of a fetch through a pipeline made with
/// ``ResourcePipeline/init(session:options:adapters:credentials:retryPolicy:monitors:clock:)``:
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
/// credential as it was; the next rejection tries again. A store without a credential fails
/// requests with ``ResourceError/AuthenticationFailure/noCredential`` and sends nothing.
///
/// Waiting for a refresh happens inside the fetch: its deadline bounds the wait, and cancelling
/// the fetch ends it at once. The refresh itself is not cancelled with a fetch that waits for it,
/// since others may be waiting too.
///
/// The store is shared: give one store to one pipeline and make every service from that
/// pipeline. Set the credential after logging in, and remove it when logging out, with
/// ``setCredential(_:)``.
public final class CredentialStore<Authenticator: ResourceLoader.Authenticator>: Sendable {
    /// Why a request waits, and what it gets.
    private enum Step {
        case use(Authenticator.Credential, generation: UInt64)
        case wait(Task<Result<Void, any Error>, Never>)
        case missing
    }

    private struct State {
        var credential: Authenticator.Credential?
        /// Goes up by one every time the credential is replaced, so that a rejection can tell
        /// whether the credential it carried is still the current one.
        var generation: UInt64 = 0
        /// The refresh in progress; everyone who needs a credential waits for it.
        var refresh: Task<Result<Void, any Error>, Never>?
        /// How many requests wait for ``refresh``.
        var waiting = 0
    }

    /// Knows how to apply, recognise the rejection of, and refresh the credential.
    public let authenticator: Authenticator
    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state: Locked<State>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - authenticator: Applies, recognises rejections of, and refreshes the credential.
    ///   - credential: The credential to start with, such as one saved in the keychain; `nil`
    ///     until the app logs in and calls ``setCredential(_:)``.
    public init(authenticator: Authenticator, credential: Authenticator.Credential?) {
        self.authenticator = authenticator
        self.state = Locked(State(credential: credential))
    }

    /// The current credential.
    public var credential: Authenticator.Credential? {
        state.withLock { $0.credential }
    }

    /// Replaces the credential: after logging in, or with `nil` after logging out.
    ///
    /// Requests sent with the credential it replaces are, if rejected, replayed with this one
    /// without a refresh. A refresh running when it is called still finishes, but does not
    /// replace the credential set here.
    public func setCredential(_ credential: Authenticator.Credential?) {
        state.withLock { state in
            state.credential = credential
            state.generation &+= 1
        }
    }

    /// How many requests are waiting for a refresh, for tests.
    var waitingForRefresh: Int {
        state.withLock { $0.waiting }
    }

    /// Starts a refresh of `credential` (generation `generation`) through `pipeline`. Expects the
    /// lock held and no refresh running.
    private func startRefresh(
        of credential: Authenticator.Credential,
        generation: UInt64,
        through pipeline: ResourcePipeline,
        in state: inout State
    ) -> Task<Result<Void, any Error>, Never> {
        let authenticator = authenticator
        let task = Task { [state = self.state] () -> Result<Void, any Error> in
            // The refresh is not part of the fetch that started it.
            let result: Result<Authenticator.Credential, any Error>
            do {
                result = .success(try await FetchEvent.Context.$current.withValue(nil) {
                    try await authenticator.refresh(credential, through: pipeline)
                })
            } catch {
                result = .failure(error)
            }
            state.withLock { state in
                state.refresh = nil
                // A credential the app set meanwhile wins over the refreshed one.
                if case .success(let fresh) = result, state.generation == generation {
                    state.credential = fresh
                    state.generation &+= 1
                }
            }
            return result.map { _ in () }
        }
        state.refresh = task
        return task
    }
}

// MARK: - The pipeline's side

/// What a ``ResourcePipeline`` asks of its credential store, without knowing its credential's
/// type.
protocol RequestAuthenticating: Sendable {
    /// Puts the current credential on `request`, first waiting for a refresh in progress and
    /// refreshing (through `pipeline`) a credential expired by `pipeline`'s date; returns the
    /// request and the credential's generation.
    func authenticate(_ request: URLRequest, pipeline: ResourcePipeline) async -> Result<(URLRequest, UInt64), ResourceError>

    /// Whether `response` rejects the credential the request carried.
    func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool

    /// Makes sure the credential of generation `rejected` is replaced: starts a refresh through
    /// `pipeline` if it is still current and none is running, waits for the one running, or
    /// returns at once if it has already been replaced.
    func replaceCredential(rejected: UInt64, pipeline: ResourcePipeline) async -> Result<Void, ResourceError>
}

extension CredentialStore: RequestAuthenticating {
    func authenticate(_ request: URLRequest, pipeline: ResourcePipeline) async -> Result<(URLRequest, UInt64), ResourceError> {
        // An expired credential is refreshed once; if the new one claims to be expired too, it
        // is sent anyway and the server decides.
        var hasRefreshed = false
        while true {
            let step = state.withLock { state -> Step in
                if let refresh = state.refresh {
                    state.waiting += 1
                    return .wait(refresh)
                }
                guard let credential = state.credential else { return .missing }
                return .use(credential, generation: state.generation)
            }
            switch step {
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
            case .missing:
                return .failure(.authenticationFailed(.noCredential))
            }
        }
    }

    func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool {
        // An `HTTPURLResponse` is made only for an authenticator that takes one.
        guard let response = Authenticator.CheckedResponse.validatable(from: response) else { return false }
        return authenticator.isCredentialRejected(by: response, data: data)
    }

    func replaceCredential(rejected generation: UInt64, pipeline: ResourcePipeline) async -> Result<Void, ResourceError> {
        let refresh = state.withLock { state -> Task<Result<Void, any Error>, Never>? in
            if let refresh = state.refresh {
                state.waiting += 1
                return refresh
            }
            guard state.generation == generation, let credential = state.credential else { return nil }
            state.waiting += 1
            return startRefresh(of: credential, generation: generation, through: pipeline, in: &state)
        }
        guard let refresh else { return .success(()) }
        return await outcome(of: refresh)
    }

    /// Waits for `refresh`, counted in `waiting` by the caller: the fetch's own cancellation and
    /// deadline end the wait from outside.
    private func outcome(of refresh: Task<Result<Void, any Error>, Never>) async -> Result<Void, ResourceError> {
        let outcome = await refresh.value
        state.withLock { $0.waiting -= 1 }
        return outcome.mapError { .authenticationFailed(.refreshFailed($0)) }
    }
}
