import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one entry point an app calls for users and cities.
///
/// A facade over the services behind it: callers ask for "the cities of Europe" and never see
/// which resource, service, transport or endpoint answers. Swapping the JSON service for a cache,
/// or the transport for a fake in tests, changes nothing for them.
///
/// ```swift
/// let directory = WorldDirectory(baseURL: URL(string: "https://example.com/")!)
/// let cities = try await directory.cities(in: "europe")
/// ```
public struct WorldDirectory: Sendable {
    /// Where the services live.
    public struct Endpoints: Sendable {
        /// The folder of the continents' JSON files.
        public var cities: URL
        /// The SOAP user service's endpoint.
        public var users: URL

        /// Endpoints under one base URL: `<base>/cities/` and `<base>/UserService`.
        public init(baseURL: URL) {
            cities = baseURL.appendingPathComponent("cities")
            users = baseURL.appendingPathComponent("UserService")
        }
    }

    /// Where the services live.
    public let endpoints: Endpoints
    private let cityService: ResourceService<Cities>

    /// Creates a directory for the services under `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: The services' base URL.
    ///   - session: The transport. Default: `URLSessionTransport.shared`.
    ///   - options: Limits for every request. Default: a 30-second deadline.
    public init(
        baseURL: URL,
        session: any URLSessionType = URLSessionTransport.shared,
        options: TransferOptions = TransferOptions(deadline: .seconds(30))
    ) {
        endpoints = Endpoints(baseURL: baseURL)
        cityService = ResourceService(session: session, options: options)
    }

    /// The cities of `continent`.
    public func cities(in continent: String) async throws(ResourceError) -> [City] {
        try await cityService.fetch(citiesResource(continent))
    }

    /// The cities of `continent`, delivered exactly once on `callbackQueue`.
    @discardableResult
    public func cities(
        in continent: String,
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[City], ResourceError>) -> Void
    ) -> any Cancellable {
        cityService.fetch(citiesResource(continent), callbackQueue: callbackQueue, completion: completion)
    }

    /// An operation that loads the cities of `continent` when a queue runs it.
    ///
    /// Add it to an `OperationQueue`; read the outcome in `completion` (on `callbackQueue`, never
    /// after the operation was cancelled), from `result`, or with `try await operation.value`.
    public func citiesOperation(
        in continent: String,
        callbackQueue: DispatchQueue = .main,
        completion: ResourceOperation<ResourceService<Cities>>.Completion? = nil
    ) -> ResourceOperation<ResourceService<Cities>> {
        ResourceOperation(
            resource: citiesResource(continent), service: cityService, callbackQueue: callbackQueue,
            completion: completion)
    }

    private func citiesResource(_ continent: String) -> Cities {
        Cities(baseURL: endpoints.cities, continent: continent)
    }
}
