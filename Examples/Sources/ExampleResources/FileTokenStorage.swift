import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the token as JSON in one file, readable by its owner only: the stand-in for the
/// keychain on a platform without one.
///
/// Writes are atomic (a new file, readable by its owner only from the start, moved into place),
/// so a crash never leaves half a token. A file that cannot be read or decoded counts as no
/// token.
public struct FileTokenStorage: TokenStorage {
    /// The file the token is kept in.
    public let fileURL: URL

    /// Keeps the token in `fileURL`, which need not exist yet; its folder must.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The token in the file, or `nil` when there is no file or it does not hold a token.
    public func loadToken() -> OAuthToken? {
        guard let data = try? Data(contentsOf: fileURL) else { return nil }
        return try? JSONDecoder().decode(OAuthToken.self, from: data)
    }

    /// Writes `token` to the file, or removes the file for `nil`. Failures are ignored: the
    /// user then signs in again at the next launch.
    public func saveToken(_ token: OAuthToken?) {
        guard let token else {
            try? FileManager.default.removeItem(at: fileURL)
            return
        }
        guard let data = try? JSONEncoder().encode(token) else { return }
        let temporary = fileURL.path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, fileURL.path) != 0 {
            try? FileManager.default.removeItem(atPath: temporary)
        }
    }
}
