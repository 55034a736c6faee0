import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Transforms a request before it is sent: adds a credential, a header every request needs,
/// a signature.
///
/// A ``ResourcePipeline`` runs its adapters in order after ``NetworkResourceType/urlRequest()``
/// and before each attempt, each one given what the one before returned. Adapters may suspend
/// (to read a token from a keychain or an actor) and may throw:
///
/// ```swift
/// struct BearerTokenAdapter: RequestAdapter {
///     let tokens: TokenStore
///
///     func adapt(_ request: URLRequest) async throws -> URLRequest {
///         var request = request
///         request.setValue("Bearer \(await tokens.current())", forHTTPHeaderField: "Authorization")
///         return request
///     }
/// }
/// ```
///
/// An error thrown by an adapter ends the fetch with
/// ``ResourceError/requestAdaptationFailed(_:)``, which keeps it; nothing is sent. When the fetch
/// is cancelled, or its ``TransferOptions/deadline`` passes, while an adapter suspends, the fetch ends
/// at once with ``ResourceError/cancelled`` or ``ResourceError/timedOut`` and the adapter's task is
/// cancelled; what it returns or throws afterwards is ignored, and no adapter after it runs (nor
/// is a credential asked for).
///
/// A resource that must not be adapted (a login request must not carry the token it is asking
/// for) returns `false` from ``NetworkResourceType/usesPipelineAdapters``.
///
/// An adapter that never suspends conforms to ``SynchronousRequestAdapter`` instead, which lets
/// the pipeline make a fetch's first attempt without a task of its own.
public protocol RequestAdapter: Sendable {
    /// Returns `request` as it should be sent.
    ///
    /// - Throws: Any error; the fetch then fails with
    ///   ``ResourceError/requestAdaptationFailed(_:)``.
    func adapt(_ request: URLRequest) async throws -> URLRequest
}

/// A ``RequestAdapter`` made from a closure, for adapters that need no type of their own.
///
/// ```swift
/// let pipeline = ResourcePipeline(adapters: [
///     ClosureRequestAdapter { request in
///         var request = request
///         request.setValue("ResourceLoaderDemo/1.0", forHTTPHeaderField: "User-Agent")
///         return request
///     },
/// ])
/// ```
///
/// A closure that does not `await` makes a synchronous adapter, which the pipeline runs as it
/// runs a ``SynchronousRequestAdapter``: without a task when nothing else needs one.
public struct ClosureRequestAdapter: RequestAdapter {
    private enum Transform: Sendable {
        case synchronous(@Sendable (URLRequest) throws -> URLRequest)
        case suspending(@Sendable (URLRequest) async throws -> URLRequest)
    }

    private let transform: Transform

    /// Creates an adapter that returns what `transform` returns; `transform` may suspend.
    public init(_ transform: @escaping @Sendable (URLRequest) async throws -> URLRequest) {
        self.transform = .suspending(transform)
    }

    /// Creates a synchronous adapter that returns what `transform` returns.
    public init(_ transform: @escaping @Sendable (URLRequest) throws -> URLRequest) {
        self.transform = .synchronous(transform)
    }

    /// Returns `transform(request)`.
    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        switch transform {
        case .synchronous(let transform): try transform(request)
        case .suspending(let transform): try await transform(request)
        }
    }

    /// The closure of a synchronous adapter; `nil` for one that may suspend.
    var synchronousTransform: (@Sendable (URLRequest) throws -> URLRequest)? {
        if case .synchronous(let transform) = transform { return transform }
        return nil
    }
}
