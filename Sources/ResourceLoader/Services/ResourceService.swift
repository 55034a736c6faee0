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
/// Parsing runs on a global queue, never on the session's delegate queue, so large responses do
/// not hold up other requests. Every fetch has exactly one outcome.
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
        let request: URLRequest
        do {
            request = try resource.urlRequest()
        } catch {
            pending.finish(.failure(error))
            return pending
        }
        let options = resource.transferOptions(self.options)
        if let deadline = options.deadline {
            pending.startDeadline(deadline)
        }
        let transfer = session.data(for: request, options: options) { [pending] answer in
            guard !pending.isFinished else { return }
            DispatchQueue.global().async {
                guard !pending.isFinished else { return }
                pending.finish(Self.process(answer, for: resource, options: options))
            }
        }
        pending.attach(transfer)
        return pending
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
