import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Knows how to put a credential on a request, how a server says it rejects one, and how to get
/// a new one.
///
/// An authenticator holds no state: a ``CredentialStore`` keeps the current credential, runs
/// ``refresh(_:through:)`` once for every request that needs it, and replays the rejected requests. Give
/// the store to a ``ResourcePipeline`` and every service made from it is authenticated:
///
/// ```swift
/// struct OAuthAuthenticator: Authenticator {
///     func apply(_ token: OAuthToken, to request: inout URLRequest) {
///         request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
///     }
///
///     func refresh(_ token: OAuthToken, through pipeline: ResourcePipeline) async throws -> OAuthToken {
///         let tokens = ResourceService<RefreshToken>(pipeline: pipeline)
///         return try await tokens.fetch(RefreshToken(refreshToken: token.refreshToken))
///     }
///
///     func expirationDate(of token: OAuthToken) -> Date? {
///         token.expiresAt
///     }
/// }
///
/// let credentials = CredentialStore(authenticator: OAuthAuthenticator(), credential: saved)
/// let pipeline = ResourcePipeline(credentials: credentials)
/// ```
///
/// The refresh request itself must not be authenticated with the credential it replaces: make it
/// a resource whose ``NetworkResourceType/usesPipelineAuthenticator`` is `false` (`RefreshToken`
/// above), and fetch it through the pipeline ``refresh(_:through:)`` is given, so that it shares
/// the transport, limits and monitors of every other request.
public protocol Authenticator: Sendable {
    /// What proves who the client is: a token, a pair of tokens, a session cookie.
    associatedtype Credential: Sendable

    /// Puts `credential` on `request`, typically as its `Authorization` header field.
    ///
    /// Called before every attempt, after the pipeline's adapters, so that a request replayed
    /// after a refresh carries the new credential.
    func apply(_ credential: Credential, to request: inout URLRequest)

    /// Returns a new credential in place of `credential`, which the server rejected or which has
    /// expired.
    ///
    /// Called once for any number of requests that need it at the same time; they all wait for
    /// it. When it throws, each of them fails with
    /// ``ResourceError/authenticationFailed(_:)`` carrying
    /// ``ResourceError/AuthenticationFailure/refreshFailed(_:)`` with this error, and the
    /// credential is kept.
    ///
    /// It runs in a task of its own, which is cancelled when the store's
    /// ``CredentialStore/refreshDeadline`` passes or the app calls
    /// ``CredentialStore/setCredential(_:)``: a fetch through `pipeline` then ends with
    /// ``ResourceError/cancelled``, and whatever it returns afterwards is dropped.
    ///
    /// - Parameters:
    ///   - credential: The credential to replace.
    ///   - pipeline: The pipeline of the fetch that needed the new credential. Fetch the token
    ///     request through it (from a resource that does not use the authenticator), and read
    ///     ``ResourcePipeline/currentDate`` to turn a lifetime into an expiry date.
    func refresh(_ credential: Credential, through pipeline: ResourcePipeline) async throws -> Credential

    /// What ``isCredentialRejected(by:data:)`` receives the response as: ``ResponseHead`` unless
    /// the authenticator's own implementation takes an `HTTPURLResponse`.
    ///
    /// Never written by hand: Swift infers it from the parameter of the authenticator's
    /// `isCredentialRejected(by:data:)`, or takes the default, ``ResponseHead``.
    associatedtype CheckedResponse: ValidatableResponse = ResponseHead

    /// Whether `response` means the server rejected the credential the request carried.
    ///
    /// Default: the status is `401 Unauthorized`. Override it for a server that says so
    /// differently, such as a `403` or a SOAP Fault with its own code:
    ///
    /// ```swift
    /// func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool {
    ///     response.statusCode == 401 || response.statusCode == 403
    /// }
    /// ```
    ///
    /// An implementation that takes an `HTTPURLResponse` is called with one, made from every
    /// response's head.
    func isCredentialRejected(by response: CheckedResponse, data: Data) -> Bool

    /// Whether `error`, thrown by ``refresh(_:through:)``, means the credential can never be
    /// refreshed again: a refresh token the server revoked or no longer knows (OAuth's
    /// `invalid_grant`), a deleted account.
    ///
    /// For such a failure the ``CredentialStore`` drops its credential and is signed out: every
    /// request waiting for the refresh, and every later one, fails at once with
    /// ``ResourceError/AuthenticationFailure/credentialRevoked(_:)`` and nothing is sent nor
    /// refreshed until the app sets a new credential. Its change sequence reports
    /// ``CredentialStore/Change/revoked(_:)``, so the app can ask the user to sign in again.
    /// Any other failure is passing (a lost connection, a timeout, a `503`): the credential is
    /// kept and the next rejection tries again.
    ///
    /// Default: `false`, every failure is passing. An OAuth 2 authenticator recognises its token
    /// endpoint's error:
    ///
    /// ```swift
    /// func isPermanentRefreshFailure(_ error: any Error) -> Bool {
    ///     guard case .httpStatus(let failure) = error as? ResourceError else { return false }
    ///     return failure.statusCode == 400 && String(decoding: failure.bodyPrefix, as: UTF8.self).contains("invalid_grant")
    /// }
    /// ```
    func isPermanentRefreshFailure(_ error: any Error) -> Bool

    /// When `credential` stops being valid, or `nil` when that is not known.
    ///
    /// A credential whose date has come (by the pipeline's ``ResourcePipeline/clock``) is
    /// refreshed before a request is sent with it, rather than after the server rejects it.
    /// Return a date a little before the real expiry to leave room for clock differences and
    /// the time a request takes. Default: `nil`.
    func expirationDate(of credential: Credential) -> Date?
}

// MARK: - Default implementations

extension Authenticator where CheckedResponse == ResponseHead {
    /// `true` for `401 Unauthorized`.
    public func isCredentialRejected(by response: ResponseHead, data: Data) -> Bool {
        response.statusCode == 401
    }

    /// Whether `response`, read as the ``ResponseHead`` it is, rejects the credential: for
    /// callers (tests, say) that hold an `HTTPURLResponse`.
    public func isCredentialRejected<Response: HTTPURLResponse>(by response: Response, data: Data) -> Bool {
        isCredentialRejected(by: ResponseHead(response), data: data)
    }
}

extension Authenticator {
    /// `false`: every refresh failure is passing, and the next rejection tries again.
    public func isPermanentRefreshFailure(_ error: any Error) -> Bool {
        false
    }

    /// `nil`: only the server's rejection tells that the credential is no longer valid.
    public func expirationDate(of credential: Credential) -> Date? {
        nil
    }
}
