import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers with a whole body at once: the older form of ``HTTPTransport``.
///
/// A type that conforms implements ``data(for:options:completionHandler:)`` (or
/// ``send(_:options:completionHandler:)``) and is an ``HTTPTransport`` through the default
/// ``HTTPTransport/startTransfer(_:options:receiver:)``, which hands the whole body to the receiver as one
/// piece once it has arrived. Code written against `URLSessionType` keeps compiling and working.
/// A new transport conforms to ``HTTPTransport`` itself, which streams the body, reports
/// progress and lets ``ResponseCollector`` stop a body that crosses the size limit as it arrives.
///
/// `URLSession`, ``URLSessionTransport`` and `FakeURLSession` conform to both.
///
/// Conforming types must call `completionHandler` exactly once, and must stop the work and
/// answer (typically with `URLError(.cancelled)`) when the returned ``Cancellable`` is
/// cancelled.
public protocol URLSessionType: HTTPTransport {
    /// Starts sending `request` and returns a handle that cancels it.
    ///
    /// Returns without waiting for the answer. A cancellation or deadline that arrives while
    /// this method runs is delivered to the service's caller once it has returned and its
    /// handle has been cancelled.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - options: Per-request limits. A transport enforces the ones it can observe; the ones it
    ///     cannot are enforced by the service around it (see ``TransferOptions``).
    ///   - completionHandler: Called exactly once with the body and response, or the error.
    func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable

    /// Starts sending `request`, answering with the body and the response's ``ResponseHead``;
    /// returns a handle that cancels it. The default ``HTTPTransport/startTransfer(_:options:receiver:)`` sends
    /// every request through this.
    ///
    /// The default calls ``data(for:options:completionHandler:)`` and reads its
    /// `HTTPURLResponse` as a head; a response that is not an HTTP one is answered with
    /// `URLError(.badServerResponse)`. A transport whose responses do not start as
    /// `HTTPURLResponse`s (`AsyncHTTPClientTransport`, for one) implements it to hand over the
    /// status and fields without making one, which is costly on Linux.
    ///
    /// The same contract as ``data(for:options:completionHandler:)``: `completionHandler` is
    /// called exactly once, and cancelling the handle stops the work.
    func send(
        _ request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) -> any Cancellable
}

// MARK: - Default implementations

extension URLSessionType {
    /// Sends `request` with ``send(_:options:completionHandler:)`` and hands the answer to
    /// `receiver`: the head, the whole body as one piece, and the end.
    public func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable {
        send(request, options: options) { answer in
            switch answer {
            case .failure(let error):
                receiver.transferDidComplete(with: error)
            case .success(let (body, head)):
                var decision = receiver.transferDidReceive(head: head)
                if case .proceed = decision, !body.isEmpty { decision = receiver.transferDidReceive(body) }
                if case .stop(let error) = decision {
                    receiver.transferDidComplete(with: error)
                } else {
                    receiver.transferDidComplete(with: nil)
                }
            }
        }
    }

    /// Calls ``data(for:options:completionHandler:)`` and answers with the `HTTPURLResponse` as a
    /// ``ResponseHead``, or with `URLError(.badServerResponse)` for any other response.
    public func send(
        _ request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) -> any Cancellable {
        data(for: request, options: options) { answer in
            completionHandler(answer.flatMap(ResponseHead.answer))
        }
    }
}

extension ResponseHead {
    /// A transport's answer with its `HTTPURLResponse` read as a head; any other response is
    /// `URLError(.badServerResponse)`.
    static func answer(_ answer: (Data, URLResponse)) -> Result<(Data, ResponseHead), any Error> {
        guard let response = answer.1 as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
        return .success((answer.0, ResponseHead(response)))
    }
}

extension URLSession: URLSessionType {
    /// Sends `request` with a data task and resumes it.
    ///
    /// A plain session enforces none of `options` itself: ``ResourceService`` enforces the
    /// deadline around it and ``ResponseCollector`` checks ``TransferOptions/maximumResponseBytes``
    /// once the whole body has arrived (so the body is held in memory first), and redirects
    /// follow the platform's rules, which on Linux forward `Authorization` and `Cookie` to any origin and
    /// allow `https` to `http`. Only ``URLSessionTransport`` bounds memory and redirects.
    ///
    /// On Linux, a session whose configuration has a `urlCache` (every standard configuration
    /// does) cannot have its tasks cancelled safely: FoundationNetworking traps when a cancel
    /// lands while it is still looking the request up in the cache. Cancelling the returned
    /// handle then leaves the task to run until the server answers or the session's timeout
    /// passes; the fetch itself ends at once. ``URLSessionTransport`` keeps no `urlCache`, and
    /// its cancellation stops the transfer.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        let task = dataTask(with: request) { data, response, error in
            if let response, error == nil {
                completionHandler(.success((data ?? Data(), response)))
            } else {
                completionHandler(.failure(error ?? URLError(.badServerResponse)))
            }
        }
        task.resume()
        #if canImport(FoundationNetworking)
        if configuration.urlCache != nil { return AbandonedTask() }
        #endif
        return task
    }
}

#if canImport(FoundationNetworking)
/// The handle of a task that cannot be cancelled safely: cancelling it does nothing, and the
/// task runs to its end.
private final class AbandonedTask: Cancellable {
    func cancel() {}
}
#endif
