import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: a `URLSession` with a delegate that streams each response to its
/// ``TransferReceiver`` as it arrives and keeps the ``TransferRules``.
///
/// A plain `URLSession` on Linux has only an idle timeout, follows redirects by its own rules and
/// holds the whole body in memory before anyone can look at its size. This transport closes
/// those gaps, on Linux and Apple platforms alike:
///
/// - **Size**: the body reaches the receiver piece by piece, so ``ResponseCollector`` fails a
///   declared `Content-Length` over ``TransferOptions/maximumResponseBytes`` before the body is
///   read, and stops a body without one as soon as it crosses the limit, with
///   ``ResourceError/responseTooLarge(limit:)``; memory stays bounded. On Linux this holds for
///   every response but a `301`, `302`, `303` or `305` to `308`: FoundationNetworking hands
///   neither the head nor the body of one to the transport, and holds its whole body in memory
///   until it ends. A redirect's body is not counted against the limit, and one that never ends
///   grows without bound, copied whole for each piece that arrives on the work queue every
///   session in the process shares: that stalls every transfer of the process. The fetch still
///   ends at its deadline (the transport's `cancel()` never waits for that queue), but the task
///   goes on until FoundationNetworking lets its cancellation in. Such a response that is the
///   answer (one without a `Location`) arrives without its body. Fetch from servers you do not trust through
///   `AsyncHTTPClientTransport`, which sees every response as it arrives.
/// - **Redirects**: ``TransferRules`` decides each one: after ``TransferOptions/maximumRedirects``
///   redirects the next one fails with
///   ``ResourceError/RedirectRefusal/tooManyRedirects(limit:)``; a redirect from `https` to
///   `http` fails with ``ResourceError/RedirectRefusal/insecureDowngrade``, and one to anything
///   but an `http` or `https` URL (`file:`, `ftp:`, `javascript:` …) with
///   ``ResourceError/RedirectRefusal/unsupportedScheme``.
/// - **Methods and bodies on redirect** follow RFC 9110: `307` and `308` send the same method and
///   body again (Linux's `URLSession` sends an empty body); `303`, and `301` or `302` answering a
///   `POST`, continue with a `GET` without the body or the header fields that describe it. A
///   body given as an `httpBodyStream` cannot be sent twice: a redirect that needs it fails with
///   ``ResourceError/RedirectRefusal/unrepeatableBody``.
/// - **Credentials**: a redirect to an origin (scheme, host and port) other than the original
///   request's does not carry the ``TransferRules/credentialHeaderFields``, whether the request
///   or the configuration's `httpAdditionalHeaders` names them, nor the request body: one that
///   would send a body there fails with ``ResourceError/RedirectRefusal/bodyToAnotherOrigin``
///   unless ``TransferOptions/sendsBodyToAnotherOrigin`` allows it. (Linux's `URLSession`
///   forwards the fields to any origin, and adds the configuration's to every request it sends.)
/// - **Compression**: the transport asks for responses without content coding
///   (`Accept-Encoding: identity`) unless the request or the configuration names an
///   `Accept-Encoding` of its own, because on Linux a gzip body cut short arrives as a shorter
///   body, without an error. A response in a content coding that was not asked for fails with
///   ``ResourceError/transport(_:underlying:)`` and `URLError.Code.cannotDecodeContentData`. Ask
///   for `gzip` yourself and the platform decodes it: a corrupt body then fails, but one cut
///   short is not detected there.
/// - **Framing**: conflicting `Content-Length` header fields fail with
///   ``ResourceError/transport(_:underlying:)`` and `URLError.Code.badServerResponse`.
/// - **One send**: a request that is not idempotent (a method other than `GET`, `HEAD`,
///   `OPTIONS`, `TRACE`, `PUT` and `DELETE`, without an `Idempotency-Key` or
///   `X-Idempotency-Key` field) reaches the server at most once. On Linux, where libcurl re-sends a request whose reused connection the server
///   closes unanswered, such a request goes out on a session of its own, on a connection no
///   request used before, with `Connection: close`.
/// - **Idle timeout** on Linux: FoundationNetworking counts whole seconds, traps on a
///   `timeoutInterval` that is not finite or is huge, and times a request out at once for one
///   under a second. There the transport sends a request's `timeoutInterval` (and the
///   configuration's `timeoutIntervalForRequest`) that is not finite or not positive as no idle
///   timeout, as `AsyncHTTPClientTransport` reads it, and rounds the others up to whole seconds;
///   the deadline still bounds the fetch. A request that sets no `timeoutInterval` of its own
///   keeps the configuration's. On Apple platforms the values go to `URLSession` as they are.
/// - **Cancellation** is safe at any moment: on Linux the transport's session keeps no
///   `urlCache`, since FoundationNetworking cannot cancel a task while it looks it up in one.
/// - **One outcome**: the receiver is completed exactly once per request; a transfer that was
///   cancelled, or whose identity body ended before its declared `Content-Length`, completes with
///   an error (`URLError.Code.cancelled`, `.networkConnectionLost`), whether the session reports
///   a success or (as FoundationNetworking does for a short body) `URLError.Code.unknown`.
/// - **Progress**: the request body's bytes are reported to the receiver as they go out, until
///   the response's head arrives, with counts that never go back: a body sent again after a
///   `307` or `308` is reported once its count passes what the earlier send reported.
/// - **Streamed bodies** (a file, a ``RequestBodyStream``, a ``MultipartFormData``: see
///   ``RequestBody/Content``) are read as they are sent, by a ``RequestBodyInputStream`` of each
///   task's own, and never held whole in memory. A repeatable one (a file, a form without stream
///   parts) is sent again on a `307` or `308`. On Linux, FoundationNetworking sends every body
///   stream with chunked transfer coding, so a streamed body goes chunked there, without
///   `Content-Length`, even when its length is known (progress still reports the total);
///   `AsyncHTTPClientTransport` declares the length. On Linux, a body that is or has a
///   ``RequestBodyStream`` fails with ``ResourceError/invalidRequest(reason:)`` without being
///   sent: FoundationNetworking reads a body stream on the one work queue every session in the
///   process shares, so a read that waits for a stream's next chunk would stall every transfer
///   (and every caller starting one) until the chunk came. Send such a body through
///   `AsyncHTTPClientTransport`, or write it to a file first.
///
/// ``ResourceService`` enforces the ``TransferOptions/deadline`` around it.
///
/// ```swift
/// let service = ResourceService<Cities>(session: URLSessionTransport.shared)
/// ```
///
/// The completion handlers of ``data(for:options:completionHandler:)`` run on the transport's
/// serial callback queue: hand heavy work, such as parsing, to another queue.
public final class URLSessionTransport: URLSessionType {
    /// A transport over an ephemeral configuration, which keeps no cache, cookies or
    /// credentials on disk. It lives as long as the process. ``ResourceService`` uses it by
    /// default.
    public static let shared = URLSessionTransport()

    private let session: URLSession
    private let delegate: Delegate
    /// What a session of a request that may not be sent twice is made with.
    private let configuration: URLSessionConfiguration
    /// The credential header fields the configuration's `httpAdditionalHeaders` named, which
    /// the transport sends as fields of each request instead.
    private let configuredCredentials: [(name: String, value: String)]
    private let delegateQueue: DelegateQueue
    /// Where the completion handlers of ``data(for:options:completionHandler:)`` run.
    private let callbackQueue: DispatchQueue

    /// Creates a transport with its own session.
    ///
    /// - Parameter configuration: The session's configuration. Default: `.ephemeral`, which
    ///   keeps nothing on disk (the `.default` configuration, for example, keeps a URL cache
    ///   under `~/.cache` on Linux). On Apple platforms, pass a configuration with a `urlCache`
    ///   to cache responses; on Linux the transport keeps no `urlCache`, since
    ///   FoundationNetworking cannot cancel a task safely while it looks the task up in one.
    ///   The transport uses a copy: unless its `httpAdditionalHeaders` name an
    ///   `Accept-Encoding`, the copy's say `Accept-Encoding: identity` (see the compression
    ///   rule above). The ``TransferRules/credentialHeaderFields`` among them are taken out of
    ///   the copy and added to each request that does not name them itself, so that only the
    ///   original request's origin receives them (see the credentials rule above).
    ///
    /// When the transport is released, requests in flight run to completion and the session is
    /// then invalidated.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        var headers = configuration.httpAdditionalHeaders ?? [:]
        let acceptEncoding = headers.first { ($0.key as? String)?.lowercased() == "accept-encoding" }?.value as? String
        if acceptEncoding == nil {
            headers["Accept-Encoding"] = "identity"
        }
        // The session adds its `httpAdditionalHeaders` to every request it sends, a redirected
        // one included, where the redirect rules cannot take them out: the credential fields go
        // to each request instead (see `addingConfiguredCredentials(to:)`).
        var credentials: [(name: String, value: String)] = []
        for key in headers.keys {
            guard let name = key as? String,
                TransferRules.credentialHeaderFields.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame })
            else { continue }
            if let value = headers.removeValue(forKey: key) as? String { credentials.append((name, value)) }
        }
        configuration.httpAdditionalHeaders = headers
        #if canImport(FoundationNetworking)
        // FoundationNetworking looks a data task up in the `urlCache` on another queue before
        // the task can load; a `cancel()` that lands in that window reports the cancellation for
        // a task the session has already forgotten, which traps the process.
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = Self.wholeSecondsIdleTimeout(configuration.timeoutIntervalForRequest)
        #endif
        let queue = DelegateQueue()
        let delegate = Delegate(
            answeringChallengesOn: queue.serialQueue, defaultAcceptEncoding: acceptEncoding ?? "identity")
        self.delegate = delegate
        self.delegateQueue = queue
        self.configuration = configuration
        self.configuredCredentials = credentials
        self.callbackQueue = queue.serialQueue
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Starts `request` on a data task of the transport's session and hands what arrives to
    /// `receiver`, keeping the ``TransferRules`` (redirects, credentials, content codings,
    /// framing) and ``TransferOptions/maximumRedirects``.
    ///
    /// The receiver is called on the session's delegate queue (on Linux, FoundationNetworking's
    /// own work queue), one call at a time, and completed exactly once: with the session's
    /// `URLError`, or a ``ResourceError`` (``ResourceError/redirectRefused(_:)``, or
    /// ``ResourceError/transport(_:underlying:)`` for a response in a content coding not asked
    /// for or with conflicting `Content-Length` fields).
    public func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable {
        let request = addingConfiguredCredentials(to: request)
        #if canImport(FoundationNetworking)
        if let body = request.streamedBody, !body.isRepeatable {
            receiver.transferDidComplete(with: ResourceError.invalidRequest(reason: Self.streamRefusal))
            return RefusedTransfer()
        }
        #endif
        // A streamed body is read by a stream of each task's own, which the receiver closes when
        // the transfer ends (see `StreamedBodyReceiver`).
        let bodyReceiver = request.streamedBody.map { StreamedBodyReceiver(receiver, body: $0) }
        let task = makeTask(for: request, streams: bodyReceiver)
        // The caller cancels through a handle that marks the transfer cancelled before it cancels
        // the task, so that a cancelled transfer never completes as a whole body. A request with a
        // body may have to be sent again on a new task (see `Delegate.restart`): the handle then
        // follows the transfer, and the transfer keeps the transport, and so its session, alive.
        let handle = TransferHandle(task, delegate: delegate, streams: bodyReceiver)
        let hasBody = request.httpBody.map { !$0.isEmpty } == true || bodyReceiver != nil
        let restart = hasBody ? Restart(transport: self, handle: handle) : nil
        delegate.register(task, request: request, options: options, receiver: bodyReceiver ?? receiver, restart: restart)
        task.resume()
        return handle
    }

    /// `request` with the credential fields of the configuration it does not name itself: they
    /// then follow the redirect rules like any field of the request, and go only to its origin.
    private func addingConfiguredCredentials(to request: URLRequest) -> URLRequest {
        var request = request
        for field in configuredCredentials where request.value(forHTTPHeaderField: field.name) == nil {
            request.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return request
    }

    /// Why a body with a ``RequestBodyStream`` is refused on Linux.
    static let streamRefusal = "URLSessionTransport cannot send a RequestBodyStream on Linux, where FoundationNetworking "
        + "reads a body stream on the work queue all its sessions share: use a file body, or AsyncHTTPClientTransport"

    /// The handle of a transfer refused before it started: cancelling it does nothing.
    private final class RefusedTransfer: Cancellable {
        func cancel() {}
    }

    /// Sends `request` and collects the body within `options`' size limit.
    ///
    /// Calls `completionHandler` exactly once, on the transport's serial callback queue, with
    /// the body and response or the error: ``ResourceError/responseTooLarge(limit:)``, or any
    /// error of ``startTransfer(_:options:receiver:)``.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        let queue = DelegateQueue.runsCallbacksInline ? callbackQueue : nil
        let collector = ResponseCollector(for: request, options: options) { answer in
            if let queue {
                queue.async { completionHandler(answer) }
            } else {
                completionHandler(answer)
            }
        }
        return startTransfer(request, options: options, receiver: collector)
    }

    #if canImport(FoundationNetworking)
    /// The longest idle timeout sent to FoundationNetworking, which stands for none: about 31
    /// years, so that its whole milliseconds fit in its timer.
    static let longestIdleTimeout: TimeInterval = 1e9

    /// `interval` as FoundationNetworking can keep it: whole seconds, at least the time asked
    /// for (it drops fractions, and times a request under a second out at once), and
    /// ``longestIdleTimeout`` for none (a value that is not finite or not positive) or for more.
    static func wholeSecondsIdleTimeout(_ interval: TimeInterval) -> TimeInterval {
        guard interval.isFinite, interval > 0 else { return longestIdleTimeout }
        return min(interval.rounded(.up), longestIdleTimeout)
    }
    #endif

    /// A data task for `request`: on the transport's session, or, for a request that must not
    /// reach a server twice (see ``URLRequest/mayBeSentAgain``), on a session of its own that
    /// holds no connection another request left open.
    ///
    /// libcurl, under FoundationNetworking, sends a request again on a new connection when the
    /// server closes a reused connection without answering; a connection that no request used
    /// before is never retried. The request's session is invalidated once its one task ends,
    /// and the request asks the server to close the connection after answering.
    ///
    /// A request with a streamed body is given a new ``RequestBodyInputStream`` of it, which
    /// `streams` closes when the transfer ends.
    fileprivate func makeTask(for request: URLRequest, streams: StreamedBodyReceiver?) -> URLSessionDataTask {
        var request = request
        #if !canImport(FoundationNetworking)
        // The task a body that fails to read cancels (see `nativeBodyStream`); the read may fail
        // before the task exists, which is then cancelled before it starts.
        let readFailure = Locked<(task: URLSessionTask?, hasFailed: Bool)>((nil, false))
        #endif
        if let body = request.streamedBody {
            let stream = RequestBodyInputStream(body: body)
            streams?.add(stream)
            #if canImport(FoundationNetworking)
            // FoundationNetworking reads the stream itself.
            request.httpBodyStream = stream
            // FoundationNetworking gives libcurl no length for a body stream, so libcurl sends it
            // chunked, and would send a `Content-Length` field beside `Transfer-Encoding: chunked`
            // (which RFC 9112 forbids): the field goes.
            request.setValue(nil, forHTTPHeaderField: "Content-Length")
            #else
            request.httpBodyStream = Self.nativeBodyStream(stream) {
                let task = readFailure.withLock { state -> URLSessionTask? in
                    state.hasFailed = true
                    return state.task
                }
                task?.cancel()
            }
            #endif
        }
        #if canImport(FoundationNetworking)
        // FoundationNetworking uses the configuration's `timeoutIntervalForRequest` for a request
        // that never set its `timeoutInterval`, and the request's once it is set: it is set here
        // only when it must change, so that a request without one keeps the configuration's.
        let timeout = Self.wholeSecondsIdleTimeout(request.timeoutInterval)
        if timeout != request.timeoutInterval {
            request.timeoutInterval = timeout
        }
        guard !request.mayBeSentAgain else { return session.dataTask(with: request) }
        if request.value(forHTTPHeaderField: "Connection") == nil {
            request.setValue("close", forHTTPHeaderField: "Connection")
        }
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
        let task = session.dataTask(with: request)
        session.finishTasksAndInvalidate()
        return task
        #else
        let task = session.dataTask(with: request)
        let hasFailed = readFailure.withLock { state -> Bool in
            state.task = task
            return state.hasFailed
        }
        if hasFailed { task.cancel() }
        return task
        #endif
    }

    #if !canImport(FoundationNetworking)
    /// The stream Apple's `URLSession` reads `stream`'s body from (FoundationNetworking reads the
    /// ``RequestBodyInputStream`` itself).
    ///
    /// Apple's `URLSession` schedules a body stream on a run loop, which only its own streams
    /// support: the body is written into one end of a bound pair of streams, on a thread of its
    /// own, and the session reads the other end. The session reads that end's closing as the end
    /// of the body, so a read that fails calls `readFailed` first, which cancels the task: the
    /// transfer then fails with the stream's ``RequestBodyInputStream/readFailure`` (see
    /// `StreamedBodyReceiver`), never as a shorter body.
    static func nativeBodyStream(_ stream: RequestBodyInputStream, readFailed: @escaping @Sendable () -> Void) -> InputStream {
        var input: InputStream?
        var output: OutputStream?
        Stream.getBoundStreams(withBufferSize: 64 * 1024, inputStream: &input, outputStream: &output)
        guard let input, let output else { return stream }
        let pump = Thread {
            output.open()
            stream.open()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            pumping: while true {
                let count = stream.read(&buffer, maxLength: buffer.count)
                if count < 0 { readFailed() }
                guard count > 0 else { break }
                var written = 0
                while written < count {
                    let result = buffer[written..<count].withUnsafeBufferPointer { output.write($0.baseAddress!, maxLength: $0.count) }
                    guard result > 0 else { break pumping }
                    written += result
                }
            }
            stream.close()
            output.close()
        }
        pump.start()
        return input
    }
    #endif
}

// MARK: - Transfers that move to a new task

extension URLSessionTransport {
    /// What a transfer needs to continue on a new task: the transport, whose session must stay
    /// valid until then, and the handle its caller cancels through.
    fileprivate struct Restart {
        let transport: URLSessionTransport
        let handle: TransferHandle
    }

    /// The ``Cancellable`` of a transfer: marks it cancelled, then cancels whichever task carries
    /// it now (a transfer may move to a new task on a redirect).
    fileprivate final class TransferHandle: Cancellable {
        // `state` is a `Locked`: its lock guards the current task and the cancelled flag.
        private let state: Locked<(task: URLSessionTask, isCancelled: Bool)>
        private let delegate: Delegate
        /// The streams of a streamed body, closed before the task is cancelled.
        private let streams: StreamedBodyReceiver?

        init(_ task: URLSessionTask, delegate: Delegate, streams: StreamedBodyReceiver?) {
            state = Locked((task, false))
            self.delegate = delegate
            self.streams = streams
        }

        var isCancelled: Bool { state.withLock { $0.isCancelled } }

        func cancel() {
            let task = state.withLock { state -> URLSessionTask? in
                guard !state.isCancelled else { return nil }
                state.isCancelled = true
                return state.task
            }
            guard let task else { return }
            // Marked first: the delegate hands the transfer's receiver nothing more but the
            // completion, which says it was cancelled.
            delegate.markCancelled(task)
            // A read waiting for a stream's next chunk holds the session's work queue: the
            // streams are closed first, which ends the wait.
            streams?.cancel()
            // The task's `cancel()` waits for the work queue, which every session in the process
            // shares and anything may hold (FoundationNetworking, another transfer's receiver):
            // it is made from another queue, so that this call, and a fetch's cancellation or
            // deadline, never wait for it.
            DispatchQueue.global().async { task.cancel() }
        }

        /// Makes `task` the one ``cancel()`` cancels; `false` if the handle was cancelled already.
        func move(to task: URLSessionTask) -> Bool {
            state.withLock { state in
                state.task = task
                return !state.isCancelled
            }
        }
    }
}

// MARK: - Transfer rules

extension URLSessionTransport {
    /// The header fields that carry credentials: ``TransferRules/credentialHeaderFields``.
    public static var credentialHeaderFields: [String] { TransferRules.credentialHeaderFields }
}

extension URLSessionTransport: CredentialAddingTransport {
    /// The credential fields of the configuration's `httpAdditionalHeaders`, which the transport
    /// adds to each request.
    var addedCredentialFields: [String] { configuredCredentials.map(\.name) }
}

// MARK: - Delegate queue

extension URLSessionTransport {
    /// The session's delegate queue.
    ///
    /// FoundationNetworking hands every delegate callback to `addOperation(_:)` as a block, three
    /// or more per request, and a plain `OperationQueue` wraps each one in a `BlockOperation`
    /// with its own locks, KVO notifications and bookkeeping; then a thread hop. On Linux this
    /// queue runs each block at once, on FoundationNetworking's work queue that adds it, in the
    /// order it arrives — what `URLSession.data(for:)` does for its own completion. That is safe
    /// because every callback the session can send reaches ``Delegate``, whose methods only
    /// update its own state under a lock and never block: the authentication challenge, whose
    /// handler FoundationNetworking may answer by suspending or cancelling the task
    /// synchronously, is answered from ``serialQueue``, as are the completion handlers of
    /// ``URLSessionTransport/data(for:options:completionHandler:)``. On Apple platforms, whose
    /// `URLSession` is a different implementation, blocks run on ``serialQueue``.
    /// `Operation` objects, which no session adds, go through `OperationQueue` onto
    /// ``serialQueue``.
    final class DelegateQueue: OperationQueue, @unchecked Sendable {
        #if canImport(FoundationNetworking)
        static let runsCallbacksInline = true
        #else
        static let runsCallbacksInline = false
        #endif

        /// Where callbacks that must not run on the session's work queue go.
        let serialQueue = DispatchQueue(label: "ResourceLoader.URLSessionTransport.callbacks")

        override init() {
            super.init()
            name = "ResourceLoader.URLSessionTransport.delegate"
            maxConcurrentOperationCount = 1
            underlyingQueue = serialQueue
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            if Self.runsCallbacksInline {
                block()
            } else {
                serialQueue.async(execute: block)
            }
        }
    }
}

// MARK: - Delegate

extension URLSessionTransport {
    /// The session's delegate: keeps the state of every transfer in flight, applies the
    /// ``TransferRules`` and hands what arrives to each transfer's ``TransferReceiver``.
    ///
    /// It is separate from the transport because a session holds its delegate strongly until it
    /// is invalidated; the transport invalidates the session when it is released.
    ///
    /// A transfer has one outcome: whoever removes it from ``transfers`` completes its receiver.
    /// Every removal happens in a delegate callback, and a session calls back for one task one
    /// call at a time, so the receiver's calls never overlap; they are made outside the lock.
    /// When a rule or the receiver stops a transfer, it is completed at once and the task is
    /// cancelled afterwards, because on Linux a cancellation waits behind the socket events
    /// already queued on the session's work queue (against a fast server, for a long time);
    /// callbacks for a transfer that has been removed are ignored.
    fileprivate final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        /// One request in flight.
        struct Transfer {
            /// The request as first sent, with the credential header fields a redirect back to
            /// its origin restores.
            let originalRequest: URLRequest
            let options: TransferOptions
            let receiver: any TransferReceiver
            /// Set for a request with a body, which a redirect may have to send again.
            let restart: Restart?
            var redirectsFollowed = 0
            /// Whether the receiver has the head: body bytes go to it from then on.
            var hasDeliveredHead = false
            /// Body bytes that arrived before any head (on Linux, those of a `401` or `407` that
            /// comes with a challenge), delivered after the head if the response is the answer.
            var earlyBody = Data()
            /// The most request body bytes reported to the receiver: a body sent again on a new
            /// task is reported from where the earlier sends got to, so counts never go back.
            var bytesSentReported: Int64 = 0
            /// Whether the caller cancelled the transfer: it then never completes as a whole body,
            /// whatever the session reports for the cancelled task.
            var isCancelled = false
            /// The body's declared length, when it is the length of what arrives (an identity body
            /// that belongs to the response); `-1` otherwise.
            var expectedBodyBytes: Int64 = -1
            /// The body bytes handed to the receiver so far.
            var receivedBodyBytes: Int64 = 0
        }

        // `transfers` is a `Locked`: its lock guards every transfer, keyed by its task (tasks of
        // different sessions share identifiers).
        private let transfers = Locked<[ObjectIdentifier: Transfer]>([:])
        private let challengeQueue: DispatchQueue
        /// The `Accept-Encoding` the session sends when a request names none.
        private let defaultAcceptEncoding: String

        /// - Parameters:
        ///   - challengeQueue: Where authentication challenges are answered and transfers moved
        ///     to new tasks: never on the session's work queue (see ``DelegateQueue``).
        ///   - defaultAcceptEncoding: The `Accept-Encoding` the session's configuration sends.
        init(answeringChallengesOn challengeQueue: DispatchQueue, defaultAcceptEncoding: String) {
            self.challengeQueue = challengeQueue
            self.defaultAcceptEncoding = defaultAcceptEncoding
        }

        func register(
            _ task: URLSessionTask,
            request: URLRequest,
            options: TransferOptions,
            receiver: any TransferReceiver,
            restart: Restart? = nil
        ) {
            let transfer = Transfer(originalRequest: request, options: options, receiver: receiver, restart: restart)
            transfers.withLock { $0[ObjectIdentifier(task)] = transfer }
        }

        /// Marks the transfer of `task` cancelled, before the task is.
        func markCancelled(_ task: URLSessionTask) {
            transfers.withLock { $0[ObjectIdentifier(task)]?.isCancelled = true }
        }

        /// Ends the transfer of `task` with `error`, if it is still in flight, and cancels the task.
        private func stop(_ task: URLSessionTask, with error: ResourceError) {
            guard let transfer = transfers.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
            transfer.receiver.transferDidComplete(with: error)
            // `cancel()` waits for the session's work queue; do not hold up the delegate queue.
            DispatchQueue.global().async { task.cancel() }
        }

        /// What the redirect callback does with a transfer.
        private enum RedirectStep {
            /// Let the session send this request.
            case follow(URLRequest)
            /// Decline the redirect and send this request on a new task.
            case restart(Transfer, Restart, URLRequest)
            /// Decline the redirect and deliver this failure.
            case stop(Transfer, ResourceError)
            /// The transfer is over: decline.
            case ignore
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // The next request is built from the request that was answered, not taken from
            // `request`: FoundationNetworking drops its body and reads a non-HTTP `Location` as
            // a path on the current origin.
            let location = response.value(forHTTPHeaderField: "Location")
            let current = task.currentRequest
            let step = transfers.withLock { transfers -> RedirectStep in
                guard var transfer = transfers.removeValue(forKey: ObjectIdentifier(task)) else { return .ignore }
                let decision = TransferRules.redirect(
                    statusCode: response.statusCode, location: location,
                    after: Self.answered(current ?? transfer.originalRequest, original: transfer.originalRequest),
                    original: transfer.originalRequest,
                    redirectsFollowed: transfer.redirectsFollowed, options: transfer.options)
                switch decision {
                case .refuse(let refusal):
                    return .stop(transfer, .redirectRefused(refusal))
                case .follow(let next):
                    transfer.redirectsFollowed += 1
                    transfer.earlyBody = Data()
                    // A followed redirect never carries a body on Linux: one that must is
                    // sent on a new task.
                    if next.httpBody.map({ !$0.isEmpty }) == true || next.streamedBody != nil {
                        guard let restart = transfer.restart else { return .stop(transfer, .redirectRefused(.unrepeatableBody)) }
                        return .restart(transfer, restart, next)
                    }
                    transfers[ObjectIdentifier(task)] = transfer
                    return .follow(next)
                }
            }
            // A declined redirect ends the task by itself: its last callbacks find no transfer.
            // It is declined, not cancelled: on Linux a `cancel()` that reaches the session's
            // work queue while it waits for this decision makes FoundationNetworking trap
            // ("Received callback for HTTP redirection, but we're not waiting for it").
            switch step {
            case .follow(let next):
                completionHandler(next)
            case .restart(let transfer, let restart, let next):
                completionHandler(nil)
                // Creating a task waits for the session's work queue, where this may be running.
                challengeQueue.async { self.restart(transfer, on: restart, with: next) }
            case .stop(let transfer, let error):
                completionHandler(nil)
                transfer.receiver.transferDidComplete(with: error)
            case .ignore:
                completionHandler(nil)
            }
        }

        /// The request a redirect answers, as the redirect rules read it: `current`, the task's
        /// request. On Apple platforms a task sends a streamed body from a bound stream (see
        /// `nativeBodyStream`), which can be neither read again nor told from a plain body
        /// stream: the body is read as `original`'s own ``RequestBodyInputStream``, the same body.
        private static func answered(_ current: URLRequest, original: URLRequest) -> URLRequest {
            #if canImport(FoundationNetworking)
            return current
            #else
            guard current.httpBodyStream != nil, let body = original.httpBodyStream as? RequestBodyInputStream else { return current }
            var request = current
            request.httpBodyStream = body
            return request
            #endif
        }

        /// Continues `transfer` on a new task that sends `request`.
        private func restart(_ transfer: Transfer, on restart: Restart, with request: URLRequest) {
            guard !restart.handle.isCancelled else {
                transfer.receiver.transferDidComplete(with: URLError(.cancelled))
                return
            }
            let task = restart.transport.makeTask(for: request, streams: transfer.receiver as? StreamedBodyReceiver)
            transfers.withLock { $0[ObjectIdentifier(task)] = transfer }
            // The handle follows the transfer before the new task starts, so that the request is
            // never sent after `cancel()` returned. Cancelled meanwhile (the handle marked the task
            // before this one): the new task is never started, and the transfer ends as
            // cancelled. A `cancel()` from now on cancels the new task; if that lands before
            // `resume()`, the task does not start (`resume()` leaves a cancelled task alone) and
            // ends as cancelled.
            guard restart.handle.move(to: task) else {
                if transfers.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) != nil {
                    transfer.receiver.transferDidComplete(with: URLError(.cancelled))
                }
                task.cancel()
                return
            }
            task.resume()
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            let transfer = transfers.withLock { transfers -> (receiver: any TransferReceiver, original: URLRequest)? in
                // A cancelled transfer is handed no head: its task is being cancelled, and it
                // ends as cancelled.
                guard var transfer = transfers[ObjectIdentifier(dataTask)], !transfer.isCancelled else { return nil }
                transfer.hasDeliveredHead = true
                transfer.earlyBody = Data()
                transfer.expectedBodyBytes = Self.expectedBodyBytes(of: response, answering: transfer.originalRequest)
                transfers[ObjectIdentifier(dataTask)] = transfer
                return (transfer.receiver, transfer.originalRequest)
            }
            guard let transfer else {
                completionHandler(.cancel)
                return
            }
            let decision = deliver(response, for: dataTask.currentRequest ?? transfer.original, to: transfer.receiver)
            // A response that is refused here has been answered already, and its task is being
            // cancelled: on Linux, `.cancel` alone was seen to end the task only at the idle timeout.
            if case .stop(let error) = decision {
                stop(dataTask, with: error)
                completionHandler(.cancel)
            } else {
                completionHandler(.allow)
            }
        }

        /// The length of the body `response` will deliver, when its `Content-Length` says so: an
        /// identity body of a status that has one, answering anything but a `HEAD`; else `-1`.
        private static func expectedBodyBytes(of response: URLResponse, answering request: URLRequest) -> Int64 {
            guard let response = response as? HTTPURLResponse, response.expectedContentLength >= 0, !request.isHEAD,
                response.statusCode >= 200, response.statusCode != 204, response.statusCode != 304,
                response.value(forHTTPHeaderField: "Content-Encoding").map(TransferRules.isIdentity) ?? true
            else { return -1 }
            return response.expectedContentLength
        }

        /// Checks `response` against the ``TransferRules`` and hands its head to `receiver`.
        private func deliver(_ response: URLResponse, for request: URLRequest, to receiver: any TransferReceiver) -> TransferDecision {
            guard let response = response as? HTTPURLResponse else {
                return .stop(.transport(.badServerResponse, underlying: URLError(.badServerResponse)))
            }
            let head = ResponseHead(response)
            if let refusal = TransferRules.refusal(of: head, request: request, defaultAcceptEncoding: defaultAcceptEncoding) {
                return .stop(refusal)
            }
            return receiver.transferDidReceive(head: head)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didSendBodyData bytesSent: Int64,
            totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            // Only before the head, and only counts past what was reported (the body may be
            // sent again on a new task after a `307` or `308`).
            let receiver = transfers.withLock { transfers -> (any TransferReceiver)? in
                guard let transfer = transfers[ObjectIdentifier(task)], !transfer.hasDeliveredHead,
                    totalBytesSent > transfer.bytesSentReported
                else { return nil }
                transfers[ObjectIdentifier(task)]?.bytesSentReported = totalBytesSent
                return transfer.receiver
            }
            receiver?.transferDidSend(totalBytesSent, of: totalBytesExpectedToSend >= 0 ? totalBytesExpectedToSend : nil)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let receiver = transfers.withLock { transfers -> (any TransferReceiver)? in
                // Nor any more of the body.
                guard let transfer = transfers[ObjectIdentifier(dataTask)], !transfer.isCancelled else { return nil }
                guard transfer.hasDeliveredHead else {
                    transfers[ObjectIdentifier(dataTask)]?.earlyBody.append(data)
                    return nil
                }
                transfers[ObjectIdentifier(dataTask)]?.receivedBodyBytes += Int64(data.count)
                return transfer.receiver
            }
            if let receiver, case .stop(let error) = receiver.transferDidReceive(data) {
                stop(dataTask, with: error)
            }
        }

        /// Completes `transfer`, which ended without a head delivered, with `response` as its
        /// answer: its head, then the body that arrived, then the end.
        private func complete(_ transfer: Transfer, answeredWith response: URLResponse, request: URLRequest) {
            let receiver = transfer.receiver
            var decision = deliver(response, for: request, to: receiver)
            if case .proceed = decision, !transfer.earlyBody.isEmpty {
                decision = receiver.transferDidReceive(transfer.earlyBody)
            }
            if case .stop(let error) = decision {
                receiver.transferDidComplete(with: error)
            } else {
                receiver.transferDidComplete(with: nil)
            }
        }

        func urlSession(
            _ session: URLSession,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            challengeQueue.async { completionHandler(.performDefaultHandling, nil) }
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            #if canImport(FoundationNetworking)
            // A 401 or 407 with a `WWW-Authenticate` challenge, the whole body already received.
            // Left to its default, FoundationNetworking neither retries nor finishes the task
            // when it has no credential to offer, so the fetch would wait for its deadline. The
            // transport offers none: the response itself is the answer, and the task is ended.
            if let response = challenge.failureResponse as? HTTPURLResponse, [401, 407].contains(response.statusCode),
                let transfer = transfers.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) })
            {
                if transfer.isCancelled {
                    // Cancelled before the challenge came: the transfer ends as cancelled, as
                    // `didCompleteWithError` ends one.
                    transfer.receiver.transferDidComplete(with: URLError(.cancelled))
                } else if transfer.hasDeliveredHead {
                    transfer.receiver.transferDidComplete(with: nil)
                } else {
                    complete(transfer, answeredWith: response, request: task.currentRequest ?? transfer.originalRequest)
                }
                challengeQueue.async { completionHandler(.cancelAuthenticationChallenge, nil) }
                return
            }
            #endif
            // FoundationNetworking may answer this by suspending, resuming or cancelling the
            // task, each a `sync` onto the work queue this callback may be running on.
            challengeQueue.async { completionHandler(.performDefaultHandling, nil) }
        }

        #if !canImport(FoundationNetworking)
        /// Keeps a response out of the session's `URLCache` when an ``HTTPCache`` sent the
        /// request (``CachingTransport`` sends it with `.reloadIgnoringLocalCacheData`): the two
        /// caches never stack.
        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            willCacheResponse proposedResponse: CachedURLResponse,
            completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
        ) {
            let bypassed = dataTask.originalRequest?.cachePolicy == .reloadIgnoringLocalCacheData
            completionHandler(bypassed ? nil : proposedResponse)
        }
        #endif

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let transfer = transfers.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
            if let error {
                let cutShort = transfer.hasDeliveredHead && transfer.receivedBodyBytes < transfer.expectedBodyBytes
                if cutShort, (error as? URLError)?.code == .unknown {
                    // FoundationNetworking reports a connection that ended before the declared
                    // length as an unknown error.
                    transfer.receiver.transferDidComplete(with: URLError(.networkConnectionLost, userInfo: [NSUnderlyingErrorKey: error]))
                } else {
                    transfer.receiver.transferDidComplete(with: error)
                }
            } else if transfer.isCancelled {
                // FoundationNetworking was seen to report a task cancelled in the middle of its
                // body as finished without an error: the body is not whole.
                transfer.receiver.transferDidComplete(with: URLError(.cancelled))
            } else if transfer.hasDeliveredHead, transfer.receivedBodyBytes < transfer.expectedBodyBytes {
                // A connection that ended before the declared length, reported as a success.
                transfer.receiver.transferDidComplete(with: URLError(.networkConnectionLost))
            } else if transfer.hasDeliveredHead {
                transfer.receiver.transferDidComplete(with: nil)
            } else if let response = task.response {
                complete(transfer, answeredWith: response, request: task.currentRequest ?? transfer.originalRequest)
            } else {
                transfer.receiver.transferDidComplete(with: URLError(.badServerResponse))
            }
        }
    }
}
