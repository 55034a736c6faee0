import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Passes a `GET` or `HEAD` answer on to the fetch's receiver as it arrives, keeps the body, and
/// stores the response once the whole body has arrived; turns a `304` that validates the stored
/// response into that response, and a failure into a stale stored response when
/// `stale-if-error` allows (a `5xx` as soon as its head arrives: its transfer is stopped, its
/// body never read). A `HEAD` answer freshens (or makes stale) the stored `GET` response of its
/// URL.
///
/// An answer with a `5xx` status that is not stored leaves the stored response in place, as a
/// network failure does (RFC 9111, section 4.3.3, lets a cache treat a `5xx` as no answer): it
/// still answers later errors within `stale-if-error`, and fetches within its
/// `stale-while-revalidate` window. Any other answer that is not stored removes it.
///
/// A `304` to the cache's own validators that cannot update the stored response (RFC 9111,
/// section 4.3.4) is not the fetch's: it removes the stored response, goes no further, and once
/// its transfer completes the request is sent again without the validators, through
/// ``ValidationTransfer/resend(_:)``, to a receiver like this one with nothing stored to
/// validate. That second answer is the fetch's, whatever it is: the request is never sent a
/// third time.
///
/// When the fetch's receiver is a ``ResponseCollector``, the body is not copied: the stored
/// response shares the collector's buffer, read once the transfer completes. Any other receiver
/// gets a copy made as the chunks pass.
final class StoringReceiver: TransferReceiver, @unchecked Sendable {
    private struct State {
        /// The copy of the body, while the response is to be stored (empty when it is the
        /// collector's, read at the end).
        var body: Data?
        /// Whether the body stored is the one the collector keeps, not a copy.
        var sharesCollectorBody = false
        var head: ResponseHead?
        /// Whether the receiver was handed a stored response in place of what arrives.
        var answeredFromCache = false
        /// Whether what arrives is a `304` that validates nothing, and the request is to be sent
        /// again once its transfer completes.
        var resends = false
        /// The error the receiver stopped the stored response with.
        var stopError: ResourceError?
        /// Whether the receiver has been given a head.
        var headDelivered = false
        /// The key the response is stored under: the request's, or the last redirect's URL's.
        var storageKey: String?
        /// The body bytes that arrived while the body was kept.
        var keptBytes = 0
        /// Whether the transport reported coded bytes: it decodes the body it hands on.
        var decodedByTransport = false
    }

    private let receiver: any TransferReceiver
    /// The fetch's receiver when it is a collector, whose body the stored response shares.
    private let collector: ResponseCollector?
    private let transport: CachingTransport
    private let request: URLRequest
    private let key: String
    private let directives: CacheControl
    private let stored: CachedResponse?
    /// The handle of the validation, when the request carries the cache's validators of
    /// `stored`: the request may be sent again through it.
    private let validation: ValidationTransfer?
    private let requestDate: Date
    private let report: (@Sendable (FetchEvent.CacheDecided.Outcome) -> Void)?
    /// The transfer's options.
    private let options: TransferOptions
    /// The largest body kept: the cache's ``HTTPCache/maximumBodyBytes``, or the transfer's size
    /// limit when smaller. It is also the most room reserved for the copy of a body.
    private let bodyLimit: Int
    /// Whether this receives the answer to a request sent again: the bytes sent were reported
    /// for the first request already.
    private let isResend: Bool
    // The transport never calls a receiver twice at once, but its calls may come from different
    // threads: `lock` guards `state` all the same.
    private let lock = NSLock()
    private var state = State()

    init(
        receiver: any TransferReceiver,
        transport: CachingTransport,
        request: URLRequest,
        key: String,
        directives: CacheControl,
        stored: CachedResponse?,
        validation: ValidationTransfer?,
        requestDate: Date,
        options: TransferOptions,
        report: (@Sendable (FetchEvent.CacheDecided.Outcome) -> Void)?,
        isResend: Bool = false
    ) {
        self.options = options
        self.bodyLimit = transport.cache.bodyLimit(for: options)
        self.isResend = isResend
        self.receiver = receiver
        self.collector = receiver as? ResponseCollector
        self.transport = transport
        self.request = request
        self.key = key
        self.directives = directives
        self.stored = stored
        self.validation = validation
        self.requestDate = requestDate
        self.report = report
    }

    private var cache: HTTPCache { transport.cache }

    /// An empty copy with room for the body `head` declares (an identity body's
    /// `Content-Length`, within `limit`), so that it is filled without growing.
    private static func emptyBody(for head: ResponseHead, limit: Int) -> Data {
        var body = Data()
        guard let declared = declaredLength(of: head), declared > 0 else { return body }
        body.reserveCapacity(min(declared, limit))
        return body
    }

    /// The length an identity body's `Content-Length` declares (one length, or a list of equal
    /// ones), if any.
    private static func declaredLength(of head: ResponseHead) -> Int? {
        guard head.value(forHTTPHeaderField: "Content-Encoding") == nil else { return nil }
        return head.value(forHTTPHeaderField: "Content-Length").flatMap(TransferRules.declaredContentLength).map { Int(clamping: $0) }
    }
    private var isHEAD: Bool { request.isHEAD }
    /// Whether the request carries the cache's validators.
    private var validating: Bool { validation != nil }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        // `GET` and `HEAD` send no body: a request sent again reports nothing new.
        if isResend { return }
        receiver.transferDidSend(sent, of: expected)
    }

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        let now = transport.now()
        // A response the transport reached by following a redirect answers the last URL, not
        // the request's: it is stored under that URL's key, and never freshens or stands in for
        // what is stored under the request's. What is stored there is removed: the URL now
        // answers with a redirect, which the transport does not hand on to be stored. A 304 says
        // that the last URL's representation matches the validators the request carried: the
        // stored body is then its body, stored under its key.
        if let redirectedKey = redirectedKey(of: head) {
            cache.store.removeResponse(forKey: key)
            if validating, head.statusCode == 304, let stored {
                guard CachePolicy.notModified(head, validates: stored) else { return resendWithoutValidators() }
                var merged = CachePolicy.merging(stored, with: head, requestDate: requestDate, responseDate: now)
                merged.url = head.url
                report?(.conditionalHit)
                storeUpdated(merged, forKey: redirectedKey)
                return answerFromCache(merged, now: now)
            }
            return receiveHead(head, storageKey: redirectedKey, stored: nil, now: now)
        }
        if validating, head.statusCode == 304, let stored {
            // A 304 for another representation: what is stored can no longer be trusted.
            guard CachePolicy.notModified(head, validates: stored) else {
                cache.store.removeResponse(forKey: key)
                return resendWithoutValidators()
            }
            let merged = CachePolicy.merging(stored, with: head, requestDate: requestDate, responseDate: now)
            report?(.conditionalHit)
            storeUpdated(merged, forKey: key)
            return answerFromCache(merged, now: now)
        }
        if isHEAD, head.statusCode == 200 { freshenStoredGET(with: head, now: now) }
        return receiveHead(head, storageKey: key, stored: stored, now: now)
    }

    /// Stores `merged`, the stored response updated with a `304`, under `storageKey` when it may
    /// be stored as the answer to this request (RFC 9111, sections 3 and 3.5); otherwise removes
    /// what is stored there. A `304` that makes the response `no-store`, or in a shared cache
    /// `private`, or that answers an authorised request without saying it may be shared, thus
    /// never leaves its fields for another request. It is stored with this request's values of
    /// the fields its `Vary` (the `304`'s, when it has one) names.
    private func storeUpdated(_ merged: CachedResponse, forKey storageKey: String) {
        let reason = reasonNotToStore(merged.head)
        guard reason == nil, let varying = CachePolicy.varyingRequestFields(of: request, for: merged.head) else {
            report?(.notStored(reason ?? .varyAll))
            cache.store.removeResponse(forKey: storageKey)
            return
        }
        var updated = merged
        updated.varyingRequestFields = varying
        cache.store.store(updated, forKey: storageKey)
    }

    /// The rest of ``transferDidReceive(head:)``: answers a server error with `stored` when
    /// `stale-if-error` allows, and stops its transfer, so that the fetch completes with the
    /// stored response at once rather than once the error's body has arrived (if ever); else
    /// keeps the body to store under `storageKey` when the response may be stored, and hands the
    /// head on.
    private func receiveHead(_ head: ResponseHead, storageKey: String, stored: CachedResponse?, now: Date) -> TransferDecision {
        if let stored, Self.isServerError(head.statusCode), mayAnswerError(with: stored, now: now) {
            report?(.staleIfError)
            // The transport completes a transfer it is told to stop with the error given, which
            // ``transferDidComplete(with:)`` does not hand on: the receiver has its answer.
            let decision = answerFromCache(stored, now: now)
            guard case .proceed = decision else { return decision }
            return .stop(.cancelled)
        }
        if validating { report?(.conditionalMiss) }
        var keepsBody = false
        if let reason = reasonNotToKeep(head) {
            report?(.notStored(reason))
            if !Self.leavesStoredResponse(head.statusCode) { cache.store.removeResponse(forKey: storageKey) }
        } else {
            keepsBody = true
        }
        lock.withLock {
            state.head = head
            state.headDelivered = true
            state.storageKey = storageKey
            guard keepsBody else { return }
            if isHEAD {
                state.body = Data()
            } else if collector != nil {
                state.body = Data()
                state.sharesCollectorBody = true
            } else {
                state.body = Self.emptyBody(for: head, limit: bodyLimit)
            }
        }
        let decision = receiver.transferDidReceive(head: head)
        if case .stop = decision { dropBody(reason: .incompleteBody) }
        return decision
    }

    func transferDidReceive(codedByteCount: Int) {
        let skips = lock.withLock { () -> Bool in
            state.decodedByTransport = true
            return state.answeredFromCache || state.resends
        }
        if skips { return }
        receiver.transferDidReceive(codedByteCount: codedByteCount)
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        // Past the largest body kept, the response is not stored, nor is what it replaces kept
        // (but after a `5xx`).
        let (passes, outgrown) = lock.withLock { () -> (Bool, Bool) in
            if state.answeredFromCache || state.resends { return (false, false) }
            guard state.body != nil else { return (true, false) }
            state.keptBytes += chunk.count
            return (true, state.keptBytes > bodyLimit)
        }
        guard passes else { return .proceed }
        if outgrown {
            dropBody(reason: .tooLarge)
            let (storageKey, status) = lock.withLock { (state.storageKey, state.head?.statusCode) }
            if !Self.leavesStoredResponse(status ?? 200) { cache.store.removeResponse(forKey: storageKey ?? key) }
        }
        let decision = receiver.transferDidReceive(chunk)
        switch decision {
        case .proceed:
            lock.withLock {
                if !state.sharesCollectorBody { state.body?.append(chunk) }
            }
        case .stop:
            dropBody(reason: .incompleteBody)
        }
        return decision
    }

    func transferDidComplete(with error: (any Error)?) {
        let (answeredFromCache, stopError, headDelivered, copiedBody, sharesCollectorBody, head, resends) = lock.withLock {
            (state.answeredFromCache, state.stopError, state.headDelivered, state.body, state.sharesCollectorBody, state.head, state.resends)
        }
        if resends {
            resend(after: error)
            return
        }
        // The collector's body is read before it is handed on (and let go of): the stored
        // response shares its buffer.
        let body = sharesCollectorBody && copiedBody != nil ? collector?.collectedBody : copiedBody
        if answeredFromCache {
            receiver.transferDidComplete(with: stopError)
            return
        }
        if let error {
            if body != nil { report?(.notStored(.incompleteBody)) }
            let now = transport.now()
            if !headDelivered, let stored, Self.isNetworkFailure(error), mayAnswerError(with: stored, now: now) {
                report?(.staleIfError)
                transport.deliver(stored, to: receiver, isHEAD: isHEAD, now: now)
                return
            }
            receiver.transferDidComplete(with: error)
            return
        }
        if let body, let head {
            store(head: head, body: body)
        }
        receiver.transferDidComplete(with: nil)
    }

    // MARK: - Steps

    /// Sets aside the `304` arriving, which cannot update `stored` (RFC 9111, section 4.3.4): it
    /// answered validators the fetch never sent, so it is not the fetch's to see. The request
    /// goes out again once this transfer completes.
    private func resendWithoutValidators() -> TransferDecision {
        // The stored response did not answer: the fetch gets a new response.
        report?(.conditionalMiss)
        lock.withLock { state.resends = true }
        return .proceed
    }

    /// Sends the request again, as the fetch made it (without the validators the cache added),
    /// to a receiver that hands its answer to the fetch's and stores it as a miss's would be;
    /// when the fetch was cancelled first, completes with `error`, or with the cancellation.
    ///
    /// The request goes out from another thread than the transport's: this runs in the first
    /// transfer's completion, on the transport's thread, and a transport need not let a transfer
    /// start there (FoundationNetworking, which calls ``URLSessionTransport``'s delegate on its
    /// own work queue, traps when a task starts on that queue).
    private func resend(after error: (any Error)?) {
        guard let validation else {
            receiver.transferDidComplete(with: error ?? URLError(.cancelled))
            return
        }
        DispatchQueue.global().async {
            self.send(through: validation, after: error)
        }
    }

    /// The rest of ``resend(after:)``, away from the transport's thread.
    private func send(through validation: ValidationTransfer, after error: (any Error)?) {
        let storing = StoringReceiver(
            receiver: receiver,
            transport: transport,
            request: request,
            key: key,
            directives: directives,
            stored: nil,
            validation: nil,
            requestDate: transport.now(),
            options: options,
            report: report,
            isResend: true
        )
        let sent = validation.resend { transport.send(request, options: options, receiver: storing) }
        if !sent { receiver.transferDidComplete(with: error ?? URLError(.cancelled)) }
    }

    /// Hands `response` to the receiver in place of what the transport delivers: its head and
    /// body now, its completion when the transfer completes.
    private func answerFromCache(_ response: CachedResponse, now: Date) -> TransferDecision {
        lock.withLock {
            state.answeredFromCache = true
            state.headDelivered = true
        }
        var fields = response.headerFields.filter { !ResponseHead.sameFieldName($0.name, "Age") }
        fields.append(("Age", CachePolicy.ageFieldValue(cache.policy.currentAge(of: response, now: now))))
        let head = ResponseHead(statusCode: response.statusCode, url: response.url, headerFields: fields)
        var decision = receiver.transferDidReceive(head: head)
        if case .proceed = decision, !isHEAD, !response.body.isEmpty {
            decision = receiver.transferDidReceive(response.body)
        }
        if case .stop(let error) = decision {
            lock.withLock { state.stopError = error }
            return decision
        }
        return .proceed
    }

    private func dropBody(reason: CachePolicy.NotStoredReason) {
        let dropped = lock.withLock { () -> Bool in
            defer { state.body = nil }
            return state.body != nil
        }
        if dropped { report?(.notStored(reason)) }
    }

    /// Why the body of `head` is not kept: a reason not to store the response, or a declared
    /// length past ``bodyLimit``.
    private func reasonNotToKeep(_ head: ResponseHead) -> CachePolicy.NotStoredReason? {
        if let reason = reasonNotToStore(head) { return reason }
        guard !isHEAD, let declared = Self.declaredLength(of: head), declared > bodyLimit else { return nil }
        return .tooLarge
    }

    private func reasonNotToStore(_ head: ResponseHead) -> CachePolicy.NotStoredReason? {
        cache.policy.reasonNotToStore(
            method: request.httpMethod ?? "GET",
            requestDirectives: directives,
            requestHasAuthorization: transport.sendsCredentials(with: request),
            response: head
        )
    }

    private func store(head: ResponseHead, body: Data) {
        guard let varying = CachePolicy.varyingRequestFields(of: request, for: head) else {
            report?(.notStored(.varyAll))
            return
        }
        // The transport decoded a coding it asked for itself, or one it reported the coded bytes
        // of: the body kept is the decoded one, which the digests of the coded bytes do not
        // describe.
        let keepsContentEncoding = request.value(forHTTPHeaderField: "Accept-Encoding") != nil && !lock.withLock { state.decodedByTransport }
        let decoded = !keepsContentEncoding && head.value(forHTTPHeaderField: "Content-Encoding").map { !TransferRules.isIdentity($0) } == true
        let connectionOptions = CachePolicy.connectionOptions(of: head)
        var fields: [(name: String, value: String)] = []
        for (name, value) in head.headerFields.sorted(by: { $0.key < $1.key }) {
            if !keepsContentEncoding, ResponseHead.sameFieldName(name, "Content-Encoding") { continue }
            if decoded, ResponseHead.sameFieldName(name, "Content-Digest") || ResponseHead.sameFieldName(name, "Repr-Digest") { continue }
            if !isHEAD, ResponseHead.sameFieldName(name, "Content-Length") { continue }
            if !CachePolicy.mayStoreField(name, connectionOptions: connectionOptions) { continue }
            fields.append((name, value))
        }
        if !isHEAD { fields.append(("Content-Length", String(body.count))) }
        let response = CachedResponse(
            statusCode: head.statusCode,
            url: head.url,
            headerFields: fields,
            body: body,
            requestDate: requestDate,
            responseDate: transport.now(),
            varyingRequestFields: varying
        )
        cache.store.store(response, forKey: lock.withLock { state.storageKey } ?? key)
        report?(.stored)
    }

    /// The key of the URL `head` answers, when the transport followed a redirect to it from
    /// the request's URL; `nil` when it answers the request's URL.
    private func redirectedKey(of head: ResponseHead) -> String? {
        guard let responseURL = head.url, let requestURL = request.url else { return nil }
        let method = isHEAD ? "HEAD" : "GET"
        let responseKey = CachePolicy.key(method: method, url: responseURL)
        return responseKey == CachePolicy.key(method: method, url: requestURL) ? nil : responseKey
    }

    /// Updates the stored `GET` response of the `HEAD` request's URL with the header fields of
    /// `head`, a `200`, when its validators and length match (RFC 9111, section 4.3.5), and
    /// removes it when they do not: the RFC has it considered stale, and with a validator that
    /// no longer matches, it could only be fetched again. A `HEAD` answer that could not be
    /// stored itself (`no-store`, or in a shared cache `private` or authorised) removes it too,
    /// so that its fields never reach another request. The updated response is stored with the
    /// `HEAD` request's values of the fields its `Vary` names.
    private func freshenStoredGET(with head: ResponseHead, now: Date) {
        guard let url = request.url else { return }
        let getKey = CachePolicy.key(method: "GET", url: url)
        guard let get = cache.store.cachedResponse(forKey: getKey), CachePolicy.request(request, matchesVaryOf: get) else { return }
        let reason = reasonNotToStore(head)
        guard CachePolicy.headResponse(head, freshens: get), reason == nil || reason == .noFreshnessOrValidator else {
            cache.store.removeResponse(forKey: getKey)
            return
        }
        var merged = CachePolicy.merging(get, with: head, requestDate: requestDate, responseDate: now)
        guard let varying = CachePolicy.varyingRequestFields(of: request, for: merged.head) else {
            cache.store.removeResponse(forKey: getKey)
            return
        }
        merged.varyingRequestFields = varying
        cache.store.store(merged, forKey: getKey)
    }

    private func mayAnswerError(with stored: CachedResponse, now: Date) -> Bool {
        guard let limit = cache.staleIfErrorSeconds else { return false }
        return cache.policy.mayAnswerError(with: stored, for: directives, now: now, limit: limit)
    }

    private static func isServerError(_ status: Int) -> Bool {
        [500, 502, 503, 504].contains(status)
    }

    /// Whether an answer with `status` that is not stored leaves the stored response in place:
    /// a `5xx`, which the cache treats as it does a network failure (RFC 9111, section 4.3.3).
    private static func leavesStoredResponse(_ status: Int) -> Bool {
        (500..<600).contains(status)
    }

    /// A failure of the network, not a decision of the fetch (cancelled, stopped by a limit).
    private static func isNetworkFailure(_ error: any Error) -> Bool {
        switch error {
        case let error as URLError: error.code != .cancelled
        case let error as ResourceError:
            if case .transport(let code, _) = error { code != .cancelled } else { false }
        default: false
        }
    }
}
