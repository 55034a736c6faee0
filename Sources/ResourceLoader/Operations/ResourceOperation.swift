import Foundation

/// An operation that fetches one resource through a service and hands over the outcome.
///
/// Add it to an `OperationQueue` like any other operation; dependencies,
/// `maxConcurrentOperationCount` and `cancelAllOperations()` work as usual:
///
/// ```swift
/// let operation = ResourceOperation(resource: Cities(continent: "europe")) { _, result in
///     // runs on the main queue
/// }
/// queue.addOperation(operation)
/// ```
///
/// ## Completion and cancellation
///
/// - The completion runs **at most once**, on ``callbackQueue`` (the main queue unless you
///   choose another), with the model or the ``ResourceError``.
/// - **A cancelled operation does not call its completion.** The completion is skipped if
///   `cancel()` is called before the outcome is handed over; the handover happens on
///   ``callbackQueue``, just before the completion is called. So when you cancel on
///   ``callbackQueue`` itself — for example on the main queue when the user leaves a screen —
///   the completion is never called after `cancel()` returns. When you cancel from another
///   thread while the handover is already under way, the completion still runs, once, and may
///   run after `cancel()` returns; ``result`` then holds the outcome it received, even though
///   `isCancelled` is `true`.
/// - The operation **always finishes**: after the completion has returned on success or
///   failure, at once when cancelled in flight (the fetch is cancelled too), and when a queue
///   starts an operation cancelled before it started. Operations that depend on it can read
///   ``result``.
///
/// Because the operation finishes only after its completion has run, do not block
/// ``callbackQueue`` waiting for the operation (for example, calling
/// `waitUntilAllOperationsAreFinished()` on the main thread with the default queue).
///
/// Without a completion the operation finishes as soon as the outcome arrives; read it from
/// ``result`` or await ``value``.
public final class ResourceOperation<Service: ResourceServiceType>: AsynchronousOperation, @unchecked Sendable {
    /// The kind of resource the operation fetches.
    public typealias Resource = Service.Resource

    /// What the completion receives: the operation itself and the outcome.
    public typealias Completion = @Sendable (ResourceOperation, Result<Resource.Model, ResourceError>) -> Void

    private struct State {
        var completion: Completion?
        var fetch: (any Cancellable)?
        var hasStartedFetching = false
        var isCancelled = false
        var isHandedOver = false
        var result: Result<Resource.Model, ResourceError>?
    }

    /// What the operation fetches.
    public let resource: Resource
    /// The service that fetches it.
    public let service: Service
    /// Where the completion runs.
    public let callbackQueue: DispatchQueue
    private let deliveryQueue: DispatchQueue

    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state: Locked<State>

    /// Creates an operation that fetches `resource` with `service` when a queue starts it.
    ///
    /// - Parameters:
    ///   - resource: What to fetch.
    ///   - service: What fetches it.
    ///   - callbackQueue: Where `completion` runs. Default: the main queue.
    ///   - completion: Receives the operation and the outcome, at most once and never after
    ///     the operation was cancelled (see the type's discussion). Default: none.
    public init(
        resource: Resource,
        service: Service,
        callbackQueue: DispatchQueue = .main,
        completion: Completion? = nil
    ) {
        self.resource = resource
        self.service = service
        self.callbackQueue = callbackQueue
        self.deliveryQueue = completion == nil ? .resourceLoaderDelivery : callbackQueue
        self.state = Locked(State(completion: completion))
        super.init()
    }

    /// The outcome: `nil` until the operation has one.
    ///
    /// Set just before the completion is called, or to ``ResourceError/cancelled`` when the
    /// operation is cancelled first. Once the operation is finished it is never `nil`.
    public var result: Result<Resource.Model, ResourceError>? {
        state.withLock { $0.result }
    }

    /// Waits until the operation has finished and returns its model, or throws its error.
    ///
    /// This does not start the operation: add it to a queue first. Cancelling the waiting task
    /// cancels the operation, which then throws ``ResourceError/cancelled``.
    public var value: Resource.Model {
        get async throws(ResourceError) {
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    whenFinished { continuation.resume(returning: self.result ?? .failure(.cancelled)) }
                }
            } onCancel: {
                cancel()
            }
            return try result.get()
        }
    }

    /// Starts the fetch. Called by ``AsynchronousOperation/start()``; do not call it yourself.
    public override func main() {
        let mayFetch = state.withLock { state in
            state.hasStartedFetching = true
            return !state.isCancelled
        }
        guard mayFetch else {
            // `cancel()` changes the state first and sets `isCancelled` after (`super.cancel()`).
            // Between the two, finishing here would make that `super.cancel()` a no-op (an
            // operation that has finished cannot be cancelled), leaving a cancelled result with
            // `isCancelled` false. So the flag is set here too, before finishing.
            super.cancel()
            finish()
            return
        }
        let fetch = service.fetch(resource, callbackQueue: deliveryQueue) { result in
            self.handOver(result)
        }
        let isCancelled = state.withLock { state in
            if !state.isCancelled, !state.isHandedOver { state.fetch = fetch }
            return state.isCancelled
        }
        if isCancelled { fetch.cancel() }
    }

    /// Cancels the operation and its fetch.
    ///
    /// Unless the outcome is already being handed over, the completion will not be called and
    /// ``result`` becomes ``ResourceError/cancelled``. An operation whose fetch has started
    /// finishes before this method returns; one that has not finishes as soon as it is started.
    /// Safe to call from any thread, any number of times.
    public override func cancel() {
        // The state changes before `super.cancel()`, so whoever sees `isCancelled` also sees
        // the cancelled result.
        let (fetch, mustFinish) = state.withLock { state -> ((any Cancellable)?, Bool) in
            guard !state.isCancelled, !state.isHandedOver else { return (nil, false) }
            state.isCancelled = true
            state.result = .failure(.cancelled)
            state.completion = nil
            defer { state.fetch = nil }
            return (state.fetch, state.hasStartedFetching)
        }
        super.cancel()
        fetch?.cancel()
        if mustFinish { finish() }
    }

    /// Runs on `deliveryQueue` with the service's one outcome.
    private func handOver(_ result: Result<Resource.Model, ResourceError>) {
        let (isHandedOver, completion) = state.withLock { state -> (Bool, Completion?) in
            guard !state.isCancelled, !state.isHandedOver else { return (false, nil) }
            state.isHandedOver = true
            state.result = result
            defer { state.completion = nil; state.fetch = nil }
            return (true, state.completion)
        }
        guard isHandedOver else { return }
        completion?(self, result)
        finish()
    }
}

// MARK: - Conveniences

extension ResourceOperation {
    /// Creates an operation that fetches a network resource with a default
    /// ``ResourceService`` (``URLSessionTransport/shared`` and the default ``TransferOptions``).
    ///
    /// - Parameters:
    ///   - resource: What to fetch.
    ///   - callbackQueue: Where `completion` runs. Default: the main queue.
    ///   - completion: Receives the operation and the outcome, at most once and never after
    ///     the operation was cancelled. Default: none.
    public convenience init<NetworkResource>(
        resource: NetworkResource,
        callbackQueue: DispatchQueue = .main,
        completion: Completion? = nil
    ) where Service == ResourceService<NetworkResource> {
        self.init(resource: resource, service: ResourceService(), callbackQueue: callbackQueue, completion: completion)
    }
}
