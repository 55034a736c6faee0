import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("OperationQueue async waiting")
struct OperationQueueAsyncTests {
    let session = FakeURLSession()

    @Test func returnsOnceEveryOperationHasFinished() async {
        // GIVEN a serial queue and a mix of block and asynchronous operations
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let runs = Counter()
        let blocks = (0..<10).map { _ in BlockOperation { runs.increment() } }
        let pauses = (0..<10).map { _ in FinishLater() }
        let operations: [Operation] = zip(blocks, pauses).flatMap { [$0, $1] }
        // WHEN they are added and awaited
        await withTimeLimit { await queue.addOperationsAndWait(operations) }
        // THEN all have finished by the time the call returns
        #expect(operations.allSatisfy { $0.isFinished })
        #expect(runs.value == 10)
    }

    @Test func waitsForItsOwnOperationsOnly() async {
        // GIVEN a queue already running an operation that ends only when told to
        let queue = OperationQueue()
        let other = Held()
        queue.addOperation(other)
        // WHEN another operation is added and awaited
        let mine = BlockOperation {}
        await withTimeLimit { await queue.addOperationAndWait(mine) }
        // THEN the call returned although the other operation is still executing
        #expect(mine.isFinished)
        #expect(!other.isFinished)
        other.finish()
    }

    @Test func anEmptyListReturnsAtOnce() async {
        await withTimeLimit { await OperationQueue().addOperationsAndWait([]) }
    }

    @Test func cancellingTheWaitingTaskCancelsTheOperations() async {
        // GIVEN a task waiting for three fetches that would take a minute each
        session.stub(.any, with: .json("{}").delayed(by: .seconds(600)))
        let service = ResourceService<CitiesResource>(session: session, options: TransferOptions(deadline: nil))
        let operations = (0..<3).map { _ in ResourceOperation(resource: CitiesResource(), service: service) }
        let queue = OperationQueue()
        let task = Task { await queue.addOperationsAndWait(operations) }
        await withTimeLimit { try? await waitUntil { session.receivedRequests.count == 3 } }
        // WHEN the task is cancelled
        task.cancel()
        // THEN the wait ends with every operation cancelled and finished
        await withTimeLimit { await task.value }
        #expect(operations.allSatisfy { $0.isCancelled && $0.isFinished })
        #expect(operations.allSatisfy { $0.result?.failure?.isCancelled == true })
    }

    @Test func aTaskCancelledBeforeTheCallCancelsTheOperationsBeforeTheyRun() async {
        session.stub(.any, with: .json("{}"))
        let service = ResourceService<CitiesResource>(session: session)
        let operations = (0..<3).map { _ in ResourceOperation(resource: CitiesResource(), service: service) }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await OperationQueue().addOperationsAndWait(operations)
        }
        await withTimeLimit { await task.value }
        #expect(operations.allSatisfy { $0.isCancelled && $0.isFinished })
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func cancelAllOperationsOnTheQueueDoesNotStrandTheWaiter() async {
        // GIVEN a task waiting for operations held by a suspended queue
        let queue = OperationQueue()
        queue.isSuspended = true
        let operations = (0..<3).map { _ in BlockOperation {} }
        let task = Task { await queue.addOperationsAndWait(operations) }
        await withTimeLimit { try? await waitUntil { queue.operationCount == 3 } }
        // WHEN the queue cancels everything and resumes
        queue.cancelAllOperations()
        queue.isSuspended = false
        // THEN the wait ends
        await withTimeLimit { await task.value }
        #expect(operations.allSatisfy { $0.isFinished })
    }
}

/// Finishes from a global queue shortly after it starts.
private final class FinishLater: AsynchronousOperation, @unchecked Sendable {
    override func main() {
        DispatchQueue.global().async { self.finish() }
    }
}

/// Does nothing until the test calls `finish()`.
private final class Held: AsynchronousOperation, @unchecked Sendable {
    override func main() {}
}
