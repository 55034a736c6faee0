// `swift run --package-path Examples cities europe`: loads the cities of a continent through
// the WorldDirectory facade, from the embedded server unless --base-url names a real service.
import DemoSupport
import ExampleResources
import Foundation
import ResourceLoader

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
    return "\(cities.count) cities in \(continent) (loaded with \(arguments.style.rawValue) over \(arguments.transport.rawValue)):\n\(lines)"
}
exit(status)
