#if Tracing
import Foundation
import ResourceLoader
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Traces every fetch with swift-distributed-tracing: one span per fetch, its attempts as span
/// events, and the trace context carried to the server in the request's headers.
///
/// It is both a `RequestAdapter` (a monitor cannot change a request) and a `FetchMonitor`, so
/// put the **same instance** in the pipeline's `adapters` and `monitors`:
///
/// ```swift
/// import ResourceLoader
/// import ResourceLoaderTracing
/// import Tracing
///
/// let tracing = TracingFetchMonitor()          // InstrumentationSystem.tracer
/// let pipeline = ResourcePipeline(adapters: [tracing], monitors: [tracing])
/// ```
///
/// Put it first among the adapters, so that its span covers the ones after it; the others then
/// see the request with the trace headers, and may not remove them.
///
/// ## The span
///
/// The span starts when the adapter first runs for a fetch, as a child of the task's
/// `ServiceContext.current` (a new trace without one), with kind `client` and the request's
/// method as its name (`GET`), as OpenTelemetry names HTTP client spans. It ends exactly once,
/// when the fetch finishes, whatever the outcome: success, failure, cancellation or the deadline.
/// A fetch that is over before the adapter first runs for it (its request could not be built, or
/// it was cancelled or passed its deadline first, while an adapter before this one ran, say) has
/// no span, and the adapter injects nothing into its request, which is not sent. A resource that
/// opts out of the adapters (`NetworkResourceType/usesPipelineAdapters` is `false`) still gets a
/// span, started when its request is ready, but its request carries no trace headers.
///
/// Before every attempt the adapter asks the tracer (the instrument) to inject the span's
/// context into the request's headers: with a W3C tracer, `traceparent` (and `tracestate`). A
/// header the instrument injects replaces one of the same name.
///
/// The span's attributes follow OpenTelemetry's semantic conventions for HTTP clients:
///
/// | Attribute | Value |
/// |---|---|
/// | `http.request.method` | `GET`, `POST`…; `_OTHER` for a method outside RFC 9110 and RFC 5789 |
/// | `http.request.method_original` | the method, when it is `_OTHER` |
/// | `url.full` | the URL with every query value replaced by `REDACTED`, without user, password and fragment (`LoggingFetchMonitor/redacted(_:)`) |
/// | `server.address` | the URL's host |
/// | `server.port` | the URL's port, or the scheme's (`443`, `80`) |
/// | `http.response.status_code` | the last response's status |
/// | `http.request.resend_count` | the number of attempts after the first, when there were some |
/// | `error.type` | on failure: the status code for a failure on an HTTP status, else the `ResourceError` case as `ResourceError/logName` names it (`timedOut`, `transport(-1004)`, `parsing`…) |
/// | `resourceloader.resource_type` | the resource type's name |
///
/// A failed fetch also sets the span's status to `error`. No header value, no body and no error
/// description goes into the span.
///
/// Each attempt adds the event `resourceloader.attempt` (with `http.request.resend_count`),
/// each response `resourceloader.response` (with `http.response.status_code` and
/// `http.response.body.size`), and each retry `resourceloader.retry` (with
/// `resourceloader.retry.reason` and `resourceloader.retry.delay_ms`).
///
/// ## With a transport that traces too
///
/// While the transport runs, `ServiceContext.current` is still the caller's context, not this
/// span's: a transport that starts spans of its own finds the span's context in the request's
/// headers, and can extract it with the same instrument to make its spans children of this one.
/// `AsyncHTTPClientTransport` (of the `AsyncHTTPClient` trait) does so when its client traces:
/// AsyncHTTPClient's span for each request becomes a child of the fetch's span, and the
/// server receives one `traceparent`, naming AsyncHTTPClient's span.
public final class TracingFetchMonitor: RequestAdapter, FetchMonitor, @unchecked Sendable {
    /// The names of the span attributes and events this type records.
    public enum AttributeName {
        /// The request's method.
        public static let method = "http.request.method"
        /// The request's method, when ``method`` is `_OTHER`.
        public static let originalMethod = "http.request.method_original"
        /// The URL, query values redacted.
        public static let url = "url.full"
        /// The URL's host.
        public static let serverAddress = "server.address"
        /// The URL's port.
        public static let serverPort = "server.port"
        /// The last response's status code.
        public static let statusCode = "http.response.status_code"
        /// A response body's size, in bytes (on the response event).
        public static let bodySize = "http.response.body.size"
        /// The number of attempts after the first.
        public static let resendCount = "http.request.resend_count"
        /// What ended a failed fetch.
        public static let errorType = "error.type"
        /// The resource type's name.
        public static let resourceType = "resourceloader.resource_type"
        /// Why an attempt is tried again (on the retry event): `status(503)`,
        /// `transport(-1005)` or `credentialRejected(401)`.
        public static let retryReason = "resourceloader.retry.reason"
        /// The wait before the next attempt, in milliseconds (on the retry event).
        public static let retryDelay = "resourceloader.retry.delay_ms"
        /// The event added when an attempt is sent.
        public static let attemptEvent = "resourceloader.attempt"
        /// The event added when a response is received.
        public static let responseEvent = "resourceloader.response"
        /// The event added when an attempt is tried again.
        public static let retryEvent = "resourceloader.retry"
    }

    /// The tracer that starts the spans and injects their context into requests.
    public let tracer: any Tracer

    // `lock` guards `spans`: the span of each fetch in progress, by fetch identifier.
    private let lock = NSLock()
    private var spans: [UInt64: any Span] = [:]

    /// Creates a tracing adapter and monitor.
    ///
    /// - Parameter tracer: Starts the spans and injects their context. Default:
    ///   `InstrumentationSystem.tracer`, the one bootstrapped for the process, read now.
    public init(tracer: any Tracer = InstrumentationSystem.tracer) {
        self.tracer = tracer
    }

    // MARK: - RequestAdapter

    /// Starts the fetch's span on its first attempt, and injects the span's context into the
    /// request's headers on every attempt.
    ///
    /// Outside a pipeline's fetch (no `FetchEvent.Context.current`), it injects the task's
    /// `ServiceContext.current`, if any, and starts no span. For a fetch that is over (the task
    /// is cancelled) and has no span, it starts none and returns `request` as it is.
    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        var request = request
        guard let fetch = FetchEvent.Context.current else {
            if let context = ServiceContext.current {
                tracer.inject(context, into: &request, using: URLRequestHeaderInjector())
            }
            return request
        }
        guard let span = span(for: fetch, request: request) else { return request }
        tracer.inject(span.context, into: &request, using: URLRequestHeaderInjector())
        return request
    }

    // MARK: - FetchMonitor

    /// Starts the span if no adapter did (the resource opted out of them), and records the
    /// request as the adapters left it.
    public func requestReady(_ event: FetchEvent.RequestReady) {
        guard let span = span(for: event.context, request: event.request) else { return }
        span.updateAttributes { Self.describe(event.request, in: &$0) }
    }

    /// Adds an attempt event.
    public func attemptSent(_ event: FetchEvent.AttemptSent) {
        guard let span = existingSpan(for: event.context) else { return }
        var attributes = SpanAttributes()
        attributes[AttributeName.resendCount] = event.attempt - 1
        span.addEvent(SpanEvent(name: AttributeName.attemptEvent, attributes: attributes))
    }

    /// Adds a response event and records the status.
    public func responseReceived(_ event: FetchEvent.ResponseReceived) {
        guard let span = existingSpan(for: event.context) else { return }
        var attributes = SpanAttributes()
        if let statusCode = event.statusCode {
            attributes[AttributeName.statusCode] = statusCode
            span.attributes[AttributeName.statusCode] = statusCode
        }
        attributes[AttributeName.bodySize] = event.bodyByteCount
        span.addEvent(SpanEvent(name: AttributeName.responseEvent, attributes: attributes))
    }

    /// Adds a retry event.
    public func retryScheduled(_ event: FetchEvent.RetryScheduled) {
        guard let span = existingSpan(for: event.context) else { return }
        var attributes = SpanAttributes()
        attributes[AttributeName.resendCount] = event.attempt - 1
        attributes[AttributeName.retryReason] = event.reason.logName
        let (seconds, attoseconds) = event.delay.components
        attributes[AttributeName.retryDelay] = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        span.addEvent(SpanEvent(name: AttributeName.retryEvent, attributes: attributes))
    }

    /// Records the outcome on the fetch's span and ends it.
    public func fetchFinished(_ event: FetchEvent.Finished) {
        let span = lock.withLock { spans.removeValue(forKey: event.context.fetchID) }
        guard let span else { return }
        span.updateAttributes { attributes in
            if let statusCode = event.statusCode {
                attributes[AttributeName.statusCode] = statusCode
            }
            if event.attempts > 1 {
                attributes[AttributeName.resendCount] = event.attempts - 1
            }
            if let error = event.error {
                attributes[AttributeName.errorType] = Self.errorType(of: error)
            }
        }
        if event.error != nil {
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// How many spans are open: those of the fetches in progress.
    var openSpanCount: Int {
        lock.withLock { spans.count }
    }

    // MARK: - Spans

    /// The span of `fetch`, started now as a child of `ServiceContext.current` if it has none;
    /// `nil` if it has none and the fetch is over.
    private func span(for fetch: FetchEvent.Context, request: URLRequest) -> (any Span)? {
        if let span = existingSpan(for: fetch) { return span }
        // The pipeline cancels the task a fetch's attempts run in when the fetch ends (cancelled,
        // or past its deadline), before its monitors hear `fetchFinished`: a span started now
        // would begin after the fetch, and nothing would end it in time. Elsewhere (a fetch
        // told on its caller's thread) the task's cancellation is not the fetch's.
        let endsWithTask = FetchEvent.Context.attempting == fetch
        if endsWithTask, Task.isCancelled { return nil }
        // The attempts of one fetch run one after the other, so no other call starts this
        // fetch's span meanwhile.
        let method = Self.method(of: request)
        let span = tracer.startSpan(
            method.name,
            context: ServiceContext.current ?? .topLevel,
            ofKind: .client,
            at: DefaultTracerClock.now,
            function: #function,
            file: #fileID,
            line: #line
        )
        span.updateAttributes { attributes in
            attributes[AttributeName.resourceType] = fetch.resourceTypeName
            Self.describe(request, in: &attributes)
        }
        lock.withLock { spans[fetch.fetchID] = span }
        // The fetch may have ended while the span started (cancelled, or past its deadline): its
        // task was cancelled before `fetchFinished`, which may have found no span to end, so the
        // span is ended here, unless `fetchFinished` took it first.
        if endsWithTask, Task.isCancelled, let orphan = lock.withLock({ spans.removeValue(forKey: fetch.fetchID) }) {
            orphan.attributes[AttributeName.errorType] = ResourceError.cancelled.logName
            orphan.setStatus(SpanStatus(code: .error))
            orphan.end()
        }
        return span
    }

    private func existingSpan(for fetch: FetchEvent.Context) -> (any Span)? {
        lock.withLock { spans[fetch.fetchID] }
    }

    /// Sets the attributes that describe `request`.
    static func describe(_ request: URLRequest, in attributes: inout SpanAttributes) {
        let method = method(of: request)
        attributes[AttributeName.method] = method.name
        if let original = method.original {
            attributes[AttributeName.originalMethod] = original
        }
        guard let url = request.url else { return }
        attributes[AttributeName.url] = LoggingFetchMonitor.redacted(url)
        if let host = url.host(percentEncoded: true) {
            attributes[AttributeName.serverAddress] = host
        }
        switch (url.port, url.scheme?.lowercased()) {
        case (let port?, _): attributes[AttributeName.serverPort] = port
        case (nil, "https"): attributes[AttributeName.serverPort] = 443
        case (nil, "http"): attributes[AttributeName.serverPort] = 80
        default: break
        }
    }

    /// The methods OpenTelemetry names as they are; any other is `_OTHER`.
    static let knownMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"]

    /// The method's name for `http.request.method` and, when that is `_OTHER`, the original.
    static func method(of request: URLRequest) -> (name: String, original: String?) {
        let method = request.httpMethod ?? "GET"
        return knownMethods.contains(method) ? (method, nil) : ("_OTHER", method)
    }

    /// `error.type` for `error`: the status code for a failure on an HTTP status, as
    /// OpenTelemetry asks, else the error's case.
    static func errorType(of error: ResourceError) -> String {
        if case .httpStatus = error, let statusCode = error.statusCode {
            return String(statusCode)
        }
        return error.logName
    }

}

/// Puts the values an instrument injects into a request's header fields, replacing a field of
/// the same name.
public struct URLRequestHeaderInjector: Injector {
    /// Creates the injector.
    public init() {}

    /// Sets the header field `key` of `request` to `value`.
    public func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}

/// Reads the values an instrument extracts from a request's header fields: for a transport that
/// continues the trace a ``TracingFetchMonitor`` put in the request's headers.
///
/// ```swift
/// var context = ServiceContext.current ?? .topLevel
/// InstrumentationSystem.instrument.extract(request, into: &context, using: URLRequestHeaderExtractor())
/// ```
public struct URLRequestHeaderExtractor: Extractor {
    /// Creates the extractor.
    public init() {}

    /// The value of the header field `key` of `request`, if it has one.
    public func extract(key: String, from request: URLRequest) -> String? {
        request.value(forHTTPHeaderField: key)
    }
}
#endif
