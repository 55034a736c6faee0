import Foundation

extension OperationQueue {
    /// Adds `operation` to the queue and suspends, without blocking a thread, until it has
    /// finished.
    ///
    /// Cancelling the calling task cancels the operation; the call still returns only once the
    /// operation has finished, which a cancelled operation does promptly. The operation must
    /// not already be in a queue, be executing or have finished: `OperationQueue` traps on each.
    /// While the queue is suspended, the call waits.
    public func addOperationAndWait(_ operation: Operation) async {
        await addOperationsAndWait([operation])
    }

    /// Adds `operations` to the queue and suspends, without blocking a thread, until all of
    /// them have finished.
    ///
    /// The `async` counterpart of `addOperations(_:waitUntilFinished:)`, which cannot be called
    /// from `async` code. It waits for these operations only, not for others in the queue.
    /// Cancelling the calling task cancels all of them. None of them may already be in a queue,
    /// be executing or have finished.
    public func addOperationsAndWait(_ operations: [Operation]) async {
        guard !operations.isEmpty else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiter = BlockOperation { continuation.resume() }
                for operation in operations { waiter.addDependency(operation) }
                // The waiter lives in a private queue, so nobody can cancel or suspend it.
                OperationQueue.resourceLoaderWaiters.addOperation(waiter)
                addOperations(operations, waitUntilFinished: false)
            }
        } onCancel: {
            for operation in operations { operation.cancel() }
        }
    }

    /// Runs the operations that resume tasks waiting in ``addOperationsAndWait(_:)``.
    static let resourceLoaderWaiters: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "ResourceLoader.waiters"
        return queue
    }()
}
