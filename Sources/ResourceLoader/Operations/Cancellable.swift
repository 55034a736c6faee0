import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Something in flight that can be asked to stop.
///
/// Every fetch in ResourceLoader returns a `Cancellable`. Calling ``cancel()`` more than once, or
/// after the work has finished, does nothing.
public protocol Cancellable: AnyObject, Sendable {
    /// Asks the work to stop. Safe to call from any thread, any number of times.
    func cancel()
}

extension URLSessionTask: Cancellable {}
