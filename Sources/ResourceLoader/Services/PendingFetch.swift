import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes the receiver of one attempt's response, for `request` sent with `options`; the
/// receiver hands the body and head, or the error, to the completion, once.
typealias ReceiverFactory = @Sendable (
    _ request: URLRequest,
    _ options: TransferOptions,
    _ completion: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
) -> any TransferReceiver

/// A receiver that does not hand its body to the completion (a download's goes to a file), and
/// counts its bytes instead, for the monitors.
protocol BodyByteCounting: AnyObject {
    /// The bytes of the body received, once the receiver has handed its answer on.
    var bodyByteCount: Int { get }
}

/// One fetch in flight: delivers exactly one outcome, whoever finishes first.
///
/// The transfer's answer, ``cancel()`` and the deadline all race to finish the fetch; the first
/// one wins and the others are ignored. Whatever wins takes the deadline out of ``Deadlines``;
/// ``cancel()`` and the deadline also cancel the transfer, before the observer sees the outcome
/// and before it is delivered (one that stops a transfer still being started waits for
/// ``attach(_:number:)``). An answer from the transfer does not: the transfer is over (and on
/// Linux, cancelling a task from inside its own delegate callbacks — a refused redirect, say —
/// makes FoundationNetworking trap).
///
/// A caller that makes the outcome out of the answer (parses it) before finishing takes the
/// answer with ``acceptAnswer()``: the deadline stops there, and ``cancel()`` and the deadline no
/// longer finish the fetch, which ends with the outcome made from the answer.
///
/// The outcome goes to the completion on `callbackQueue`, or straight to the completion on the
/// finishing thread when there is no queue (the `async` bridge, which resumes a continuation).
/// A caller that is already running on `callbackQueue` uses ``finishOnCallbackQueue(_:)`` to skip
/// the extra dispatch. The completion can also be given after the fetch is created, with
/// ``whenFinished(_:)``: an outcome that came first (a task cancelled before it started, say)
/// waits for it.
final class PendingFetch<Value: Sendable>: Cancellable, DeadlineExpiring, @unchecked Sendable {
    typealias Completion = @Sendable (Result<Value, ResourceError>) -> Void

    private struct State {
        var isFinished = false
        var transfer: (any Cancellable)?
        /// The number of the transfer begun last (``beginTransfer()``).
        var latestTransfer: UInt64 = 0
        /// Between ``beginTransfer()`` and ``attach(_:number:)`` of the latest transfer: it
        /// exists but is not here.
        var isAttaching = false
        var hasDeadline = false
        /// The answer was taken with ``acceptAnswer()``: only ``finish(_:)`` and its kin end the
        /// fetch now.
        var isAnswered = false
        var completion: Completion?
        /// An outcome that arrived before the completion was given, or that waits for the
        /// transfer it stopped to be attached and cancelled.
        var undelivered: Result<Value, ResourceError>?
        /// ``undelivered`` waits for the transfer it stopped to be attached and cancelled before
        /// the observer sees it.
        var isUnobserved = false
    }

    // `state` is a `Locked`: its lock guards every field above.
    private let state: Locked<State>
    private let callbackQueue: DispatchQueue?
    /// Sees the outcome once it is claimed and a transfer it stops is cancelled, on the finishing
    /// thread, before it is delivered.
    private let observer: (@Sendable (Result<Value, ResourceError>) -> Void)?
    /// Read and written only by ``Deadlines``, under its own lock.
    var deadlineSlot = -1

    /// - Parameters:
    ///   - callbackQueue: Where the completion runs; `nil` to run it on the finishing thread.
    ///   - completion: Receives the one outcome; called at most once. `nil` to give it later
    ///     with ``whenFinished(_:)``.
    ///   - observer: Sees the one outcome as soon as it is claimed and a transfer it stops is
    ///     cancelled, on the finishing thread, before the completion (a pipeline's monitors see
    ///     the end of the fetch this way).
    init(
        callbackQueue: DispatchQueue?,
        completion: Completion? = nil,
        observer: (@Sendable (Result<Value, ResourceError>) -> Void)? = nil
    ) {
        self.callbackQueue = callbackQueue
        self.observer = observer
        self.state = Locked(State(completion: completion))
    }

    /// `true` once an outcome has been claimed.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Gives the completion of a fetch created without one; if the outcome is already known it
    /// is delivered at once.
    func whenFinished(_ completion: @escaping Completion) {
        let waiting = state.withLock { state -> Result<Value, ResourceError>? in
            guard let undelivered = state.undelivered, !state.isAttaching else {
                state.completion = completion
                return nil
            }
            state.undelivered = nil
            return undelivered
        }
        if let waiting { deliver(waiting, to: completion, onCallbackQueue: false) }
    }

    /// Sends `request` through `session` for a fetch whose deadline is already running (the fetch
    /// core starts it before any adapter); `onAnswer` receives the transport's answer unless the
    /// fetch has finished by then. The caller checks ``isFinished`` first.
    ///
    /// Every request of every fetch reaches its transport here, so this is where it is checked
    /// (``URLRequest/refusalForTransport``): a request that fails the check is answered with
    /// ``ResourceError/invalidRequest(reason:)`` and never handed to the transport. A caller that
    /// has made the check itself passes `checked` (a pipeline checks each attempt's request
    /// before it counts the attempt and tells its monitors, so that a refused one is neither).
    @inline(__always)
    func transfer(
        _ request: URLRequest,
        through session: any HTTPTransport,
        options: TransferOptions,
        makeReceiver: ReceiverFactory? = nil,
        checked: Bool = false,
        onAnswer: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) {
        // What reaches the wire is checked here, after every hook, whatever the transport.
        if !checked, let refusal = request.refusalForTransport {
            onAnswer(.failure(refusal))
            return
        }
        let number = beginTransfer()
        // A fetch that is already over sends nothing; its outcome may wait for the attach.
        guard !isFinished else {
            attach(NotSent(), number: number)
            return
        }
        // `onAnswer` only hands the answer on (to the callback queue, or to the waiting task),
        // so the collector calls it where the transfer ends, without a thread hop.
        let completion: @Sendable (Result<(Data, ResponseHead), any Error>) -> Void = { [self] answer in
            guard !isFinished else { return }
            onAnswer(answer)
        }
        let receiver: any TransferReceiver
        if let makeReceiver {
            receiver = makeReceiver(request, options, completion)
        } else {
            receiver = ResponseCollector(
                maximumBytes: options.maximumResponseBytes, ignoresDeclaredLength: request.isHEAD, completion: completion
            )
        }
        let transfer = session.startTransfer(request, options: options, receiver: receiver)
        attach(transfer, number: number)
    }

    /// Announces that a transfer is being started, and returns its number for
    /// ``attach(_:number:)``: until the latest transfer is attached, an outcome that must cancel
    /// it waits rather than being delivered first.
    func beginTransfer() -> UInt64 {
        state.withLock { state in
            state.latestTransfer &+= 1
            state.isAttaching = !state.isFinished
            return state.latestTransfer
        }
    }

    /// Remembers the transfer numbered `number` so that cancelling stops it; cancels it at once
    /// if the fetch has already finished, and then delivers an outcome that waited for it.
    ///
    /// A transfer begun before the latest one is left alone: the latest began from its answer,
    /// so it is over. (A transport may answer before `startTransfer` returns; the next attempt,
    /// begun from that answer, is then attached first, and must stay the one that cancelling
    /// stops.)
    func attach(_ transfer: any Cancellable, number: UInt64) {
        typealias Attached = (finished: Bool, unobserved: Result<Value, ResourceError>?, waiting: (Result<Value, ResourceError>, Completion)?)
        let attached = state.withLock { state -> Attached? in
            guard number == state.latestTransfer else { return nil }
            state.isAttaching = false
            guard state.isFinished else {
                state.transfer = transfer
                return (false, nil, nil)
            }
            let unobserved = state.isUnobserved ? state.undelivered : nil
            state.isUnobserved = false
            guard let undelivered = state.undelivered, let completion = state.completion else { return (true, unobserved, nil) }
            state.undelivered = nil
            state.completion = nil
            return (true, unobserved, (undelivered, completion))
        }
        guard let attached, attached.finished else { return }
        transfer.cancel()
        if let unobserved = attached.unobserved { observer?(unobserved) }
        if let (result, completion) = attached.waiting { deliver(result, to: completion, onCallbackQueue: false) }
    }

    /// Fails the fetch with ``ResourceError/timedOut`` if it has not finished after `deadline`.
    func startDeadline(_ deadline: Duration) {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.hasDeadline = true
            // Under this fetch's lock, so that a finish cannot slip in before the deadline is
            // scheduled and leave it behind. (`Deadlines` never calls back with its lock held.)
            Deadlines.shared.schedule(self, after: deadline)
        }
    }

    /// Delivers `result` unless an outcome was already delivered, leaving the transfer alone.
    /// Returns whether it was delivered.
    @discardableResult
    func finish(_ result: Result<Value, ResourceError>) -> Bool {
        finish(result, onCallbackQueue: false, cancelsTransfer: false)
    }

    /// Like ``finish(_:)``, but leaves the deadline scheduled: whoever receives the outcome
    /// takes it out with ``cancelDeadline()``, on its own thread. The `async` bridge finishes
    /// this way from the transport's thread (an event loop, say), which then only resumes the
    /// waiting task.
    @discardableResult
    func finishLeavingDeadline(_ result: Result<Value, ResourceError>) -> Bool {
        finish(result, onCallbackQueue: false, cancelsTransfer: false, cancelsDeadline: false)
    }

    /// Takes the deadline out of ``Deadlines``, after ``finishLeavingDeadline(_:)``. Does nothing
    /// if there is none, or if it has passed (its expiry then finds the fetch finished).
    func cancelDeadline() {
        if state.withLock({ $0.hasDeadline }) { Deadlines.shared.cancel(self) }
    }

    /// Takes the transfer's answer, which the caller makes the outcome of (parses) and delivers
    /// with ``finish(_:)`` or ``finishOnCallbackQueue(_:)``. Returns `false` if the fetch has
    /// finished already: the answer is then dropped.
    ///
    /// The transfer is over, so the deadline stops here, and ``cancel()`` and the deadline no
    /// longer finish the fetch: as for the `async` bridge, whose task parses once its fetch is
    /// finished.
    func acceptAnswer() -> Bool {
        let hadDeadline = state.withLock { state -> Bool? in
            guard !state.isFinished, !state.isAnswered else { return nil }
            state.isAnswered = true
            state.transfer = nil
            defer { state.hasDeadline = false }
            return state.hasDeadline
        }
        guard let hadDeadline else { return false }
        if hadDeadline { Deadlines.shared.cancel(self) }
        return true
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
        cancelsTransfer: Bool,
        cancelsDeadline: Bool = true
    ) -> Bool {
        typealias Claimed = (transfer: (any Cancellable)?, hasDeadline: Bool, observes: Bool, completion: Completion?)
        let claimed = state.withLock { state -> Claimed? in
            // `cancelsTransfer` is `cancel()` or the deadline, which an accepted answer outruns.
            guard !state.isFinished, !(cancelsTransfer && state.isAnswered) else { return nil }
            state.isFinished = true
            let transfer = state.transfer
            state.transfer = nil
            // A transfer to cancel that is not attached yet: ``attach(_:number:)`` cancels it,
            // then tells the observer and delivers.
            if cancelsTransfer, state.isAttaching {
                state.undelivered = result
                state.isUnobserved = true
                return (transfer, state.hasDeadline, false, nil)
            }
            // No completion yet: keep the outcome for ``whenFinished(_:)``.
            guard let completion = state.completion else {
                state.undelivered = result
                return (transfer, state.hasDeadline, true, nil)
            }
            state.completion = nil
            return (transfer, state.hasDeadline, true, completion)
        }
        guard let claimed else { return false }
        if claimed.hasDeadline, cancelsDeadline { Deadlines.shared.cancel(self) }
        // The transfer is told to stop before anyone hears of the outcome: the observer (a
        // pipeline's attempts task must be cancelled before its monitors hear the fetch is over,
        // or an adapter that returns meanwhile still sends its request), and whoever receives
        // `.cancelled` or `.timedOut` (the `async` bridge resumes at once).
        if cancelsTransfer { claimed.transfer?.cancel() }
        if claimed.observes { observer?(result) }
        if let completion = claimed.completion { deliver(result, to: completion, onCallbackQueue: onCallbackQueue) }
        return true
    }

    private func deliver(_ result: Result<Value, ResourceError>, to completion: @escaping Completion, onCallbackQueue: Bool) {
        if let callbackQueue, !onCallbackQueue {
            callbackQueue.async { completion(result) }
        } else {
            completion(result)
        }
    }

    /// Finishes with ``ResourceError/cancelled`` and stops the transfer, unless the answer was
    /// accepted (``acceptAnswer()``).
    func cancel() {
        stop(with: .cancelled)
    }

    /// The deadline passed first: finishes with ``ResourceError/timedOut``, unless the answer was
    /// accepted (``acceptAnswer()``).
    ///
    /// Off the deadlines' serial queue, because cancelling the transfer can wait for the
    /// session's own queue, and other fetches whose deadlines passed at the same moment must not
    /// wait behind it.
    func deadlinePassed() {
        DispatchQueue.global().async { self.stop(with: .timedOut) }
    }

    /// Finishes with `error` and, if that was the outcome, cancels the transfer; does nothing
    /// once the answer was accepted.
    private func stop(with error: ResourceError) {
        _ = finish(.failure(error), onCallbackQueue: false, cancelsTransfer: true)
    }
}

/// The transfer of a fetch that was over before it could begin: nothing to cancel.
final class NotSent: Cancellable {
    func cancel() {}
}
