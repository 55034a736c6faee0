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
/// let profile = try await directory.profile(for: "12345")
/// ```
///
/// Each kind of request comes three ways: `async`, with a completion handler, and as a
/// `ResourceOperation` for an `OperationQueue`.
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
    private let userService: ResourceService<GetUserDetails>

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
        userService = ResourceService(session: session, options: options)
    }

    // MARK: Users

    /// The profile of the user with `userID`, shaped for display.
    public func profile(for userID: String) async throws(ResourceError) -> UserProfile {
        UserProfile(userID: userID, user: try await userService.fetch(userDetails(userID)))
    }

    /// The profile of the user with `userID`, delivered exactly once on `callbackQueue`.
    @discardableResult
    public func profile(
        for userID: String,
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<UserProfile, ResourceError>) -> Void
    ) -> any Cancellable {
        userService.fetch(userDetails(userID), callbackQueue: callbackQueue) { result in
            completion(result.map { UserProfile(userID: userID, user: $0) })
        }
    }

    /// An operation that loads the user with `userID` when a queue runs it; map its ``User``
    /// with ``UserProfile/init(userID:user:)``.
    public func userOperation(
        for userID: String,
        callbackQueue: DispatchQueue = .main,
        completion: ResourceOperation<ResourceService<GetUserDetails>>.Completion? = nil
    ) -> ResourceOperation<ResourceService<GetUserDetails>> {
        ResourceOperation(
            resource: userDetails(userID), service: userService, callbackQueue: callbackQueue,
            completion: completion)
    }

    private func userDetails(_ userID: String) -> GetUserDetails {
        GetUserDetails(url: endpoints.users, userID: userID)
    }

    // MARK: Cities

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
