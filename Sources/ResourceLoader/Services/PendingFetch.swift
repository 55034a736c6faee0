import Foundation

/// One fetch in flight: delivers exactly one outcome, whoever finishes first.
///
/// The transfer's answer, ``cancel()`` and the deadline all race to finish the fetch; the first
/// one wins and the others are ignored. Whatever wins stops the deadline timer; ``cancel()`` and
/// the deadline also cancel the transfer. An answer from the transfer does not: the transfer is
/// over (and on Linux, cancelling a task from inside its own delegate callbacks — a refused
/// redirect, say — makes FoundationNetworking trap).
///
/// The outcome goes to `completion` on `callbackQueue`, or straight to `completion` on the
/// finishing thread when there is no queue (the `async` bridge, which resumes a continuation).
/// A caller that is already running on `callbackQueue` uses ``finishOnCallbackQueue(_:)`` to skip
/// the extra dispatch.
final class PendingFetch<Value: Sendable>: Cancellable, @unchecked Sendable {
    private struct State {
        var isFinished = false
        var transfer: (any Cancellable)?
        var timer: DispatchWorkItem?
    }

    // `state` is a `Locked`: its lock guards every field above.
    private let state = Locked(State())
    private let callbackQueue: DispatchQueue?
    private let completion: @Sendable (Result<Value, ResourceError>) -> Void

    /// - Parameters:
    ///   - callbackQueue: Where `completion` runs; `nil` to run it on the finishing thread.
    ///   - completion: Receives the one outcome; called at most once.
    init(
        callbackQueue: DispatchQueue?,
        completion: @escaping @Sendable (Result<Value, ResourceError>) -> Void
    ) {
        self.callbackQueue = callbackQueue
        self.completion = completion
    }

    /// `true` once an outcome has been delivered.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Remembers the transfer so that cancelling stops it; cancels it at once if the fetch has
    /// already finished.
    func attach(_ transfer: any Cancellable) {
        let finished = state.withLock { state in
            if !state.isFinished { state.transfer = transfer }
            return state.isFinished
        }
        if finished { transfer.cancel() }
    }

    /// Fails the fetch with ``ResourceError/timedOut`` if it has not finished after `deadline`.
    func startDeadline(_ deadline: Duration) {
        let timer = DispatchWorkItem { [weak self] in self?.stop(with: .timedOut) }
        let armed = state.withLock { state in
            if !state.isFinished { state.timer = timer }
            return !state.isFinished
        }
        guard armed else { return }
        let (seconds, attoseconds) = deadline.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let total = nanoseconds.overflow ? Int64.max : nanoseconds.partialValue &+ attoseconds / 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: max(0, total))), execute: timer)
    }

    /// Delivers `result` unless an outcome was already delivered, leaving the transfer alone.
    /// Returns whether it was delivered.
    @discardableResult
    func finish(_ result: Result<Value, ResourceError>) -> Bool {
        finish(result, onCallbackQueue: false, cancelsTransfer: false)
    }

    /// Like ``finish(_:)``, for a caller already running on the callback queue: the completion
    /// runs at once, on this thread.
    @discardableResult
    func finishOnCallbackQueue(_ result: Result<Value, ResourceError>) -> Bool {
        finish(result, onCallbackQueue: true, cancelsTransfer: false)
    }

    private func finish(
        _ result: Result<Value, ResourceError>,
        onCallbackQueue: Bool,
        cancelsTransfer: Bool
    ) -> Bool {
        let claimed = state.withLock { state -> (transfer: (any Cancellable)?, timer: DispatchWorkItem?)? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            defer { state.transfer = nil; state.timer = nil }
            return (state.transfer, state.timer)
        }
        guard let claimed else { return false }
        claimed.timer?.cancel()
        if let callbackQueue, !onCallbackQueue {
            callbackQueue.async { [completion] in completion(result) }
        } else {
            completion(result)
        }
        if cancelsTransfer { claimed.transfer?.cancel() }
        return true
    }

    /// Finishes with ``ResourceError/cancelled`` and stops the transfer.
    func cancel() {
        stop(with: .cancelled)
    }

    /// Finishes with `error` and, if that was the outcome, cancels the transfer.
    private func stop(with error: ResourceError) {
        _ = finish(.failure(error), onCallbackQueue: false, cancelsTransfer: true)
    }
}
