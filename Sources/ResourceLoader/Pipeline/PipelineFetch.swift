import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One fetch through a ``ResourcePipeline`` that has hooks: runs the attempts (adapters,
/// credential, transfer, retries and replays), tells the monitors of each step, and keeps what
/// ``FetchEvent/Finished`` reports. The fetch core
/// (``PendingFetch/run(_:plan:session:fetch:onAnswer:)``) hands it the fetch's transfer.
///
/// Not generic: the resource-specific steps (building the request, parsing) stay in
/// ``ResourceService``, which hands this type the request and parses what it returns.
final class PipelineFetch: Sendable {
    private struct State {
        var request: URLRequest?
        /// The attempts begun: the number of the latest.
        var attempts = 0
        /// The attempts handed to the transport, for ``FetchEvent/Finished/attempts``.
        var sentAttempts = 0
        var statusCode: Int?
        var bodyByteCount: Int?
    }

    private static let nextID = Locked<UInt64>(0)

    let pipeline: ResourcePipeline
    let context: FetchEvent.Context
    private let start: Duration
    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state = Locked(State())
    private let events = MonitorEvents()

    init(pipeline: ResourcePipeline, resourceType: any ResourceType.Type) {
        self.pipeline = pipeline
        let id = Self.nextID.withLock { id -> UInt64 in
            id &+= 1
            return id
        }
        self.context = FetchEvent.Context(fetchID: id, resourceType: resourceType)
        self.start = pipeline.stopwatch.elapsed()
    }

    /// Remembers the request as built, for ``FetchEvent/Finished/request``.
    func built(_ request: URLRequest) {
        state.withLock { $0.request = request }
    }

    /// Runs the attempts for `request` as `plan` says, for `pending`, whose deadline is already
    /// running; `onAnswer` receives the last attempt's answer, or the error that ended the fetch.
    ///
    /// A single attempt with nothing to run before it goes straight to the transport. So does the
    /// first attempt when every adapter is synchronous and the credential is ready: the adapters
    /// run on this thread. Whatever must wait (an adapter that may suspend, a refresh, a retry's
    /// delay, a replay) runs in a task of its own, so that cancellation and the deadline end the
    /// fetch at once: `pending` then cancels the task, and what the task answers is ignored.
    /// ``FetchEvent/Context/current`` names this fetch while the adapters, the authenticator and
    /// the transport run.
    ///
    /// Each attempt's request is checked (``URLRequest/refusalForTransport``) before the attempt
    /// is counted and the monitors told of it: one the transport must refuse ends the fetch with
    /// ``ResourceError/invalidRequest(reason:)`` and is not an attempt.
    func start<Value>(
        _ request: URLRequest,
        plan: FetchPlan,
        pending: PendingFetch<Value>,
        onAnswer: @escaping @Sendable (Result<FetchAnswer, ResourceError>) -> Void
    ) {
        if plan.isSingleAttempt {
            if let refusal = request.refusalForTransport {
                onAnswer(.failure(refusal))
                return
            }
            // A fetch that ended while the monitors were told (its deadline, a cancellation)
            // sends nothing: its outcome is settled.
            guard let attempt = nextAttempt(with: request), let sent = attemptSent(request, attempt: attempt) else { return }
            inFetch {
                transfer(request, attempt: attempt, sentAt: sent, plan: plan, pending: pending) { [self] outcome in
                    if case .success(let answer) = outcome { received(answer) }
                    onAnswer(outcome)
                }
            }
            return
        }
        guard let synchronousAdapters = plan.synchronousAdapters else {
            continueInTask(request, plan: plan, from: .beginning, pending: pending, onAnswer: onAnswer)
            return
        }
        inFetch {
            var adapted = request
            for adapter in synchronousAdapters {
                do {
                    adapted = try adapter(adapted)
                } catch {
                    onAnswer(.failure(.requestAdaptationFailed(error)))
                    return
                }
            }
            var generation: UInt64?
            if let authentication = plan.authentication {
                switch authentication.authenticateImmediately(adapted, pipeline: pipeline) {
                case .success(let (authenticated, credentialGeneration)):
                    adapted = authenticated
                    generation = credentialGeneration
                case .failure(let error):
                    onAnswer(.failure(error))
                    return
                case nil:
                    // A refresh to wait for, or an expired credential to refresh.
                    continueInTask(request, plan: plan, from: .adapted(adapted), pending: pending, onAnswer: onAnswer)
                    return
                }
            }
            if let refusal = adapted.refusalForTransport {
                onAnswer(.failure(refusal))
                return
            }
            guard !pending.isFinished, let attempt = nextAttempt(with: adapted), let sent = attemptSent(adapted, attempt: attempt) else {
                return
            }
            transfer(adapted, attempt: attempt, sentAt: sent, plan: plan, pending: pending) { [self, adapted, generation] outcome in
                var tries = Tries()
                // On the transport's thread: the authenticator that reads the answer runs for this
                // fetch, as it does for an attempt made in a task.
                let next = inFetch {
                    self.next(after: outcome, of: adapted, attempt: attempt, generation: generation, plan: plan, tries: &tries)
                }
                if case .finish(let outcome) = next {
                    onAnswer(outcome)
                } else {
                    continueInTask(request, plan: plan, from: .after(next, tries), pending: pending, onAnswer: onAnswer)
                }
            }
        }
    }

    /// Where ``attempts(from:plan:resuming:)`` begins.
    private enum Resumption: Sendable {
        /// With the adapters of the first attempt.
        case beginning
        /// With the credential of the first attempt, whose adapters made this request.
        case adapted(URLRequest)
        /// With what an attempt made without a task calls for next.
        case after(Next, Tries)
    }

    /// What happens after an attempt.
    private enum Next: Sendable {
        /// The attempt's outcome is the fetch's.
        case finish(Result<FetchAnswer, ResourceError>)
        /// The credential of generation `rejected` was rejected: have the authenticator replace
        /// it, then replay.
        case replay(rejected: UInt64, any RequestAuthenticating)
        /// Try again once the stopwatch reads `wakeUp` (`delay` after the attempt).
        case retry(wakeUp: Duration, delay: Duration)

        var isReplay: Bool {
            if case .replay = self { true } else { false }
        }
    }

    /// The retries and replays a fetch has made.
    private struct Tries: Sendable {
        var retries = 0
        var hasReplayed = false
    }

    /// Runs `body` with the fetch as ``FetchEvent/Context/current``, and its monitors' gate as
    /// ``FetchEvent/Context/events``.
    private func inFetch<Result>(_ body: () -> Result) -> Result {
        FetchEvent.Context.$events.withValue(events) {
            FetchEvent.Context.$current.withValue(context, operation: body)
        }
    }

    /// Runs the rest of the attempts in a task that `pending` cancels when the fetch ends first.
    private func continueInTask<Value>(
        _ request: URLRequest,
        plan: FetchPlan,
        from resumption: Resumption,
        pending: PendingFetch<Value>,
        onAnswer: @escaping @Sendable (Result<FetchAnswer, ResourceError>) -> Void
    ) {
        let number = pending.beginTransfer()
        // A fetch that is over already (cancelled, or past its deadline, before its attempts
        // began) starts no task: its monitors may have heard it finished, and none of its
        // adapters runs after that. Once the transfer is begun, an end waits for it to be attached.
        guard !pending.isFinished else {
            pending.attach(NotSent(), number: number)
            return
        }
        let attempts = Task { [context, events] in
            onAnswer(await FetchEvent.Context.$attempting.withValue(context) {
                await FetchEvent.Context.$events.withValue(events) {
                    await FetchEvent.Context.$current.withValue(context) {
                        await self.attempts(from: request, plan: plan, resuming: resumption)
                    }
                }
            })
        }
        pending.attach(TaskCancellable(attempts), number: number)
    }

    /// Makes attempts until one's outcome is final: not retried, not replayed.
    private func attempts(from built: URLRequest, plan: FetchPlan, resuming: Resumption) async -> Result<FetchAnswer, ResourceError> {
        var tries = Tries()
        var adapted: URLRequest?
        // Whether the attempt about to be made replays a request whose credential was replaced.
        var replaying = false
        switch resuming {
        case .beginning:
            break
        case .adapted(let request):
            adapted = request
        case .after(let next, let triesSoFar):
            tries = triesSoFar
            if let outcome = await carryOut(next) { return outcome }
            replaying = next.isReplay
        }
        while true {
            var request = built
            if let alreadyAdapted = adapted {
                request = alreadyAdapted
                adapted = nil
            } else {
                if let requestForAttempt = plan.requestForAttempt { request = requestForAttempt(built) }
                for adapter in plan.adapters {
                    // A fetch that ended while an earlier adapter ran (which went on, not heeding
                    // the cancellation) runs no more adapters.
                    if Task.isCancelled { return .failure(.cancelled) }
                    do {
                        request = try await adapter.adapt(request)
                    } catch {
                        return .failure(.requestAdaptationFailed(error))
                    }
                }
            }
            var generation: UInt64?
            // Nor does it ask for a credential, which could start a refresh for nobody.
            if Task.isCancelled { return .failure(.cancelled) }
            if let authentication = plan.authentication {
                switch await authentication.authenticate(request, pipeline: pipeline, afterReplacement: replaying) {
                case .success(let (authenticated, credentialGeneration)):
                    request = authenticated
                    generation = credentialGeneration
                case .failure(let error):
                    return .failure(error)
                }
            }
            if Task.isCancelled { return .failure(.cancelled) }
            if let refusal = request.refusalForTransport { return .failure(refusal) }
            guard let attempt = nextAttempt(with: request) else { return .failure(.cancelled) }
            let outcome = await send(request, attempt: attempt, plan: plan)
            let next = next(after: outcome, of: request, attempt: attempt, generation: generation, plan: plan, tries: &tries)
            if let outcome = await carryOut(next) { return outcome }
            replaying = next.isReplay
        }
    }

    /// Decides what follows `attempt`, whose outcome is `outcome`, and tells the monitors of the
    /// response and of any attempt to come.
    private func next(
        after outcome: Result<FetchAnswer, ResourceError>,
        of request: URLRequest,
        attempt: Int,
        generation: UInt64?,
        plan: FetchPlan,
        tries: inout Tries
    ) -> Next {
        let policy = plan.retryPolicy
        // Is it worth another attempt, and when?
        let reason: FetchEvent.RetryScheduled.Reason
        let serverDelay: Duration?
        switch outcome {
        case .failure(.transport(let code, _)) where policy.retryableTransportErrors.contains(code):
            reason = .transport(code)
            serverDelay = nil
        case .failure(.timedOut) where policy.retryableTransportErrors.contains(.timedOut):
            // The transport's own timeout (the request's idle timeout): the fetch's deadline
            // ends the fetch instead, and no retry starts past it.
            reason = .transport(.timedOut)
            serverDelay = nil
        case .failure:
            return .finish(outcome)
        case .success(let answer):
            received(answer)
            let response = answer.response
            if let authentication = plan.authentication, let generation,
               Self.isFromCredentialOrigin(response, of: request),
               authentication.isCredentialRejected(by: response, data: answer.data) {
                // One replay per fetch: a replay that is rejected again is the outcome. A
                // one-shot body stream that has been read cannot be replayed either.
                guard !tries.hasReplayed, request.bodyCanBeSent else { return .finish(outcome) }
                tries.hasReplayed = true
                scheduled(after: attempt, delay: .zero, reason: .credentialRejected(statusCode: response.statusCode))
                return .replay(rejected: generation, authentication)
            }
            guard policy.retryableStatusCodes.contains(response.statusCode) else { return .finish(outcome) }
            reason = .status(response.statusCode)
            serverDelay = retryAfter(in: response, policy: policy)
        }
        // A one-shot body stream that has been read cannot be sent again: the attempt's outcome
        // stands, rather than a retry with an empty body.
        guard tries.retries + 1 < policy.maximumAttempts,
              policy.retryableMethods.contains(HTTPMethod(rawValue: request.httpMethod ?? "GET") ?? .get),
              request.bodyCanBeSent
        else { return .finish(outcome) }
        var generator = SystemRandomNumberGenerator()
        let delay = serverDelay ?? policy.backoff(beforeRetry: tries.retries + 1, using: &generator)
        // The wait ends `delay` after now, whatever happens before it begins.
        let wakeUp = pipeline.stopwatch.elapsed() + delay
        // A retry that could not start before the deadline is not made.
        if let deadline = plan.options.deadline, wakeUp - start >= deadline {
            return .finish(outcome)
        }
        tries.retries += 1
        scheduled(after: attempt, delay: delay, reason: reason)
        return .retry(wakeUp: wakeUp, delay: delay)
    }

    /// Whether `response` came from the origin `request` was sent to, which its credential
    /// reached: a response that a redirect to another origin led to answered a request that
    /// carried no credential (``TransferRules/credentialHeaderFields``), and cannot reject it.
    private static func isFromCredentialOrigin(_ response: ResponseHead, of request: URLRequest) -> Bool {
        guard let answering = TransferRules.Origin(response.url) else { return true }
        return answering == TransferRules.Origin(request.url)
    }

    /// Waits for what `next` needs before another attempt; returns the fetch's outcome instead
    /// when there is to be none.
    private func carryOut(_ next: Next) async -> Result<FetchAnswer, ResourceError>? {
        switch next {
        case .finish(let outcome):
            return outcome
        case .replay(let generation, let authentication):
            // A fetch that is over asks for no new credential: that would start a refresh for
            // nobody.
            if Task.isCancelled { return .failure(.cancelled) }
            if case .failure(let error) = await authentication.replaceCredential(rejected: generation, pipeline: pipeline) {
                return .failure(error)
            }
            return nil
        case .retry(let wakeUp, let delay):
            guard delay > .zero else { return nil }
            do {
                try await pipeline.stopwatch.sleep(wakeUp)
            } catch {
                return .failure(.cancelled)
            }
            return nil
        }
    }

    /// The wait `response`'s `Retry-After` asks for, measured from its `Date` when it has one.
    private func retryAfter(in response: ResponseHead, policy: RetryPolicy) -> Duration? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After") else { return nil }
        let responseDate = response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) ?? pipeline.currentDate
        return policy.retryAfterDelay(value, from: responseDate)
    }

    /// Counts an attempt with `request`; before the first, tells the monitors the request is
    /// ready. `nil` when the fetch ended meanwhile: no attempt is to be made.
    private func nextAttempt(with request: URLRequest) -> Int? {
        let attempt = state.withLock { state -> Int in
            state.request = request
            state.attempts += 1
            return state.attempts
        }
        if attempt == 1 {
            let event = FetchEvent.RequestReady(context: context, request: request)
            guard events.tell(pipeline.monitors, { $0.requestReady(event) }) else { return nil }
        }
        return attempt
    }

    /// Tells the monitors that `attempt` is being sent; returns when, on the pipeline's
    /// stopwatch, or `nil` when the fetch ended meanwhile: the attempt is not to be sent.
    private func attemptSent(_ request: URLRequest, attempt: Int) -> Duration? {
        let event = FetchEvent.AttemptSent(context: context, attempt: attempt, request: request)
        guard events.tell(pipeline.monitors, { $0.attemptSent(event) }) else { return nil }
        state.withLock { $0.sentAttempts = attempt }
        return pipeline.stopwatch.elapsed()
    }

    /// The transport's answer to `attempt`, sent at `sentAt`, whose body had `bodyByteCount`
    /// bytes when its receiver counted them.
    private func answer(
        _ answer: Result<(Data, ResponseHead), any Error>, attempt: Int, sentAt: Duration, bodyByteCount: Int?
    ) -> Result<FetchAnswer, ResourceError> {
        let duration = pipeline.stopwatch.elapsed() - sentAt
        switch answer {
        case .success(let (data, response)):
            return .success(
                FetchAnswer(data: data, response: response, attempt: attempt, duration: duration, bodyByteCount: bodyByteCount)
            )
        case .failure(let error):
            return .failure(ResourceError(transportError: error))
        }
    }

    /// Tells the monitors of the attempt and hands `request`, already checked, to the transport;
    /// returns its answer, or ``ResourceError/cancelled`` when the calling task is cancelled first.
    private func send(_ request: URLRequest, attempt: Int, plan: FetchPlan) async -> Result<FetchAnswer, ResourceError> {
        // The attempts' task is cancelled once the fetch is over (it may end while the monitors
        // are told the request is ready): its attempt is not sent, nor told of.
        if Task.isCancelled { return .failure(.cancelled) }
        guard let sentAt = attemptSent(request, attempt: attempt) else { return .failure(.cancelled) }
        let pending = PendingFetch<FetchAnswer>(callbackQueue: nil)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                pending.whenFinished { continuation.resume(returning: $0) }
                guard !pending.isFinished else { return }
                transfer(request, attempt: attempt, sentAt: sentAt, plan: plan, pending: pending) { outcome in
                    pending.finish(outcome)
                }
            }
        } onCancel: {
            pending.cancel()
        }
    }

    /// Hands `request`, already checked, to the transport for `attempt`, sent at `sentAt`, through
    /// `pending`; `onAnswer` receives the answer, with the size of its body: its data's, or what
    /// a receiver that writes the body elsewhere counted (``BodyByteCounting``).
    private func transfer<Value>(
        _ request: URLRequest,
        attempt: Int,
        sentAt: Duration,
        plan: FetchPlan,
        pending: PendingFetch<Value>,
        onAnswer: @escaping @Sendable (Result<FetchAnswer, ResourceError>) -> Void
    ) {
        // The receiver's count, read weakly: the receiver holds the completion that reads it.
        let count = Locked<(@Sendable () -> Int?)?>(nil)
        let makeReceiver = plan.makeReceiver.map { make -> ReceiverFactory in
            { request, options, completion in
                let receiver = make(request, options, completion)
                if let counting = receiver as? any BodyByteCounting & TransferReceiver {
                    count.withLock { $0 = { [weak counting] in counting?.bodyByteCount } }
                }
                return receiver
            }
        }
        pending.transfer(request, through: pipeline.session, options: plan.options, makeReceiver: makeReceiver, checked: true) {
            [self] answer in
            let bodyByteCount = count.withLock { $0 }?()
            onAnswer(self.answer(answer, attempt: attempt, sentAt: sentAt, bodyByteCount: bodyByteCount))
        }
    }

    /// Tells the monitors another attempt follows `attempt` after `delay`.
    private func scheduled(after attempt: Int, delay: Duration, reason: FetchEvent.RetryScheduled.Reason) {
        let event = FetchEvent.RetryScheduled(context: context, attempt: attempt, delay: delay, reason: reason)
        _ = events.tell(pipeline.monitors) { $0.retryScheduled(event) }
    }

    /// Tells the monitors of `answer`, before it is validated.
    private func received(_ answer: FetchAnswer) {
        let statusCode = answer.response.statusCode
        state.withLock { state in
            state.statusCode = statusCode
            state.bodyByteCount = answer.bodyByteCount
        }
        let event = FetchEvent.ResponseReceived(
            context: context,
            attempt: answer.attempt,
            statusCode: statusCode,
            bodyByteCount: answer.bodyByteCount,
            duration: answer.duration
        )
        _ = events.tell(pipeline.monitors) { $0.responseReceived(event) }
    }

    /// Runs `process` (validation and parsing), timed, and tells the monitors when it made a model.
    func makeModel<Model>(_ process: () -> Result<Model, ResourceError>) -> Result<Model, ResourceError> {
        let stopwatch = pipeline.stopwatch
        let startedAt = stopwatch.elapsed()
        let result = process()
        if case .success = result {
            let event = FetchEvent.ModelMade(context: context, duration: stopwatch.elapsed() - startedAt)
            _ = events.tell(pipeline.monitors) { $0.modelMade(event) }
        }
        return result
    }

    /// Tells the monitors the fetch is over, once: after the event they are being told, if any,
    /// and before no other.
    func finished<Model>(with result: Result<Model, ResourceError>) {
        let duration = pipeline.stopwatch.elapsed() - start
        // Over first: an event not yet begun is not told, and an attempt not yet told of is
        // not sent; then the state that the event reports is settled.
        guard events.markOver() else { return }
        let state = state.withLock { $0 }
        let event = FetchEvent.Finished(
            context: context,
            request: state.request,
            result: result.map { _ in () },
            statusCode: state.statusCode,
            bodyByteCount: state.bodyByteCount,
            attempts: state.sentAttempts,
            duration: duration
        )
        events.end(pipeline.monitors) { $0.fetchFinished(event) }
    }
}

/// The order of one fetch's events with its end. A fetch can end on another thread while its
/// monitors are told of an event (its deadline passes, or it is cancelled), or from a monitor's
/// own call: that event is told to every monitor first, then ``FetchMonitor/fetchFinished(_:)``,
/// and no event after it.
private final class MonitorEvents: FetchEventGate, @unchecked Sendable {
    /// An event being told: the monitors, the next of them to tell, and the call that tells it.
    private struct Telling {
        let monitors: [any FetchMonitor]
        var next: Int
        let call: (any FetchMonitor) -> Void
    }

    // `lock` guards `telling`, `hasEnded` and `afterTheEnd`, and is held while the monitors are
    // told, so that the end waits for an event being told. It is recursive: a monitor may end
    // the fetch from its own call.
    private let lock = NSRecursiveLock()
    /// The event being told, on the thread that holds `lock`.
    private var telling: Telling?
    /// Whether the monitors have been told the fetch is over (``end(_:_:)``).
    private var hasEnded = false
    /// What is told once the monitors have been told the fetch is over (``tellAfterTheEnd(_:_:)``).
    private var afterTheEnd: [@Sendable () -> Void] = []
    /// Whether the fetch is over: set as soon as it ends, without waiting for `lock`.
    private let over = Locked(false)

    private var isOver: Bool { over.withLock { $0 } }

    /// Tells each of `monitors` with `call`, unless the fetch is over; returns whether it was
    /// still going on once they were told. An event begun is told to every monitor, even if
    /// the fetch ends meanwhile.
    func tell(_ monitors: [any FetchMonitor], _ call: (any FetchMonitor) -> Void) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isOver else { return false }
        // `call` is kept only while this tell runs: an end made meanwhile, on this thread from a
        // monitor's call, is the only other reader.
        return withoutActuallyEscaping(call) { call in
            let outer = telling
            telling = Telling(monitors: monitors, next: 0, call: call)
            defer { telling = outer }
            tellTheRest()
            return !isOver
        }
    }

    /// Tells the monitors of the event being told that have not been told of it yet.
    private func tellTheRest() {
        while let current = telling, current.next < current.monitors.count {
            telling?.next += 1
            current.call(current.monitors[current.next])
        }
    }

    /// Marks the fetch over; `true` the first time, `false` after.
    func markOver() -> Bool {
        over.withLock { isOver in
            defer { isOver = true }
            return !isOver
        }
    }

    /// Tells each of `monitors` with `call`, once the fetch is marked over (``markOver()``): after
    /// the event being told, if any. An end made from a monitor's call first tells the monitors
    /// after it of that event.
    func end(_ monitors: [any FetchMonitor], _ call: (any FetchMonitor) -> Void) {
        lock.lock()
        tellTheRest()
        for monitor in monitors { call(monitor) }
        hasEnded = true
        let held = afterTheEnd
        afterTheEnd = []
        lock.unlock()
        for tell in held { tell() }
    }

    /// Tells each of `monitors` with `call` after ``end(_:_:)`` has told them the fetch is over:
    /// at once when it has, else once it has.
    func tellAfterTheEnd(_ monitors: [any FetchMonitor], _ call: @escaping @Sendable (any FetchMonitor) -> Void) {
        let tell: @Sendable () -> Void = { for monitor in monitors { call(monitor) } }
        let holds = lock.withLock { () -> Bool in
            if !hasEnded { afterTheEnd.append(tell) }
            return !hasEnded
        }
        if !holds { tell() }
    }
}

/// Cancels a task: the handle of a completion-handler fetch that runs through a pipeline.
final class TaskCancellable: Cancellable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    func cancel() {
        task.cancel()
    }
}
