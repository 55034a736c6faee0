import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every service made from it shares: the transport, the default limits, the request
/// adapters, the fetch monitors and the clock the pipeline reads time from.
///
/// Configure it once and create a service for each resource type from it:
///
/// ```swift
/// let pipeline = ResourcePipeline(
///     adapters: [BearerTokenAdapter(tokens: tokens)],
///     monitors: [LoggingFetchMonitor()]
/// )
/// let cities = ResourceService<Cities>(pipeline: pipeline)
/// let archive = ResourceService<Archive>(pipeline: pipeline)
/// ```
///
/// ## The order the hooks run in
///
/// For every fetch, one step after another:
/// 1. ``NetworkResourceType/urlRequest()`` builds the request and
///    ``NetworkResourceType/transferOptions(_:)`` its limits from ``options``; the
///    ``TransferOptions/deadline`` starts now, so it bounds the adapters too;
/// 2. the ``adapters`` run in order, each given the request the one before returned (skipped when
///    ``NetworkResourceType/usesPipelineAdapters`` is `false`); the monitors then see
///    ``FetchMonitor/requestReady(_:)``;
/// 3. each attempt: the monitors see ``FetchMonitor/attemptSent(_:)`` and the ``session`` sends
///    the request; when it answers with a response, ``FetchMonitor/responseReceived(_:)``;
/// 4. validation and parsing, as without a pipeline; when the model is made,
///    ``FetchMonitor/modelMade(_:)``;
/// 5. ``FetchMonitor/fetchFinished(_:)``, exactly once per fetch, whatever the outcome
///    (cancellation and the deadline included), just before the caller receives it.
///
/// Every monitor sees every event, in the order of ``monitors``.
///
/// With no adapters and no monitors a service made from a pipeline runs the same code as one made
/// with ``ResourceService/init(session:options:)``, at the same cost.
public final class ResourcePipeline: Sendable {
    /// The transport requests are sent through.
    public let session: any URLSessionType
    /// The limits applied to every transfer, unless a resource adjusts them with
    /// ``NetworkResourceType/transferOptions(_:)``.
    public let options: TransferOptions
    /// The request adapters, in the order they run.
    public let adapters: [any RequestAdapter]
    /// The fetch monitors, in the order they are told of each event.
    public let monitors: [any FetchMonitor]
    /// The clock the pipeline measures durations with.
    public let clock: any Clock<Duration>

    /// Whether a fetch must go through the hooks: `false` keeps the plain path.
    let hasHooks: Bool
    /// Reads ``clock``.
    let stopwatch: Stopwatch

    /// Creates a pipeline.
    ///
    /// - Parameters:
    ///   - session: The transport. Default: ``URLSessionTransport/shared``.
    ///   - options: Limits for every transfer. Default: `TransferOptions()`.
    ///   - adapters: Transforms applied to every request before it is sent, in order. Default: none.
    ///   - monitors: Observers told of every step of every fetch, in order. Default: none.
    ///   - clock: Where durations come from. Default: a `ContinuousClock`. Tests pass a
    ///     `ManualClock` from `ResourceLoaderTesting` to control them.
    public init(
        session: any URLSessionType = URLSessionTransport.shared,
        options: TransferOptions = TransferOptions(),
        adapters: [any RequestAdapter] = [],
        monitors: [any FetchMonitor] = [],
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.session = session
        self.options = options
        self.adapters = adapters
        self.monitors = monitors
        self.clock = clock
        self.hasHooks = !adapters.isEmpty || !monitors.isEmpty
        self.stopwatch = Stopwatch(clock)
    }
}

/// Reads a clock of any instant type as durations since the stopwatch was made, so that the
/// pipeline can keep and subtract readings without knowing the clock's type.
struct Stopwatch: Sendable {
    /// The time since the stopwatch was made, by its clock.
    let elapsed: @Sendable () -> Duration

    init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }
}
