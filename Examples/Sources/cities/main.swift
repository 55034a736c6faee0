// `swift run --package-path Examples cities europe`: loads the cities of a continent through
// the WorldDirectory facade, from the embedded server unless --base-url names a real service.
import DemoSupport
import ExampleResources
import Foundation
import ResourceLoader

/// Keeps what an HTTP cache decided for each fetch, to print.
final class CacheLog: FetchMonitor, @unchecked Sendable {
    // `lock` guards `outcomes`.
    private let lock = NSLock()
    private var outcomes: [String] = []

    func cacheDecided(_ event: FetchEvent.CacheDecided) {
        lock.withLock { outcomes.append(event.outcome.logName) }
    }

    /// The outcomes since the last call, joined.
    func take() -> String {
        lock.withLock {
            defer { outcomes = [] }
            return outcomes.joined(separator: ", ")
        }
    }
}

/// The same cities, validated with the server before a cache may answer (`Cache-Control: no-cache`).
struct RevalidatedCities: NetworkResourceType, JSONDecodableResourceType {
    let cities: Cities
    var url: URL { cities.url }
    var headerFields: [String: String] { ["Cache-Control": "no-cache"] }
    var usesPipelineAuthenticator: Bool { false }
    func model(from root: Cities.Root) -> [City] { cities.model(from: root) }
}

/// Loads the cities three times through a pipeline with an HTTP cache: the first fetch goes to
/// the server and is stored, the second is answered from the cache, and the third asks for a
/// validation, which the server answers `304 Not Modified`: the stored body is parsed again.
func showCache(continent: String, in directory: WorldDirectory, over session: any HTTPTransport) async throws(ResourceError) -> String {
    let log = CacheLog()
    let pipeline = ResourcePipeline(session: session, monitors: [log], cache: HTTPCache())
    let resource = Cities(baseURL: directory.endpoints.cities, continent: continent)
    let first = try await ResourceService<Cities>(pipeline: pipeline).fetch(resource)
    let firstOutcome = log.take()
    let second = try await ResourceService<Cities>(pipeline: pipeline).fetch(resource)
    let secondOutcome = log.take()
    let third = try await ResourceService<RevalidatedCities>(pipeline: pipeline).fetch(RevalidatedCities(cities: resource))
    let thirdOutcome = log.take()
    return """
        With an HTTP cache:
          first fetch: \(first.count) cities (\(firstOutcome))
          second fetch: \(second.count) cities (\(secondOutcome): served from the cache, no request)
          revalidated: \(third.count) cities (\(thirdOutcome): the server answered 304 Not Modified)
        """
}

let status = await Demo.run(usage: "cities <continent> [--base-url URL] [--via async|completion|operation] [--transport url-session|async-http-client]") {
    directory, arguments in
    guard let continent = arguments.positional.first else {
        throw Demo.UsageError(message: "name a continent, for example europe")
    }
    let cities: [City]
    switch arguments.style {
    case .async:
        cities = try await directory.cities(in: continent)
    case .completion:
        cities = try await withCheckedContinuation { continuation in
            directory.cities(in: continent, callbackQueue: .main) { result in
                continuation.resume(returning: result)
            }
        }.get()
    case .operation:
        let queue = OperationQueue()
        let operation = directory.citiesOperation(in: continent)
        queue.addOperation(operation)
        cities = try await operation.value
    }
    let lines = cities.map { "  • \($0.name)" }.joined(separator: "\n")
    let cache = try await showCache(continent: continent, in: directory, over: arguments.transport.session)
    return "\(cities.count) cities in \(continent) (loaded with \(arguments.style.rawValue) over \(arguments.transport.rawValue)):\n\(lines)\n\(cache)"
}
exit(status)
