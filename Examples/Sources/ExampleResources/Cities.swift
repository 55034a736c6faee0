import Foundation
import ResourceLoader

/// The cities of a continent: `GET <base>/<continent>.json` → `[City]` from
/// `{"cities": [{"name": …}]}`, with `{"error": …}` bodies reported as service-level errors.
/// A public resource: it needs no login.
public struct Cities: NetworkResourceType, JSONDecodableResourceType {
    /// The JSON's top level.
    public struct Root: Decodable { let cities: [City] }
    /// The service's in-body error shape.
    public typealias ServiceError = ExampleServiceError

    /// Where the continents' files live.
    public let baseURL: URL
    /// The continent, for example `"europe"`.
    public let continent: String
    /// `<baseURL>/<continent>.json`.
    public var url: URL { baseURL.appendingPathComponent("\(continent).json") }

    /// The cities inside the root.
    public func model(from root: Root) -> [City] { root.cities }

    /// `false`: the cities service is public, so its requests carry no bearer token and work
    /// before anyone logs in. The pipeline's adapters, retries and monitors still apply.
    public var usesPipelineAuthenticator: Bool { false }

    /// Creates the resource for one continent.
    public init(baseURL: URL, continent: String) {
        self.baseURL = baseURL
        self.continent = continent
    }
}
