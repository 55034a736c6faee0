/// Limits that apply to one fetch, from its start to the last byte of its response.
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
/// | ``maximumResponseBytes`` | 32 MiB | ``ResponseCollector``, as bytes arrive, for every transport |
/// | ``maximumRedirects`` | 10 | the transport, through ``TransferRules`` |
/// | ``maximumDownloadBytes`` | 16 GiB | ``DownloadService``, as bytes are written to the file, for every transport |
///
/// The transports of the library also keep rules that are not options, written once in
/// ``TransferRules``: no redirect from `https` to `http` or to anything but `http` and `https`
/// URLs; the body sent again on a `307` or `308` and dropped, with the header fields that describe
/// it, where RFC 9110 turns the request into a `GET`; the ``TransferRules/credentialHeaderFields``
/// (`Authorization`, `Proxy-Authorization`, `Cookie`) kept to their origin; a request body sent
/// again only to its origin, unless ``sendsBodyToAnotherOrigin`` says otherwise; no content coding
/// unless a request names its own `Accept-Encoding`, and a coded response it did not ask for
/// refused; and conflicting `Content-Length` fields refused.
public struct TransferOptions: Sendable, Hashable {
    /// The default ``deadline``: 60 seconds.
    public static let defaultDeadline: Duration = .seconds(60)
    /// The default ``maximumResponseBytes``: 32 MiB.
    public static let defaultMaximumResponseBytes = 32 * 1024 * 1024
    /// The default ``maximumRedirects``: 10.
    public static let defaultMaximumRedirects = 10
    /// The default ``maximumDownloadBytes``: 16 GiB.
    public static let defaultMaximumDownloadBytes: Int64 = 16 * 1024 * 1024 * 1024

    /// The longest a whole transfer may take, or `nil` for no limit beyond the request's idle
    /// timeout. Default: ``defaultDeadline`` (60 seconds).
    ///
    /// Unlike `URLRequest.timeoutInterval`, which restarts whenever a byte arrives, the deadline
    /// bounds the total time: a server that trickles a byte a second cannot keep a request alive
    /// past it. When it passes, the transfer is cancelled and the fetch fails with
    /// ``ResourceError/timedOut``. ``ResourceService`` enforces it for every transport. For a
    /// service made from a ``ResourcePipeline`` with request adapters, the deadline starts
    /// before the adapters run, so it bounds them too: a slow adapter ends the fetch with
    /// ``ResourceError/timedOut`` at the deadline. The transfer is cancelled before the fetch
    /// fails, so a transport whose `cancel()` waits ends the fetch late; the library's
    /// transports return from it at once.
    public var deadline: Duration?

    /// The largest response body accepted, in bytes. Default: ``defaultMaximumResponseBytes``
    /// (32 MiB).
    ///
    /// A larger body fails the fetch with ``ResourceError/responseTooLarge(limit:)``. Every fetch
    /// collects its body with a ``ResponseCollector``, which bounds memory: a declared
    /// `Content-Length` over the limit fails before the body is read, and a body without one is
    /// stopped as soon as it crosses the limit. A transport that answers with a whole body at once
    /// (a plain `URLSession`, a ``URLSessionType``) hands it over only once it has all arrived.
    /// Bytes are counted after any content decoding, so a compressed body cannot expand past the
    /// limit.
    public var maximumResponseBytes: Int

    /// The most redirects one request may follow. Default: ``defaultMaximumRedirects`` (10).
    ///
    /// One more fails the fetch with ``ResourceError/redirectRefused(_:)`` and
    /// ``ResourceError/RedirectRefusal/tooManyRedirects(limit:)``; `0` refuses every redirect.
    /// Enforced by the transport (``TransferRules/redirect(statusCode:location:after:original:redirectsFollowed:options:)``).
    /// A plain `URLSession` follows its platform's own policy; the platforms also stop chains of
    /// their own accord somewhere above 10 hops, with ``ResourceError/transport(_:underlying:)``
    /// and `URLError.Code.httpTooManyRedirects`.
    public var maximumRedirects: Int

    /// The largest body a download (a ``DownloadResourceType`` fetched by a
    /// ``DownloadService``) writes to its file, in bytes, counting the bytes of a partial file it
    /// resumes. Default: ``defaultMaximumDownloadBytes`` (16 GiB).
    ///
    /// A download's body goes to disk, not to memory, so it has this limit of its own instead of
    /// ``maximumResponseBytes`` (which still bounds the body of an error answer, kept in memory).
    /// A declared `Content-Length` over it fails before the body is read, and a body without one
    /// is stopped as soon as it crosses it, with ``ResourceError/responseTooLarge(limit:)``; the
    /// temporary file is removed, even when the resource keeps partial files.
    public var maximumDownloadBytes: Int64

    /// Whether a redirect to another origin (scheme, host and port) may send the request body
    /// again. Default: `false`.
    ///
    /// A `307` or `308` (or a `301` or `302` answering a method other than `POST`) asks for the
    /// same method and body again. A body carries credentials as often as a header does (a
    /// password or refresh token in a form, a WS-Security `UsernameToken` or signature in a SOAP
    /// envelope), and the header fields that carry them never follow a redirect to another
    /// origin (``TransferRules/credentialHeaderFields``); so, by default, such a redirect of a
    /// request with a non-empty body is refused with ``ResourceError/redirectRefused(_:)`` and
    /// ``ResourceError/RedirectRefusal/bodyToAnotherOrigin`` before anything is sent there. Set
    /// it for a resource whose body holds no secret and whose server moves it to another origin.
    /// A redirect that drops the body (a `303`, or a `301` or `302` answering a `POST`) and a
    /// redirect within the origin are followed either way. Enforced by the transport
    /// (``TransferRules/redirect(statusCode:location:after:original:redirectsFollowed:options:)``).
    public var sendsBodyToAnotherOrigin: Bool

    /// Creates options. With no arguments, every limit has its default.
    ///
    /// - Parameters:
    ///   - deadline: The longest a whole transfer may take; `nil` for no limit.
    ///   - maximumResponseBytes: The largest response body accepted, in bytes.
    ///   - maximumRedirects: The most redirects one request may follow.
    ///   - maximumDownloadBytes: The largest body a download writes to its file, in bytes.
    ///   - sendsBodyToAnotherOrigin: Whether a redirect to another origin may send the request
    ///     body again.
    public init(
        deadline: Duration? = TransferOptions.defaultDeadline,
        maximumResponseBytes: Int = TransferOptions.defaultMaximumResponseBytes,
        maximumRedirects: Int = TransferOptions.defaultMaximumRedirects,
        maximumDownloadBytes: Int64 = TransferOptions.defaultMaximumDownloadBytes,
        sendsBodyToAnotherOrigin: Bool = false
    ) {
        self.deadline = deadline
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumRedirects = maximumRedirects
        self.maximumDownloadBytes = maximumDownloadBytes
        self.sendsBodyToAnotherOrigin = sendsBodyToAnotherOrigin
    }
}
