import Foundation
import ResourceLoader

/// `GET <base>/account` → ``Account``: a protected resource, sent with the bearer token of the
/// pipeline's credential store.
public struct AccountDetails: NetworkResourceType, JSONDecodableResourceType {
    /// The decoded account.
    public typealias Model = Account

    /// The account service's endpoint.
    public let url: URL

    /// Creates the resource.
    public init(url: URL) {
        self.url = url
    }
}
