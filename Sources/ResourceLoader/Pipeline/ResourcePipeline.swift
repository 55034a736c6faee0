import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every service made from it shares: the transport, the default limits, the request
/// adapters, the credential store, the retry policy, the fetch monitors and the clock the
/// pipeline reads time from.
///
/// Configure it once and create a service for each resource type from it:
///
/// ```swift
/// let pipeline = ResourcePipeline(
///     adapters: [UserAgentAdapter()],
///     credentials: CredentialStore(authenticator: OAuthAuthenticator(), credential: savedToken),
///     retryPolicy: RetryPolicy(maximumAttempts: 3),
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
///    ``TransferOptions/deadline`` starts now and bounds every step up to the last response;
/// 2. for each attempt, starting again from the request as built:
///    1. the ``adapters`` run in order, each given the request the one before returned
///       (skipped when ``NetworkResourceType/usesPipelineAdapters`` is `false`);
///    2. the ``CredentialStore`` puts its credential on the request, after waiting for a
///       refresh in progress or refreshing an expired credential (skipped when
///       ``NetworkResourceType/usesPipelineAuthenticator`` is `false`, and when the store has
///       no credential for a resource whose ``NetworkResourceType/requiresCredential`` is
///       `false`);
///    3. before the first attempt only, the monitors see ``FetchMonitor/requestReady(_:)``;
///    4. the monitors see ``FetchMonitor/attemptSent(_:)`` and the ``session`` sends the
///       request; when it answers with a response, ``FetchMonitor/responseReceived(_:)``;
///    5. a response that rejects the credential is replayed once after the credential is
///       replaced; an outcome the ``retryPolicy`` retries (as adjusted by
///       ``NetworkResourceType/retryPolicy(_:)``) is tried again after its wait. Either way the
///       monitors first see ``FetchMonitor/retryScheduled(_:)``;
/// 3. validation and parsing of the last response, as without a pipeline; when the model is
///    made, ``FetchMonitor/modelMade(_:)``;
/// 4. ``FetchMonitor/fetchFinished(_:)``, exactly once per fetch, whatever the outcome
///    (cancellation and the deadline included), just before the caller receives it.
///
/// Every monitor sees every event, in the order of ``monitors``, and none after
/// ``FetchMonitor/fetchFinished(_:)``: a fetch that ends on another thread (its deadline, a
/// cancellation) while the monitors are told of an event tells them of it first, and then sends
/// no attempt. While the pipeline runs the
/// adapters, the credential store and the transport of a fetch, ``FetchEvent/Context/current``
/// names that fetch.
///
/// With no adapters, credential store, retries or monitors, a service made from a pipeline runs
/// the same code as one made with ``ResourceService/init(session:options:)``, at the same cost.
public final class ResourcePipeline: Sendable {
    /// The transport requests are sent through: the one the pipeline was made with, wrapped in a
    /// ``CachingTransport`` when it has a ``cache``.
    public let session: any HTTPTransport
    /// The limits applied to every transfer, unless a resource adjusts them with
    /// ``NetworkResourceType/transferOptions(_:)``.
    public let options: TransferOptions
    /// The request adapters, in the order they run.
    public let adapters: [any RequestAdapter]
    /// When a failed attempt is tried again, unless a resource adjusts it with
    /// ``NetworkResourceType/retryPolicy(_:)``.
    public let retryPolicy: RetryPolicy
    /// The fetch monitors, in the order they are told of each event.
    public let monitors: [any FetchMonitor]
    /// The clock the pipeline measures durations and waits for retries with, and reads the
    /// current date from (the date the pipeline was made plus the clock's time since) to tell
    /// whether a credential has expired.
    public let clock: any Clock<Duration>
    /// The HTTP cache every service made from the pipeline shares, or `nil` without one. Its
    /// rules read the date from ``currentDate``, and the monitors see its decisions
    /// (``FetchMonitor/cacheDecided(_:)``).
    public let cache: HTTPCache?

    /// The current date as the pipeline reads it: the date the pipeline was made plus its
    /// ``clock``'s time since.
    ///
    /// It is the date a ``CredentialStore`` compares ``Authenticator/expirationDate(of:)`` with,
    /// so an authenticator that turns a token's lifetime (`expires_in`) into a date should start
    /// from it; with a `ManualClock` it moves only when the test advances the clock.
    public var currentDate: Date {
        stopwatch.now()
    }

    /// The credential store, type-erased; `nil` without one.
    let authentication: (any RequestAuthenticating)?
    /// The credential store as a resource whose credential is optional uses it.
    let optionalAuthentication: (any RequestAuthenticating)?
    /// The adapters as closures that run without suspending, when every adapter is synchronous
    /// (a ``SynchronousRequestAdapter`` or a ``ClosureRequestAdapter`` whose closure does not
    /// `await`); `nil` otherwise.
    let synchronousAdapters: [@Sendable (URLRequest) throws -> URLRequest]?
    /// Whether a fetch must go through the hooks: `false` keeps the plain path unless the
    /// resource's own retry policy retries.
    let hasHooks: Bool
    /// Reads ``clock``.
    let stopwatch: Stopwatch

    /// Creates a pipeline without a credential store.
    ///
    /// - Parameters:
    ///   - session: The transport. Default: ``URLSessionTransport/shared``.
    ///   - options: Limits for every transfer. Default: `TransferOptions()`.
    ///   - adapters: Transforms applied to every request before each attempt, in order.
    ///     Default: none.
    ///   - retryPolicy: When a failed attempt is tried again. Default: ``RetryPolicy/never``.
    ///   - monitors: Observers told of every step of every fetch, in order. Default: none.
    ///   - clock: Where durations, retry waits and the current date come from. Default: a
    ///     `ContinuousClock`. Tests pass a `ManualClock` from `ResourceLoaderTesting` to control
    ///     them.
    ///   - cache: An HTTP cache the services share, in front of `session`. Default: none.
    public convenience init(
        session: any HTTPTransport = URLSessionTransport.shared,
        options: TransferOptions = TransferOptions(),
        adapters: [any RequestAdapter] = [],
        retryPolicy: RetryPolicy = .never,
        monitors: [any FetchMonitor] = [],
        clock: any Clock<Duration> = ContinuousClock(),
        cache: HTTPCache? = nil
    ) {
        self.init(
            session: session, options: options, adapters: adapters, authentication: nil,
            retryPolicy: retryPolicy, monitors: monitors, clock: clock, cache: cache
        )
    }

    /// Creates a pipeline whose requests carry the credential of `credentials`.
    ///
    /// - Parameters:
    ///   - session: The transport. Default: ``URLSessionTransport/shared``.
    ///   - options: Limits for every transfer. Default: `TransferOptions()`.
    ///   - adapters: Transforms applied to every request before each attempt, in order, before
    ///     the credential is applied. Default: none.
    ///   - credentials: Holds the credential, applies it and refreshes it; see
    ///     ``CredentialStore``.
    ///   - retryPolicy: When a failed attempt is tried again. Default: ``RetryPolicy/never``.
    ///   - monitors: Observers told of every step of every fetch, in order. Default: none.
    ///   - clock: Where durations, retry waits and the current date come from. Default: a
    ///     `ContinuousClock`. Tests pass a `ManualClock` from `ResourceLoaderTesting` to control
    ///     them, and with it when a credential expires.
    ///   - cache: An HTTP cache the services share, in front of `session`. Default: none. It
    ///     sees each request with its credential: keep it ``CachePolicy/Mode/shared`` unless the
    ///     pipeline serves one user.
    public convenience init<A: Authenticator>(
        session: any HTTPTransport = URLSessionTransport.shared,
        options: TransferOptions = TransferOptions(),
        adapters: [any RequestAdapter] = [],
        credentials: CredentialStore<A>,
        retryPolicy: RetryPolicy = .never,
        monitors: [any FetchMonitor] = [],
        clock: any Clock<Duration> = ContinuousClock(),
        cache: HTTPCache? = nil
    ) {
        self.init(
            session: session, options: options, adapters: adapters, authentication: credentials,
            retryPolicy: retryPolicy, monitors: monitors, clock: clock, cache: cache
        )
    }

    private init(
        session: any HTTPTransport,
        options: TransferOptions,
        adapters: [any RequestAdapter],
        authentication: (any RequestAuthenticating)?,
        retryPolicy: RetryPolicy,
        monitors: [any FetchMonitor],
        clock: any Clock<Duration>,
        cache: HTTPCache?
    ) {
        let stopwatch = Stopwatch(clock)
        if let cache {
            self.session = CachingTransport(wrapping: session, cache: cache, now: stopwatch.now, monitors: monitors)
        } else {
            self.session = session
        }
        self.cache = cache
        self.options = options
        self.adapters = adapters
        self.synchronousAdapters = Self.synchronous(adapters)
        self.authentication = authentication
        self.optionalAuthentication = authentication?.credentialOptional
        self.retryPolicy = retryPolicy
        self.monitors = monitors
        self.clock = clock
        self.hasHooks = !adapters.isEmpty || !monitors.isEmpty || authentication != nil || retryPolicy.retries
        self.stopwatch = stopwatch
    }

    /// `adapters` as closures that do not suspend, or `nil` if one of them may.
    private static func synchronous(_ adapters: [any RequestAdapter]) -> [@Sendable (URLRequest) throws -> URLRequest]? {
        var closures: [@Sendable (URLRequest) throws -> URLRequest] = []
        for adapter in adapters {
            if let closure = adapter as? ClosureRequestAdapter {
                guard let transform = closure.synchronousTransform else { return nil }
                closures.append(transform)
            } else if let adapter = adapter as? any SynchronousRequestAdapter {
                closures.append { request in try adapter.adapt(request) }
            } else {
                return nil
            }
        }
        return closures
    }
}

/// Reads a clock of any instant type as durations since the stopwatch was made, so that the
/// pipeline can keep and subtract readings, and wait, without knowing the clock's type.
struct Stopwatch: Sendable {
    /// The time since the stopwatch was made, by its clock.
    let elapsed: @Sendable () -> Duration
    /// Suspends until ``elapsed`` reaches a reading; throws `CancellationError` when the task
    /// is cancelled first.
    let sleep: @Sendable (_ until: Duration) async throws -> Void
    /// The date when the stopwatch was made.
    private let origin: Date

    init<C: Clock<Duration>>(_ clock: C) {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleep = { reading in try await clock.sleep(until: start.advanced(by: reading), tolerance: nil) }
        origin = Date()
    }

    /// The current date: when the stopwatch was made plus its clock's time since.
    func now() -> Date {
        let (seconds, attoseconds) = elapsed().components
        return origin.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
}
