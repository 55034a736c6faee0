import Foundation

/// An `Operation` whose work continues after ``main()`` returns and ends when ``finish()`` is
/// called.
///
/// Subclass it, override ``main()`` to start the work, and call ``finish()`` exactly when the
/// work is done, from any thread:
///
/// ```swift
/// final class Pause: AsynchronousOperation, @unchecked Sendable {
///     override func main() {
///         DispatchQueue.global().asyncAfter(deadline: .now() + 1) { self.finish() }
///     }
/// }
/// ```
///
/// The class takes care of what `OperationQueue` needs from an asynchronous operation, on Apple
/// platforms and on Linux:
/// - ``isAsynchronous`` is `true`; ``isExecuting`` and ``isFinished`` are stored under a lock
///   and change with key-value notifications for `"isExecuting"` and `"isFinished"`, sent
///   outside the lock.
/// - It finishes exactly once: only the first call to ``finish()`` counts.
/// - An operation cancelled before it starts does not run ``main()``; ``start()`` finishes it at
///   once, so a queue never waits for it.
///
/// Cancelling does not finish an operation that is executing: a subclass that can stop early
/// overrides `cancel()`, calls `super.cancel()`, stops its work and calls ``finish()``.
open class AsynchronousOperation: Operation, Cancellable, Finishable, @unchecked Sendable {
    private enum Phase {
        case waiting, executing, finished
    }

    private struct State {
        var phase = Phase.waiting
        var hasStarted = false
        var isFinishing = false
        var finishObservers: [@Sendable () -> Void] = []
    }

    // `state` is a `Locked`: its lock guards the phase, both claims and the observers.
    private let state = Locked(State())

    /// Creates an operation that is not yet started.
    public override init() {
        super.init()
    }

    /// Always `true`: the work outlives ``start()``.
    public final override var isAsynchronous: Bool { true }

    /// `true` from the moment ``main()`` is about to run until ``finish()`` is called.
    public final override var isExecuting: Bool {
        state.withLock { $0.phase == .executing }
    }

    /// `true` once ``finish()`` has been called.
    public final override var isFinished: Bool {
        state.withLock { $0.phase == .finished }
    }

    /// Starts the operation: finishes it at once if it was cancelled, otherwise marks it
    /// executing and calls ``main()``.
    ///
    /// An `OperationQueue` calls this; call it yourself only for an operation that is in no
    /// queue. Calls after the first do nothing.
    public final override func start() {
        let isFirstStart = state.withLock { state in
            guard !state.hasStarted, !state.isFinishing else { return false }
            state.hasStarted = true
            return true
        }
        guard isFirstStart else { return }
        if isCancelled {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        let isExecuting = state.withLock { state in
            if state.phase == .waiting, !state.isFinishing { state.phase = .executing }
            return state.phase == .executing
        }
        didChangeValue(forKey: "isExecuting")
        if isExecuting { main() }
    }

    /// Starts the work. Override it and call ``finish()`` when the work is done.
    ///
    /// Runs on the thread that called ``start()``; return quickly and let the work continue
    /// elsewhere. Do not call `super.main()`: the default implementation only calls
    /// ``finish()``, so an operation with nothing to do still ends.
    open override func main() {
        finish()
    }

    /// Marks the operation finished and no longer executing, notifying its queue.
    ///
    /// Safe to call from any thread. Only the first call has an effect, whichever thread makes
    /// it; later calls do nothing.
    public final func finish() {
        let isFirstFinish = state.withLock { state in
            guard !state.isFinishing else { return false }
            state.isFinishing = true
            return true
        }
        guard isFirstFinish else { return }
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        let observers = state.withLock { state in
            state.phase = .finished
            defer { state.finishObservers = [] }
            return state.finishObservers
        }
        didChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isExecuting")
        for observer in observers { observer() }
    }

    /// Runs `body` once the operation has finished: right away, on the calling thread, if it
    /// already has; otherwise on the thread that finishes it, after the queue was notified.
    func whenFinished(_ body: @escaping @Sendable () -> Void) {
        let isFinished = state.withLock { state in
            if state.phase != .finished { state.finishObservers.append(body) }
            return state.phase == .finished
        }
        if isFinished { body() }
    }
}
