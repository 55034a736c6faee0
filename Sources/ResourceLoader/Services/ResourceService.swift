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
/// Every fetch goes one way through the same steps:
/// 1. ``NetworkResourceType/urlRequest()`` builds the request, and
///    ``NetworkResourceType/transferOptions(_:)`` its limits from the service's ``options``;
/// 2. the ``URLSessionType`` sends it, within the ``TransferOptions/deadline``;
/// 3. the body must be within ``TransferOptions/maximumResponseBytes`` and the response must be
///    an `HTTPURLResponse`;
/// 4. ``NetworkResourceType/validate(_:data:)`` checks the status (and, for SOAP, Faults);
/// 5. ``DataResourceType/serviceError(in:)`` looks for a service-level error in the body;
/// 6. ``DataResourceType/model(from:)`` makes the model.
///
/// Parsing never runs on the transport's queue, so large responses do not hold up other
/// requests: it runs on the callback queue you pass (a global queue when that is the main queue)
/// or, for `async` fetches, on a global queue. Every fetch has exactly one outcome.
public struct ResourceService<Resource: NetworkResourceType & DataResourceType>: ResourceServiceType {
    /// The transport requests are sent through.
    public let session: any URLSessionType
    /// The limits applied to every transfer, unless a resource adjusts them with
    /// ``NetworkResourceType/transferOptions(_:)``.
    public let options: TransferOptions

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
        session: any URLSessionType = URLSessionTransport.shared,
        options: TransferOptions = TransferOptions()
    ) {
        self.session = session
        self.options = options
    }

    /// Fetches `resource` and delivers the outcome exactly once on `callbackQueue`.
    ///
    /// - Parameters:
    ///   - resource: What to fetch.
    ///   - callbackQueue: Where `completion` runs. ``ResourceServiceType/fetch(_:completion:)``
    ///     uses the main queue.
    ///   - completion: Receives the model or the ``ResourceError``.
    /// - Returns: A handle that cancels the fetch; `completion` then receives
    ///   ``ResourceError/cancelled`` (unless an outcome was already delivered).
    @discardableResult
    public func fetch(
        _ resource: Resource,
        callbackQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<Resource.Model, ResourceError>) -> Void
    ) -> any Cancellable {
        let pending = PendingFetch(callbackQueue: callbackQueue, completion: completion)
        // The body is parsed on the callback queue itself, one dispatch from the transport's
        // queue, and the completion called right there. The main queue is the exception: it is
        // the app's, so parsing happens on a global queue and only the completion runs on main.
        if callbackQueue.isMain {
            start(resource, pending: pending, parsingQueue: .global(), parsesOnCallbackQueue: false)
        } else {
            start(resource, pending: pending, parsingQueue: callbackQueue, parsesOnCallbackQueue: true)
        }
        return pending
    }

    /// Fetches `resource` and returns its model.
    ///
    /// The body is parsed on a global queue, never on the calling task's executor or the
    /// transport's queue. Cancelling the calling task cancels the fetch, which then throws
    /// ``ResourceError/cancelled``.
    public func fetch(_ resource: Resource) async throws(ResourceError) -> Resource.Model {
        if Task.isCancelled { throw .cancelled }
        let forwarder = CancellationForwarder()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let pending = PendingFetch<Resource.Model>(callbackQueue: nil) { continuation.resume(returning: $0) }
                start(resource, pending: pending, parsingQueue: .global(), parsesOnCallbackQueue: false)
                forwarder.forward(to: pending)
            }
        } onCancel: {
            forwarder.cancel()
        }
        return try result.get()
    }

    /// Steps 1 and 2 of the pipeline: builds the request and sends it; the answer is processed
    /// on `parsingQueue` and finishes `pending`.
    private func start(
        _ resource: Resource,
        pending: PendingFetch<Resource.Model>,
        parsingQueue: DispatchQueue,
        parsesOnCallbackQueue: Bool
    ) {
        let request: URLRequest
        do {
            request = try resource.urlRequest()
        } catch {
            pending.finish(.failure(error))
            return
        }
        let options = resource.transferOptions(self.options)
        if let deadline = options.deadline {
            pending.startDeadline(deadline)
        }
        let transfer = session.data(for: request, options: options) { [pending] answer in
            guard !pending.isFinished else { return }
            parsingQueue.async {
                guard !pending.isFinished else { return }
                let result = Self.process(answer, for: resource, options: options)
                if parsesOnCallbackQueue {
                    pending.finishOnCallbackQueue(result)
                } else {
                    pending.finish(result)
                }
            }
        }
        pending.attach(transfer)
    }

    /// Steps 3 to 6 of the pipeline: from the transport's answer to the model.
    static func process(
        _ answer: Result<(Data, URLResponse), any Error>,
        for resource: Resource,
        options: TransferOptions
    ) -> Result<Resource.Model, ResourceError> {
        let data: Data
        let response: URLResponse
        switch answer {
        case .success(let success):
            (data, response) = success
        case .failure(let error):
            return .failure(ResourceError(transportError: error))
        }
        // Transports that do not enforce the limit as bytes arrive are held to it here.
        guard data.count <= options.maximumResponseBytes else {
            return .failure(.responseTooLarge(limit: options.maximumResponseBytes))
        }
        guard let httpResponse = response as? HTTPURLResponse else {
            return .failure(.transport(.badServerResponse, underlying: URLError(.badServerResponse)))
        }
        do {
            try resource.validate(httpResponse, data: data)
        } catch {
            return .failure(error)
        }
        return resource.result(from: data, statusCode: httpResponse.statusCode)
    }
}
