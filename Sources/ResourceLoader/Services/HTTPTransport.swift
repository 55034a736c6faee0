import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport a service sends requests through: a request goes in, and the response's head
/// and body come out as they arrive.
///
/// ``URLSessionTransport`` (the default), `AsyncHTTPClientTransport`, `FakeURLSession` and a
/// plain `URLSession` conform. So can anything that sends HTTP requests: a session with a
/// delegate of your own, a recorder, a cache.
///
/// A transport hands what arrives to a ``TransferReceiver``, in this order and never two calls
/// at once:
/// 1. ``TransferReceiver/transferDidSend(_:of:)`` as the request body goes out (optional);
/// 2. ``TransferReceiver/transferDidReceive(head:)`` once, for the final response (after any
///    redirects);
/// 3. ``TransferReceiver/transferDidReceive(_:)`` for each piece of the body, in order;
/// 4. ``TransferReceiver/transferDidComplete(with:)`` exactly once: `nil` after the whole body,
///    or the error that ended the transfer, with or without a head before it.
///
/// When the receiver answers ``TransferDecision/stop(_:)``, the transport calls nothing more but
/// ``TransferReceiver/transferDidComplete(with:)`` with that error, and stops the transfer. When
/// the returned handle is cancelled, the transport stops the transfer and completes (with
/// `URLError(.cancelled)`, typically); it may complete late, but it completes once.
///
/// The receiver's methods may run on any thread, the transport's own included; a receiver does
/// little in them and never blocks. ``ResponseCollector`` is the receiver that collects a whole
/// body within a size limit; ``ResourceService`` uses it for every fetch.
///
/// The transfer rules every transport keeps (redirects, credentials across origins, content
/// codings, `Content-Length` framing) are written once, in ``TransferRules``: a transport calls
/// them rather than keeping a copy. A transport that wraps another (a recorder, say) passes the
/// request on and wraps the receiver, and so keeps every rule of the one it wraps.
public protocol HTTPTransport: Sendable {
    /// Starts sending `request` and returns a handle that cancels it; what arrives goes to
    /// `receiver`.
    ///
    /// Returns without waiting for the answer. The request's body is its `httpBody`, or its
    /// `httpBodyStream`, which can be read only once (a redirect that must send it again is
    /// refused with ``ResourceError/RedirectRefusal/unrepeatableBody``).
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - options: Per-request limits. A transport enforces the redirect limit; the size limit
    ///     is the receiver's (``ResponseCollector`` enforces it as bytes arrive), and the deadline
    ///     is the service's.
    ///   - receiver: Receives the response's head, its body and the end of the transfer.
    func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable
}

/// What a transport hands the response to, piece by piece: see ``HTTPTransport`` for the order
/// of the calls.
///
/// Calls never overlap, and a receiver's methods may run on any thread: they must not block.
public protocol TransferReceiver: AnyObject, Sendable {
    /// Reports that `sent` bytes of the request body have gone out, of `expected` (`nil` when the
    /// length is unknown). Called zero or more times, with growing counts, before the head. It
    /// has no default, so that a receiver that wraps another cannot drop it unawares.
    func transferDidSend(_ sent: Int64, of expected: Int64?)

    /// Receives the final response's head; answers whether the transfer goes on.
    func transferDidReceive(head: ResponseHead) -> TransferDecision

    /// Receives the next piece of the body; answers whether the transfer goes on.
    func transferDidReceive(_ chunk: Data) -> TransferDecision

    /// Reports that `codedByteCount` more bytes of a content-coded body (`gzip`, say) arrived,
    /// counted as they were on the wire, before the decoded bytes they make.
    ///
    /// A receiver that decodes the body before handing it on
    /// (``TransferRules/decodingContent(for:limit:)``) calls it once with `0` as soon as the
    /// head it handed on was accepted, so that the next receiver knows coded counts follow, and
    /// then for each piece it receives, before handing on what the piece decodes to. Progress
    /// counts these bytes (``TransferProgress/Counting/wireBytes``). A receiver that wraps another
    /// hands the call on; any other ignores it. It has no default, so that a receiver that wraps
    /// another cannot drop it unawares.
    func transferDidReceive(codedByteCount: Int)

    /// Ends the transfer: `nil` once the whole body has arrived, or the error that ended it.
    /// Called exactly once.
    func transferDidComplete(with error: (any Error)?)
}

/// What a ``TransferReceiver`` decides about a transfer after a head or a piece of the body.
public enum TransferDecision: Sendable {
    /// Go on.
    case proceed
    /// Stop the transfer: the transport completes it with this error and delivers nothing more.
    case stop(ResourceError)
}
