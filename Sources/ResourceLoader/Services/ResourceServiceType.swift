import Foundation

/// Something that fetches one kind of resource and delivers its model.
///
/// ``ResourceService`` fetches ``NetworkResourceType``s over HTTP and
/// ``LocalFileResourceService`` reads ``DataResourceType``s from files. Write your own to load
/// resources from anywhere else; ``ResourceOperation`` runs any of them on an `OperationQueue`.
///
/// A conforming type implements the completion-handler ``fetch(_:callbackQueue:completion:)``
/// and gets `async` ``fetch(_:)`` for free.
public protocol ResourceServiceType: Sendable {
    /// The kind of resource this service fetches.
    associatedtype Resource: ResourceType

    /// Fetches `resource` and delivers the outcome exactly once on `callbackQueue`.
    ///
    /// Cancelling the returned handle before the outcome is delivered delivers
    /// ``ResourceError/cancelled`` instead, once (``ResourceService`` delivers what parsing makes
    /// of a response that has already arrived).
    @discardableResult
    func fetch(
        _ resource: Resource,
        callbackQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<Resource.Model, ResourceError>) -> Void
    ) -> any Cancellable

    /// Fetches `resource` and returns its model.
    ///
    /// Cancelling the calling task cancels the fetch, which then throws
    /// ``ResourceError/cancelled`` (``ResourceService`` returns what parsing makes of a response
    /// that has already arrived).
    func fetch(_ resource: Resource) async throws(ResourceError) -> Resource.Model
}

// MARK: - Default implementations

extension ResourceServiceType {
    /// Bridges ``fetch(_:callbackQueue:completion:)`` to `async`, forwarding task cancellation.
    public func fetch(_ resource: Resource) async throws(ResourceError) -> Resource.Model {
        if Task.isCancelled { throw .cancelled }
        let handle = CancellationForwarder()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                handle.forward(to: fetch(resource, callbackQueue: .resourceLoaderDelivery) {
                    continuation.resume(returning: $0)
                })
            }
        } onCancel: {
            handle.cancel()
        }
        return try result.get()
    }
}

// MARK: - Conveniences

extension ResourceServiceType {
    /// Fetches `resource` and delivers the outcome exactly once on the main queue.
    @discardableResult
    public func fetch(
        _ resource: Resource,
        completion: @escaping @Sendable (Result<Resource.Model, ResourceError>) -> Void
    ) -> any Cancellable {
        fetch(resource, callbackQueue: .main, completion: completion)
    }
}

extension DispatchQueue {
    /// Where the `async` bridge receives outcomes before resuming the task.
    static let resourceLoaderDelivery = DispatchQueue(
        label: "ResourceLoader.delivery", attributes: .concurrent)

    /// Whether this is the main queue. Compared by label: on Linux, `DispatchQueue.main` is not
    /// always the same object.
    var isMain: Bool { label == DispatchQueue.main.label }
}

/// Passes a task's cancellation on to a fetch, even when the task is cancelled before the fetch
/// has started.
final class CancellationForwarder: @unchecked Sendable {
    // `state` is a `Locked`: its lock guards both the target and the flag.
    private let state = Locked<(target: (any Cancellable)?, isCancelled: Bool)>((nil, false))

    func forward(to target: any Cancellable) {
        let cancelled = state.withLock { state in
            state.target = target
            return state.isCancelled
        }
        if cancelled { target.cancel() }
    }

    func cancel() {
        let target = state.withLock { state in
            state.isCancelled = true
            return state.target
        }
        target?.cancel()
    }
}
