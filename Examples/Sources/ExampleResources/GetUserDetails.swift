import Foundation
import ResourceLoader

/// The SOAP 1.1 call `getUserDetails(userID)` → ``User``.
public struct GetUserDetails: SOAPResourceType {
    /// The decoded user.
    public typealias Model = User

    /// The user service's endpoint.
    public let url: URL
    /// Whose details to fetch.
    public let userID: String
    /// `getUserDetails`.
    public var operation: String { "getUserDetails" }
    /// The user's ID.
    public var parameters: SOAPParameters { ["userID": .text(userID)] }
    /// Where the user sits in the response's `Body`.
    public var responsePath: [String] { ["getUserDetailsResponse", "getUserDetails", "userModel"] }

    /// Creates the call for one user.
    public init(url: URL, userID: String) {
        self.url = url
        self.userID = userID
    }
}
