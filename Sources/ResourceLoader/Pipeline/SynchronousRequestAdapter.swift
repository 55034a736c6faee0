import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``RequestAdapter`` that never suspends: it adds a header, a static token or a signature
/// from what it already holds.
///
/// A pipeline whose adapters are all synchronous, and whose credential (if it has a
/// ``CredentialStore``) is ready, makes the first attempt of a fetch without a task of its own:
/// the adapters run on the thread that starts the fetch, and the request goes straight to the
/// transport. Keep `adapt(_:)` quick and never block in it. A retry, a refresh or a replay still
/// waits in a task, as it does for every pipeline.
///
/// ```swift
/// struct UserAgentAdapter: SynchronousRequestAdapter {
///     func adapt(_ request: URLRequest) throws -> URLRequest {
///         var request = request
///         request.setValue("ResourceLoaderDemo/1.0", forHTTPHeaderField: "User-Agent")
///         return request
///     }
/// }
/// ```
///
/// An error it throws ends the fetch with ``ResourceError/requestAdaptationFailed(_:)`` and
/// nothing is sent. Nothing can interrupt a synchronous adapter: a completion-handler fetch whose
/// deadline passes while it runs still completes at the deadline with
/// ``ResourceError/timedOut``, but an `async` fetch runs the adapter in the calling task, which
/// returns only once the adapter does. Either way a fetch cancelled or past its deadline by then
/// sends nothing.
public protocol SynchronousRequestAdapter: RequestAdapter {
    /// Returns `request` as it should be sent, without suspending.
    ///
    /// - Throws: Any error; the fetch then fails with
    ///   ``ResourceError/requestAdaptationFailed(_:)``.
    ///
    /// This one method also serves as ``RequestAdapter``'s `async` requirement.
    func adapt(_ request: URLRequest) throws -> URLRequest
}

