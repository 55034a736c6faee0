import Dispatch

/// A transfer in flight: its progress as an `AsyncSequence`, and its outcome.
///
/// Made by ``DownloadService/fetchTask(_:)`` and ``ResourceService/fetchTask(_:)``. The
/// transfer runs whether or not anyone reads ``progress``; reading it is how a progress bar
/// follows it.
public struct TransferTask<Value: Sendable>: Sendable {
    /// Throttled progress values (see ``TransferProgress``), ending with the last one before
    /// ``value`` is ready. Buffers the newest 64 values for a slow reader.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<Result<Value, ResourceError>, Never>

    init(progress: AsyncStream<TransferProgress>, task: Task<Result<Value, ResourceError>, Never>) {
        self.progress = progress
        self.task = task
    }

    /// Starts `run` in a task of its own, its progress going to ``progress``, which ends once
    /// `run` has returned.
    init(running run: @escaping @Sendable (_ sink: @escaping @Sendable (TransferProgress) -> Void) async -> Result<Value, ResourceError>) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(64))
        let task = Task {
            let result = await run { continuation.yield($0) }
            continuation.finish()
            return result
        }
        self.init(progress: stream, task: task)
    }

    /// Runs `run` with a sink that hands each value to `progress` on `queue`, one call at a time
    /// and in order, even when `queue` is concurrent; returns what `run` returns once every one
    /// of those calls has run.
    static func delivering(
        to progress: @escaping @Sendable (TransferProgress) -> Void,
        on queue: DispatchQueue,
        _ run: (_ sink: @escaping @Sendable (TransferProgress) -> Void) async -> Result<Value, ResourceError>
    ) async -> Result<Value, ResourceError> {
        let deliveries = DispatchGroup()
        // A serial queue of the transfer's own, running its work on `queue`: the calls keep the
        // order the values were reported in and never overlap.
        let serial = DispatchQueue(label: "ResourceLoader.TransferProgress", target: queue)
        let result = await run { value in
            deliveries.enter()
            serial.async {
                progress(value)
                deliveries.leave()
            }
        }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            deliveries.notify(queue: .global()) { continuation.resume() }
        }
        return result
    }

    /// The outcome: the model, or the ``ResourceError``.
    public var value: Value {
        get async throws(ResourceError) {
            try await task.value.get()
        }
    }

    /// Cancels the transfer; ``value`` then throws ``ResourceError/cancelled`` (unless the
    /// outcome was already known). A download whose resource keeps partial files
    /// (``DownloadResourceType/keepsPartialFile``) and that kept one throws
    /// ``ResourceError/downloadInterrupted(_:underlying:)`` instead, carrying the partial file,
    /// with ``ResourceError/cancelled`` as `underlying`: ``ResourceError/isCancelled`` is `true`
    /// for both.
    public func cancel() {
        task.cancel()
    }
}
