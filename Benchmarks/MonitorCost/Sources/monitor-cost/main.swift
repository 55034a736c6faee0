// Fetches `Cities` (20 cities, a JSON body answered inline by the transport) N times through a
// `ResourceService` made from a pipeline configured as the first argument says, one fetch after
// another. Run it under callgrind twice with different N: the difference in instructions, divided
// by the difference in N, is the cost of one fetch without the start-up.
//
//     monitor-cost none|empty|logging|metrics|both|logging-info|logging-debug N
import CoreMetrics
import Foundation
import Logging
import ResourceLoader
import ResourceLoaderLogging
import ResourceLoaderMetrics

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct City: Decodable, Sendable {
    let name: String
}

struct Cities: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    var url: URL { URL(string: "https://api.example.com/cities?continent=europe")! }
    func model(from root: Root) throws -> [City] { root.cities }
}

/// Answers every request at once, on the calling thread, with the same 200 response.
struct InlineTransport: URLSessionType {
    let body: Data

    func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        let response = HTTPURLResponse(
            url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "application/json"]
        )!
        completionHandler(.success((body, response)))
        return NothingToCancel()
    }
}

final class NothingToCancel: Cancellable {
    func cancel() {}
}

/// A monitor that does nothing: the pipeline's own cost of having a monitor.
struct EmptyMonitor: FetchMonitor {}

/// A log handler that drops every entry after asking for its metadata: the monitor's work at
/// `logLevel`, without any output.
struct DiscardingLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        _ = event.metadata?.count
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    print("usage: monitor-cost none|empty|logging|metrics|both|logging-info|logging-debug N")
    exit(2)
}
let cities = (0..<20).map { #"{"name":"City \#($0)"}"# }.joined(separator: ",")
let transport = InlineTransport(body: Data(#"{"cities":[\#(cities)]}"#.utf8))
let noOpLogger = Logger(label: "monitor-cost") { _ in SwiftLogNoOpLogHandler() }
let monitors: [any FetchMonitor]
switch arguments[1] {
case "none": monitors = []
case "empty": monitors = [EmptyMonitor()]
case "logging": monitors = [LoggerFetchMonitor(logger: noOpLogger)]
case "metrics": monitors = [MetricsFetchMonitor(factory: NOOPMetricsHandler.instance)]
case "both": monitors = [LoggerFetchMonitor(logger: noOpLogger), MetricsFetchMonitor(factory: NOOPMetricsHandler.instance)]
case "logging-info": monitors = [LoggerFetchMonitor(logger: Logger(label: "monitor-cost") { _ in DiscardingLogHandler(logLevel: .info) })]
case "logging-debug": monitors = [LoggerFetchMonitor(logger: Logger(label: "monitor-cost") { _ in DiscardingLogHandler(logLevel: .debug) })]
default:
    print("unknown configuration \(arguments[1])")
    exit(2)
}
/// Fetches `count` times, one after another; returns how many cities came back.
func fetchAll(_ count: Int, through pipeline: ResourcePipeline) async throws -> Int {
    let service = ResourceService<Cities>(pipeline: pipeline)
    var total = 0
    for _ in 0..<count {
        total += try await service.fetch(Cities()).count
    }
    return total
}

// The main thread waits on a semaphore rather than running an `async` top level: valgrind
// crashes when the main thread exits into Dispatch's main queue, as an `async` main does.
let pipeline = ResourcePipeline(session: transport, monitors: monitors)
let finished = DispatchSemaphore(value: 0)
let total = Locked()
Task.detached {
    defer { finished.signal() }
    do {
        total.set(try await fetchAll(count, through: pipeline))
    } catch {
        print("a fetch failed: \(error)")
        exit(1)
    }
}
finished.wait()
print("\(arguments[1]): \(count) fetches, \(total.get()) cities")

/// The total, handed from the fetching task to the main thread.
final class Locked: @unchecked Sendable {
    // `lock` guards `value`.
    private let lock = NSLock()
    private var value = 0
    func set(_ newValue: Int) { lock.withLock { value = newValue } }
    func get() -> Int { lock.withLock { value } }
}
