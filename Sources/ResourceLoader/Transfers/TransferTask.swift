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

    /// The outcome: the model, or the ``ResourceError``.
    public var value: Value {
        get async throws(ResourceError) {
            try await task.value.get()
        }
    }

    /// Cancels the transfer; ``value`` then throws ``ResourceError/cancelled`` (unless the
    /// outcome was already known).
    public func cancel() {
        task.cancel()
    }
}
