import ExampleResources
import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `ResourceError` `body` throws, or `nil` when it returns (or throws another error, which
/// the facade's typed throws rule out).
func resourceError<T>(_ body: () async throws -> T) async -> ResourceError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? ResourceError
    }
}

/// Collects what a pipeline's monitors are told, and the logging monitor's lines.
final class FetchRecorder: FetchMonitor, @unchecked Sendable {
    // `lock` guards `sent`, `retries` and `lines`.
    private let lock = NSLock()
    private var sent: [URLRequest] = []
    private var retries: [FetchEvent.RetryScheduled] = []
    private var lines: [String] = []

    func attemptSent(_ event: FetchEvent.AttemptSent) {
        lock.withLock { sent.append(event.request) }
    }

    func retryScheduled(_ event: FetchEvent.RetryScheduled) {
        lock.withLock { retries.append(event) }
    }

    /// A sink for `WorldDirectory`'s `log`.
    var log: @Sendable (String) -> Void {
        { [self] line in lock.withLock { lines.append(line) } }
    }

    /// The requests handed to the transport, in order.
    var sentRequests: [URLRequest] { lock.withLock { sent } }
    /// The retries and replays scheduled, in order.
    var scheduledRetries: [FetchEvent.RetryScheduled] { lock.withLock { retries } }
    /// The logging monitor's lines, in order.
    var logLines: [String] { lock.withLock { lines } }
}

/// Keeps a token in memory.
final class MemoryTokenStorage: TokenStorage, @unchecked Sendable {
    // `lock` guards `token`.
    private let lock = NSLock()
    private var token: OAuthToken?

    func loadToken() -> OAuthToken? { lock.withLock { token } }
    func saveToken(_ token: OAuthToken?) { lock.withLock { self.token = token } }
}

/// A storage that reports every save (`nil` for a removal) after passing it on, so that a test
/// can wait for the directory's saves, which happen on a task of their own.
final class WatchedTokenStorage<Base: TokenStorage>: TokenStorage {
    let base: Base
    let saves: AsyncStream<OAuthToken?>
    private let continuation: AsyncStream<OAuthToken?>.Continuation

    init(_ base: Base) {
        self.base = base
        (saves, continuation) = AsyncStream.makeStream()
    }

    func loadToken() -> OAuthToken? { base.loadToken() }

    func saveToken(_ token: OAuthToken?) {
        base.saveToken(token)
        continuation.yield(token)
    }
}
