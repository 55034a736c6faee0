import ExampleResources
import Foundation
import ResourceLoader
import ResourceLoaderTesting

/// The example services, served on `127.0.0.1` for the demos and the integration tests.
///
/// | Request | Answer |
/// | --- | --- |
/// | `POST /UserService`, SOAP 1.1 `getUserDetails(userID)` | The user for a known ID (see ``users``); a Fault with HTTP 500 for an unknown one, a wrong `SOAPAction` or a malformed envelope |
/// | `GET /cities/<continent>.json` | `{"cities": [...]}` for a known continent, 404 otherwise |
/// | `GET /cities/slow.json` | A valid answer after ``slowDelay`` |
/// | `GET /cities/malformed.json` | A 200 whose JSON body is cut short |
/// | `GET /cities/overloaded.json` | A 200 whose body is `{"error": "…"}` |
public final class FixtureServer: Sendable {
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

    /// The base URL of the services: `http://127.0.0.1:<port>/`.
    public var baseURL: URL { server.baseURL }

    /// How many requests the server has answered.
    public var requestCount: Int { server.requestCount }

    /// Starts the server on an ephemeral port of `127.0.0.1`.
    public init() throws {
        server = try LoopbackHTTPServer { request in FixtureServer.respond(to: request) }
    }

    /// Stops the server.
    public func stop() {
        server.stop()
    }

    static func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let components = request.path.split(separator: "/").map(String.init)
        switch (request.method, components.first) {
        case ("GET", "cities") where components.count == 2 && components[1].hasSuffix(".json"):
            return cities(String(components[1].dropLast(".json".count)))
        case ("POST", "UserService") where components.count == 1:
            return userService(request)
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

    // MARK: Cities

    private static func cities(_ continent: String) -> LoopbackHTTPServer.Response {
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
            return citiesJSON(names)
        }
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
