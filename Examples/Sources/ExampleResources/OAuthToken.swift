import Foundation

/// The credential of the directory's account services: an OAuth 2 bearer access token, the
/// refresh token that replaces it, and when it expires.
///
/// `Codable`, so an app can keep it in its keychain between launches and hand it back to
/// ``WorldDirectory/init(baseURL:session:options:token:tokenStorage:retryPolicy:monitors:clock:log:)``,
/// or to a ``TokenStorage`` that keeps it.
/// Its descriptions never contain either token.
public struct OAuthToken: Codable, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Sent as `Authorization: Bearer <accessToken>` with every request to a protected service.
    public let accessToken: String
    /// Exchanged at the token endpoint for a new token when the access token has expired.
    public let refreshToken: String
    /// When the server stops accepting ``accessToken``.
    public let expiresAt: Date

    /// Creates a token.
    public init(accessToken: String, refreshToken: String, expiresAt: Date) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// The token the token endpoint answered with, received at `date`: it expires
    /// `response.expiresIn` seconds later.
    public init(_ response: TokenRequest.Response, receivedAt date: Date) {
        self.init(
            accessToken: response.accessToken,
            refreshToken: response.refreshToken,
            expiresAt: date.addingTimeInterval(TimeInterval(response.expiresIn)))
    }

    /// `OAuthToken(expires <date>)`: never the tokens themselves.
    public var description: String {
        "OAuthToken(expires \(expiresAt))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
