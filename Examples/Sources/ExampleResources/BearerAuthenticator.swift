import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ``Authenticator`` of the directory's account services: sends the ``OAuthToken``'s access
/// token as `Authorization: Bearer …`, and replaces an expired or rejected token by exchanging
/// its refresh token at the token endpoint.
///
/// It holds no token: the pipeline's `CredentialStore` does, and calls ``refresh(_:)`` once for
/// all the requests that need a new token at the same time.
public struct BearerAuthenticator: Authenticator {
    /// How long before its ``OAuthToken/expiresAt`` a token counts as expired, so that a request
    /// sent just before the expiry is not rejected on arrival. Default: 30 s.
    public let leeway: TimeInterval
    private let requestToken: @Sendable (TokenRequest.Grant) async throws -> OAuthToken

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - leeway: How long before its expiry a token is refreshed. Default: 30 s.
    ///   - requestToken: Exchanges a grant for a token at the token endpoint, with a request
    ///     that does not carry the bearer token (see ``TokenRequest``).
    public init(
        leeway: TimeInterval = 30,
        requestToken: @escaping @Sendable (TokenRequest.Grant) async throws -> OAuthToken
    ) {
        self.leeway = leeway
        self.requestToken = requestToken
    }

    /// Sets `Authorization: Bearer <access token>`.
    public func apply(_ token: OAuthToken, to request: inout URLRequest) {
        request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
    }

    /// Exchanges `token`'s refresh token for a new token.
    ///
    /// - Throws: What the token request threw: a refresh token the server no longer accepts is
    ///   a `ResourceError.httpStatus` with status 400 (`invalid_grant`).
    public func refresh(_ token: OAuthToken) async throws -> OAuthToken {
        try await requestToken(.refreshToken(token.refreshToken))
    }

    /// ``leeway`` before the token's ``OAuthToken/expiresAt``.
    public func expirationDate(of token: OAuthToken) -> Date? {
        token.expiresAt.addingTimeInterval(-leeway)
    }
}
