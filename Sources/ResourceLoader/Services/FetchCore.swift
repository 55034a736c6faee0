import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the transport answered the last attempt of a fetch with.
struct FetchAnswer: Sendable {
    /// The body held in memory: empty for a download's, which went to a file.
    let data: Data
    let response: ResponseHead
    /// The attempt that answered, from 1.
    let attempt: Int
    /// How long the attempt took, on the pipeline's stopwatch; zero without a pipeline.
    let duration: Duration
    /// The bytes of the body received: ``data``'s count, or those a receiver wrote elsewhere
    /// (``BodyByteCounting``).
    let bodyByteCount: Int

    init(data: Data, response: ResponseHead, attempt: Int, duration: Duration, bodyByteCount: Int? = nil) {
        self.data = data
        self.response = response
        self.attempt = attempt
        self.duration = duration
        self.bodyByteCount = bodyByteCount ?? data.count
    }
}

/// What the attempts of one fetch run with: the pipeline's hooks as the resource adjusted them,
/// and the transfer's limits. A service without a pipeline runs an empty plan.
struct FetchPlan: Sendable {
    let adapters: [any RequestAdapter]
    /// ``adapters`` as closures that do not suspend, when every one of them is synchronous.
    let synchronousAdapters: [@Sendable (URLRequest) throws -> URLRequest]?
    let authentication: (any RequestAuthenticating)?
    let retryPolicy: RetryPolicy
    let options: TransferOptions
    /// Makes the receiver of each attempt's response; `nil` for a ``ResponseCollector`` (a
    /// download gives one that writes to a file).
    var makeReceiver: ReceiverFactory?
    /// The request an attempt made in a task of its own (a retry, a replay, or a first attempt
    /// whose adapters may suspend) starts from, given the request as built, before the adapters
    /// run; `nil` for the request as built. A download's asks for the rest of the partial file
    /// the attempts before it left.
    var requestForAttempt: (@Sendable (_ built: URLRequest) -> URLRequest)?

    /// A plan with no hooks: one attempt with `options`.
    init(options: TransferOptions) {
        self.init(adapters: [], synchronousAdapters: [], authentication: nil, retryPolicy: .never, options: options)
    }

    init(
        adapters: [any RequestAdapter],
        synchronousAdapters: [@Sendable (URLRequest) throws -> URLRequest]?,
        authentication: (any RequestAuthenticating)?,
        retryPolicy: RetryPolicy,
        options: TransferOptions
    ) {
        self.adapters = adapters
        self.synchronousAdapters = synchronousAdapters
        self.authentication = authentication
        self.retryPolicy = retryPolicy
        self.options = options
    }

    /// One attempt, nothing to run before it: the transfer needs no task of its own.
    var isSingleAttempt: Bool {
        adapters.isEmpty && authentication == nil && !retryPolicy.retries
    }
}

// MARK: - The one fetch core

extension PendingFetch {
    /// Runs the transfer of a fetch: the one way every fetch, `async` or completion handler,
    /// with or without a pipeline, reaches its transport.
    ///
    /// Arms the deadline (the only place it is armed), then sends `request` as `plan` says, through
    /// `fetch` when the fetch has a pipeline's hooks to run (adapters, credentials, retries,
    /// monitors) and straight through `session` when it has none. `onAnswer` receives the last
    /// attempt's answer, unless the fetch finished first (cancelled, or past its deadline); the
    /// fetch's outcome stays the caller's to deliver, through this `PendingFetch`, which delivers
    /// exactly one.
    func run(
        _ request: URLRequest,
        plan: FetchPlan,
        session: any HTTPTransport,
        fetch: PipelineFetch?,
        onAnswer: @escaping @Sendable (Result<FetchAnswer, ResourceError>) -> Void
    ) {
        guard !isFinished else { return }
        if let deadline = plan.options.deadline {
            startDeadline(deadline)
        }
        if let fetch {
            fetch.start(request, plan: plan, pending: self, onAnswer: onAnswer)
            return
        }
        transfer(request, through: session, options: plan.options, makeReceiver: plan.makeReceiver) { answer in
            switch answer {
            case .success(let (data, response)):
                onAnswer(.success(FetchAnswer(data: data, response: response, attempt: 1, duration: .zero)))
            case .failure(let error):
                onAnswer(.failure(ResourceError(transportError: error)))
            }
        }
    }
}

/// The `async` side of the fetch core: the transfer in a `PendingFetch` of its own, awaited.
///
/// Not generic, so that it is compiled for its one answer type: its metadata is not looked up at
/// run time on every fetch, as it would be inside a generic context.
enum FetchCore {
    /// Runs the transfer of a fetch (``PendingFetch/run(_:plan:session:fetch:onAnswer:)``) and
    /// waits for its answer, the deadline or the task's cancellation, whichever comes first.
    static func awaiting(
        _ request: URLRequest,
        plan: FetchPlan,
        session: any HTTPTransport,
        fetch: PipelineFetch?
    ) async -> Result<FetchAnswer, ResourceError> {
        // Created before the continuation so that a cancellation arriving first is kept until
        // the continuation can take it. The continuation is resumed from the completion alone,
        // which `PendingFetch` calls exactly once (its tests hold it to that), so it need not be
        // a checked one: that would cost an allocation and an atomic exchange on every fetch.
        // The answer finishes the fetch on the transport's thread (an event loop, say) with no
        // more than resuming this task: the deadline is taken out here, on the task's thread.
        let pending = PendingFetch<FetchAnswer>(callbackQueue: nil)
        let answer = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                pending.whenFinished { continuation.resume(returning: $0) }
                pending.run(request, plan: plan, session: session, fetch: fetch) { answer in
                    pending.finishLeavingDeadline(answer)
                }
            }
        } onCancel: {
            pending.cancel()
        }
        pending.cancelDeadline()
        return answer
    }
}
