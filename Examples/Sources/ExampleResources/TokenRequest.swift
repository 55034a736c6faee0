import Foundation
import ResourceLoader

/// `POST <base>/oauth/token`: exchanges a username and password, or a refresh token, for an
/// ``OAuthToken`` (the OAuth 2 password and refresh-token grants, RFC 6749 sections 4.3 and 6).
///
/// It must not carry the bearer token it is asking for, nor wait for a refresh that waits for
/// it, so it opts out of the pipeline's authenticator; the pipeline's adapters and monitors
/// still see it. Its method is `POST`, so the pipeline's ``RetryPolicy`` never sends it twice.
public struct TokenRequest: NetworkResourceType, JSONDecodableResourceType {
    /// What is exchanged for a token.
    public enum Grant: Sendable, Hashable, CustomStringConvertible {
        /// A user's name and password: logging in.
        case password(username: String, password: String)
        /// The refresh token of the token being replaced.
        case refreshToken(String)

        /// The grant's kind, never its secrets.
        public var description: String {
            switch self {
            case .password(let username, _): "password grant for \(username)"
            case .refreshToken: "refresh-token grant"
            }
        }
    }

    /// The token endpoint's answer (RFC 6749 section 5.1).
    public struct Response: Decodable, Sendable, Hashable {
        /// The new access token.
        public let accessToken: String
        /// `"Bearer"`.
        public let tokenType: String
        /// How many seconds the access token is valid for.
        public let expiresIn: Int
        /// The refresh token to use next time; the one sent (if any) is no longer valid.
        public let refreshToken: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
        }
    }

    /// The decoded answer.
    public typealias Model = Response

    /// The token endpoint.
    public let url: URL
    /// What is exchanged for the token.
    public let grant: Grant

    /// Creates the request for one grant.
    public init(url: URL, grant: Grant) {
        self.url = url
        self.grant = grant
    }

    /// `POST`.
    public var httpMethod: HTTPMethod { .post }

    /// The grant as `application/x-www-form-urlencoded`.
    public var body: RequestBody? {
        switch grant {
        case .password(let username, let password):
            .form([
                URLQueryItem(name: "grant_type", value: "password"),
                URLQueryItem(name: "username", value: username),
                URLQueryItem(name: "password", value: password),
            ])
        case .refreshToken(let refreshToken):
            .form([
                URLQueryItem(name: "grant_type", value: "refresh_token"),
                URLQueryItem(name: "refresh_token", value: refreshToken),
            ])
        }
    }

    /// `false`: the token request carries no bearer token.
    public var usesPipelineAuthenticator: Bool { false }
}
