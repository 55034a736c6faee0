/// The signed-in user's account, as the protected account service describes it.
public struct Account: Decodable, Hashable, Sendable {
    /// The name the user logs in with.
    public let username: String
    /// The name to show.
    public let displayName: String
    /// The continent the user's favourite cities are on.
    public let homeContinent: String

    /// Creates an account.
    public init(username: String, displayName: String, homeContinent: String) {
        self.username = username
        self.displayName = displayName
        self.homeContinent = homeContinent
    }
}
