import Foundation
import Testing

/// Awaits `body` for at most `limit`.
///
/// Returns what `body` returns, or records an issue, cancels `body`'s task and returns `nil` when
/// the limit passes first. The limit is a safety net against hangs, never a speed assertion:
/// keep it far above the time the work needs on a slow machine.
@discardableResult
func withTimeLimit<Value: Sendable>(
    _ limit: Duration = .seconds(60),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async -> Value
) async -> Value? {
    let gate = FirstOutcome<Value?>()
    let work = Task { gate.resolve(await body()) }
    let timer = Task {
        do { try await Task.sleep(for: limit) } catch { return }
        gate.resolve(nil)
    }
    let value = await gate.value
    timer.cancel()
    if value == nil {
        work.cancel()
        Issue.record("did not finish within \(limit)", sourceLocation: sourceLocation)
    }
    return value
}

/// Keeps the first value it is given and hands it to one waiter.
private final class FirstOutcome<Value: Sendable>: @unchecked Sendable {
    // `lock` guards `outcome` and `waiter`.
    private let lock = NSLock()
    private var outcome: Value?
    private var waiter: CheckedContinuation<Value, Never>?
    private var isResolved = false

    func resolve(_ value: Value) {
        lock.lock()
        guard !isResolved else { lock.unlock(); return }
        isResolved = true
        let waiter = self.waiter
        self.waiter = nil
        if waiter == nil { outcome = value }
        lock.unlock()
        waiter?.resume(returning: value)
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                lock.lock()
                if isResolved, let outcome {
                    lock.unlock()
                    continuation.resume(returning: outcome)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        }
    }
}

/// Runs CPU-heavy synchronous `work` (parsing megabytes, say) on a thread of its own and waits
/// for it without holding a thread of Swift's cooperative pool or of Dispatch's global queues.
///
/// Both pools have one thread per core here: two tests parsing large documents on them stall
/// every `async` test and every `URLSession` callback behind them — long enough, under the thread
/// sanitizer on two cores, for a fetch's 60-second deadline to pass before a test could cancel
/// it. A thread of its own is scheduled by the system like any other. Assert on the result
/// afterwards, in the test's own task.
func offTheCooperativePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.name = "ResourceLoaderTests.heavyWork"
        thread.stackSize = 8 << 20
        thread.start()
    }
}
