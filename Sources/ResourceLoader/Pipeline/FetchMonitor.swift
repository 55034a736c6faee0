import Foundation

/// Watches what a ``ResourcePipeline`` does: told of each step of every fetch of every service
/// made from the pipeline.
///
/// Every requirement has a default that does nothing, so a monitor implements only the events it
/// wants. For one fetch the events come in this order:
///
/// 1. ``requestReady(_:)``: the request is built, adapted and given its credential, once, before
///    the first attempt;
/// 2. for each attempt:
///    1. ``attemptSent(_:)``: it is handed to the transport;
///    2. ``responseReceived(_:)``: the transport answered with a response (not when it failed);
///    3. ``retryScheduled(_:)``: when another attempt follows this one (a retry, or a replay with
///       a new credential);
/// 3. ``modelMade(_:)``: the last response was valid and the model was made;
/// 4. ``fetchFinished(_:)``: always, exactly once, with the outcome and the number of attempts.
///
/// A fetch that fails stops early and goes straight to ``fetchFinished(_:)``: one whose request
/// cannot be built, adapted or given a credential before its first attempt, or that the
/// transport must refuse (``ResourceError/invalidRequest(reason:)``), sees only that event.
/// No event of a fetch follows its ``fetchFinished(_:)``: a fetch that ends while the monitors are
/// told of an event (on another thread, as its deadline passes or it is cancelled, or from a
/// monitor's own call) waits until every monitor has been told of it. The one exception is what
/// a cache's background validation did (``cacheDecided(_:)``), which is reported to the fetch
/// that was answered from the cache meanwhile, after it has finished. Events of different fetches interleave; use
/// ``FetchEvent/Context/fetchID`` to tell them apart. Monitors are called in the pipeline's order
/// on whatever thread the fetch is on, so they must be quick and must not block; hand slow work to
/// a queue or an actor of your own. ``fetchFinished(_:)`` runs just before the caller receives the
/// outcome: before the `async` fetch returns, and before a completion-handler fetch dispatches
/// its outcome to the callback queue.
///
/// ```swift
/// struct SlowFetchReporter: FetchMonitor {
///     func fetchFinished(_ event: FetchEvent.Finished) {
///         if event.duration > .seconds(2) { print("slow fetch #\(event.context.fetchID)") }
///     }
/// }
/// ```
///
/// ``LoggingFetchMonitor`` is a ready-made monitor that logs one line per fetch.
public protocol FetchMonitor: Sendable {
    /// The request is ready to be sent for the first time: built and, unless the resource opted
    /// out, adapted and given the credential.
    func requestReady(_ event: FetchEvent.RequestReady)

    /// An attempt is being handed to the transport.
    func attemptSent(_ event: FetchEvent.AttemptSent)

    /// The transport answered an attempt with a response, before the response is validated.
    func responseReceived(_ event: FetchEvent.ResponseReceived)

    /// An attempt failed in a way worth trying again and the next one is scheduled: the
    /// ``RetryPolicy`` retries it, or the authenticator replays it with a new credential.
    func retryScheduled(_ event: FetchEvent.RetryScheduled)

    /// The response was valid and its body became the model.
    func modelMade(_ event: FetchEvent.ModelMade)

    /// A transfer's body moved on: reported for downloads (``DownloadService``) and for fetches
    /// that ask for progress, throttled as ``TransferProgress`` says, the last value always
    /// before ``fetchFinished(_:)``.
    func transferProgressed(_ event: FetchEvent.TransferProgressed)

    /// The fetch is over: called once for every fetch, whatever its outcome.
    func fetchFinished(_ event: FetchEvent.Finished)

    /// The pipeline's ``HTTPCache`` answered an attempt, sent it on, or stored (or did not store)
    /// its response: between ``attemptSent(_:)`` and ``responseReceived(_:)`` (or the end of the
    /// fetch), one or more times per attempt. What a background validation
    /// (``FetchEvent/CacheDecided/Outcome/staleWhileRevalidate``) did comes later, when it is
    /// done: after the fetch's ``fetchFinished(_:)``.
    func cacheDecided(_ event: FetchEvent.CacheDecided)
}

// MARK: - Default implementations

extension FetchMonitor {
    /// Does nothing.
    public func requestReady(_ event: FetchEvent.RequestReady) {}

    /// Does nothing.
    public func attemptSent(_ event: FetchEvent.AttemptSent) {}

    /// Does nothing.
    public func responseReceived(_ event: FetchEvent.ResponseReceived) {}

    /// Does nothing.
    public func retryScheduled(_ event: FetchEvent.RetryScheduled) {}

    /// Does nothing.
    public func modelMade(_ event: FetchEvent.ModelMade) {}

    /// Does nothing.
    public func transferProgressed(_ event: FetchEvent.TransferProgressed) {}

    /// Does nothing.
    public func fetchFinished(_ event: FetchEvent.Finished) {}

    /// Does nothing.
    public func cacheDecided(_ event: FetchEvent.CacheDecided) {}
}
