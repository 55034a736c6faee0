// `swift run --package-path Examples account`: logs in at the OAuth token endpoint (as the
// embedded server's demo user unless a username and password are given), loads the account and
// its favourite cities with the bearer token, then makes the token look an hour old so that the
// next request refreshes it first. The log lines on the standard error show every fetch — the
// token requests included — and never a token or a password.
import DemoSupport
import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader

let status = await Demo.run(usage: "account [<username> <password>] [--base-url URL]") { directory, arguments in
    guard arguments.style == .async else {
        throw Demo.UsageError(message: "account loads with async only")
    }
    let username = arguments.positional.first ?? "fred"
    guard let password = arguments.positional.dropFirst().first ?? FixtureServer.passwords[username] else {
        throw Demo.UsageError(message: "give a username and a password")
    }
    let token = try await directory.logIn(username: username, password: password)
    let account = try await directory.account()
    let favourites = try await directory.favouriteCities()

    // As if the app had kept the token from an hour ago: it has expired, so the store refreshes
    // it before the next request is sent.
    directory.restore(OAuthToken(accessToken: token.accessToken, refreshToken: token.refreshToken, expiresAt: Date()))
    let again = try await directory.account()
    let refreshed = directory.token.map { $0.accessToken != token.accessToken } ?? false

    let lines = favourites.map { "  • \($0.name)" }.joined(separator: "\n")
    return """
        Signed in as \(account.displayName) (\(account.username)); home continent \(account.homeContinent)
        Favourite cities:
        \(lines)
        After the token expired: \(refreshed ? "refreshed once, then" : "not refreshed;") signed in as \(again.displayName)
        """
}
exit(status)
