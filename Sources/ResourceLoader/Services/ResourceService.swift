import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches network resources: builds the request, sends it, validates the response, parses the
/// body and delivers the typed model.
///
/// ```swift
/// let service = ResourceService<Cities>()
/// let cities = try await service.fetch(Cities(continent: "europe"))
/// ```
///
/// A service made with ``init(pipeline:)`` shares a ``ResourcePipeline``'s transport, options,
/// request adapters, credential store, retry policy and monitors with every other service made
/// from it; see the pipeline for where its hooks run among the steps below.
///
/// Every fetch goes one way through the same steps:
/// 1. ``NetworkResourceType/urlRequest()`` builds the request, and
///    ``NetworkResourceType/transferOptions(_:)`` its limits from the service's ``options``;
/// 2. the ``HTTPTransport`` sends it, within the ``TransferOptions/deadline``;
/// 3. the body must be within ``TransferOptions/maximumResponseBytes`` and the response must be
///    an `HTTPURLResponse`;
/// 4. ``NetworkResourceType/validate(_:data:)`` checks the status (and, for SOAP, Faults);
/// 5. ``DataResourceType/serviceError(in:)`` looks for a service-level error in the body;
/// 6. ``DataResourceType/model(from:)`` makes the model.
///
/// Steps 5 and 6 are skipped for a fresh hit of a ``MemoryCacheStore`` when the resource adopts
/// ``ReusableModelResource`` and an equal resource's model is kept with the stored response.
///
/// Parsing never runs on the transport's queue, so large responses do not hold up other
/// requests: a completion-handler fetch parses on the callback queue you pass (a global queue
/// when that is the main queue), through a pipeline too, and an `async` fetch on the global
/// concurrent executor. The deadline stops when the response has arrived, before parsing, and
/// cancelling from then on changes nothing: the outcome is what parsing makes of the response.
/// Every fetch has exactly one outcome.
public struct ResourceService<Resource: NetworkResourceType & DataResourceType>: ResourceServiceType {
    /// The transport requests are sent through.
    public let session: any HTTPTransport
    /// The limits applied to every transfer, unless a resource adjusts them with
    /// ``NetworkResourceType/transferOptions(_:)``.
    public let options: TransferOptions
    /// The pipeline the service was made from, or `nil` for one made with
    /// ``init(session:options:)``.
    public let pipeline: ResourcePipeline?

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - session: The transport. Default: ``URLSessionTransport/shared``, which enforces every
    ///     limit as the transfer happens. Tests inject a `FakeURLSession`. With a plain
    ///     `URLSession`, the size limit is checked only once the whole body has arrived, and
    ///     redirects follow the platform's rules.
    ///   - options: Limits for every transfer. Default: `TransferOptions()`, whose
    ///     ``TransferOptions/deadline`` is 60 seconds, ``TransferOptions/maximumResponseBytes``
    ///     32 MiB and ``TransferOptions/maximumRedirects`` 10.
    public init(
        session: any HTTPTransport = URLSessionTransport.shared,
        options: TransferOptions = TransferOptions()
    ) {
        self.session = session
        self.options = options
        self.pipeline = nil
    }

    /// Creates a service that fetches through `pipeline`: its transport, its options, its
    /// adapters and its monitors.
    ///
    /// Make as many services as there are resource types from one pipeline; they share all of
    /// it. ``session`` and ``options`` are the pipeline's.
    public init(pipeline: ResourcePipeline) {
        self.session = pipeline.session
        self.options = pipeline.options
        self.pipeline = pipeline
    }

    /// Fetches `resource` and delivers the outcome exactly once on `callbackQueue`.
    ///
    /// - Parameters:
    ///   - resource: What to fetch.
    ///   - callbackQueue: Where `completion` runs. ``ResourceServiceType/fetch(_:completion:)``
    ///     uses the main queue.
    ///   - completion: Receives the model or the ``ResourceError``.
    /// - Returns: A handle that cancels the fetch; `completion` then receives
    ///   ``ResourceError/cancelled`` (unless the response has already arrived: the outcome is
    ///   then what parsing makes of it).
    @discardableResult
    public func fetch(
        _ resource: Resource,
        callbackQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<Resource.Model, ResourceError>) -> Void
    ) -> any Cancellable {
        let fetch = pipelineFetch(for: resource)
        var observer: (@Sendable (Result<Resource.Model, ResourceError>) -> Void)?
        if let fetch { observer = { fetch.finished(with: $0) } }
        let pending = PendingFetch<Resource.Model>(callbackQueue: callbackQueue, completion: completion, observer: observer)
        let request: URLRequest
        do {
            request = try resource.urlRequest()
        } catch {
            pending.finish(.failure(error))
            return pending
        }
        fetch?.built(request)
        let options = resource.transferOptions(self.options)
        // The body is parsed on the callback queue itself, one dispatch from the transport's
        // queue, and the completion called right there. The main queue is the exception: it is
        // the app's, so parsing happens on a global queue and only the completion runs on main.
        let parsesOnCallbackQueue = !callbackQueue.isMain
        let parsingQueue = parsesOnCallbackQueue ? callbackQueue : .global()
        pending.run(request, plan: plan(for: resource, options: options, fetch: fetch), session: session, fetch: fetch) { answer in
            // The answer ends the transfer: the deadline stops, and from here the fetch ends with
            // what is made of the answer, as an `async` fetch does.
            guard pending.acceptAnswer() else { return }
            parsingQueue.async {
                let result = Self.model(from: answer, for: resource, options: options, fetch: fetch)
                if parsesOnCallbackQueue {
                    pending.finishOnCallbackQueue(result)
                } else {
                    pending.finish(result)
                }
            }
        }
        return pending
    }

    /// Fetches `resource` and returns its model.
    ///
    /// The transport's answer resumes this function directly and the body is parsed here, on
    /// the global concurrent executor (this method is not isolated to the caller's actor), never
    /// on the transport's queue. Cancelling the calling task cancels the fetch, which then
    /// throws ``ResourceError/cancelled`` (unless the response has already arrived: the outcome
    /// is then what parsing makes of it).
    public func fetch(_ resource: Resource) async throws(ResourceError) -> Resource.Model {
        guard let fetch = pipelineFetch(for: resource) else {
            return try await run(resource, fetch: nil).get()
        }
        let result = await run(resource, fetch: fetch)
        fetch.finished(with: result)
        return try result.get()
    }

    /// The `async` fetch of `resource`, from building the request to the model; `progress`
    /// receives the progress of both bodies when given.
    func run(
        _ resource: Resource,
        fetch: PipelineFetch?,
        progress: TransferProgressReporter? = nil
    ) async -> Result<Resource.Model, ResourceError> {
        if Task.isCancelled { return .failure(.cancelled) }
        let request: URLRequest
        do {
            request = try resource.urlRequest()
        } catch {
            return .failure(error)
        }
        fetch?.built(request)
        let options = resource.transferOptions(self.options)
        var plan = plan(for: resource, options: options, fetch: fetch)
        if let progress { plan.makeReceiver = ProgressReportingReceiver.factory(reporting: progress) }
        let answer = await FetchCore.awaiting(request, plan: plan, session: session, fetch: fetch)
        return Self.model(from: answer, for: resource, options: options, fetch: fetch)
    }

    /// The model made of the fetch's answer: validated and parsed (steps 3 to 6), timed and
    /// reported to the monitors when the fetch runs through a pipeline's hooks.
    private static func model(
        from answer: Result<FetchAnswer, ResourceError>,
        for resource: Resource,
        options: TransferOptions,
        fetch: PipelineFetch?
    ) -> Result<Resource.Model, ResourceError> {
        let last: FetchAnswer
        switch answer {
        case .success(let success):
            last = success
        case .failure(let error):
            return .failure(error)
        }
        guard let fetch else { return process(.success((last.data, last.response)), for: resource, options: options) }
        return fetch.makeModel { process(.success((last.data, last.response)), for: resource, options: options) }
    }

    /// Steps 3 to 6 of the pipeline: from the transport's answer to the model.
    static func process(
        _ answer: Result<(Data, ResponseHead), any Error>,
        for resource: Resource,
        options: TransferOptions
    ) -> Result<Resource.Model, ResourceError> {
        let data: Data
        let head: ResponseHead
        switch answer {
        case .success(let success):
            (data, head) = success
        case .failure(let error):
            return .failure(ResourceError(transportError: error))
        }
        // A `ResponseHead` as it is; an `HTTPURLResponse` only for a resource that takes one.
        guard let response = Resource.ValidatedResponse.validatable(from: head) else {
            return .failure(.transport(.badServerResponse, underlying: URLError(.badServerResponse)))
        }
        do {
            try resource.validate(response, data: data)
        } catch {
            return .failure(error)
        }
        return reusableResult(from: data, head: head, for: resource)
    }
}
