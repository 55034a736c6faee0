import Foundation
import ResourceLoader
import ResourceLoaderTesting

/// The example services, served on `127.0.0.1` for the demos and the integration tests.
///
/// | Request | Answer |
/// | --- | --- |
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
        default:
            return .status(404, headers: ["Content-Type": "text/plain"], body: Data("Not found\n".utf8))
        }
    }

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
