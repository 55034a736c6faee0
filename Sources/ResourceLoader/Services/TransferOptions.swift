/// Limits that apply to one transfer, from sending the request to the last byte of the response.
///
/// A service has default options and passes them to its transport with every request; a resource
/// can adjust them for its own requests with ``NetworkResourceType/transferOptions(_:)``.
///
/// ```swift
/// let service = ResourceService<Cities>(options: TransferOptions(deadline: .seconds(10)))
/// ```
///
/// | Limit | Default | Enforced by |
/// | --- | --- | --- |
/// | ``deadline`` | 60 seconds | ``ResourceService``, for every transport |
/// | ``maximumResponseBytes`` | 32 MiB | ``URLSessionTransport`` as bytes arrive; ``ResourceService`` after the fact for other transports |
/// | ``maximumRedirects`` | 10 | ``URLSessionTransport`` |
///
/// ``URLSessionTransport`` also keeps rules that are not options: it refuses redirects from
/// `https` to `http` and to anything but `http` and `https` URLs; sends the body again on a `307`
/// or `308` and drops it, with the header fields that describe it, where RFC 9110 turns the
/// request into a `GET`; does not forward the ``URLSessionTransport/credentialHeaderFields``
/// (`Authorization`, `Proxy-Authorization`, `Cookie`) to another origin; asks for responses
/// without content coding unless a request names its own `Accept-Encoding`, and refuses a coded
/// response it did not ask for; and refuses conflicting `Content-Length` fields.
public struct TransferOptions: Sendable, Hashable {
    /// The default ``deadline``: 60 seconds.
    public static let defaultDeadline: Duration = .seconds(60)
    /// The default ``maximumResponseBytes``: 32 MiB.
    public static let defaultMaximumResponseBytes = 32 * 1024 * 1024
    /// The default ``maximumRedirects``: 10.
    public static let defaultMaximumRedirects = 10

    /// The longest a whole transfer may take, or `nil` for no limit beyond the request's idle
    /// timeout. Default: ``defaultDeadline`` (60 seconds).
    ///
    /// Unlike `URLRequest.timeoutInterval`, which restarts whenever a byte arrives, the deadline
    /// bounds the total time: a server that trickles a byte a second cannot keep a request alive
    /// past it. When it passes, the transfer is cancelled and the fetch fails with
    /// ``ResourceError/timedOut``. ``ResourceService`` enforces it for every transport. For a
    /// service made from a ``ResourcePipeline`` with request adapters, the deadline starts
    /// before the adapters run, so it bounds them too: a slow adapter ends the fetch with
    /// ``ResourceError/timedOut`` at the deadline.
    public var deadline: Duration?

    /// The largest response body accepted, in bytes. Default: ``defaultMaximumResponseBytes``
    /// (32 MiB).
    ///
    /// A larger body fails the fetch with ``ResourceError/responseTooLarge(limit:)``.
    /// ``URLSessionTransport`` bounds memory: a declared `Content-Length` over the limit fails
    /// before the body is read, and a body without a declared length is cancelled as soon as it
    /// crosses the limit. With other transports (a plain `URLSession`, for example)
    /// ``ResourceService`` can only check the body once it has been received. Bytes are counted
    /// after any content decoding, so a compressed body cannot expand past the limit.
    /// (``URLSessionTransport`` asks for no compression unless a request sets `Accept-Encoding`
    /// itself; a plain `URLSession` asks for gzip and decodes it.)
    public var maximumResponseBytes: Int

    /// The most redirects one request may follow. Default: ``defaultMaximumRedirects`` (10).
    ///
    /// One more fails the fetch with ``ResourceError/redirectRefused(_:)`` and
    /// ``ResourceError/RedirectRefusal/tooManyRedirects(limit:)``; `0` refuses every redirect.
    /// Enforced by ``URLSessionTransport``. A plain `URLSession` follows its platform's own
    /// policy; the platforms also stop chains of their own accord somewhere above 10 hops, with
    /// ``ResourceError/transport(_:underlying:)`` and `URLError.Code.httpTooManyRedirects`.
    public var maximumRedirects: Int

    /// Creates options. With no arguments, every limit has its default.
    ///
    /// - Parameters:
    ///   - deadline: The longest a whole transfer may take; `nil` for no limit.
    ///   - maximumResponseBytes: The largest response body accepted, in bytes.
    ///   - maximumRedirects: The most redirects one request may follow.
    public init(
        deadline: Duration? = TransferOptions.defaultDeadline,
        maximumResponseBytes: Int = TransferOptions.defaultMaximumResponseBytes,
        maximumRedirects: Int = TransferOptions.defaultMaximumRedirects
    ) {
        self.deadline = deadline
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumRedirects = maximumRedirects
    }
}
