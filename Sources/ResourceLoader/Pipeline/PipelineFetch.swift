import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One fetch through a ``ResourcePipeline`` that has hooks: runs the adapters and the transfer,
/// tells the monitors of each step, and keeps what ``FetchEvent/Finished`` reports.
///
/// Not generic: the resource-specific steps (building the request, parsing) stay in
/// ``ResourceService``, which hands this type the request and parses what it returns.
final class PipelineFetch: Sendable {
    /// What the transport answered one attempt with.
    struct Answer: Sendable {
        let data: Data
        let response: URLResponse
        let attempt: Int
        let duration: Duration
    }

    private struct State {
        var request: URLRequest?
        var attempts = 0
        var statusCode: Int?
        var bodyByteCount: Int?
        /// The task running the adapters, cancelled when the fetch finishes first.
        var adaptation: Task<Void, Never>?
        var isTransferOver = false
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

    /// Runs `adapters` on `request`, then sends it, all within `options`' deadline and until the
    /// calling task is cancelled; returns the transport's answer or the error that ended the
    /// fetch first.
    func transfer(
        _ request: URLRequest,
        adapters: [any RequestAdapter],
        options: TransferOptions
    ) async -> Result<Answer, ResourceError> {
        let pending = PendingFetch<Answer>(callbackQueue: nil)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                pending.whenFinished { result in
                    self.transferIsOver()
                    continuation.resume(returning: result)
                }
                // Before the adapters, so that the deadline bounds them too.
                if let deadline = options.deadline {
                    pending.startDeadline(deadline)
                }
                if adapters.isEmpty {
                    send(request, pending: pending, options: options)
                } else {
                    let adaptation = Task {
                        await self.adapt(request, with: adapters, thenSendWith: pending, options: options)
                    }
                    let isOver = state.withLock { state in
                        if !state.isTransferOver { state.adaptation = adaptation }
                        return state.isTransferOver
                    }
                    if isOver { adaptation.cancel() }
                }
            }
        } onCancel: {
            pending.cancel()
        }
    }

    private func adapt(
        _ request: URLRequest,
        with adapters: [any RequestAdapter],
        thenSendWith pending: PendingFetch<Answer>,
        options: TransferOptions
    ) async {
        var request = request
        for adapter in adapters {
            guard !pending.isFinished else { return }
            do {
                request = try await adapter.adapt(request)
            } catch {
                // Once the fetch is over (cancelled, past its deadline), this task is cancelled
                // and what the adapter throws is ignored.
                pending.finish(.failure(.requestAdaptationFailed(error)))
                return
            }
        }
        guard !pending.isFinished else { return }
        state.withLock { $0.request = request }
        send(request, pending: pending, options: options)
    }

    /// Tells the monitors the request is ready and hands it to the transport as attempt 1.
    private func send(_ request: URLRequest, pending: PendingFetch<Answer>, options: TransferOptions) {
        guard !pending.isFinished else { return }
        let monitors = pipeline.monitors
        let readyEvent = FetchEvent.RequestReady(context: context, request: request)
        for monitor in monitors { monitor.requestReady(readyEvent) }
        let attempt = state.withLock { state -> Int in
            state.attempts += 1
            return state.attempts
        }
        let sentEvent = FetchEvent.AttemptSent(context: context, attempt: attempt, request: request)
        for monitor in monitors { monitor.attemptSent(sentEvent) }
        let stopwatch = pipeline.stopwatch
        let sentAt = stopwatch.elapsed()
        guard !pending.isFinished else { return }
        pending.transfer(request, through: pipeline.session, options: options) { answer in
            let duration = stopwatch.elapsed() - sentAt
            pending.finish(
                answer
                    .map { Answer(data: $0.0, response: $0.1, attempt: attempt, duration: duration) }
                    .mapError(ResourceError.init(transportError:))
            )
        }
    }

    /// The transfer has an outcome: an adaptation still running is no longer wanted.
    private func transferIsOver() {
        let adaptation = state.withLock { state -> Task<Void, Never>? in
            state.isTransferOver = true
            defer { state.adaptation = nil }
            return state.adaptation
        }
        adaptation?.cancel()
    }

    /// Tells the monitors of `answer`, before it is validated.
    func received(_ answer: Answer) {
        let statusCode = (answer.response as? HTTPURLResponse)?.statusCode
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
