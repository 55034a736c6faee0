import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One fetch through a ``ResourcePipeline`` that has hooks: runs the attempts (adapters,
/// credential, transfer, retries and replays), tells the monitors of each step, and keeps what
/// ``FetchEvent/Finished`` reports.
///
/// Not generic: the resource-specific steps (building the request, parsing) stay in
/// ``ResourceService``, which hands this type the request and parses what it returns.
final class PipelineFetch: Sendable {
    /// What the transport answered one attempt with.
    struct Answer: Sendable {
        let data: Data
        let response: ResponseHead
        let attempt: Int
        let duration: Duration
    }

    /// What the attempts of one fetch run with: the pipeline's hooks as the resource adjusted
    /// them.
    struct Plan: Sendable {
        let adapters: [any RequestAdapter]
        let authentication: (any RequestAuthenticating)?
        let retryPolicy: RetryPolicy
        let options: TransferOptions

        /// One attempt, nothing to run before it: the transfer needs no task of its own.
        var isSingleAttempt: Bool {
            adapters.isEmpty && authentication == nil && !retryPolicy.retries
        }
    }

    private struct State {
        var request: URLRequest?
        var attempts = 0
        var statusCode: Int?
        var bodyByteCount: Int?
    }

    private static let nextID = Locked<UInt64>(0)

    let pipeline: ResourcePipeline
    let context: FetchEvent.Context
    private let start: Duration
    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state = Locked(State())

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

    /// Runs the attempts for `request` as `plan` says, all within its deadline and until the
    /// calling task is cancelled; returns the last attempt's answer, or the error that ended the
    /// fetch first.
    func transfer(_ request: URLRequest, plan: Plan) async -> Result<Answer, ResourceError> {
        if plan.isSingleAttempt {
            let outcome = await send(request, attempt: nextAttempt(with: request), options: plan.options, deadline: plan.options.deadline)
            if case .success(let answer) = outcome { received(answer) }
            return outcome
        }
        // The attempts run in a task of their own, so that cancellation and the deadline end the
        // fetch at once, whatever an adapter, a refresh or a wait is doing: the task is then
        // cancelled and what it returns is ignored.
        let pending = PendingFetch<Answer>(callbackQueue: nil)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                pending.whenFinished { continuation.resume(returning: $0) }
                // Before the first attempt, so that the deadline bounds the adapters too.
                if let deadline = plan.options.deadline {
                    pending.startDeadline(deadline)
                }
                guard !pending.isFinished else { return }
                pending.beginTransfer()
                let attempts = Task {
                    _ = pending.finish(await self.attempts(from: request, plan: plan))
                }
                pending.attach(TaskCancellable(attempts))
            }
        } onCancel: {
            pending.cancel()
        }
    }

    /// Makes attempts until one's outcome is final: not retried, not replayed.
    private func attempts(from built: URLRequest, plan: Plan) async -> Result<Answer, ResourceError> {
        let policy = plan.retryPolicy
        var retries = 0
        var hasReplayed = false
        while true {
            var request = built
            for adapter in plan.adapters {
                do {
                    request = try await adapter.adapt(request)
                } catch {
                    return .failure(.requestAdaptationFailed(error))
                }
            }
            var generation: UInt64?
            if let authentication = plan.authentication {
                switch await authentication.authenticate(request, pipeline: pipeline) {
                case .success(let (authenticated, credentialGeneration)):
                    request = authenticated
                    generation = credentialGeneration
                case .failure(let error):
                    return .failure(error)
                }
            }
            if Task.isCancelled { return .failure(.cancelled) }
            let attempt = nextAttempt(with: request)
            let outcome = await send(request, attempt: attempt, options: plan.options, deadline: nil)

            // Is it worth another attempt, and when?
            let reason: FetchEvent.RetryScheduled.Reason
            let serverDelay: Duration?
            switch outcome {
            case .failure(.transport(let code, _)) where policy.retryableTransportErrors.contains(code):
                reason = .transport(code)
                serverDelay = nil
            case .failure:
                return outcome
            case .success(let answer):
                received(answer)
                let response = answer.response
                if let authentication = plan.authentication, let generation,
                   authentication.isCredentialRejected(by: response, data: answer.data) {
                    // One replay per fetch: a replay that is rejected again is the outcome.
                    guard !hasReplayed else { return outcome }
                    hasReplayed = true
                    scheduled(after: attempt, delay: .zero, reason: .credentialRejected(statusCode: response.statusCode))
                    if case .failure(let error) = await authentication.replaceCredential(rejected: generation, pipeline: pipeline) {
                        return .failure(error)
                    }
                    continue
                }
                guard policy.retryableStatusCodes.contains(response.statusCode) else { return outcome }
                reason = .status(response.statusCode)
                serverDelay = retryAfter(in: response, policy: policy)
            }
            guard retries + 1 < policy.maximumAttempts,
                  policy.retryableMethods.contains(HTTPMethod(rawValue: request.httpMethod ?? "GET") ?? .get)
            else { return outcome }
            var generator = SystemRandomNumberGenerator()
            let delay = serverDelay ?? policy.backoff(beforeRetry: retries + 1, using: &generator)
            // The wait ends `delay` after now, whatever happens before it begins.
            let wakeUp = pipeline.stopwatch.elapsed() + delay
            // A retry that could not start before the deadline is not made.
            if let deadline = plan.options.deadline, wakeUp - start >= deadline {
                return outcome
            }
            retries += 1
            scheduled(after: attempt, delay: delay, reason: reason)
            if delay > .zero {
                do {
                    try await pipeline.stopwatch.sleep(wakeUp)
                } catch {
                    return .failure(.cancelled)
                }
            }
        }
    }

    /// The wait `response`'s `Retry-After` asks for, measured from its `Date` when it has one.
    private func retryAfter(in response: ResponseHead, policy: RetryPolicy) -> Duration? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After") else { return nil }
        let responseDate = response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) ?? pipeline.currentDate
        return policy.retryAfterDelay(value, from: responseDate)
    }

    /// Counts an attempt with `request`; before the first, tells the monitors the request is
    /// ready.
    private func nextAttempt(with request: URLRequest) -> Int {
        let attempt = state.withLock { state -> Int in
            state.request = request
            state.attempts += 1
            return state.attempts
        }
        if attempt == 1 {
            let event = FetchEvent.RequestReady(context: context, request: request)
            for monitor in pipeline.monitors { monitor.requestReady(event) }
        }
        return attempt
    }

    /// Tells the monitors of the attempt and hands `request` to the transport; returns its
    /// answer, or ``ResourceError/cancelled`` when the calling task is cancelled first (or
    /// ``ResourceError/timedOut`` when `deadline` passes first).
    private func send(
        _ request: URLRequest,
        attempt: Int,
        options: TransferOptions,
        deadline: Duration?
    ) async -> Result<Answer, ResourceError> {
        let event = FetchEvent.AttemptSent(context: context, attempt: attempt, request: request)
        for monitor in pipeline.monitors { monitor.attemptSent(event) }
        let session = pipeline.session
        let stopwatch = pipeline.stopwatch
        let sentAt = stopwatch.elapsed()
        let pending = PendingFetch<Answer>(callbackQueue: nil)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                pending.whenFinished { continuation.resume(returning: $0) }
                if let deadline {
                    pending.startDeadline(deadline)
                }
                guard !pending.isFinished else { return }
                pending.transfer(request, through: session, options: options) { answer in
                    let duration = stopwatch.elapsed() - sentAt
                    pending.finish(
                        answer
                            .map { Answer(data: $0.0, response: $0.1, attempt: attempt, duration: duration) }
                            .mapError(ResourceError.init(transportError:))
                    )
                }
            }
        } onCancel: {
            pending.cancel()
        }
    }

    /// Tells the monitors another attempt follows `attempt` after `delay`.
    private func scheduled(after attempt: Int, delay: Duration, reason: FetchEvent.RetryScheduled.Reason) {
        let event = FetchEvent.RetryScheduled(context: context, attempt: attempt, delay: delay, reason: reason)
        for monitor in pipeline.monitors { monitor.retryScheduled(event) }
    }

    /// Tells the monitors of `answer`, before it is validated.
    private func received(_ answer: Answer) {
        let statusCode = answer.response.statusCode
        state.withLock { state in
            state.statusCode = statusCode
            state.bodyByteCount = answer.data.count
        }
        let event = FetchEvent.ResponseReceived(
            context: context,
            attempt: answer.attempt,
            statusCode: statusCode,
            bodyByteCount: answer.data.count,
            duration: answer.duration
        )
        for monitor in pipeline.monitors { monitor.responseReceived(event) }
    }

    /// Runs `process` (validation and parsing), timed, and tells the monitors when it made a model.
    func makeModel<Model>(_ process: () -> Result<Model, ResourceError>) -> Result<Model, ResourceError> {
        let stopwatch = pipeline.stopwatch
        let startedAt = stopwatch.elapsed()
        let result = process()
        if case .success = result {
            let event = FetchEvent.ModelMade(context: context, duration: stopwatch.elapsed() - startedAt)
            for monitor in pipeline.monitors { monitor.modelMade(event) }
        }
        return result
    }

    /// Tells the monitors the fetch is over.
    func finished<Model>(with result: Result<Model, ResourceError>) {
        let duration = pipeline.stopwatch.elapsed() - start
        let state = state.withLock { $0 }
        let event = FetchEvent.Finished(
            context: context,
            request: state.request,
            result: result.map { _ in () },
            statusCode: state.statusCode,
            bodyByteCount: state.bodyByteCount,
            attempts: state.attempts,
            duration: duration
        )
        for monitor in pipeline.monitors { monitor.fetchFinished(event) }
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
