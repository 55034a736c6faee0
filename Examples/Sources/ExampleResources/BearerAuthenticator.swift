import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ``Authenticator`` of the directory's account services: sends the ``OAuthToken``'s access
/// token as `Authorization: Bearer …`, and replaces an expired or rejected token by exchanging
/// its refresh token at the token endpoint.
///
/// It holds no token: the pipeline's `CredentialStore` does, and calls
/// ``refresh(_:through:)`` once for all the requests that need a new token at the same time.
public struct BearerAuthenticator: Authenticator {
    /// Where tokens are issued.
    public let tokenEndpoint: URL
    /// How long before its ``OAuthToken/expiresAt`` a token counts as expired, so that a request
    /// sent just before the expiry is not rejected on arrival. Default: 30 s.
    public let leeway: TimeInterval

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - tokenEndpoint: Where tokens are issued.
    ///   - leeway: How long before its expiry a token is refreshed. Default: 30 s.
    public init(tokenEndpoint: URL, leeway: TimeInterval = 30) {
        self.tokenEndpoint = tokenEndpoint
        self.leeway = leeway
    }

    /// Sets `Authorization: Bearer <access token>`.
    public func apply(_ token: OAuthToken, to request: inout URLRequest) {
        request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
    }

    /// Exchanges `token`'s refresh token for a new token, with a ``TokenRequest`` (which does not
    /// carry the bearer token) sent through `pipeline`.
    ///
    /// - Throws: What the token request threw: a refresh token the server no longer accepts is
    ///   a `ResourceError.httpStatus` with status 400 (`invalid_grant`), which
    ///   ``isPermanentRefreshFailure(_:)`` calls permanent.
    public func refresh(_ token: OAuthToken, through pipeline: ResourcePipeline) async throws -> OAuthToken {
        try await Self.requestToken(.refreshToken(token.refreshToken), at: tokenEndpoint, through: pipeline)
    }

    /// Whether the token endpoint refused the refresh token for good: `400` with the OAuth
    /// error `invalid_grant` (RFC 6749 section 5.2), which a revoked or expired refresh token
    /// gets. The credential store then signs out at once, instead of asking again at every
    /// rejection. Anything else (a lost connection, a `5xx`) is passing.
    public func isPermanentRefreshFailure(_ error: any Error) -> Bool {
        guard case .httpStatus(let failure) = error as? ResourceError, failure.statusCode == 400 else { return false }
        struct OAuthError: Decodable { let error: String }
        return (try? JSONDecoder().decode(OAuthError.self, from: failure.bodyPrefix))?.error == "invalid_grant"
    }

    /// ``leeway`` before the token's ``OAuthToken/expiresAt``.
    public func expirationDate(of token: OAuthToken) -> Date? {
        token.expiresAt.addingTimeInterval(-leeway)
    }

    /// Exchanges `grant` for a token at `url`, through `pipeline`; the token's expiry is counted
    /// from the pipeline's current date.
    static func requestToken(
        _ grant: TokenRequest.Grant,
        at url: URL,
        through pipeline: ResourcePipeline
    ) async throws(ResourceError) -> OAuthToken {
        let response = try await ResourceService<TokenRequest>(pipeline: pipeline).fetch(TokenRequest(url: url, grant: grant))
        return OAuthToken(response, receivedAt: pipeline.currentDate)
    }
}
