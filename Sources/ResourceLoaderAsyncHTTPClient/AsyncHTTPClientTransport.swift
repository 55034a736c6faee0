#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import ResourceLoader
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport over swift-server's AsyncHTTPClient: the server-side choice, which on Linux spends
/// a fraction of the CPU per request that `URLSession` does.
///
/// Available with the package trait `AsyncHTTPClient`, in the `ResourceLoaderAsyncHTTPClient`
/// product. It keeps the promises `URLSessionTransport` documents:
///
/// - **Size**: a declared `Content-Length` over `TransferOptions/maximumResponseBytes`
///   fails before the body is read; the body is counted as its parts arrive and the transfer is
///   stopped as soon as it crosses the limit, with `ResourceError/responseTooLarge(limit:)`.
///   Memory stays bounded.
/// - **Redirects**: AsyncHTTPClient never follows one itself. The transport follows them by
///   `TransferRules`: the limit of `TransferOptions/maximumRedirects`, no `https` → `http`, no
///   scheme but `http` and `https`, the method and body rules of RFC 9110, and
///   `TransferRules/credentialHeaderFields` only to the original origin.
///   (A redirect is recognised by its head, before AsyncHTTPClient's own redirect handling, so the
///   rules hold even for an injected client configured to follow redirects. Such a client would
///   also follow a `304` or `305` with a `Location`, which the transport does not: the answer is
///   that response, without its body.)
/// - **Compression**: a transport with a client of its own (``init(configuration:eventLoopGroup:)``
///   with decompression disabled, as in ``defaultConfiguration``, and ``shared``) asks for
///   `Accept-Encoding: gzip, deflate` when a request names none, and decodes the body itself as
///   it arrives (`TransferRules/decodingContent(for:limit:)`): gzip's CRC-32 and length and
///   zlib's Adler-32 are checked, so a corrupt or truncated body fails with
///   `ResourceError/transport(_:underlying:)` and `URLError.Code.cannotDecodeContentData`
///   (underlying a `ContentDecodingError`), and the decoded bytes count against the size limit as
///   they are produced, so a decompression bomb fails with `ResourceError/responseTooLarge(limit:)`.
///   A transport over an injected client, or a client with decompression enabled, asks for
///   `Accept-Encoding: identity` instead and leaves decoding to the client. Either way a response
///   in a content coding the request did not ask for fails with `URLError.Code.cannotDecodeContentData`.
/// - **Framing**: SwiftNIO's parser refuses any repeated `Content-Length` field, even with equal
///   values (which `URLSessionTransport` accepts; RFC 9112 allows either), and any malformed
///   response, with `URLError.Code.badServerResponse`.
/// - **Idle timeout**: `URLRequest.timeoutInterval` bounds the time without progress: a byte from
///   the server, or a piece of the request body written (on every hop: a body a `307` or `308`
///   sends again counts anew); it fails with `URLError.Code.timedOut`.
///   A request body counts each piece (256 KiB) it writes, as `URLSession` counts what it sends:
///   a file or stream body, and a body held in memory over 256 KiB, go out a piece at a time. A
///   smaller body in memory (up to 1 MiB on a client that traces, see below) goes out in one
///   buffer and counts once, when AsyncHTTPClient has written it whole.
/// - **Cancellation**: cancelling the returned handle answers `URLError(.cancelled)` at once and
///   stops the transfer, closing its connection.
/// - **One outcome**: the completion handler is called exactly once per request.
///
/// `ResourceService` enforces the `TransferOptions/deadline`
/// around it, as for every transport.
///
/// ```swift
/// import ResourceLoader
/// import ResourceLoaderAsyncHTTPClient
///
/// let service = ResourceService<Cities>(session: AsyncHTTPClientTransport.shared)
/// ```
///
/// ## The client's lifecycle
///
/// - ``shared`` and a transport made with ``init(configuration:eventLoopGroup:)`` own their
///   `HTTPClient`. ``shared`` lives as long as the process. Any other owning transport shuts its
///   client down when you call ``shutdown()``, or else when it is released: every request in
///   flight keeps the transport alive until it has answered, so the client is shut down only
///   after the last one.
/// - A transport made with ``init(client:)`` or ``init(client:clientFollowsRedirects:)`` borrows
///   the client: whoever made the client shuts it down, after the last request through the
///   transport has answered. ``shutdown()`` does nothing.
///
/// Completion handlers run on one of the client's event loops (or on the cancelling thread, on
/// the caller's thread for a request that cannot be sent, and, with a client that traces, on a
/// thread that reads a streamed body): they must not block (hand heavy work, such as parsing, to
/// another queue, as `ResourceService` does).
///
/// ## Tracing
///
/// A client that traces (its `configuration.tracing.tracer`, by default the tracer bootstrapped
/// with `InstrumentationSystem` when the configuration was made) starts a span of kind `client`
/// for every request it sends. The transport makes those spans children of the fetch's:
///
/// - It sends the request inside a `ServiceContext` made of `ServiceContext.current` where the
///   transfer was started (for every hop, on whatever thread it is sent) and the trace context
///   the client's tracer extracts from the request's header fields, where
///   `TracingFetchMonitor` (of the `Tracing` trait) or any adapter injected the fetch span's.
///   AsyncHTTPClient's span starts from that context: with `TracingFetchMonitor`, a child of the
///   fetch's span (one per attempt and per redirect followed); without it, a child of the
///   caller's span, if any.
/// - AsyncHTTPClient injects its span's context into the request, adding header fields beside any
///   of the same name; the transport first removes the fields the tracer injects, so the server
///   receives one `traceparent`, naming AsyncHTTPClient's span, the innermost.
///
/// To start its span from that context, the request goes through AsyncHTTPClient's async API:
/// its delegate API starts the span on an event loop, where no context is bound, so the span
/// would begin a trace of its own and would not reach the server. The transport does so when the
/// client follows no redirect itself, which it knows for ``shared``, for a transport made with
/// ``init(configuration:eventLoopGroup:)``, and for one made with
/// ``init(client:clientFollowsRedirects:)`` and `false`. A transport made with ``init(client:)``
/// leaves the client's spans as AsyncHTTPClient makes them: each the root of a trace of its own,
/// while the server receives the fetch span's `traceparent`. A client the transport makes records
/// URLs on its spans (`url.full`, `url.query`) with every query value replaced and without the
/// fragment, as the fetch's span does, and its refusal of a header field value with `REDACTED` in
/// place of the value; an injected client's spans record both as AsyncHTTPClient makes them. A
/// client without a tracer (set `configuration.tracing.tracer` to `nil`) or with a no-op one makes
/// no span, and the transport sends through the delegate API, as without tracing: the request
/// carries the headers the adapters set, untouched.
///
/// A hop over the async API runs in a Swift task that prefers one of the client's event loops as
/// its task executor, so, like a hop over the delegate API, it never waits for a thread of Swift's
/// cooperative pool, which synchronous work elsewhere in the process may hold. (Task executors
/// need macOS 15, iOS 18, tvOS 18, watchOS 11 or visionOS 2; on earlier Apple systems the task
/// runs on the global executor.)
///
/// Streamed request bodies (a file, a `RequestBodyStream`, a `MultipartFormData` form) are read a
/// piece at a time as the client takes them, with backpressure, declaring `Content-Length` when
/// the length is known and chunked otherwise; a repeatable one is sent again on a `307` or `308`.
/// A client that traces (the async API) sends a streamed body over 1 MiB as an `AsyncSequence` of
/// pieces, each read on a queue of the body's own when the client asks for it and reported sent
/// as it is handed over, so that memory stays bounded whatever the size; the client reads such a
/// sequence in a task of its own, on Swift's cooperative pool. A smaller streamed body of known
/// length is read whole before it is sent, and one of unknown length is read until it ends or
/// passes 1 MiB: one that ends within it is sent as a body in memory, a longer one streams, its
/// first MiB first (a stream that cannot be read again is read on a thread of its own, so that
/// `startTransfer` returns at once and a cancellation ends the transfer while the stream waits
/// for its next chunk). A body held in memory over 1 MiB streams from memory as such a sequence;
/// every smaller body in memory goes out in one buffer right after the head, reported sent when
/// the response head arrives, without waiting for a thread of the pool.
public final class AsyncHTTPClientTransport: URLSessionType {
    /// A transport with its own client, made with ``defaultConfiguration`` on the shared event
    /// loop group. It lives as long as the process and is never shut down.
    public static let shared = AsyncHTTPClientTransport(ownership: .forever)

    /// The configuration of a client the transport makes for itself: redirects disallowed (the
    /// transport follows them by its own rules), decompression disabled (the transport decodes
    /// `gzip` and `deflate` itself, verified and bounded by the size limit), and a connection
    /// that cannot be established failing the request at once
    /// (`connectionPool.retryConnectionEstablishment` off), so that it ends as
    /// `URLError.cannotConnectToHost` and the pipeline's `RetryPolicy` decides whether to try
    /// again, as it does over `URLSessionTransport`.
    ///
    /// A transport over a client you make with this configuration (``init(client:)``) cannot read
    /// it: it asks for `Accept-Encoding: identity` and decodes nothing itself, as over any
    /// injected client.
    public static var defaultConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// The client requests are sent through.
    public let client: HTTPClient

    /// Who shuts ``client`` down.
    private enum Ownership {
        /// The transport, on ``shutdown()`` or when it is released.
        case owned
        /// Nobody: the client lives as long as the process.
        case forever
        /// Whoever injected it.
        case borrowed
    }

    private let ownership: Ownership
    /// The tracer for which requests go through AsyncHTTPClient's async API, so that its spans
    /// nest under the fetch's (see Tracing in the type's documentation): the client's own tracer,
    /// when the client follows no redirect itself (the transport made it, or was told so) and the
    /// tracer is not a no-op; else `nil`, and every request goes through the delegate API.
    let tracer: (any Tracer)?
    /// The transfers in flight, and whether the owned client is being shut down.
    let inFlight = InFlight()
    /// Checks the idle timeouts of the transfers in flight.
    let idleTimeouts: IdleTimeouts
    /// Whether the transport asks for `gzip` and `deflate` and decodes them itself: only over a
    /// client it made with decompression disabled, since a client that decompresses hands over
    /// decoded bytes under the same `Content-Encoding`.
    let decodesContent: Bool
    /// Whether the client may follow redirects itself: `false` for a client the transport made,
    /// and for one injected with `clientFollowsRedirects` `false`. The transport then answers a
    /// `304` or `305` with a `Location` from its head alone, before the client could follow it.
    let clientMayFollowRedirects: Bool

    private init(ownership: Ownership, configuration: HTTPClient.Configuration = defaultConfiguration,
                 eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        if let tracer = configuration.tracing.tracer, !(tracer is NoOpTracer) {
            configuration.tracing.tracer = QueryRedactingTracer(wrapped: tracer)
        }
        self.client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        self.ownership = ownership
        self.tracer = Self.activeTracer(of: client)
        self.idleTimeouts = IdleTimeouts(eventLoopGroup: eventLoopGroup)
        self.clientMayFollowRedirects = false
        if case .disabled = configuration.decompression {
            self.decodesContent = true
        } else {
            self.decodesContent = false
        }
    }

    /// The `Accept-Encoding` a request that names none is sent with.
    var defaultAcceptEncoding: String {
        decodesContent ? TransferRules.decodedContentCodings : "identity"
    }

    /// Creates a transport with a client of its own, which it shuts down on ``shutdown()`` or
    /// when it is released.
    ///
    /// - Parameters:
    ///   - configuration: The client's configuration. Default: ``defaultConfiguration``. Its
    ///     redirect configuration is replaced with `.disallow`: the transport follows redirects
    ///     itself. Give decompression a limit if you enable it.
    ///   - eventLoopGroup: Where the client runs. Default: AsyncHTTPClient's shared group.
    public convenience init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        self.init(ownership: .owned, configuration: configuration, eventLoopGroup: eventLoopGroup)
    }

    /// Creates a transport over a client you own and shut down yourself, after the last request
    /// through the transport has answered.
    ///
    /// The transport's rules hold whatever the client's configuration: it recognises a redirect
    /// by its head before the client could follow it, and answers a `304` or `305` with a
    /// `Location`, which the client would follow, with that response and no body. Configure the
    /// client with `redirectConfiguration: .disallow` all the same, so that the client keeps the
    /// connection of a redirect open for the next request, and a `305` keeps its body. A client
    /// with decompression disabled hands the body of a response to a request that asked for
    /// `gzip` through still coded.
    ///
    /// - Parameter client: The client to send requests through.
    public convenience init(client: HTTPClient) {
        self.init(client: client, followsRedirects: true, tracer: nil)
    }

    /// Creates a transport over a client you own and shut down yourself, and says whether the
    /// client follows redirects itself.
    ///
    /// With `clientFollowsRedirects` `false`, a client that traces gets its spans nested under
    /// the fetch's, as a client the transport makes does (see Tracing, above): only the
    /// transport's own rules then govern redirects. Say `false` only for a client configured with
    /// `redirectConfiguration: .disallow` (as ``defaultConfiguration`` is): the transport cannot
    /// read an injected client's configuration, and a traced request to a client that follows
    /// redirects would follow them by AsyncHTTPClient's rules, not the transport's. With `true`,
    /// this is ``init(client:)``.
    ///
    /// - Parameters:
    ///   - client: The client to send requests through.
    ///   - clientFollowsRedirects: Whether `client`'s configuration lets it follow redirects.
    public convenience init(client: HTTPClient, clientFollowsRedirects: Bool) {
        self.init(
            client: client, followsRedirects: clientFollowsRedirects,
            tracer: clientFollowsRedirects ? nil : Self.activeTracer(of: client))
    }

    private init(client: HTTPClient, followsRedirects: Bool, tracer: (any Tracer)?) {
        self.client = client
        self.ownership = .borrowed
        self.clientMayFollowRedirects = followsRedirects
        self.tracer = tracer
        self.idleTimeouts = IdleTimeouts(eventLoopGroup: client.eventLoopGroup)
        self.decodesContent = false
    }

    deinit {
        guard ownership == .owned, inFlight.shutDown(whenIdle: nil).shutsDown else { return }
        // No request is in flight: each one keeps the transport alive until it has answered.
        client.shutdown().whenComplete { _ in }
    }

    /// Shuts down the client the transport owns, once the requests in flight have ended: they
    /// end as they would have, and this returns after them.
    ///
    /// Does nothing for ``shared`` and for a transport that borrows its client, and nothing
    /// the second time. Requests sent afterwards, from the moment this is called, fail with
    /// `URLError.Code.cannotConnectToHost` (``urlError(for:)`` of AsyncHTTPClient's
    /// `alreadyShutdown`).
    public func shutdown() async throws {
        guard ownership == .owned else { return }
        let shutsDown = await withCheckedContinuation { continuation in
            let now = inFlight.shutDown { continuation.resume(returning: true) }
            if !now.waits { continuation.resume(returning: now.shutsDown) }
        }
        guard shutsDown else { return }
        try await client.shutdown()
    }

    /// Counts the transfers in flight, so that ``shutdown()`` waits for them, and refuses new
    /// ones once it was called.
    final class InFlight: @unchecked Sendable {
        // `lock` guards every field.
        private let lock = NSLock()
        private var count = 0
        private var isShutDown = false
        /// Called once `count` reaches zero after the shutdown.
        private var whenIdle: (@Sendable () -> Void)?

        /// Counts a transfer in; `false` once the shutdown was called.
        func begin() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard !isShutDown else { return false }
            count += 1
            return true
        }

        /// Counts a transfer out.
        func end() {
            let idle = lock.withLock { () -> (@Sendable () -> Void)? in
                count -= 1
                guard count == 0, let whenIdle else { return nil }
                self.whenIdle = nil
                return whenIdle
            }
            idle?()
        }

        /// Marks the shutdown. Returns whether this call shuts down (`false` the second time),
        /// and whether `whenIdle` will be called when the last transfer ends (`true`) rather
        /// than never (nothing in flight, or not this call's shutdown).
        func shutDown(whenIdle: (@Sendable () -> Void)?) -> (shutsDown: Bool, waits: Bool) {
            lock.lock()
            defer { lock.unlock() }
            guard !isShutDown else { return (false, false) }
            isShutDown = true
            guard count > 0, let whenIdle else { return (true, false) }
            self.whenIdle = whenIdle
            return (true, true)
        }
    }

    /// Sends `request` through the client and hands what arrives to `receiver`, keeping the
    /// `TransferRules` (redirects, credentials, content codings, framing), the redirect limit of
    /// `options` and the request's idle timeout.
    ///
    /// The receiver is called on one of the client's event loops, one call at a time, and
    /// completed exactly once (for a cancellation, on the thread that cancelled, unless a call is
    /// running then): with `ResourceError/redirectRefused(_:)`,
    /// `ResourceError/transport(_:underlying:)` for a content coding that was not asked for, or
    /// the client's error as ``urlError(for:)`` reads it. The response's `ResponseHead` is made
    /// from the status and fields as AsyncHTTPClient hands them over, with no `HTTPURLResponse`.
    public func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable {
        // Once ``shutdown()`` was called, the client is as good as shut down.
        guard inFlight.begin() else {
            receiver.transferDidComplete(with: Transfer.failure(for: HTTPClientError.alreadyShutdown))
            return Refused()
        }
        let receiver = decodesContent ? TransferRules.decodingContent(for: receiver, limit: options.maximumResponseBytes) : receiver
        let transfer = Transfer(transport: self, original: request, options: options, receiver: receiver)
        if let deadline = transfer.idleDeadline() { idleTimeouts.watch(transfer, until: deadline) }
        if transfer.readsOneShotStreamBeforeSending(request) {
            // Read whole, or its first bytes, before it is sent, a stream may wait for its next
            // chunk: it is read on a thread of its own, so that this returns at once and a
            // cancellation or the deadline ends the transfer meanwhile.
            DispatchQueue.global().async { transfer.send(request) }
        } else {
            transfer.send(request)
        }
        return transfer
    }

    /// Sends `request` and collects the body within `options`' size limit, answering with the
    /// body and the response's `ResponseHead`.
    public func send(
        _ request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) -> any Cancellable {
        let collector = ResponseCollector(
            maximumBytes: options.maximumResponseBytes, ignoresDeclaredLength: request.isHEAD,
            completion: completionHandler)
        return startTransfer(request, options: options, receiver: collector)
    }

    /// ``send(_:options:completionHandler:)``, answering with the head's `HTTPURLResponse`:
    /// repeated header fields joined with `", "`, as `URLSession` joins them.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        startTransfer(request, options: options, receiver: ResponseCollector(for: request, options: options, completion: completionHandler))
    }

    /// The `URLError` an error of AsyncHTTPClient or SwiftNIO stands for, so that
    /// `ResourceService` reports it as it would the same failure of `URLSession`.
    ///
    /// | Error | Code |
    /// | --- | --- |
    /// | cancelled | `cancelled` |
    /// | connect, read, write, TLS or proxy handshake, pool or deadline timeout; `ETIMEDOUT` | `timedOut` |
    /// | the host name does not resolve | `cannotFindHost` |
    /// | connection refused or unreachable, a client shut down or misconfigured | `cannotConnectToHost` |
    /// | connection closed, reset or shut down uncleanly before the response ended (TLS's unclean shutdown included); an HTTP/2 stream reset, refused or closed with its connection | `networkConnectionLost` |
    /// | malformed response, body length mismatch, bad framing, bad proxy response, any other HTTP/2 protocol error | `badServerResponse` |
    /// | a response part larger than the client accepts | `dataLengthExceedsMaximum` |
    /// | decompression failed or exceeded its limit | `cannotDecodeContentData` |
    /// | any other TLS failure, or an application protocol the client does not speak | `secureConnectionFailed` |
    /// | the proxy asks for credentials | `userAuthenticationRequired` |
    /// | the client's own redirect limit or a redirect cycle | `httpTooManyRedirects` |
    /// | invalid URL, empty host or scheme | `badURL` |
    /// | a scheme, header field or request shape the client refuses to send | `unsupportedURL` |
    /// | the client's internal state failed | `cannotLoadFromNetwork` |
    /// | any error that neither AsyncHTTPClient nor SwiftNIO raises | `unknown` |
    ///
    /// ``send(_:options:completionHandler:)`` keeps the client's error as the underlying error
    /// of `ResourceError.transport(_:underlying:)`.
    ///
    /// - Parameter error: The client's error.
    /// - Returns: The corresponding `URLError`; `error` itself if it already is one.
    public static func urlError(for error: any Error) -> URLError {
        if let error = error as? URLError { return error }
        return URLError(code(for: error))
    }

    private static func code(for error: any Error) -> URLError.Code {
        switch error {
        case let error as HTTPClientError:
            return code(for: error)
        case is CancellationError:
            return .cancelled
        case let error as NIOConnectionError:
            // Every address failed to resolve: there was nothing to connect to.
            let unresolved = error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil)
            return unresolved ? .cannotFindHost : .cannotConnectToHost
        case is SocketAddressError, is SocketAddressError.UnknownHost:
            return .cannotFindHost
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN: return .cannotConnectToHost
            case ETIMEDOUT: return .timedOut
            default: return .networkConnectionLost
            }
        case let error as ChannelError:
            if case .connectTimeout = error { return .timedOut }
            return .networkConnectionLost
        case is HTTPParserError:
            return .badServerResponse
        case is NIOTooManyBytesError:
            return .dataLengthExceedsMaximum
        case is NIOHTTPDecompression.DecompressionError:
            return .cannotDecodeContentData
        default:
            return codeByTypeName(for: error)
        }
    }

    /// The code of an error of NIOSSL or NIOHTTP2, which AsyncHTTPClient passes on as they are,
    /// told by its type's name: the transport links neither module.
    private static func codeByTypeName(for error: any Error) -> URLError.Code {
        let typeName = String(reflecting: type(of: error))
        switch typeName {
        case "NIOSSL.NIOSSLError" where String(describing: error) == "uncleanShutdown":
            // The connection closed without TLS's own closure: a body it ends is cut short.
            return .networkConnectionLost
        case "NIOHTTP2.NIOHTTP2Errors.StreamClosed", "NIOHTTP2.NIOHTTP2Errors.IOOnClosedConnection":
            // An HTTP/2 stream reset or refused by the server, or closed with its connection.
            return .networkConnectionLost
        default:
            if typeName.hasPrefix("NIOSSL.") { return .secureConnectionFailed }
            // Any other HTTP/2 error: a frame or header block that breaks the protocol.
            if typeName.hasPrefix("NIOHTTP2.") { return .badServerResponse }
            return .unknown
        }
    }

    /// The code of each of AsyncHTTPClient's errors, told apart by their bounded
    /// `shortDescription` (those with associated values cannot be matched otherwise).
    private static func code(for error: HTTPClientError) -> URLError.Code {
        switch error.shortDescription {
        case HTTPClientError.cancelled.shortDescription:
            return .cancelled
        case HTTPClientError.readTimeout.shortDescription, HTTPClientError.writeTimeout.shortDescription,
            HTTPClientError.connectTimeout.shortDescription, HTTPClientError.deadlineExceeded.shortDescription,
            HTTPClientError.tlsHandshakeTimeout.shortDescription, HTTPClientError.getConnectionFromPoolTimeout.shortDescription,
            HTTPClientError.httpProxyHandshakeTimeout.shortDescription, HTTPClientError.socksHandshakeTimeout.shortDescription:
            return .timedOut
        case HTTPClientError.alreadyShutdown.shortDescription, HTTPClientError.shutdownUnsupported.shortDescription,
            HTTPClientError.invalidRedirectConfiguration.shortDescription,
            HTTPClientError.invalidHTTPVersionConfiguration.shortDescription,
            HTTPClientError.invalidDNSOverridesConfiguration.shortDescription,
            HTTPClientError.invalidLocalAddress.shortDescription, HTTPClientError.invalidProxyConfiguration.shortDescription:
            return .cannotConnectToHost
        case HTTPClientError.remoteConnectionClosed.shortDescription, HTTPClientError.uncleanShutdown.shortDescription,
            HTTPClientError.requestStreamCancelled.shortDescription:
            return .networkConnectionLost
        case HTTPClientError.bodyLengthMismatch.shortDescription, HTTPClientError.contentLengthMissing.shortDescription,
            HTTPClientError.invalidProxyResponse.shortDescription:
            return .badServerResponse
        case HTTPClientError.proxyAuthenticationRequired.shortDescription:
            return .userAuthenticationRequired
        case HTTPClientError.redirectLimitReached.shortDescription, HTTPClientError.redirectCycleDetected.shortDescription:
            return .httpTooManyRedirects
        case HTTPClientError.serverOfferedUnsupportedApplicationProtocol("").shortDescription:
            return .secureConnectionFailed
        case HTTPClientError.invalidURL.shortDescription, HTTPClientError.emptyHost.shortDescription,
            HTTPClientError.emptyScheme.shortDescription, HTTPClientError.missingSocketPath.shortDescription:
            return .badURL
        case HTTPClientError.unsupportedScheme("").shortDescription,
            HTTPClientError.invalidHeaderFieldNames([]).shortDescription,
            HTTPClientError.invalidHeaderFieldValues([]).shortDescription,
            HTTPClientError.identityCodingIncorrectlyPresent.shortDescription,
            HTTPClientError.traceRequestWithBody.shortDescription,
            HTTPClientError.writeAfterRequestSent.shortDescription:
            return .unsupportedURL
        default:
            return .cannotLoadFromNetwork
        }
    }
}

// MARK: - One transfer

extension AsyncHTTPClientTransport {
    /// One request and the redirects it follows: the `Cancellable` the caller holds.
    ///
    /// Every hop (the request, then each redirect) runs with a ``Hop`` delegate of its own;
    /// callbacks of a hop that is no longer current are ignored. Whoever sets `finished` completes
    /// the receiver, once: when a call to the receiver is running at that moment (a piece of the
    /// body on the event loop while the caller cancels, say), the completion waits for it and is
    /// made by that call's thread, so that the receiver's calls never overlap. Calls made from
    /// two threads at once (a traced hop reports a streamed body's progress from
    /// AsyncHTTPClient's task while the answer arrives on its own) take turns.
    final class Transfer: Cancellable, @unchecked Sendable {
        /// What a transfer keeps between callbacks. Guarded by `lock`.
        struct State {
            var finished = false
            var hop = 0
            var task: HopTask?
            var current: URLRequest
            /// `current.url`, read once per hop rather than on the event loop.
            var currentURL: URL?
            var redirectsFollowed = 0
            /// Whether the receiver has the final response's head.
            var hasDeliveredHead = false
            /// Whether a call to the receiver is running.
            var isDelivering = false
            /// The completion that waits for the running call to the receiver to return.
            var deferredCompletion: (any Error)??
            /// How many bytes of the request body have gone out on the current hop.
            var bytesSent: Int64 = 0
            /// The most bytes of the request body reported to the receiver, on any hop: a body
            /// a redirect sends again is reported once its count passes it, so counts never go back.
            var bytesSentReported: Int64 = 0
            /// When a byte last arrived, a piece of the current hop's request body was written, or
            /// the current hop started, for the idle timeout.
            var lastActivity = NIODeadline.now()
            /// The reader of the current hop's streamed body, closed when the hop is replaced or
            /// the transfer ends.
            var bodyReader: RequestBodyReader?
        }

        let transport: AsyncHTTPClientTransport
        let original: URLRequest
        let options: TransferOptions
        /// The caller's `ServiceContext.current` when the transfer started: every traced hop is
        /// sent in it, whatever thread sends it (a redirect's hop, or a one-shot stream read on a
        /// thread of its own).
        let serviceContext: ServiceContext?
        private let receiver: any TransferReceiver
        /// The idle timeout of `URLRequest.timeoutInterval`, or `nil` for none.
        private let idleTimeout: TimeAmount?
        // `lock` guards `state`.
        private let lock = NSLock()
        private var state: State
        /// Held for each call to the receiver: the progress of a body a traced hop streams is
        /// reported from AsyncHTTPClient's own task, while the answer arrives on the hop's.
        private let deliveryLock = NSRecursiveLock()

        init(transport: AsyncHTTPClientTransport, original: URLRequest, options: TransferOptions, receiver: any TransferReceiver) {
            self.transport = transport
            self.original = original
            self.options = options
            self.serviceContext = ServiceContext.current
            self.receiver = receiver
            let interval = original.timeoutInterval
            self.idleTimeout = interval > 0 && interval.isFinite ? .nanoseconds(Int64(min(interval, 1e9) * 1e9)) : nil
            self.state = State(current: original, currentURL: original.url)
        }

        private func withState<T>(_ body: (inout State) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&state)
        }

        var isCancelled: Bool { withState { $0.finished } }

        /// Whether `hop` is the transfer's current hop, and the transfer goes on.
        func isCurrent(_ hop: Int) -> Bool {
            withState { !$0.finished && $0.hop == hop }
        }

        func cancel() {
            finish(URLError(.cancelled))
        }

        /// Completes the receiver with `error` (`nil`: the whole body has arrived) unless the
        /// transfer has finished already, or hop `hop` is no longer current; a failure stops the
        /// current hop. Returns whether it finished the transfer.
        @discardableResult
        func finish(_ error: (any Error)?, hop: Int? = nil) -> Bool {
            let (claimed, waits, current, reader) = withState { state -> (Bool, Bool, HopTask?, RequestBodyReader?) in
                guard !state.finished, hop == nil || hop == state.hop else { return (false, false, nil, nil) }
                state.finished = true
                if state.isDelivering { state.deferredCompletion = .some(error) }
                defer { state.bodyReader = nil }
                return (true, state.isDelivering, state.task, state.bodyReader)
            }
            guard claimed else { return false }
            defer { transport.inFlight.end() }
            // A body read waiting for its next piece returns at once, and its file is closed.
            reader?.close()
            if idleTimeout != nil { transport.idleTimeouts.stopWatching(self) }
            if !waits { receiver.transferDidComplete(with: error) }
            // A transfer that failed stops its hop: the connection is closed, not kept waiting.
            if error != nil { current?.cancel() }
            return true
        }

        /// Makes one call to the receiver for hop `hop`, unless the transfer has finished or the
        /// hop is no longer current, and answers its decision; `nil` if no call was made. A
        /// completion that arrives during the call is made when it returns.
        private func deliver(hop: Int, _ call: (any TransferReceiver) -> TransferDecision) -> TransferDecision? {
            // One call at a time, whichever thread makes it; the state says whether to make it once
            // the running one has returned.
            deliveryLock.lock()
            defer { deliveryLock.unlock() }
            let proceeds = withState { state -> Bool in
                guard !state.finished, state.hop == hop else { return false }
                state.isDelivering = true
                state.lastActivity = .now()
                return true
            }
            guard proceeds else { return nil }
            let decision = call(receiver)
            let deferred = withState { state -> (any Error)?? in
                state.isDelivering = false
                defer { state.deferredCompletion = nil }
                return state.deferredCompletion
            }
            if let deferred {
                receiver.transferDidComplete(with: deferred)
                return nil
            }
            return decision
        }

        /// Reports that `count` more bytes of the request body of hop `hop` have gone out.
        func sentBodyPart(_ count: Int, hop: Int) {
            // Held across the check and the call, so that no head is delivered in between.
            deliveryLock.lock()
            defer { deliveryLock.unlock() }
            let expected = withState { state -> (sent: Int64, expected: Int64?)? in
                guard !state.finished, state.hop == hop else { return nil }
                // Every piece of the current hop counts for the idle timeout: one a redirect sends
                // again, and one written after the response's head, too.
                state.lastActivity = .now()
                guard !state.hasDeliveredHead else { return nil }
                state.bytesSent += Int64(count)
                guard state.bytesSent > state.bytesSentReported else { return nil }
                state.bytesSentReported = state.bytesSent
                return (state.bytesSent, state.current.httpBody.map { Int64($0.count) } ?? state.current.streamedBody?.length)
            }
            guard let expected else { return }
            _ = deliver(hop: hop) { receiver in
                receiver.transferDidSend(expected.sent, of: expected.expected)
                return .proceed
            }
        }

        /// The largest streamed body a traced hop sends from memory (see the type's
        /// documentation): 1 MiB.
        static let tracedWholeBodyLimit: Int64 = 1 << 20

        /// A reader of `request`'s body held in memory when the hop sends it a piece at a time,
        /// as a file is sent, so that each piece written counts as progress and for the idle
        /// timeout: a body over ``BodyPump/pieceSize``, or, on a traced hop (which sends a
        /// streamed body of up to ``tracedWholeBodyLimit`` whole), over that limit. `nil` for
        /// any other body, sent in one buffer.
        func piecewiseReader(for request: URLRequest) -> RequestBodyReader? {
            guard request.httpBodyStream == nil, let body = request.httpBody else { return nil }
            let limit = transport.tracer == nil ? Int64(BodyPump.pieceSize) : Self.tracedWholeBodyLimit
            guard Int64(body.count) > limit else { return nil }
            return RequestBody.data(body, contentType: nil).makeReader()
        }

        /// Whether the async API reads `request`'s streamed body whole before sending it (see
        /// the type's documentation): one of known length up to ``tracedWholeBodyLimit``.
        func readsStreamedBodyWhole(_ request: URLRequest) -> Bool {
            guard transport.tracer != nil, let length = request.streamedBody?.length else { return false }
            return length <= Self.tracedWholeBodyLimit
        }

        /// Whether the async API reads the first bytes of `request`'s streamed body before
        /// sending it, to learn whether it fits in ``tracedWholeBodyLimit`` (see the type's
        /// documentation): one of unknown length.
        func readsStreamedBodyAhead(_ request: URLRequest) -> Bool {
            guard transport.tracer != nil, let streamed = request.streamedBody else { return false }
            return streamed.length == nil
        }

        /// Whether `request`'s body is a stream that cannot be read again and is read, whole or
        /// its first bytes, before it is sent: reading it may wait for the stream's next chunk.
        func readsOneShotStreamBeforeSending(_ request: URLRequest) -> Bool {
            (readsStreamedBodyWhole(request) || readsStreamedBodyAhead(request)) && request.streamedBody?.isRepeatable == false
        }

        /// The first bytes of the body `reader` reads: all of them when the body has no more than
        /// ``tracedWholeBodyLimit`` (`isWhole`), else the first ``tracedWholeBodyLimit`` and up to
        /// a piece more. Blocks until they are read.
        static func readAhead(_ reader: RequestBodyReader) throws(ResourceError) -> (bytes: Data, isWhole: Bool) {
            var bytes = Data()
            while Int64(bytes.count) <= tracedWholeBodyLimit {
                guard let piece = try reader.read(upTo: BodyPump.pieceSize) else { return (bytes, true) }
                bytes.append(piece)
            }
            return (bytes, false)
        }

        /// Sends `request` as the next hop.
        func send(_ request: URLRequest) {
            var parts: RequestParts
            let prepared: HTTPClient.Request
            // A streamed body is read by a reader of this hop's own: a piece at a time as the
            // client takes it, pumped into the delegate API's writer or, when large, handed to the
            // traced hops' async API as an `AsyncSequence`. The async API reads a smaller one of
            // known length whole, and the first bytes of one of unknown length, below, once the
            // hop's reader is in place for a cancellation to close.
            let reader = request.streamedBody?.makeReader() ?? piecewiseReader(for: request)
            do {
                parts = try Self.requestParts(of: request, defaultAcceptEncoding: transport.defaultAcceptEncoding)
                // A body in memory that the reader sends goes out through it alone.
                if reader != nil { parts.body = nil }
                let pumped = transport.tracer == nil ? reader.map { Self.streamedBody($0, on: transport.client.eventLoopGroup.any()) } : nil
                prepared = try Self.clientRequest(from: parts, streamed: pumped)
            } catch {
                reader?.close()
                finish(error)
                return
            }
            let readsFirst = reader != nil && (readsStreamedBodyWhole(request) || readsStreamedBodyAhead(request))
            let hop = withState { state -> Int? in
                guard !state.finished else { return nil }
                state.bodyReader?.close()
                state.bodyReader = reader
                state.hop += 1
                state.current = request
                state.currentURL = parts.url
                state.bytesSent = 0
                state.lastActivity = .now()
                return state.hop
            }
            guard let hop else {
                reader?.close()
                return
            }
            let task: HopTask
            if let tracer = transport.tracer {
                // AsyncHTTPClient's async API, whose span nests under the fetch's (the +Tracing file).
                var parts = parts
                var first: Data?
                if readsFirst, let reader {
                    // A body of known length that fits goes out from memory, and so does one of
                    // unknown length that turns out to fit; a longer one streams, its first bytes
                    // first.
                    do {
                        let ahead = try Self.readAhead(reader)
                        if ahead.isWhole { parts.body = ahead.bytes } else { first = ahead.bytes }
                    } catch {
                        finish(error, hop: hop)
                        return
                    }
                }
                var (traced, context) = Self.tracedRequest(from: parts, in: serviceContext, tracer: tracer)
                if let reader, parts.body == nil {
                    traced.body = .stream(
                        TracedRequestBody(reader: reader, first: first) { [self] count in sentBodyPart(count, hop: hop) },
                        length: reader.length.map { .known($0) } ?? .unknown)
                }
                task = .async(startTracedHop(
                    traced, bodyLength: parts.body?.count ?? 0, in: context, hop: hop, on: transport.client.eventLoopGroup.any()))
            } else {
                task = .delegate(transport.client.execute(
                    request: prepared, delegate: Hop(transfer: self, hop: hop), eventLoop: .indifferent))
            }
            let cancelled = withState { state -> Bool in
                guard state.hop == hop, !state.finished else { return true }
                state.task = task
                return false
            }
            if cancelled {
                task.cancel()
                return
            }
            if case .delegate(let clientTask) = task {
                // A task that fails before it starts (the client was shut down, say) tells only its
                // future, not the delegate.
                clientTask.futureResult.whenFailure { [self] error in failed(error, hop: hop) }
            }
        }

        // MARK: The idle timeout

        /// When the transfer times out unless a byte arrives first: `nil` once it has finished,
        /// or if it has no idle timeout.
        func idleDeadline() -> NIODeadline? {
            guard let idleTimeout else { return nil }
            return withState { $0.finished ? nil : $0.lastActivity + idleTimeout }
        }

        /// Fails the transfer with `URLError(.timedOut)` if nothing has arrived for the whole idle
        /// timeout by `now`; otherwise returns when it times out, unless it has finished.
        func timeOutIfIdle(at now: NIODeadline) -> NIODeadline? {
            guard let idleTimeout else { return nil }
            let (idleHop, due) = withState { state -> (Int?, NIODeadline?) in
                guard !state.finished else { return (nil, nil) }
                let due = state.lastActivity + idleTimeout
                return due <= now ? (state.hop, nil) : (nil, due)
            }
            guard let idleHop else { return due }
            // A redirect may have started a new hop since: it is watched from its own start.
            return finish(URLError(.timedOut), hop: idleHop) ? nil : idleDeadline()
        }

        // MARK: Callbacks of the current hop

        /// A response head arrived: a redirect to follow or refuse, or the response.
        ///
        /// `task` is the hop's task of the delegate API; `nil` for a hop over the async API, which
        /// stops itself once the hop is no longer current.
        func receivedHead(_ head: HTTPResponseHead, hop: Int, task: HTTPClient.Task<Void>?) -> ResourceError? {
            let status = Int(head.status.code)
            if Self.isRedirect(status), let location = head.headers.first(name: "location") {
                redirect(status: status, location: location, hop: hop, task: task)
                return nil
            }
            if Self.declaresBodyWhereNoneBelongs(head, method: withState({ $0.current.httpMethod })) {
                answerWithoutBody(head, hop: hop, task: task)
                return nil
            }
            let (request, url) = withState { ($0.current, $0.currentURL) }
            guard let url else {
                let error = ResourceError.transport(.badServerResponse, underlying: URLError(.badServerResponse))
                finish(error, hop: hop)
                return error
            }
            let responseHead = Self.responseHead(head, url: url)
            if let refusal = TransferRules.refusal(of: responseHead, request: request, defaultAcceptEncoding: transport.defaultAcceptEncoding) {
                finish(refusal, hop: hop)
                return refusal
            }
            withState { if $0.hop == hop { $0.hasDeliveredHead = true } }
            guard case .stop(let error) = deliver(hop: hop, { $0.transferDidReceive(head: responseHead) }) else { return nil }
            finish(error, hop: hop)
            return error
        }

        /// Answers with `head` and no body, and stops the hop, so that its connection is closed
        /// rather than kept for another request: the head of a response that has no body declares
        /// one, and the bytes a server sends after it would be read as the next response; or the
        /// head is a `304` or `305` with a `Location`, which a client that follows redirects would
        /// follow.
        ///
        /// `task` is the hop's task of the delegate API, stopped here whatever the answer, even
        /// before `send` has stored it; `nil` for a hop over the async API.
        func answerWithoutBody(_ head: HTTPResponseHead, hop: Int, task: HTTPClient.Task<Void>?) {
            defer { task?.cancel() }
            guard let url = withState({ $0.currentURL }) else {
                finish(URLError(.badServerResponse), hop: hop)
                return
            }
            let decision = deliver(hop: hop) { $0.transferDidReceive(head: Self.responseHead(head, url: url)) }
            let answered: Bool
            switch decision {
            case .proceed: answered = finish(nil, hop: hop)
            case .stop(let error): answered = finish(error, hop: hop)
            case nil: answered = false
            }
            if task == nil, answered, let current = withState({ $0.task }) { current.cancel() }
        }

        /// Whether `head` declares a body (a `Content-Length` other than `0`, or a
        /// `Transfer-Encoding`) although its response has none: it answers a `HEAD`, or its
        /// status is `1xx`, `204` or `304` (RFC 9112, 6.3).
        static func declaresBodyWhereNoneBelongs(_ head: HTTPResponseHead, method: String?) -> Bool {
            let status = head.status.code
            let hasNoBody = (100..<200).contains(status) || status == 204 || status == 304
                || method.map { ResponseHead.sameFieldName($0, "HEAD") } == true
            guard hasNoBody else { return false }
            if head.headers.contains(name: "transfer-encoding") { return true }
            return head.headers["content-length"].contains { $0.trimmingCharacters(in: .whitespaces) != "0" }
        }

        /// Follows or refuses a redirect answered to hop `hop`, whose task is stopped.
        private func redirect(status: Int, location: String, hop: Int, task: HTTPClient.Task<Void>?) {
            let decision = withState { state -> TransferRules.RedirectDecision? in
                guard !state.finished, state.hop == hop else { return nil }
                let decision = TransferRules.redirect(
                    statusCode: status, location: location, after: state.current, original: original,
                    redirectsFollowed: state.redirectsFollowed, options: options)
                if case .follow = decision {
                    state.redirectsFollowed += 1
                    // Callbacks of this hop are ignored from now on.
                    state.hop += 1
                }
                return decision
            }
            switch decision {
            case .follow(let next):
                // The redirect's body is not wanted: its connection is closed rather than drained.
                task?.fail(reason: RedirectFollowed())
                send(next)
            case .refuse(let refusal):
                finish(ResourceError.redirectRefused(refusal), hop: hop)
                // Stopped here, before a client that follows redirects could follow it, even when
                // `send` has not stored the hop's task yet.
                task?.cancel()
            case nil:
                task?.cancel()
            }
        }

        /// A part of the body arrived; returns the error that stops the transfer, if any.
        func receivedBodyPart(_ buffer: ByteBuffer, hop: Int) -> ResourceError? {
            guard buffer.readableBytes > 0 else { return nil }
            guard case .stop(let error) = deliver(hop: hop, { $0.transferDidReceive(buffer.sharedData) }) else {
                return nil
            }
            finish(error, hop: hop)
            return error
        }

        /// The hop's response ended.
        func finished(hop: Int) {
            let hasHead = withState { $0.hasDeliveredHead }
            finish(hasHead ? nil : URLError(.badServerResponse), hop: hop)
        }

        /// The hop failed.
        func failed(_ error: any Error, hop: Int) {
            if error is RedirectFollowed { return }
            finish(Self.failure(for: error), hop: hop)
        }

        /// What a hop that failed with the client's `error` answers: a cancellation or timeout
        /// as the `URLError` that `ResourceError.init(transportError:)` reads as
        /// `ResourceError.cancelled` or `ResourceError.timedOut`; any other failure as
        /// `ResourceError.transport(_:underlying:)` with its code and the client's own error.
        static func failure(for error: any Error) -> any Error {
            // A streamed body that could not be read fails with the reader's own error.
            if let error = error as? ResourceError { return error }
            let urlError = AsyncHTTPClientTransport.urlError(for: error)
            switch urlError.code {
            case .cancelled, .timedOut: return urlError
            default: return error is URLError ? urlError : ResourceError.transport(urlError.code, underlying: error)
            }
        }

        // MARK: Conversions

        /// What a request is made of, for either of the client's request types.
        typealias RequestParts = (url: URL, method: NIOHTTP1.HTTPMethod, headers: HTTPHeaders, body: Data?)

        /// The delegate API's request made of `parts`, with `streamed` as its body when given.
        static func clientRequest(from parts: RequestParts, streamed: HTTPClient.Body? = nil) throws -> HTTPClient.Request {
            do {
                return try HTTPClient.Request(
                    url: parts.url, method: parts.method, headers: parts.headers, body: streamed ?? parts.body.map { .bytes($0) })
            } catch {
                throw URLError(.badURL)
            }
        }

        /// What both of the client's request types are made of: the URL, method, header fields
        /// (with `defaultAcceptEncoding` unless `request` names an `Accept-Encoding`) and body of
        /// `request`; no body for a streamed one, which the hop's own reader reads.
        static func requestParts(of request: URLRequest, defaultAcceptEncoding: String) throws -> RequestParts {
            guard let url = request.url, let scheme = url.scheme,
                  ResponseHead.sameFieldName(scheme, "http") || ResponseHead.sameFieldName(scheme, "https") else {
                throw URLError(.unsupportedURL)
            }
            let fields = request.allHTTPHeaderFields ?? [:]
            var headers = HTTPHeaders()
            headers.reserveCapacity(fields.count + 1)
            var namesEncoding = false
            for (name, value) in fields {
                if !namesEncoding && ResponseHead.sameFieldName(name, "Accept-Encoding") { namesEncoding = true }
                headers.add(name: name, value: value)
            }
            if !namesEncoding { headers.add(name: "Accept-Encoding", value: defaultAcceptEncoding) }
            var body: Data?
            if let data = request.httpBody {
                body = data
            } else if request.httpBodyStream is RequestBodyInputStream {
                // Read by the hop's `streamedBody` reader, from its start on every hop.
            } else if let stream = request.httpBodyStream {
                // A read that fails fails the request: never a shorter body.
                body = try readAll(stream)
            }
            let method: NIOHTTP1.HTTPMethod
            switch request.httpMethod {
            case nil, "GET": method = .GET
            case let name?: method = NIOHTTP1.HTTPMethod(rawValue: name.uppercased())
            }
            return (url, method, headers, body)
        }

        /// A body that hands `reader`'s bytes to the client in pieces of up to
        /// ``BodyPump/pieceSize``, read (on a queue of its own, never on an event loop or the
        /// cooperative pool) straight into the buffers the client writes. One piece is read while
        /// the one before it is written, and no more: memory holds two pieces, whatever the
        /// body's size. It declares `Content-Length` when the body's length is known, and is
        /// chunked otherwise.
        static func streamedBody(_ reader: RequestBodyReader, on eventLoop: any EventLoop) -> HTTPClient.Body {
            .stream(contentLength: reader.length) { writer in
                let pump = BodyPump(reader: reader, writer: writer, promise: eventLoop.makePromise(of: Void.self))
                pump.start()
                return pump.promise.futureResult
            }
        }

        /// The bytes of a request body stream, read once.
        ///
        /// - Throws: when a read fails (never a shorter body): the
        ///   ``RequestBodyInputStream/readFailure`` of a ``RequestBodyInputStream``, or
        ///   ``ResourceError/invalidRequest(reason:)`` with the `streamError` of another stream.
        private static func readAll(_ stream: InputStream) throws(ResourceError) -> Data {
            var data = Data()
            stream.open()
            defer { stream.close() }
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = stream.read(&buffer, maxLength: buffer.count)
                if count < 0 {
                    throw (stream as? RequestBodyInputStream)?.readFailure
                        ?? .invalidRequest(reason: "the request body stream could not be read (\(stream.streamError.map { ResourceError.summary(ofUnderlying: $0) } ?? "no error given"))")
                }
                guard count > 0 else { break }
                data.append(buffer, count: count)
            }
            return data
        }

        /// The ``ResponseHead`` of a response head received from `url`: its status, and its
        /// fields in the order received.
        static func responseHead(_ head: HTTPResponseHead, url: URL) -> ResponseHead {
            var fields: [(name: String, value: String)] = []
            fields.reserveCapacity(head.headers.count)
            for field in head.headers {
                fields.append(field)
            }
            return ResponseHead(statusCode: Int(head.status.code), url: url, headerFields: fields)
        }

        /// Whether `status` is one of the redirects the transport follows or refuses.
        static func isRedirect(_ status: Int) -> Bool {
            switch status {
            case 301, 302, 303, 307, 308: true
            default: false
            }
        }

        /// Whether AsyncHTTPClient, configured to follow redirects, follows a response of
        /// `status` that has a `Location`, although the transport does not: `304` and `305`.
        static func isFollowedOnlyByTheClient(_ status: Int) -> Bool {
            status == 304 || status == 305
        }
    }

    /// Why the transport stopped a hop whose redirect it follows.
    struct RedirectFollowed: Error {}

    /// What sends one hop: a task of AsyncHTTPClient's delegate API, or a Swift task over its
    /// async API (for a client that traces).
    enum HopTask: Sendable {
        case delegate(HTTPClient.Task<Void>)
        case async(Task<Void, Never>)

        /// Stops the hop, closing its connection.
        func cancel() {
            switch self {
            case .delegate(let task): task.cancel()
            case .async(let task): task.cancel()
            }
        }
    }

    /// The client's delegate for one hop of a ``Transfer``.
    final class Hop: HTTPClientResponseDelegate {
        typealias Response = Void

        let transfer: Transfer
        let hop: Int

        init(transfer: Transfer, hop: Int) {
            self.transfer = transfer
            self.hop = hop
        }

        func didVisitURL(task: HTTPClient.Task<Void>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
            // Called before the client decides to follow a redirect, so the transport's rules
            // apply whatever its configuration: it takes over every head with a `Location` the
            // client would follow. A `304` or `305` is the answer, as the transport follows
            // neither: its task is stopped before the client could follow it, so the answer has
            // no body. Every other head goes on to `didReceiveHead`.
            let status = Int(head.status.code)
            guard head.headers.contains(name: "location") else { return }
            if Transfer.isRedirect(status) {
                _ = transfer.receivedHead(head, hop: hop, task: task)
            } else if Transfer.isFollowedOnlyByTheClient(status), transfer.transport.clientMayFollowRedirects {
                transfer.answerWithoutBody(head, hop: hop, task: task)
            }
        }

        func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
            transfer.sentBodyPart(part.readableBytes, hop: hop)
        }

        func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            if let error = transfer.receivedHead(head, hop: hop, task: task) {
                return task.eventLoop.makeFailedFuture(error)
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            if let error = transfer.receivedBodyPart(buffer, hop: hop) {
                return task.eventLoop.makeFailedFuture(error)
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
            transfer.failed(error, hop: hop)
        }

        func didFinishRequest(task: HTTPClient.Task<Void>) throws {
            transfer.finished(hop: hop)
        }
    }
}

/// The transfer of a request sent after ``AsyncHTTPClientTransport/shutdown()``: answered at
/// once, nothing to cancel.
private final class Refused: Cancellable {
    func cancel() {}
}
#endif
