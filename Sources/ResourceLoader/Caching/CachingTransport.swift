import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers from an ``HTTPCache`` when it can, and otherwise sends the request
/// through the transport it wraps, storing what may be stored.
///
/// For a `GET` or `HEAD` request:
/// - a fresh stored response (``CachePolicy/use(of:for:now:)``) answers at once, without the
///   network, with an `Age` field; a `HEAD` request is answered from a fresh stored `GET`
///   response too, without its body (RFC 9111, section 4.3.5);
/// - a stale one within its `stale-while-revalidate` window
///   (``CachePolicy/mayServeWhileRevalidating(_:for:now:)``) answers at once too, and is
///   validated in the background: one request per key, however many fetches it answered
///   meanwhile, whose answer updates the store;
/// - a stale one is validated: the request goes out with `If-None-Match` or
///   `If-Modified-Since`, and a `304` becomes the stored response updated with the `304`'s
///   fields (``CachePolicy/merging(_:with:requestDate:responseDate:)``), body included, so the
///   receiver sees a whole `200` and the resource parses the stored body. A `304` whose
///   validators are not the stored response's (``CachePolicy/notModified(_:validates:)``)
///   cannot update it (RFC 9111, section 4.3.4): the stored response is removed, and the
///   request is sent once more, as the receiver made it, without the validators; the receiver
///   sees only that second answer, through the same handle;
/// - otherwise the response streams through to the receiver as it arrives, and a copy of the
///   body is kept: it is stored once the whole body has arrived, never when the transfer ends
///   with an error or the receiver stops it;
/// - a request with `Cache-Control: only-if-cached` that nothing stored can answer ends with
///   ``ResourceError/notCached`` and sends nothing: so does one with a method other than `GET`
///   or `HEAD`, or with its own preconditions or `Range`, which the cache never answers.
///
/// The answer to a `HEAD` request updates the stored `GET` response of its URL when their
/// validators match, and removes it when they do not (section 4.3.5).
///
/// A request that carries its own preconditions (`If-None-Match`, `Range`…) goes through
/// untouched (unless it says `only-if-cached`). An unsafe request (`POST`, `PUT`, `DELETE`…)
/// answered with a `2xx` or `3xx` removes what is stored for its URL, for the URL that answered
/// it when the transport resent it after a redirect, and for the answer's `Location` and
/// `Content-Location` on the origin of the URL that answered (RFC 9111, section 4.4). The wrapped
/// transport's transfer rules (redirects, limits, content codings) all still apply: the cache
/// only sees what the transport delivers.
///
/// The request's own `Cache-Control` directives (`no-cache`, `no-store`, `max-age`,
/// `max-stale`, `min-fresh`, `only-if-cached`) are honoured; set them in the resource's
/// ``NetworkResourceType/headerFields``. A `Pragma: no-cache` without `Cache-Control` reads as
/// `no-cache`.
///
/// Every request it sends through ``base`` says `.reloadIgnoringLocalCacheData`, those it passes
/// through untouched included, and on Apple platforms ``URLSessionTransport`` keeps their
/// responses out of its session's `URLCache`, so that the platform's cache never answers or
/// stores under this one.
public struct CachingTransport: HTTPTransport {
    /// The transport requests go through when the cache cannot answer.
    public let base: any HTTPTransport
    /// The cache.
    public let cache: HTTPCache
    /// The clock the cache's rules read the date from.
    let now: @Sendable () -> Date
    /// The monitors told of each decision, with the fetch of ``FetchEvent/Context/current``.
    let monitors: [any FetchMonitor]
    /// Whether ``base`` adds credential fields of its own to every request
    /// (``CredentialAddingTransport``).
    private let baseAddsCredentials: Bool

    /// Creates a transport that answers from `cache` and sends the rest through `base`.
    ///
    /// - Parameters:
    ///   - base: The transport that sends what the cache cannot answer.
    ///   - cache: The cache.
    ///   - now: Where the current date comes from. Default: the system clock. A
    ///     ``ResourcePipeline`` passes its ``ResourcePipeline/currentDate``.
    public init(wrapping base: any HTTPTransport, cache: HTTPCache, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(wrapping: base, cache: cache, now: now, monitors: [])
    }

    init(wrapping base: any HTTPTransport, cache: HTTPCache, now: @escaping @Sendable () -> Date, monitors: [any FetchMonitor]) {
        self.base = base
        self.cache = cache
        self.now = now
        self.monitors = monitors
        self.baseAddsCredentials = (base as? any CredentialAddingTransport).map { !$0.addedCredentialFields.isEmpty } ?? false
    }

    /// Whether `request` goes out with credentials, which a shared cache reads as authorisation
    /// (RFC 9111, section 3.5): it carries one of the ``TransferRules/credentialHeaderFields``
    /// (`Authorization`, `Proxy-Authorization`, `Cookie`), or ``base`` adds some to every request
    /// (a ``URLSessionTransport`` whose configuration names them).
    func sendsCredentials(with request: URLRequest) -> Bool {
        baseAddsCredentials || TransferRules.credentialHeaderFields.contains { request.value(forHTTPHeaderField: $0) != nil }
    }

    /// Answers `request` from the cache, or sends it through ``base``; see the type's
    /// description for how.
    public func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable {
        let report = reporter(for: request)
        guard let url = request.url else { return send(request, options: options, receiver: receiver) }
        let method = (request.httpMethod ?? "GET").uppercased()
        let directives = Self.directives(of: request)
        let hasPreconditions = CachePolicy.preconditionFields.contains { request.value(forHTTPHeaderField: $0) != nil }
        if directives.onlyIfCached, (method != "GET" && method != "HEAD") || hasPreconditions {
            // Nothing stored answers it: the cache neither answers other methods nor evaluates
            // a request's own preconditions or ranges.
            report?(.onlyIfCachedUnsatisfied)
            receiver.transferDidComplete(with: ResourceError.notCached)
            return NoTransfer()
        }
        guard method == "GET" || method == "HEAD" else {
            if CachePolicy.safeMethods.contains(method) {
                return send(request, options: options, receiver: receiver)
            }
            let invalidating = InvalidatingReceiver(receiver: receiver, method: method, url: url, store: cache.store, report: report)
            return send(request, options: options, receiver: invalidating)
        }
        if hasPreconditions {
            report?(.notStored(.conditionalRequest))
            return send(request, options: options, receiver: receiver)
        }
        let key = CachePolicy.key(method: method, url: url)
        let requestDate = now()
        if method == "HEAD", let get = freshStoredGET(for: request, url: url, directives: directives, now: requestDate) {
            report?(.hit)
            deliver(get, to: receiver, isHEAD: true, now: requestDate)
            return NoTransfer()
        }
        // A memory store's entry comes with the models kept with it (``ReusableModelResource``).
        let entry: (response: CachedResponse, models: KeptModels?)? =
            if let store = cache.modelKeepingStore {
                store.entry(forKey: key)
            } else {
                cache.store.cachedResponse(forKey: key).map { ($0, nil) }
            }
        var stored = entry?.response
        if let candidate = stored, !CachePolicy.request(request, matchesVaryOf: candidate) { stored = nil }
        var outgoing = request
        var validating = false
        if let stored {
            switch cache.policy.use(of: stored, for: directives, now: requestDate) {
            case .serve:
                report?(.hit)
                deliver(stored, to: receiver, isHEAD: method == "HEAD", now: requestDate, models: entry?.models)
                return NoTransfer()
            case .validate(let conditions):
                guard !directives.onlyIfCached else { break }
                if cache.policy.mayServeWhileRevalidating(stored, for: directives, now: requestDate) {
                    report?(.staleWhileRevalidate)
                    // Started first, so that the validation is under way when the answer is
                    // handed over; it never holds the answer up (a transport starts a transfer
                    // and returns).
                    revalidateInBackground(
                        request, key: key, stored: stored, conditions: conditions, directives: directives, options: options,
                        report: reporter(for: request, afterTheFetch: true))
                    deliver(stored, to: receiver, isHEAD: method == "HEAD", now: requestDate, models: entry?.models)
                    return NoTransfer()
                }
                for (name, value) in conditions { outgoing.setValue(value, forHTTPHeaderField: name) }
                validating = !conditions.isEmpty
            }
        }
        if directives.onlyIfCached {
            report?(.onlyIfCachedUnsatisfied)
            receiver.transferDidComplete(with: ResourceError.notCached)
            return NoTransfer()
        }
        if !validating { report?(.miss) }
        let validation = validating ? ValidationTransfer() : nil
        let storing = StoringReceiver(
            receiver: receiver,
            transport: self,
            request: request,
            key: key,
            directives: directives,
            stored: stored,
            validation: validation,
            requestDate: requestDate,
            options: options,
            report: report
        )
        let transfer = send(outgoing, options: options, receiver: storing)
        guard let validation else { return transfer }
        validation.attachFirstTransfer(transfer)
        return validation
    }

    /// Sends `request` through ``base``, with `.reloadIgnoringLocalCacheData`: every request the
    /// cache hands its base goes through here, those it passes through untouched included.
    func send(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        var request = request
        // On Apple platforms, a `URLSession` under this cache neither answers from its own
        // `URLCache` nor stores in it (``URLSessionTransport`` refuses to store such a request's
        // response): the two caches never stack. FoundationNetworking keeps no `URLCache` under
        // ``URLSessionTransport``, and the policy says the same to any other transport.
        request.cachePolicy = .reloadIgnoringLocalCacheData
        return base.startTransfer(request, options: options, receiver: receiver)
    }

    /// The request's `Cache-Control` directives; `Pragma: no-cache` without `Cache-Control` is
    /// `no-cache` (RFC 9111, section 5.4).
    static func directives(of request: URLRequest) -> CacheControl {
        if let value = request.value(forHTTPHeaderField: "Cache-Control") { return CacheControl(value) }
        var directives = CacheControl()
        if let pragma = request.value(forHTTPHeaderField: "Pragma"),
            CacheControl.members(of: pragma).contains(where: { $0.name == "no-cache" })
        {
            directives.noCache = true
        }
        return directives
    }

    /// The stored `GET` response of `url` when it is fresh for `request`, a `HEAD` request.
    private func freshStoredGET(for request: URLRequest, url: URL, directives: CacheControl, now: Date) -> CachedResponse? {
        guard let get = cache.store.cachedResponse(forKey: CachePolicy.key(method: "GET", url: url)),
            CachePolicy.request(request, matchesVaryOf: get),
            case .serve = cache.policy.use(of: get, for: directives, now: now)
        else { return nil }
        return get
    }

    /// Validates `stored` with the origin, away from the fetch it answered: the answer (a `304`,
    /// a new response, an error) updates the store as a validation on a fetch's path would. Does
    /// nothing while another validation of `key` is under way.
    ///
    /// No fetch waits for it, so it has a deadline of its own: the fetch's
    /// (``TransferOptions/deadline``), or ``TransferOptions/defaultDeadline``; past it the
    /// transfer is cancelled, and the key may be validated again.
    private func revalidateInBackground(
        _ request: URLRequest,
        key: String,
        stored: CachedResponse,
        conditions: [String: String],
        directives: CacheControl,
        options: TransferOptions,
        report: (@Sendable (FetchEvent.CacheDecided.Outcome) -> Void)?
    ) {
        guard let token = cache.beginRevalidation(ofKey: key) else { return }
        var outgoing = request
        for (name, value) in conditions { outgoing.setValue(value, forHTTPHeaderField: name) }
        let validation = conditions.isEmpty ? nil : ValidationTransfer()
        let deadline = BackgroundDeadline()
        let storing = StoringReceiver(
            receiver: BackgroundValidationReceiver(
                cache: cache, key: key, token: token, deadline: deadline, limit: cache.bodyLimit(for: options)),
            transport: self,
            request: request,
            key: key,
            directives: directives,
            stored: stored,
            validation: validation,
            requestDate: now(),
            options: options,
            report: report
        )
        let started = send(outgoing, options: options, receiver: storing)
        validation?.attachFirstTransfer(started)
        deadline.arm(transfer: validation ?? started, cache: cache, key: key, token: token, after: options.deadline ?? TransferOptions.defaultDeadline)
    }

    /// Hands `stored` to `receiver` as a whole response, with its current `Age` and the models
    /// kept with it, if any.
    func deliver(_ stored: CachedResponse, to receiver: any TransferReceiver, isHEAD: Bool, now: Date, models: KeptModels? = nil) {
        var fields = stored.headerFields.filter { !ResponseHead.sameFieldName($0.name, "Age") }
        fields.append(("Age", CachePolicy.ageFieldValue(cache.policy.currentAge(of: stored, now: now))))
        var head = ResponseHead(statusCode: stored.statusCode, url: stored.url, headerFields: fields)
        head.keptModels = models
        if case .stop(let error) = receiver.transferDidReceive(head: head) {
            receiver.transferDidComplete(with: error)
            return
        }
        if !isHEAD, !stored.body.isEmpty, case .stop(let error) = receiver.transferDidReceive(stored.body) {
            receiver.transferDidComplete(with: error)
            return
        }
        receiver.transferDidComplete(with: nil)
    }

    /// Tells the monitors of a decision about `request`, when the transport runs for a fetch of
    /// a pipeline with monitors: until the fetch has finished, or, for a background validation
    /// (`afterTheFetch`), once it has, after its ``FetchMonitor/fetchFinished(_:)`` (at once
    /// outside a fetch's events).
    private func reporter(
        for request: URLRequest, afterTheFetch: Bool = false
    ) -> (@Sendable (FetchEvent.CacheDecided.Outcome) -> Void)? {
        guard !monitors.isEmpty, let context = FetchEvent.Context.current else { return nil }
        let monitors = monitors
        let url = request.url
        let gate = FetchEvent.Context.events
        return { outcome in
            let event = FetchEvent.CacheDecided(context: context, url: url, outcome: outcome)
            if let gate, afterTheFetch {
                gate.tellAfterTheEnd(monitors) { $0.cacheDecided(event) }
            } else if let gate {
                _ = gate.tell(monitors) { $0.cacheDecided(event) }
            } else {
                for monitor in monitors { monitor.cacheDecided(event) }
            }
        }
    }
}

/// The end of a background validation's answer: takes a body up to the largest the cache keeps
/// (the store keeps what it must) and stops the transfer past it, and marks the validation of
/// its key as over once the transfer completes.
private final class BackgroundValidationReceiver: TransferReceiver, @unchecked Sendable {
    private let cache: HTTPCache
    private let key: String
    private let token: UUID
    private let deadline: BackgroundDeadline
    /// The most body bytes taken.
    private let limit: Int
    /// The body bytes taken so far; the transport never calls a receiver twice at once.
    private let received = Locked(0)

    init(cache: HTTPCache, key: String, token: UUID, deadline: BackgroundDeadline, limit: Int) {
        self.cache = cache
        self.key = key
        self.token = token
        self.deadline = deadline
        self.limit = limit
    }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {}

    func transferDidReceive(head: ResponseHead) -> TransferDecision { .proceed }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        let total = received.withLock { count -> Int in
            count += chunk.count
            return count
        }
        return total > limit ? .stop(.responseTooLarge(limit: limit)) : .proceed
    }

    func transferDidReceive(codedByteCount: Int) {}

    func transferDidComplete(with error: (any Error)?) {
        deadline.disarm()
        cache.endRevalidation(ofKey: key, token: token)
    }
}

/// A background validation's deadline, scheduled with ``Deadlines``: it holds the transfer and
/// the cache's mark only while the validation is under way. The transfer's completion takes the
/// deadline out at once, so the cache, its store and the transfer go as soon as their users let
/// go of them, not when the deadline would have passed.
private final class BackgroundDeadline: DeadlineExpiring, @unchecked Sendable {
    private enum State {
        /// The transfer is being started.
        case starting
        case armed(transfer: any Cancellable, cache: HTTPCache, key: String, token: UUID)
        /// The transfer completed, or the deadline passed.
        case over
    }

    // `state` is a `Locked`: its lock guards the state. `deadlineSlot` is read and written only
    // by ``Deadlines``, under its lock.
    private let state = Locked(State.starting)
    var deadlineSlot = -1

    /// Keeps what the deadline ends and schedules it `duration` from now, unless the transfer
    /// has already completed (a transport may answer before `startTransfer` returns).
    func arm(transfer: any Cancellable, cache: HTTPCache, key: String, token: UUID, after duration: Duration) {
        state.withLock { state in
            guard case .starting = state else { return }
            state = .armed(transfer: transfer, cache: cache, key: key, token: token)
            // Scheduled under the lock, so that a completion that follows at once finds it to
            // take out. ``Deadlines`` never calls back under its own lock.
            Deadlines.shared.schedule(self, after: duration)
        }
    }

    /// Lets go of the transfer and the cache, and takes the deadline out: the transfer completed.
    func disarm() {
        let wasArmed = state.withLock { state -> Bool in
            defer { state = .over }
            if case .armed = state { return true }
            return false
        }
        if wasArmed { Deadlines.shared.cancel(self) }
    }

    /// Cancels the transfer still under way, and marks the validation of its key as over.
    func deadlinePassed() {
        let armed = state.withLock { state -> State in
            defer { state = .over }
            return state
        }
        guard case .armed(let transfer, let cache, let key, let token) = armed else { return }
        transfer.cancel()
        cache.endRevalidation(ofKey: key, token: token)
    }
}

/// The handle of a transfer the cache answered itself: nothing to cancel.
private final class NoTransfer: Cancellable {
    func cancel() {}
}

/// The handle of a validation, whose request the cache may send once more without its
/// validators (``StoringReceiver`` does, when a `304` cannot update the stored response): it
/// cancels whichever of the two transfers is under way, and keeps the second from starting once
/// cancelled.
final class ValidationTransfer: Cancellable {
    private struct State {
        /// The transfer ``cancel()`` cancels.
        var transfer: (any Cancellable)?
        /// Whether the request was sent again: the first transfer is over, and never replaces
        /// the second's handle.
        var isResent = false
        var isCancelled = false
    }

    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state = Locked(State())

    /// Makes `transfer`, the validation's, the one ``cancel()`` cancels, unless the request has
    /// already been sent again (a transport may answer before `startTransfer` returns);
    /// cancels it at once when the handle was cancelled first.
    func attachFirstTransfer(_ transfer: any Cancellable) {
        let cancels = state.withLock { state -> Bool in
            if state.isCancelled { return true }
            if !state.isResent { state.transfer = transfer }
            return false
        }
        if cancels { transfer.cancel() }
    }

    /// Starts the second transfer with `start`, unless the handle was cancelled: then returns
    /// `false` and starts nothing. Called once, after the first transfer completed.
    func resend(_ start: () -> any Cancellable) -> Bool {
        let proceeds = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.isResent = true
            state.transfer = nil
            return true
        }
        guard proceeds else { return false }
        let transfer = start()
        let cancels = state.withLock { state -> Bool in
            if state.isCancelled { return true }
            state.transfer = transfer
            return false
        }
        // Cancelled while it was being started: it completes with the cancellation.
        if cancels { transfer.cancel() }
        return true
    }

    /// Cancels the transfer under way, and keeps the request from being sent again.
    func cancel() {
        let transfer = state.withLock { state -> (any Cancellable)? in
            state.isCancelled = true
            defer { state.transfer = nil }
            return state.transfer
        }
        transfer?.cancel()
    }
}
