import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one entry point an app calls for users, cities and the signed-in account.
///
/// A facade over the services behind it: callers ask for "the cities of Europe" and never see
/// which resource, service, transport or endpoint answers. Swapping the JSON service for a cache,
/// or the transport for a fake in tests, changes nothing for them.
///
/// ```swift
/// let directory = WorldDirectory(baseURL: URL(string: "https://example.com/")!)
/// let cities = try await directory.cities(in: "europe")
/// let profile = try await directory.profile(for: "12345")
/// try await directory.logIn(username: "fred", password: password)
/// let account = try await directory.account()
/// ```
///
/// Every service of the directory is made from one ``pipeline``, configured the way an app
/// configures its own:
/// - a `User-Agent` adapter;
/// - a `CredentialStore` with a ``BearerAuthenticator``: the protected resources
///   (``AccountDetails``, ``FavouriteCities``) carry the ``OAuthToken``'s access token, an
///   expired token is refreshed before a request is sent, and a token the server rejects with
///   `401` is refreshed once for all the requests that were rejected with it, which are then
///   replayed. A refresh token the token endpoint refuses with `invalid_grant` signs the user
///   out at once (``BearerAuthenticator/isPermanentRefreshFailure(_:)``). The public resources
///   (``Cities``, ``GetUserDetails``) and the ``TokenRequest`` opt out of it;
/// - a ``TokenStorage``, when given, kept up to date from the credential store's sequence of
///   changes: the token logged in with, every refreshed token, and none after logging out or
///   a revocation;
/// - a `RetryPolicy` (by default three attempts with exponential backoff, for idempotent
///   requests and for ``GetUserDetails``, which opts in);
/// - a `LoggingFetchMonitor`, which logs one line per fetch with no token, password or query
///   value in it, followed by the monitors the app passes.
///
/// Public requests come three ways: `async`, with a completion handler, and as a
/// `ResourceOperation` for an `OperationQueue`.
public struct WorldDirectory: Sendable {
    /// Where the services live.
    public struct Endpoints: Sendable {
        /// The folder of the continents' JSON files.
        public var cities: URL
        /// The SOAP user service's endpoint.
        public var users: URL
        /// The OAuth 2 token endpoint.
        public var token: URL
        /// The signed-in user's account.
        public var account: URL
        /// The signed-in user's favourite cities.
        public var favourites: URL
        /// The upload endpoint, which takes a `multipart/form-data` form.
        public var uploads: URL
        /// The folder of the files to download.
        public var downloads: URL

        /// Endpoints under one base URL: `<base>/cities/`, `<base>/UserService`,
        /// `<base>/oauth/token`, `<base>/account`, `<base>/account/favourites.json`,
        /// `<base>/uploads` and `<base>/downloads/`.
        public init(baseURL: URL) {
            cities = baseURL.appendingPathComponent("cities")
            users = baseURL.appendingPathComponent("UserService")
            token = baseURL.appendingPathComponent("oauth").appendingPathComponent("token")
            account = baseURL.appendingPathComponent("account")
            favourites = baseURL.appendingPathComponent("account").appendingPathComponent("favourites.json")
            uploads = baseURL.appendingPathComponent("uploads")
            downloads = baseURL.appendingPathComponent("downloads")
        }
    }

    /// The `User-Agent` every request of the directory carries.
    public static let userAgent = "WorldDirectory/1.0"

    /// Where the services live.
    public let endpoints: Endpoints
    /// The pipeline every service of the directory is made from. Make services of resources of
    /// your own from it, and they share its token, retries and monitors.
    public let pipeline: ResourcePipeline
    /// Holds the signed-in user's token and refreshes it.
    public let credentials: CredentialStore<BearerAuthenticator>
    private let cityService: ResourceService<Cities>
    private let userService: ResourceService<GetUserDetails>
    private let accountService: ResourceService<AccountDetails>
    private let favouritesService: ResourceService<FavouriteCities>

    /// Creates a directory for the services under `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: The services' base URL.
    ///   - session: The transport. Default: `URLSessionTransport.shared`.
    ///   - options: Limits for every request. Default: a 30-second deadline.
    ///   - token: The token of a user who logged in before; `nil` for the one `tokenStorage`
    ///     holds, if any, or until ``logIn(username:password:)``.
    ///   - tokenStorage: Where the token is kept between launches: read here, and written
    ///     whenever the token changes (logged in, refreshed, logged out, revoked). Default:
    ///     none; read ``token`` to keep it yourself.
    ///   - retryPolicy: When a failed request is tried again. Default: `RetryPolicy()`, three
    ///     attempts with exponential backoff and full jitter, for idempotent requests.
    ///   - monitors: Monitors of the app's own, told of every fetch after the logging monitor.
    ///     Default: none.
    ///   - clock: Where retry waits, durations and the current date (for token expiry) come
    ///     from. Default: a `ContinuousClock`; tests pass a `ManualClock`.
    ///   - log: Receives the `LoggingFetchMonitor`'s line for every fetch. Default: the
    ///     standard error.
    public init(
        baseURL: URL,
        session: any HTTPTransport = URLSessionTransport.shared,
        options: TransferOptions = TransferOptions(deadline: .seconds(30)),
        token: OAuthToken? = nil,
        tokenStorage: (any TokenStorage)? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(),
        monitors: [any FetchMonitor] = [],
        clock: any Clock<Duration> = ContinuousClock(),
        log: @escaping @Sendable (String) -> Void = LoggingFetchMonitor.standardError
    ) {
        let endpoints = Endpoints(baseURL: baseURL)
        // The authenticator refreshes through the pipeline the store hands it.
        let credentials = CredentialStore(
            authenticator: BearerAuthenticator(tokenEndpoint: endpoints.token),
            credential: token ?? tokenStorage?.loadToken())
        if let tokenStorage {
            // Subscribed before any change can happen; ends when the store goes away.
            let changes = credentials.changes()
            Task {
                for await change in changes {
                    switch change {
                    case .set(let token), .refreshed(let token): tokenStorage.saveToken(token)
                    case .cleared, .revoked: tokenStorage.saveToken(nil)
                    }
                }
            }
        }
        let pipeline = ResourcePipeline(
            session: session,
            options: options,
            adapters: [
                ClosureRequestAdapter { request in
                    var request = request
                    request.setValue(WorldDirectory.userAgent, forHTTPHeaderField: "User-Agent")
                    return request
                },
            ],
            credentials: credentials,
            retryPolicy: retryPolicy,
            monitors: [LoggingFetchMonitor(sink: log)] + monitors,
            clock: clock
        )
        self.endpoints = endpoints
        self.pipeline = pipeline
        self.credentials = credentials
        cityService = ResourceService(pipeline: pipeline)
        userService = ResourceService(pipeline: pipeline)
        accountService = ResourceService(pipeline: pipeline)
        favouritesService = ResourceService(pipeline: pipeline)
    }

    // MARK: Signing in

    /// The signed-in user's token, as last refreshed; `nil` when nobody is signed in. The
    /// ``TokenStorage`` given to the directory, if any, keeps it for the next launch.
    public var token: OAuthToken? {
        credentials.credential
    }

    /// Logs in with a username and password, and keeps the token for every later request.
    ///
    /// - Returns: The new token, to keep for the next launch.
    /// - Throws: `ResourceError.httpStatus` with status 400 when the server refuses the
    ///   username and password, or whatever else ended the token request.
    @discardableResult
    public func logIn(username: String, password: String) async throws(ResourceError) -> OAuthToken {
        let token = try await BearerAuthenticator.requestToken(
            .password(username: username, password: password), at: endpoints.token, through: pipeline)
        credentials.setCredential(token)
        return token
    }

    /// Signs in with a token kept from before; it is refreshed when it has expired.
    public func restore(_ token: OAuthToken) {
        credentials.setCredential(token)
    }

    /// Forgets the token (and removes it from the ``TokenStorage``): protected requests then
    /// fail with `ResourceError.authenticationFailed(.noCredential)` without being sent.
    public func logOut() {
        credentials.setCredential(nil)
    }

    /// The signed-in user's account.
    ///
    /// - Throws: `ResourceError.authenticationFailed` when nobody is signed in, the token
    ///   could not be refreshed, or its refresh token was revoked (`.credentialRevoked`: sign
    ///   in again), or whatever else ended the fetch.
    public func account() async throws(ResourceError) -> Account {
        try await accountService.fetch(AccountDetails(url: endpoints.account))
    }

    /// The signed-in user's favourite cities.
    ///
    /// - Throws: As ``account()``.
    public func favouriteCities() async throws(ResourceError) -> [City] {
        try await favouritesService.fetch(FavouriteCities(url: endpoints.favourites))
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
