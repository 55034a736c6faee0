#if Metrics
import CoreMetrics
import Foundation
import Metrics
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `FetchMonitor` that records swift-metrics counters, a timer and a meter for every fetch.
///
/// ```swift
/// import Metrics
/// import ResourceLoader
/// import ResourceLoaderMetrics
///
/// MetricsSystem.bootstrap(myPrometheusFactory)   // once, at start-up
/// let pipeline = ResourcePipeline(monitors: [MetricsFetchMonitor()])
/// ```
///
/// The metrics, their labels (``Label``) and dimensions (``Dimension``):
///
/// | Metric | Label | Dimensions | Recorded |
/// |---|---|---|---|
/// | counter | `resourceloader_requests` | `method`, `status_class`, `resource_type` | once per fetch, when it finishes |
/// | timer | `resourceloader_request_duration` | `method`, `status_class`, `resource_type` | once per fetch: its duration, from start to outcome |
/// | counter | `resourceloader_request_errors` | `resource_type`, `error_type` | once per failed fetch |
/// | counter | `resourceloader_retries` | `resource_type`, `reason` | each time an attempt is tried again |
/// | meter | `resourceloader_requests_in_flight` | none | up when a fetch's request is ready, down when that fetch finishes |
///
/// The dimension values:
/// - `method`: the request's method (`GET`, `POST`…), `invalid` for one that is not an HTTP
///   token (a request no transport sends), or `none` when the request could not be built;
/// - `status_class`: `1xx`, `2xx`, `3xx`, `4xx` or `5xx` from the last response's status, or
///   `error` when the fetch ended without an HTTP response (a transport failure, a cancellation,
///   the deadline, a request that could not be built or adapted). A fetch can fail with a `2xx`
///   status class (its body did not parse): `resourceloader_request_errors` counts failures;
/// - `resource_type`: the resource type's name, such as `Cities`;
/// - `error_type`: the `ResourceError` case without its associated values (`transport`,
///   `httpStatus`, `parsing`, `cancelled`…), so that the number of series stays small;
/// - `reason`: `status`, `transport` or `credential_rejected`, as in
///   `FetchEvent/RetryScheduled/Reason`.
///
/// Nothing from a URL, a header or a body becomes a dimension. The in-flight meter cannot
/// drift: it goes down only for a fetch it went up for, and every fetch finishes.
public struct MetricsFetchMonitor: FetchMonitor {
    /// The labels of the metrics this monitor records.
    public enum Label {
        /// The counter of finished fetches.
        public static let requests = "resourceloader_requests"
        /// The timer of fetch durations.
        public static let duration = "resourceloader_request_duration"
        /// The counter of failed fetches.
        public static let errors = "resourceloader_request_errors"
        /// The counter of retried attempts.
        public static let retries = "resourceloader_retries"
        /// The meter of fetches in flight.
        public static let inFlight = "resourceloader_requests_in_flight"
    }

    /// The dimension names this monitor records; see ``MetricsFetchMonitor`` for their values.
    public enum Dimension {
        /// The request's method.
        public static let method = "method"
        /// `2xx`, `3xx`, `4xx`, `5xx` or `error`.
        public static let statusClass = "status_class"
        /// The resource type's name.
        public static let resourceType = "resource_type"
        /// The `ResourceError` case that ended a fetch.
        public static let errorType = "error_type"
        /// Why an attempt is tried again.
        public static let reason = "reason"
    }

    private let factory: any MetricsFactory
    private let inFlight: Meter
    private let tracker: InFlightFetches

    /// Creates a monitor that records through `factory`.
    ///
    /// - Parameter factory: The metrics backend. Default: `MetricsSystem.factory`, the one
    ///   bootstrapped for the process; tests pass a `TestMetrics` of their own.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        self.inFlight = Meter(label: Label.inFlight, dimensions: [], factory: factory)
        self.tracker = InFlightFetches()
    }

    /// Counts the fetch as in flight.
    public func requestReady(_ event: FetchEvent.RequestReady) {
        if tracker.insert(event.context.fetchID) {
            inFlight.increment()
        }
    }

    /// Counts a retry.
    public func retryScheduled(_ event: FetchEvent.RetryScheduled) {
        Counter(
            label: Label.retries,
            dimensions: [
                (Dimension.resourceType, tracker.name(of: event.context)),
                (Dimension.reason, Self.name(of: event.reason)),
            ],
            factory: factory
        ).increment()
    }

    /// The `method` dimension's value for `request`: its method, `GET` when it names none, and
    /// `invalid` when it is not an HTTP token, so that what a resource put there never becomes a
    /// series of its own.
    static func method(of request: URLRequest) -> String {
        let method = request.httpMethod ?? "GET"
        return HTTPMethod(rawValue: method) == nil ? "invalid" : method
    }

    /// Counts the fetch, records its duration, counts its failure, and takes it out of flight.
    public func fetchFinished(_ event: FetchEvent.Finished) {
        if tracker.remove(event.context.fetchID) {
            inFlight.decrement()
        }
        let resourceType = tracker.name(of: event.context)
        let dimensions = [
            (Dimension.method, event.request.map(Self.method) ?? "none"),
            (Dimension.statusClass, Self.statusClass(of: event.statusCode)),
            (Dimension.resourceType, resourceType),
        ]
        Counter(label: Label.requests, dimensions: dimensions, factory: factory).increment()
        CoreMetrics.Timer(label: Label.duration, dimensions: dimensions, factory: factory).record(duration: event.duration)
        if let error = event.error {
            Counter(
                label: Label.errors,
                dimensions: [(Dimension.resourceType, resourceType), (Dimension.errorType, Self.caseName(of: error))],
                factory: factory
            ).increment()
        }
    }

    /// `2xx`… `5xx` for a status in 200…599, `1xx` for an informational one, `error` without
    /// one or for a status outside them.
    static func statusClass(of statusCode: Int?) -> String {
        switch statusCode {
        case .some(100..<200): "1xx"
        case .some(200..<300): "2xx"
        case .some(300..<400): "3xx"
        case .some(400..<500): "4xx"
        case .some(500..<600): "5xx"
        default: "error"
        }
    }

    /// The case of `error`, without its associated values.
    static func caseName(of error: ResourceError) -> String {
        switch error {
        case .transport: "transport"
        case .authenticationFailed: "authenticationFailed"
        case .downloadInterrupted: "downloadInterrupted"
        default: error.logName
        }
    }

    /// `reason` as a dimension value.
    static func name(of reason: FetchEvent.RetryScheduled.Reason) -> String {
        switch reason {
        case .status: "status"
        case .transport: "transport"
        case .credentialRejected: "credential_rejected"
        }
    }

    /// How many fetches the monitor counts as in flight: those whose request was ready and that
    /// have not finished.
    var fetchesInFlight: Int { tracker.count }
}

/// The fetches a ``MetricsFetchMonitor`` counted as in flight, by identifier, so that it takes out
/// of flight only those it put in; and the names of the resource types it has seen, since naming
/// a type (`String(describing:)`) costs more than the rest of recording a fetch.
final class InFlightFetches: @unchecked Sendable {
    // `lock` guards `fetchIDs` and `names`.
    private let lock = NSLock()
    private var fetchIDs: Set<UInt64> = []
    private var names: [ObjectIdentifier: String] = [:]

    /// Adds `fetchID`; `false` when it was already there.
    func insert(_ fetchID: UInt64) -> Bool {
        lock.withLock { fetchIDs.insert(fetchID).inserted }
    }

    /// Removes `fetchID`; `false` when it was not there.
    func remove(_ fetchID: UInt64) -> Bool {
        lock.withLock { fetchIDs.remove(fetchID) != nil }
    }

    var count: Int {
        lock.withLock { fetchIDs.count }
    }

    /// The name of the fetch's resource type, made once per type. Resource types are few (the
    /// app's endpoints), so the cache stays small.
    func name(of context: FetchEvent.Context) -> String {
        let type = ObjectIdentifier(context.resourceType)
        if let name = lock.withLock({ names[type] }) { return name }
        let name = context.resourceTypeName
        lock.withLock { names[type] = name }
        return name
    }
}
#endif
