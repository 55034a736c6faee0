import Foundation

/// Where the signed-in user's ``OAuthToken`` is kept between launches: the keychain in an app,
/// a file or a database elsewhere.
///
/// Give one to ``WorldDirectory/init(baseURL:session:options:token:tokenStorage:retryPolicy:monitors:clock:log:)``:
/// the directory signs in with the token it holds, and keeps it up to date from the credential
/// store's sequence of changes: the token the user logged in with, every refreshed one, and
/// none after logging out or after the server revoked the refresh token.
public protocol TokenStorage: Sendable {
    /// The token kept, or `nil` when there is none (or it cannot be read).
    func loadToken() -> OAuthToken?

    /// Keeps `token` in place of the one kept before; `nil` removes it.
    func saveToken(_ token: OAuthToken?)
}
