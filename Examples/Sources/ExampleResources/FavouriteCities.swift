import Foundation
import ResourceLoader

/// `GET <base>/account/favourites.json` → `[City]`: the signed-in user's favourite cities, a
/// protected resource.
public struct FavouriteCities: NetworkResourceType, JSONDecodableResourceType {
    /// The JSON's top level: `{"cities": [...]}`.
    public struct Root: Decodable { let cities: [City] }

    /// The favourites' endpoint.
    public let url: URL

    /// The cities inside the root.
    public func model(from root: Root) -> [City] { root.cities }

    /// Creates the resource.
    public init(url: URL) {
        self.url = url
    }
}
