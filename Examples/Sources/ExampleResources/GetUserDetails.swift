import Foundation
import ResourceLoader

/// The SOAP 1.1 call `getUserDetails(userID)` → ``User``: a public resource that is safe to retry.
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

    /// `false`: the user service is public, so its requests carry no bearer token and work
    /// before anyone logs in.
    public var usesPipelineAuthenticator: Bool { false }

    /// The pipeline's policy, with `POST` retried too: `getUserDetails` only reads, so sending
    /// it twice is harmless, although SOAP sends every call as a `POST`.
    public func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy {
        var policy = pipelinePolicy
        policy.retryableMethods.insert(.post)
        return policy
    }

    /// Creates the call for one user.
    public init(url: URL, userID: String) {
        self.url = url
        self.userID = userID
    }
}
