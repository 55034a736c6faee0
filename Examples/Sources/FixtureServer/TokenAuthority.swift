import ExampleResources
import Foundation
import ResourceLoaderTesting

/// The fixture server's OAuth 2 side: issues, refreshes and checks bearer tokens, and counts
/// what it did.
///
/// An access token is valid for the server's token lifetime, measured on the clock the server
/// was given, until ``expireAccessTokens()`` ends every token issued so far. A refresh token is
/// valid once: a refresh grant answers with a new access token and a new refresh token (rotation,
/// as OAuth 2.1 asks), so two refreshes with the same refresh token cannot both succeed.
final class TokenAuthority: @unchecked Sendable {
    private struct State {
        /// Access token → the account it belongs to and when it expires (by `elapsed`).
        var accessTokens: [String: (username: String, expiresAt: Duration)] = [:]
        /// Refresh token → the account it belongs to.
        var refreshTokens: [String: String] = [:]
        var statistics = FixtureServer.TokenStatistics()
    }

    /// How long an access token is valid.
    let lifetime: Duration
    /// The time since the server started, by its clock.
    private let elapsed: @Sendable () -> Duration
    // `lock` guards `state`.
    private let lock = NSLock()
    private var state = State()

    init<C: Clock<Duration>>(clock: C, lifetime: Duration) {
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
        self.lifetime = lifetime
    }

    var statistics: FixtureServer.TokenStatistics {
        lock.withLock { state.statistics }
    }

    func expireAccessTokens() {
        lock.withLock { state.accessTokens.removeAll() }
    }

    func revokeRefreshTokens() {
        lock.withLock { state.refreshTokens.removeAll() }
    }

    // MARK: The token endpoint

    /// `POST /oauth/token` with the password or the refresh-token grant, form-encoded.
    func tokenEndpoint(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let contentType = request.value(forHeaderField: "Content-Type")?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            return oauthError("invalid_request", status: 400)
        }
        let form = Self.formFields(request.body)
        return lock.withLock { () -> LoopbackHTTPServer.Response in
            let username: String
            switch form["grant_type"] {
            case "password":
                guard let name = form["username"], let password = form["password"],
                      FixtureServer.passwords[name] == password
                else {
                    state.statistics.refusedGrants += 1
                    return oauthError("invalid_grant", status: 400)
                }
                state.statistics.passwordGrants += 1
                username = name
            case "refresh_token":
                guard let refreshToken = form["refresh_token"],
                      let name = state.refreshTokens.removeValue(forKey: refreshToken)
                else {
                    state.statistics.refusedGrants += 1
                    return oauthError("invalid_grant", status: 400)
                }
                state.statistics.refreshGrants += 1
                username = name
            default:
                state.statistics.refusedGrants += 1
                return oauthError("unsupported_grant_type", status: 400)
            }
            let accessToken = "at-" + UUID().uuidString
            let refreshToken = "rt-" + UUID().uuidString
            state.accessTokens[accessToken] = (username, elapsed() + lifetime)
            state.refreshTokens[refreshToken] = username
            let body = #"{"access_token":"\#(accessToken)","token_type":"Bearer","expires_in":\#(lifetime.components.seconds),"refresh_token":"\#(refreshToken)"}"#
            return .status(
                200,
                headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                body: Data(body.utf8))
        }
    }

    // MARK: Protected resources

    /// The account the request's bearer token belongs to, or `nil` (and a rejection counted)
    /// when it carries no token, an unknown one or an expired one.
    func account(authorizing request: LoopbackHTTPServer.Request) -> String? {
        let header = request.value(forHeaderField: "Authorization") ?? ""
        let prefix = "Bearer "
        let token = header.hasPrefix(prefix) ? String(header.dropFirst(prefix.count)) : ""
        return lock.withLock { () -> String? in
            if let issued = state.accessTokens[token], elapsed() < issued.expiresAt {
                state.statistics.authorizedRequests += 1
                return issued.username
            }
            state.statistics.rejectedRequests += 1
            return nil
        }
    }

    /// `401` with `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 section 3).
    static func rejection() -> LoopbackHTTPServer.Response {
        .status(
            401,
            headers: [
                "Content-Type": "application/json",
                "WWW-Authenticate": #"Bearer realm="world", error="invalid_token""#,
            ],
            body: Data(#"{"error":"invalid_token"}"#.utf8))
    }

    private func oauthError(_ code: String, status: Int) -> LoopbackHTTPServer.Response {
        .status(
            status,
            headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: Data(#"{"error":"\#(code)"}"#.utf8))
    }

    /// The fields of an `application/x-www-form-urlencoded` body; the first of repeated names
    /// wins.
    static func formFields(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}
