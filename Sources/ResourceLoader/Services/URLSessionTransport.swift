import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: a `URLSession` with a delegate that enforces the response size and
/// redirect limits of ``TransferOptions`` as the transfer happens.
///
/// A plain `URLSession` on Linux has only an idle timeout, follows redirects by its own rules and
/// holds the whole body in memory before anyone can look at its size. This transport closes
/// those gaps, on Linux and Apple platforms alike:
///
/// - **Size**: a declared `Content-Length` over ``TransferOptions/maximumResponseBytes`` fails
///   before the body is read; a body without a declared length is cancelled as soon as it
///   crosses the limit. Either way the fetch fails with
///   ``ResourceError/responseTooLarge(limit:)`` and memory stays bounded.
/// - **Redirects**: after ``TransferOptions/maximumRedirects`` redirects the next one fails with
///   ``ResourceError/RedirectRefusal/tooManyRedirects(limit:)``; a redirect from `https` to
///   `http` fails with ``ResourceError/RedirectRefusal/insecureDowngrade``.
/// - **Credentials**: a redirect to an origin (scheme, host and port) other than the original
///   request's does not carry its `Authorization` and `Cookie` header fields. (Linux's
///   `URLSession` forwards both to any origin.)
/// - **One outcome**: the completion handler is called exactly once per request.
///
/// ``ResourceService`` enforces the ``TransferOptions/deadline`` around it.
///
/// ```swift
/// let service = ResourceService<Cities>(session: URLSessionTransport.shared)
/// ```
///
/// Completion handlers run on the transport's serial callback queue: hand heavy work, such as
/// parsing, to another queue (``ResourceService`` does).
public final class URLSessionTransport: URLSessionType {
    /// A transport over an ephemeral configuration, which keeps no cache, cookies or
    /// credentials on disk. It lives as long as the process. ``ResourceService`` uses it by
    /// default.
    public static let shared = URLSessionTransport()

    private let session: URLSession
    private let delegate: Delegate
    /// Where the completion handlers of ``data(for:options:completionHandler:)`` run.
    private let callbackQueue: DispatchQueue

    /// Creates a transport with its own session.
    ///
    /// - Parameter configuration: The session's configuration. Default: `.ephemeral`, which
    ///   keeps nothing on disk (the `.default` configuration, for example, keeps a URL cache
    ///   under `~/.cache` on Linux). Pass a configuration with a `urlCache` to cache responses.
    ///
    /// When the transport is released, requests in flight run to completion and the session is
    /// then invalidated.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        let queue = DelegateQueue()
        let delegate = Delegate(answeringChallengesOn: queue.serialQueue)
        self.delegate = delegate
        self.callbackQueue = queue.serialQueue
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` with a data task that enforces `options`' size and redirect limits.
    ///
    /// Calls `completionHandler` exactly once, on the transport's serial callback queue, with
    /// the body and response or the error: ``ResourceError/responseTooLarge(limit:)``,
    /// ``ResourceError/redirectRefused(_:)``, or the session's `URLError`.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        guard DelegateQueue.runsCallbacksInline else {
            return start(request, options: options, completionHandler: completionHandler)
        }
        let queue = callbackQueue
        return start(request, options: options) { answer in queue.async { completionHandler(answer) } }
    }

    /// Like ``data(for:options:completionHandler:)``, but `completionHandler` runs wherever the
    /// session finishes the transfer — on Linux, FoundationNetworking's own work queue, as its
    /// `URLSession.data(for:)` does. For ``ResourceService`` only, whose handler just hands the
    /// answer on: it must not block, nor call back into the session synchronously.
    func dataAnsweringInline(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        start(request, options: options, completionHandler: completionHandler)
    }

    private func start(
        _ request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        let task = session.dataTask(with: request)
        delegate.register(task, url: request.url, options: options, completionHandler: completionHandler)
        task.resume()
        return task
    }
}

// MARK: - Redirect rules

extension URLSessionTransport {
    /// The header fields that are not forwarded to another origin on a redirect.
    static let credentialHeaderFields = ["Authorization", "Cookie"]

    /// Decides what to do with one redirect: refuse it, or follow it with the returned request.
    ///
    /// - Parameters:
    ///   - request: The request the session proposes to send next.
    ///   - currentURL: The URL that answered with the redirect.
    ///   - originalURL: The URL of the request as first sent.
    ///   - redirectsFollowed: How many redirects this request has already followed.
    ///   - options: The request's limits.
    /// - Returns: The request to send, without ``credentialHeaderFields`` if it goes to an origin
    ///   other than `originalURL`'s; or why the redirect is refused.
    static func redirect(
        _ request: URLRequest,
        from currentURL: URL?,
        originalURL: URL?,
        redirectsFollowed: Int,
        options: TransferOptions
    ) -> RedirectDecision {
        guard redirectsFollowed < options.maximumRedirects else {
            return .refuse(.tooManyRedirects(limit: options.maximumRedirects))
        }
        if currentURL?.scheme?.lowercased() == "https", request.url?.scheme?.lowercased() != "https" {
            return .refuse(.insecureDowngrade)
        }
        var next = request
        if Origin(request.url) == nil || Origin(request.url) != Origin(originalURL) {
            for name in credentialHeaderFields {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return .follow(next)
    }

    /// What to do with a redirect.
    enum RedirectDecision: Equatable {
        /// Send this request next.
        case follow(URLRequest)
        /// Do not follow the redirect; fail the fetch with this reason.
        case refuse(ResourceError.RedirectRefusal)
    }

    /// A URL's scheme, host and port, as RFC 6454 compares them.
    struct Origin: Hashable {
        let scheme: String
        let host: String
        let port: Int

        init?(_ url: URL?) {
            guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
                return nil
            }
            let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
            guard let port = url.port ?? defaultPort else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = port
        }
    }
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
    /// The session's delegate: keeps the state of every transfer in flight and applies its limits.
    ///
    /// It is separate from the transport because a session holds its delegate strongly until it
    /// is invalidated; the transport invalidates the session when it is released.
    ///
    /// A transfer has one outcome: whoever removes it from ``transfers`` delivers it. When a
    /// limit stops a transfer, the outcome is delivered at once and the task is cancelled
    /// afterwards, because on Linux a cancellation waits behind the socket events already queued
    /// on the session's work queue (against a fast server, for a long time); callbacks for a
    /// transfer that has been removed are ignored.
    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        /// One request in flight.
        struct Transfer {
            let originalURL: URL?
            let options: TransferOptions
            let completionHandler: @Sendable (Result<(Data, URLResponse), any Error>) -> Void
            var body = Data()
            var redirectsFollowed = 0
        }

        /// What a callback decided about its transfer.
        enum Verdict<Value> {
            case proceed(Value)
            case stop(ResourceError)
        }

        // `transfers` is a `Locked`: its lock guards every transfer, keyed by task identifier.
        private let transfers = Locked<[Int: Transfer]>([:])
        private let challengeQueue: DispatchQueue

        /// - Parameter challengeQueue: Where authentication challenges are answered: never on the
        ///   session's work queue (see ``DelegateQueue``).
        init(answeringChallengesOn challengeQueue: DispatchQueue) {
            self.challengeQueue = challengeQueue
        }

        func register(
            _ task: URLSessionTask,
            url: URL?,
            options: TransferOptions,
            completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
        ) {
            let transfer = Transfer(originalURL: url, options: options, completionHandler: completionHandler)
            transfers.withLock { $0[task.taskIdentifier] = transfer }
        }

        /// Runs `decide` on the transfer of `task` while holding the lock.
        ///
        /// Returns `nil` if the transfer is over. On ``Verdict/stop(_:)`` the transfer is removed,
        /// its outcome delivered and, when `cancelsTask` is `true`, the task cancelled. The
        /// transfer is moved out of the dictionary while `decide` runs, so appending to its body
        /// does not copy the body.
        private func update<Value>(
            _ task: URLSessionTask,
            cancelsTask: Bool = true,
            _ decide: (inout Transfer) -> Verdict<Value>
        ) -> Value? {
            let (verdict, stopped) = transfers.withLock { transfers -> (Verdict<Value>?, Transfer?) in
                guard var transfer = transfers.removeValue(forKey: task.taskIdentifier) else { return (nil, nil) }
                let verdict = decide(&transfer)
                if case .stop = verdict { return (verdict, transfer) }
                transfers[task.taskIdentifier] = transfer
                return (verdict, nil)
            }
            switch verdict {
            case .proceed(let value):
                return value
            case .stop(let error):
                stopped?.completionHandler(.failure(error))
                if cancelsTask {
                    // `cancel()` waits for the session's work queue; do not hold up the delegate queue.
                    DispatchQueue.global().async { task.cancel() }
                }
                return nil
            case nil:
                return nil
            }
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // A refused redirect is declined, not cancelled: declining ends the task by itself,
            // and on Linux a `cancel()` that reaches the session's work queue while it waits for
            // this decision makes FoundationNetworking trap ("Received callback for HTTP
            // redirection, but we're not waiting for it").
            let next = update(task, cancelsTask: false) { transfer -> Verdict<URLRequest> in
                let decision = URLSessionTransport.redirect(
                    request, from: response.url ?? task.currentRequest?.url, originalURL: transfer.originalURL,
                    redirectsFollowed: transfer.redirectsFollowed, options: transfer.options)
                switch decision {
                case .follow(let next):
                    transfer.redirectsFollowed += 1
                    return .proceed(next)
                case .refuse(let refusal):
                    return .stop(.redirectRefused(refusal))
                }
            }
            completionHandler(next)
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            // A response over the limit has been answered already, and its task is being
            // cancelled: on Linux, `.cancel` alone was seen to end the task only at the idle timeout.
            let allowed: Void? = update(dataTask) { transfer -> Verdict<Void> in
                let limit = transfer.options.maximumResponseBytes
                guard response.expectedContentLength <= Int64(limit) else { return .stop(.responseTooLarge(limit: limit)) }
                return .proceed(())
            }
            completionHandler(allowed != nil ? .allow : .cancel)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            _ = update(dataTask) { transfer -> Verdict<Void> in
                let limit = transfer.options.maximumResponseBytes
                guard data.count <= limit - transfer.body.count else { return .stop(.responseTooLarge(limit: limit)) }
                transfer.body.append(data)
                return .proceed(())
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
                let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) })
            {
                transfer.completionHandler(.success((transfer.body, response)))
                challengeQueue.async { completionHandler(.cancelAuthenticationChallenge, nil) }
                return
            }
            #endif
            // FoundationNetworking may answer this by suspending, resuming or cancelling the
            // task, each a `sync` onto the work queue this callback may be running on.
            challengeQueue.async { completionHandler(.performDefaultHandling, nil) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let error {
                transfer.completionHandler(.failure(error))
            } else if let response = task.response {
                transfer.completionHandler(.success((transfer.body, response)))
            } else {
                transfer.completionHandler(.failure(URLError(.badServerResponse)))
            }
        }
    }
}
