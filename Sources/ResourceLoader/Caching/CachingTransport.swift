import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers from an ``HTTPCache`` when it can, and otherwise sends the request
/// through the transport it wraps, storing what may be stored.
///
/// For a `GET` or `HEAD` request:
/// - a fresh stored response (``CachePolicy/use(of:for:now:)``) answers at once, without the
///   network, with an `Age` field;
/// - a stale one is validated: the request goes out with `If-None-Match` or
///   `If-Modified-Since`, and a `304` becomes the stored response updated with the `304`'s
///   fields (``CachePolicy/merging(_:with:requestDate:responseDate:)``), body included, so the
///   receiver sees a whole `200` and the resource parses the stored body;
/// - otherwise the response streams through to the receiver as it arrives, and a copy of the
///   body is kept: it is stored once the whole body has arrived, never when the transfer ends
///   with an error or the receiver stops it;
/// - a request with `Cache-Control: only-if-cached` that nothing stored can answer ends with
///   ``ResourceError/notCached`` and sends nothing.
///
/// A request that carries its own preconditions (`If-None-Match`, `Range`…) goes through
/// untouched. An unsafe request (`POST`, `PUT`, `DELETE`…) answered with a `2xx` or `3xx`
/// removes what is stored for its URL and for its `Location` and `Content-Location` on the same
/// origin (RFC 9111, section 4.4). The wrapped transport's transfer rules (redirects, limits,
/// content codings) all still apply: the cache only sees what the transport delivers.
///
/// The request's own `Cache-Control` directives (`no-cache`, `no-store`, `max-age`,
/// `max-stale`, `min-fresh`, `only-if-cached`) are honoured; set them in the resource's
/// ``NetworkResourceType/headerFields``. A `Pragma: no-cache` without `Cache-Control` reads as
/// `no-cache`.
///
/// On Apple platforms the requests it sends say `.reloadIgnoringLocalCacheData`, and
/// ``URLSessionTransport`` keeps their responses out of its session's `URLCache`, so that the
/// platform's cache never answers or stores under this one.
public struct CachingTransport: HTTPTransport {
    /// The transport requests go through when the cache cannot answer.
    public let base: any HTTPTransport
    /// The cache.
    public let cache: HTTPCache
    /// The clock the cache's rules read the date from.
    let now: @Sendable () -> Date
    /// The monitors told of each decision, with the fetch of ``FetchEvent/Context/current``.
    let monitors: [any FetchMonitor]

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
    }

    /// Answers `request` from the cache, or sends it through ``base``; see the type's
    /// description for how.
    public func startTransfer(
        _ request: URLRequest,
        options: TransferOptions,
        receiver: any TransferReceiver
    ) -> any Cancellable {
        let report = reporter(for: request)
        guard let url = request.url else { return base.startTransfer(request, options: options, receiver: receiver) }
        let method = (request.httpMethod ?? "GET").uppercased()
        guard method == "GET" || method == "HEAD" else {
            if CachePolicy.safeMethods.contains(method) {
                return base.startTransfer(request, options: options, receiver: receiver)
            }
            let invalidating = InvalidatingReceiver(receiver: receiver, method: method, url: url, store: cache.store, report: report)
            return base.startTransfer(request, options: options, receiver: invalidating)
        }
        let directives = Self.directives(of: request)
        if CachePolicy.preconditionFields.contains(where: { request.value(forHTTPHeaderField: $0) != nil }) {
            report?(.notStored(.conditionalRequest))
            return base.startTransfer(request, options: options, receiver: receiver)
        }
        let key = CachePolicy.key(method: method, url: url)
        let requestDate = now()
        var stored = cache.store.cachedResponse(forKey: key)
        if let candidate = stored, !CachePolicy.request(request, matchesVaryOf: candidate) { stored = nil }
        var outgoing = request
        var validating = false
        if let stored {
            switch cache.policy.use(of: stored, for: directives, now: requestDate) {
            case .serve:
                report?(.hit)
                deliver(stored, to: receiver, isHEAD: method == "HEAD", now: requestDate)
                return NoTransfer()
            case .validate(let conditions):
                guard !directives.onlyIfCached else { break }
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
        #if !canImport(FoundationNetworking)
        // On Apple platforms, a `URLSession` under this cache neither answers from its own
        // `URLCache` nor stores in it (``URLSessionTransport`` refuses to store such a request's
        // response): the two caches never stack. FoundationNetworking keeps no `URLCache` under
        // ``URLSessionTransport``.
        outgoing.cachePolicy = .reloadIgnoringLocalCacheData
        #endif
        let storing = StoringReceiver(
            receiver: receiver,
            transport: self,
            request: request,
            key: key,
            directives: directives,
            stored: stored,
            validating: validating,
            requestDate: requestDate,
            maximumBodyBytes: options.maximumResponseBytes,
            report: report
        )
        return base.startTransfer(outgoing, options: options, receiver: storing)
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

    /// Hands `stored` to `receiver` as a whole response, with its current `Age`.
    func deliver(_ stored: CachedResponse, to receiver: any TransferReceiver, isHEAD: Bool, now: Date) {
        var fields = stored.headerFields.filter { !ResponseHead.sameFieldName($0.name, "Age") }
        fields.append(("Age", String(Int(cache.policy.currentAge(of: stored, now: now).rounded(.down)))))
        let head = ResponseHead(statusCode: stored.statusCode, url: stored.url, headerFields: fields)
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
    /// a pipeline with monitors.
    private func reporter(for request: URLRequest) -> (@Sendable (FetchEvent.CacheDecided.Outcome) -> Void)? {
        guard !monitors.isEmpty, let context = FetchEvent.Context.current else { return nil }
        let monitors = monitors
        let url = request.url
        return { outcome in
            let event = FetchEvent.CacheDecided(context: context, url: url, outcome: outcome)
            for monitor in monitors { monitor.cacheDecided(event) }
        }
    }
}

/// The handle of a transfer the cache answered itself: nothing to cancel.
private final class NoTransfer: Cancellable {
    func cancel() {}
}
