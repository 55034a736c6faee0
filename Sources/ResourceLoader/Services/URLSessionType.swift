import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport a service sends requests through.
///
/// ``URLSessionTransport`` (the default) and `URLSession` conform, and so does `FakeURLSession`
/// from the `ResourceLoaderTesting` library, which tests inject in its place. Anything that can take a `URLRequest` and eventually answer
/// with bytes and a response can conform: a session with a delegate, a recording proxy, a cache.
///
/// Conforming types must call `completionHandler` exactly once, and must stop the work and
/// answer (typically with `URLError(.cancelled)`) when the returned ``Cancellable`` is
/// cancelled. ``ResourceService`` guarantees its own callers exactly one outcome even when a
/// transport answers late or twice, but a well-behaved transport frees its resources promptly.
public protocol URLSessionType: Sendable {
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
}

extension URLSession: URLSessionType {
    /// Sends `request` with a data task and resumes it.
    ///
    /// A plain session enforces none of `options` itself: ``ResourceService`` enforces the
    /// deadline around it and checks ``TransferOptions/maximumResponseBytes`` once the whole
    /// body has arrived (so the body is held in memory first), and redirects follow the
    /// platform's rules, which on Linux forward `Authorization` and `Cookie` to any origin and
    /// allow `https` to `http`. Only ``URLSessionTransport`` bounds memory and redirects.
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
        return task
    }
}
