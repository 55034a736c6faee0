import ExampleResources
import Foundation
import ResourceLoader
import ResourceLoaderTesting

/// The example services, served on `127.0.0.1` for the demos and the integration tests.
///
/// | Request | Answer |
/// | --- | --- |
/// | `POST /UserService`, SOAP 1.1 `getUserDetails(userID)` | The user for a known ID (see ``users``); a Fault with HTTP 500 for an unknown one, a wrong `SOAPAction` or a malformed envelope |
/// | `GET /UserService?wsdl` | The service's WSDL (``userServiceWSDL``), with the server's address |
/// | `GET /cities/<continent>.json` | `{"cities": [...]}` for a known continent, 404 otherwise |
/// | `GET /cities/slow.json` | A valid answer after ``slowDelay`` |
/// | `GET /cities/malformed.json` | A 200 whose JSON body is cut short |
/// | `GET /cities/overloaded.json` | A 200 whose body is `{"error": "…"}` |
/// | `POST /oauth/token`, form-encoded `grant_type=password` with `username` and `password` | A bearer token for a known account (see ``passwords``): `{"access_token", "token_type", "expires_in", "refresh_token"}`; 400 `{"error": "invalid_grant"}` otherwise |
/// | `POST /oauth/token`, form-encoded `grant_type=refresh_token` with `refresh_token` | A new access token and a new refresh token; the refresh token sent is used up. 400 `invalid_grant` for an unknown, used or revoked one |
/// | `GET /account` with `Authorization: Bearer <access token>` | The token's ``Account``; 401 with `WWW-Authenticate: Bearer … error="invalid_token"` when the token is missing, unknown or expired |
/// | `GET /account/favourites.json`, same header | `{"cities": [...]}`, the account's favourites; 401 as above |
/// | `POST /uploads`, a `multipart/form-data` form | An ``UploadReceipt`` in JSON: the body's framing, and each part's name, file name, content type, size and SHA-256; 400 for a body that is not a form |
/// | `GET /downloads/sample.bin` | A generated file (``sampleByteCount`` bytes) with a strong `ETag`, `Accept-Ranges: bytes` and `Repr-Digest`, sent in slices ``downloadPace`` apart; `Range: bytes=N-` or `bytes=N-M` gets a `206` with `Content-Range` unless `If-Range` names another tag, and a range past the end a `416`. The query item `cut-after=N` closes the connection after N bytes of the body |
/// | `GET /downloads/sample.bin.sha256` | The file's SHA-256 as `sha256sum` prints it |
///
/// **Token expiry, without sleeping.** An access token expires ``defaultTokenLifetime`` (or the
/// lifetime given to ``init(clock:tokenLifetime:)``) after it was issued, measured on the clock
/// the server was given: pass a `ManualClock` and advance it to make tokens expire. Independently
/// of the clock, ``expireAccessTokens()`` ends every access token issued so far at once (as a
/// server does that revokes them, or whose clock runs ahead of the client's), and
/// ``revokeRefreshTokens()`` makes every refresh grant until the next login fail.
/// ``tokenStatistics`` counts the grants and the requests accepted and rejected.
///
/// **Failures on purpose.** ``fail(next:requestsTo:status:headers:)`` answers the next requests
/// to a path with an error status (a `503`, with a `Retry-After` if asked) before the path
/// answers normally again; ``requestCount(for:)`` counts the requests a path received.
public final class FixtureServer: Sendable {
    /// How long an access token is valid unless the server is made with another lifetime: one
    /// hour.
    public static let defaultTokenLifetime: Duration = .seconds(3600)

    /// What the token side of the server has done.
    public struct TokenStatistics: Sendable, Hashable {
        /// Logins that succeeded (password grants).
        public var passwordGrants = 0
        /// Refreshes that succeeded (refresh-token grants).
        public var refreshGrants = 0
        /// Token requests refused: a wrong password, an unknown or used refresh token, an
        /// unsupported grant.
        public var refusedGrants = 0
        /// Requests to a protected resource that carried a valid access token.
        public var authorizedRequests = 0
        /// Requests to a protected resource answered with `401`.
        public var rejectedRequests = 0

        /// Creates statistics; every count is zero unless given.
        public init(
            passwordGrants: Int = 0, refreshGrants: Int = 0, refusedGrants: Int = 0,
            authorizedRequests: Int = 0, rejectedRequests: Int = 0
        ) {
            self.passwordGrants = passwordGrants
            self.refreshGrants = refreshGrants
            self.refusedGrants = refusedGrants
            self.authorizedRequests = authorizedRequests
            self.rejectedRequests = rejectedRequests
        }
    }

    /// The accounts the token endpoint knows, by username.
    public static let accounts: [String: Account] = [
        "fred": Account(username: "fred", displayName: "Fred Jones", homeContinent: "europe"),
        "zoe": Account(username: "zoe", displayName: "Zoë Ångström", homeContinent: "oceania"),
    ]

    /// The accounts' passwords, by username.
    public static let passwords: [String: String] = [
        "fred": "correct horse battery staple",
        "zoe": "Tr0ub4dor&3 ü",
    ]
    /// How long `slow.json` takes to answer.
    public static let slowDelay: Duration = .seconds(5)

    /// The continents the cities service knows, and their cities.
    public static let continents: [String: [String]] = [
        "africa": ["Lagos", "Nairobi", "Cairo"],
        "americas": ["Buenos Aires", "Montréal", "Ciudad de México"],
        "asia": ["東京", "Mumbai", "Seoul"],
        "europe": ["Lisbon", "Oslo", "Kraków", "Zürich"],
        "oceania": ["Auckland", "Sydney"],
    ]

    /// The users the SOAP service knows, by ID.
    public static let users: [String: User] = [
        "12345": User(
            city: "London", email: "fred.jones@example.com", faxNumber: "1234567891",
            firstName: "Fred", lastName: "Jones", phoneNumber: "1234567891", postCode: "IG1 1YT",
            street1: "street1", street2: "street2"),
        "67890": User(
            city: "Stockholm", email: "zoe@example.org", faxNumber: "",
            firstName: "Zoë", lastName: "Ångström", phoneNumber: "+46 8 123 45 67", postCode: "114 51",
            street1: "Strandvägen 7 & 9", street2: ""),
    ]

    /// The SOAP 1.1 envelope namespace.
    static let soapNamespace = "http://schemas.xmlsoap.org/soap/envelope/"

    private let server: LoopbackHTTPServer
    private let authority: TokenAuthority
    private let failures: ScriptedFailures
    let transfers: TransferDesk

    /// The base URL of the services: `http://127.0.0.1:<port>/`.
    public var baseURL: URL { server.baseURL }

    /// How many requests the server has answered.
    public var requestCount: Int { server.requestCount }

    /// Starts the server on an ephemeral port of `127.0.0.1`.
    ///
    /// - Parameters:
    ///   - clock: The clock access tokens expire by. Default: a `ContinuousClock`; tests pass a
    ///     `ManualClock` and advance it.
    ///   - tokenLifetime: How long an access token is valid, in whole seconds (the token
    ///     endpoint's `expires_in`). Default: ``defaultTokenLifetime``.
    ///   - sampleByteCount: The size of `/downloads/sample.bin`. Default:
    ///     ``defaultSampleByteCount``.
    ///   - downloadPace: The pause between two slices of a download, so that a progress bar
    ///     moves. Default: ``defaultDownloadPace``.
    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        tokenLifetime: Duration = FixtureServer.defaultTokenLifetime,
        sampleByteCount: Int = FixtureServer.defaultSampleByteCount,
        downloadPace: Duration = FixtureServer.defaultDownloadPace
    ) throws {
        let authority = TokenAuthority(clock: clock, lifetime: tokenLifetime)
        let failures = ScriptedFailures()
        let transfers = TransferDesk(sampleBytes: max(sampleByteCount, 0), pace: downloadPace)
        server = try LoopbackHTTPServer { request in
            if let failure = failures.next(for: request.path) { return failure }
            if let answer = transfers.respond(to: request) { return answer }
            return FixtureServer.respond(to: request, authority: authority)
        }
        self.authority = authority
        self.failures = failures
        self.transfers = transfers
    }

    /// What the token side of the server has done so far.
    public var tokenStatistics: TokenStatistics {
        authority.statistics
    }

    /// Ends every access token issued so far: requests that carry one are answered with `401`
    /// from now on. Refresh tokens stay valid.
    public func expireAccessTokens() {
        authority.expireAccessTokens()
    }

    /// Ends every refresh token issued so far: refresh grants with one are refused with
    /// `400 invalid_grant`. Logging in again issues new ones.
    public func revokeRefreshTokens() {
        authority.revokeRefreshTokens()
    }

    /// Answers the next `count` requests to `path` (such as `"/cities/europe.json"`) with
    /// `status` and `headers` and an empty body, before the path answers as usual again.
    public func fail(next count: Int, requestsTo path: String, status: Int = 503, headers: [String: String] = [:]) {
        failures.add(count, LoopbackHTTPServer.Response.status(status, headers: headers), for: path)
    }

    /// How many requests to `path` the server has received, failures on purpose included.
    public func requestCount(for path: String) -> Int {
        failures.count(for: path)
    }

    /// Stops the server.
    public func stop() {
        server.stop()
    }

    static func respond(to request: LoopbackHTTPServer.Request, authority: TokenAuthority) -> LoopbackHTTPServer.Response {
        let components = request.path.split(separator: "/").map(String.init)
        switch (request.method, components.first) {
        case ("GET", "cities") where components.count == 2 && components[1].hasSuffix(".json"):
            return cities(String(components[1].dropLast(".json".count)), request: request)
        case ("POST", "UserService") where components.count == 1:
            return userService(request)
        case ("GET", "UserService") where components.count == 1 && request.queryItems.map(\.name) == ["wsdl"]:
            return userServiceWSDL(request)
        case ("POST", "oauth") where components == ["oauth", "token"]:
            return authority.tokenEndpoint(request)
        case ("GET", "account") where components == ["account"] || components == ["account", "favourites.json"]:
            guard let username = authority.account(authorizing: request), let account = accounts[username] else {
                return TokenAuthority.rejection()
            }
            return components.count == 1 ? accountJSON(account) : citiesJSON(continents[account.homeContinent] ?? [])
        default:
            return .status(404, headers: ["Content-Type": "text/plain"], body: Data("Not found\n".utf8))
        }
    }

    // MARK: SOAP user service

    /// Answers `getUserDetails` the way a SOAP 1.1 service would: checks the `SOAPAction`,
    /// parses the envelope, and answers with the user or a Fault.
    private static func userService(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let action = request.value(forHeaderField: "SOAPAction")?.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard action == "getUserDetails" else {
            return fault(code: "soap:Client", reason: "Unsupported SOAPAction \(action.map { "'\($0)'" } ?? "(none)")")
        }
        guard let tree = try? XMLTree(data: request.body),
            tree.root.name == "Envelope", tree.root.namespaceURI == soapNamespace,
            let call = tree.root.child(named: "Body", namespaceURI: soapNamespace)?.child(named: "getUserDetails"),
            let userID = call.child(named: "userID")?.text
        else {
            return fault(code: "soap:Client", reason: "The request is not a getUserDetails envelope")
        }
        guard let user = users[userID] else {
            return fault(code: "soap:Client", reason: "Unknown user \(userID)")
        }
        let response = SOAPEnvelope(
            version: .v1_1, operation: "getUserDetailsResponse",
            parameters: [
                "getUserDetails": [
                    "userModel": [
                        "city": .text(user.city), "email": .text(user.email), "faxNumber": .text(user.faxNumber),
                        "firstName": .text(user.firstName), "lastName": .text(user.lastName),
                        "phoneNumber": .text(user.phoneNumber), "postCode": .text(user.postCode),
                        "street1": .text(user.street1), "street2": .text(user.street2),
                    ]
                ]
            ])
        return envelope(response, status: 200)
    }

    /// ``userServiceWSDL`` with the address the request was sent to (its `Host`), as a service
    /// publishes its WSDL.
    private static func userServiceWSDL(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let host = request.value(forHeaderField: "Host") ?? "127.0.0.1"
        let wsdl = userServiceWSDL.replacingOccurrences(of: userServiceWSDLAddress, with: "http://\(host)/UserService")
        return .status(200, headers: ["Content-Type": "text/xml; charset=utf-8"], body: Data(wsdl.utf8))
    }

    /// A SOAP 1.1 Fault with HTTP status 500, written (and escaped) by the library's envelope
    /// writer: `<Fault xmlns="…/soap/envelope/">` is the envelope namespace's `Fault`, like
    /// `<soap:Fault>`.
    private static func fault(code: String, reason: String) -> LoopbackHTTPServer.Response {
        envelope(
            SOAPEnvelope(
                version: .v1_1, operation: "Fault", operationNamespace: soapNamespace,
                parameters: ["faultcode": .text(code), "faultstring": .text(reason)]),
            status: 500)
    }

    private static func envelope(_ envelope: SOAPEnvelope, status: Int) -> LoopbackHTTPServer.Response {
        guard let data = try? envelope.data() else {
            return .status(500, headers: ["Content-Type": "text/plain"], body: Data("Cannot write the envelope\n".utf8))
        }
        return .status(status, headers: ["Content-Type": "text/xml; charset=utf-8"], body: data)
    }

    // MARK: Account

    private static func accountJSON(_ account: Account) -> LoopbackHTTPServer.Response {
        struct Body: Encodable {
            let username: String
            let displayName: String
            let homeContinent: String
        }
        let body = Body(username: account.username, displayName: account.displayName, homeContinent: account.homeContinent)
        let data = (try? JSONEncoder().encode(body)) ?? Data()
        return .status(200, headers: ["Content-Type": "application/json; charset=utf-8"], body: data)
    }

    // MARK: Cities

    private static func cities(_ continent: String, request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        switch continent {
        case "slow":
            return citiesJSON(["Slowtown"]).delayed(by: slowDelay)
        case "malformed":
            return .json(#"{"cities": [{"name": "Lis"#)
        case "overloaded":
            return .json(#"{"error": "The cities service is over its quota; try again later."}"#)
        default:
            guard let names = continents[continent] else {
                return .json(#"{"message": "No such continent"}"#, status: 404)
            }
            return cacheableCitiesJSON(names, tag: "\"\(continent)-1\"", request: request)
        }
    }

    /// A continent's cities as an HTTP cache may keep them: fresh for a minute, with an `ETag`;
    /// a request whose `If-None-Match` names that tag gets a `304 Not Modified` without a body.
    private static func cacheableCitiesJSON(_ names: [String], tag: String, request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let caching = ["Cache-Control": "max-age=60", "ETag": tag]
        if request.value(forHeaderField: "If-None-Match") == tag {
            return .status(304, headers: caching)
        }
        struct Body: Encodable {
            struct Entry: Encodable { let name: String }
            let cities: [Entry]
        }
        let data = (try? JSONEncoder().encode(Body(cities: names.map(Body.Entry.init)))) ?? Data()
        return .status(200, headers: caching.merging(["Content-Type": "application/json; charset=utf-8"]) { $1 }, body: data)
    }

    private static func citiesJSON(_ names: [String]) -> LoopbackHTTPServer.Response {
        struct Body: Encodable {
            struct Entry: Encodable { let name: String }
            let cities: [Entry]
        }
        let data = (try? JSONEncoder().encode(Body(cities: names.map(Body.Entry.init)))) ?? Data()
        return .status(200, headers: ["Content-Type": "application/json; charset=utf-8"], body: data)
    }
}

/// The failures ``FixtureServer/fail(next:requestsTo:status:headers:)`` scripted, and the number
/// of requests to each path.
private final class ScriptedFailures: @unchecked Sendable {
    private struct State {
        var pending: [String: [LoopbackHTTPServer.Response]] = [:]
        var counts: [String: Int] = [:]
    }

    // `lock` guards `state`.
    private let lock = NSLock()
    private var state = State()

    func add(_ count: Int, _ response: LoopbackHTTPServer.Response, for path: String) {
        lock.withLock { state.pending[path, default: []] += Array(repeating: response, count: max(count, 0)) }
    }

    /// Counts a request to `path`, and takes the next failure scripted for it.
    func next(for path: String) -> LoopbackHTTPServer.Response? {
        lock.withLock {
            state.counts[path, default: 0] += 1
            guard var pending = state.pending[path], !pending.isEmpty else { return nil }
            let response = pending.removeFirst()
            state.pending[path] = pending
            return response
        }
    }

    func count(for path: String) -> Int {
        lock.withLock { state.counts[path] ?? 0 }
    }
}
