import Foundation
import ResourceLoader
import Testing

@Suite("AsynchronousOperation")
struct AsynchronousOperationTests {
    @Test func reportsItselfAsynchronousAndStartsWaiting() {
        let operation = ManualOperation()
        #expect(operation.isAsynchronous)
        #expect(!operation.isExecuting)
        #expect(!operation.isFinished)
    }

    @Test func executesUntilFinishIsCalled() {
        // GIVEN an operation whose work ends only when the test says so
        let operation = ManualOperation()
        // WHEN it starts
        operation.start()
        // THEN it executes past start() and finishes when finish() is called
        #expect(operation.mainCalls.value == 1)
        #expect(operation.isExecuting)
        #expect(!operation.isFinished)
        operation.finish()
        #expect(!operation.isExecuting)
        #expect(operation.isFinished)
    }

    @Test func finishesOnceWhenFinishIsCalledFromManyThreadsAtOnce() async {
        let operations = (0..<200).map { _ in ManualOperation() }
        for operation in operations { operation.start() }
        DispatchQueue.concurrentPerform(iterations: operations.count * 4) { index in
            operations[index % operations.count].finish()
        }
        #expect(operations.allSatisfy { $0.isFinished && !$0.isExecuting })
    }

    @Test func aSecondStartDoesNothing() {
        let operation = ManualOperation()
        operation.start()
        operation.start()
        #expect(operation.mainCalls.value == 1)
        operation.finish()
        operation.start()
        #expect(operation.mainCalls.value == 1)
        #expect(operation.isFinished)
    }

    @Test func theDefaultMainFinishes() {
        let operation = AsynchronousOperation()
        operation.start()
        #expect(operation.isFinished)
    }

    @Test func anOperationCancelledBeforeItStartsFinishesWithoutRunning() async {
        // GIVEN an operation cancelled before any queue sees it
        let operation = ManualOperation()
        operation.cancel()
        // WHEN a queue runs it
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        // THEN it finished without doing its work
        #expect(operation.isFinished)
        #expect(operation.mainCalls.value == 0)
    }

    @Test func aQueueWaitsForTheWorkNotForStartToReturn() async {
        // GIVEN a queue running one operation whose work ends later
        let queue = OperationQueue()
        let operation = ManualOperation()
        queue.addOperation(operation)
        await withTimeLimit { try? await waitUntil { operation.isExecuting } }
        // THEN the queue keeps it until it finishes, then lets it go
        #expect(queue.operationCount == 1)
        operation.finish()
        await withTimeLimit { try? await waitUntil { queue.operationCount == 0 } }
        #expect(operation.isFinished)
    }

    @Test func dependentsStartOnlyAfterTheirDependencyFinished() async {
        // GIVEN b depending on a, both finishing from another thread
        let log = Log()
        let a = DelayedOperation(name: "a", log: log)
        let b = DelayedOperation(name: "b", log: log)
        b.addDependency(a)
        // WHEN both are added, dependent first
        await withTimeLimit { await OperationQueue().addOperationsAndWait([b, a]) }
        // THEN b started after a had finished
        #expect(log.entries == ["start a", "finish a", "start b", "finish b"])
    }

    @Test func maxConcurrentOperationCountIsRespected() async {
        // GIVEN a queue that may run two operations at a time
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        let gauge = ConcurrencyGauge()
        let operations = (0..<20).map { _ in GaugedOperation(gauge: gauge) }
        // WHEN twenty operations that finish asynchronously run
        await withTimeLimit { await queue.addOperationsAndWait(operations) }
        // THEN no more than two were ever executing together, and all finished
        #expect(gauge.maximum <= 2)
        #expect(gauge.maximum >= 1)
        #expect(operations.allSatisfy { $0.isFinished })
    }

    @Test func cancelAllOperationsFinishesThoseNotYetStarted() async {
        // GIVEN a queue busy with one operation and holding five more
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let running = ManualOperation()
        let waiting = (0..<5).map { _ in ManualOperation() }
        queue.addOperation(running)
        await withTimeLimit { try? await waitUntil { running.isExecuting } }
        for operation in waiting { queue.addOperation(operation) }
        // WHEN all are cancelled and the running one ends its work
        queue.cancelAllOperations()
        running.finish()
        // THEN the waiting ones finish without running
        await withTimeLimit { try? await waitUntil { waiting.allSatisfy(\.isFinished) } }
        #expect(waiting.allSatisfy { $0.mainCalls.value == 0 })
        #expect(waiting.allSatisfy { $0.isCancelled })
    }
}

// MARK: - Doubles

/// Counts `main()` calls and finishes only when told to.
private final class ManualOperation: AsynchronousOperation, @unchecked Sendable {
    let mainCalls = Counter()
    override func main() { mainCalls.increment() }
}

/// Logs its start and finish, finishing from a global queue.
private final class DelayedOperation: AsynchronousOperation, @unchecked Sendable {
    private let label: String
    private let log: Log

    init(name: String, log: Log) {
        self.label = name
        self.log = log
    }

    override func main() {
        log.append("start \(label)")
        DispatchQueue.global().async {
            self.log.append("finish \(self.label)")
            self.finish()
        }
    }
}

/// Counts how many of its operations execute at once.
private final class GaugedOperation: AsynchronousOperation, @unchecked Sendable {
    private let gauge: ConcurrencyGauge
    init(gauge: ConcurrencyGauge) { self.gauge = gauge }

    override func main() {
        gauge.enter()
        DispatchQueue.global().async {
            self.gauge.leave()
            self.finish()
        }
    }
}

final class Log: @unchecked Sendable {
    // `lock` guards `storage`.
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ entry: String) { lock.lock(); storage.append(entry); lock.unlock() }
    var entries: [String] { lock.lock(); defer { lock.unlock() }; return storage }
}

private final class ConcurrencyGauge: @unchecked Sendable {
    // `lock` guards `current` and `peak`.
    private let lock = NSLock()
    private var current = 0
    private var peak = 0
    func enter() { lock.lock(); current += 1; peak = max(peak, current); lock.unlock() }
    func leave() { lock.lock(); current -= 1; lock.unlock() }
    var maximum: Int { lock.lock(); defer { lock.unlock() }; return peak }
}
