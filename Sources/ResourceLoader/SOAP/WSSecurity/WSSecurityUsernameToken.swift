/// A WS-Security `UsernameToken` (OASIS Web Services Security UsernameToken Profile 1.1): a
/// user name and a password, sent as text or as a digest.
///
/// The password never appears in the token's description, debug description or reflection
/// (`dump`), nor in any error ResourceLoader reports.
public struct WSSecurityUsernameToken: Sendable, Hashable {
    /// How the password is sent.
    public enum PasswordType: Sendable, Hashable {
        /// `#PasswordText`: the password itself, for use over TLS only.
        case text
        /// `#PasswordDigest`: `Base64(SHA-1(nonce + created + password))`, so that the password
        /// itself is not sent; the service must know it in the clear to check the digest.
        case digest

        /// The `Type` attribute of the `Password` element.
        var uri: String {
            switch self {
            case .text: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText"
            case .digest: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest"
            }
        }
    }

    /// The user name.
    public var username: String
    /// The password.
    public var password: String
    /// How the password is sent. Default: ``PasswordType/digest``.
    public var passwordType: PasswordType

    /// Creates a token.
    public init(username: String, password: String, passwordType: PasswordType = .digest) {
        self.username = username
        self.password = password
        self.passwordType = passwordType
    }

    /// `Base64(SHA-1(nonce + created + password))`, the `PasswordDigest` of the profile.
    ///
    /// - Parameters:
    ///   - nonce: The nonce's bytes (not its base64 text).
    ///   - created: The `Created` text exactly as sent.
    public func passwordDigest(nonce: [UInt8], created: String) -> String {
        var sha = SHA1()
        sha.update(nonce)
        sha.update(created.utf8)
        sha.update(password.utf8)
        return Data(sha.finalize()).base64EncodedString()
    }
}

import Foundation

extension WSSecurityUsernameToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user name and the password type; never the password.
    public var description: String {
        "UsernameToken(username: \(username.debugDescription), password: <redacted>, type: \(passwordType == .text ? "text" : "digest"))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The user name and the password type; never the password.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": "<redacted>", "passwordType": passwordType])
    }
}
