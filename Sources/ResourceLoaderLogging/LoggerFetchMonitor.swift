#if Logging
import Foundation
import Logging
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `FetchMonitor` that logs through a swift-log `Logger`, with structured metadata.
///
/// ```swift
/// import Logging
/// import ResourceLoader
/// import ResourceLoaderLogging
///
/// let pipeline = ResourcePipeline(monitors: [LoggerFetchMonitor(logger: Logger(label: "api"))])
/// ```
///
/// It logs one entry per fetch when the fetch finishes, at ``successLevel`` (`debug` by
/// default) when it succeeded and at ``failureLevel`` (`warning`) when it failed, and one entry
/// at ``retryLevel`` (`warning`) each time an attempt is tried again. The message is a fixed
/// text (`"fetch succeeded"`, `"fetch failed"`, `"fetch attempt will be retried"`); what the entry
/// is about is in its metadata, under the keys of ``MetadataKey``:
///
/// | Key | Value | In |
/// |---|---|---|
/// | `resourceloader.fetch_id` | the fetch's `FetchEvent/Context/fetchID` | every entry |
/// | `resourceloader.resource_type` | the resource type's name, such as `Cities` | every entry |
/// | `http.request.method` | `GET`, `POST`…; `(invalid method)` for one that is not an HTTP token | every entry with a request |
/// | `url.full` | the URL, query values redacted | every entry with a request |
/// | `server.address` | the URL's host | every entry with a request |
/// | `server.port` | the URL's port, when it names one | every entry with a request |
/// | `url.path` | the URL's path, percent-encoded | every entry with a request |
/// | `http.response.status_code` | the last response's status | finished, when there was one |
/// | `http.response.body.size` | the last response body's size in bytes | finished, when there was one |
/// | `resourceloader.attempts` | how many attempts were sent | finished |
/// | `resourceloader.duration_ms` | the fetch's duration in milliseconds | finished |
/// | `error.type` | the `ResourceError` case, as `ResourceError/logName` | failed |
/// | `resourceloader.attempt` | the attempt that failed, from 1 | retry |
/// | `resourceloader.retry_delay_ms` | the wait before the next attempt, in milliseconds | retry |
/// | `resourceloader.retry_reason` | `status(503)`, `transport(-1005)` or `credentialRejected(401)` | retry |
///
/// The redaction rules are `LoggingFetchMonitor`'s: the URL is written as
/// `LoggingFetchMonitor/redacted(_:)` writes it (every query value replaced by `REDACTED`; no
/// user, password or fragment), and no header value, no body and no error description is ever
/// logged. The logger's own metadata and metadata providers are kept.
///
/// A retry entry names the request it retries: for that the monitor keeps each fetch's request
/// from its first attempt until it finishes, only while the logger's level lets retry entries
/// through, and describes it only when it writes a retry entry.
public struct LoggerFetchMonitor: FetchMonitor {
    /// The metadata keys this monitor writes; see ``LoggerFetchMonitor`` for what each holds.
    public enum MetadataKey {
        /// The fetch's `FetchEvent/Context/fetchID`.
        public static let fetchID = "resourceloader.fetch_id"
        /// The name of the resource type fetched.
        public static let resourceType = "resourceloader.resource_type"
        /// The request's method.
        public static let method = "http.request.method"
        /// The request's URL, as `LoggingFetchMonitor/redacted(_:)` writes it.
        public static let url = "url.full"
        /// The URL's host.
        public static let host = "server.address"
        /// The URL's port, when it names one.
        public static let port = "server.port"
        /// The URL's percent-encoded path.
        public static let path = "url.path"
        /// The last response's HTTP status code.
        public static let statusCode = "http.response.status_code"
        /// The size of the last response's body, in bytes.
        public static let bodyByteCount = "http.response.body.size"
        /// How many attempts the fetch sent.
        public static let attempts = "resourceloader.attempts"
        /// The fetch's duration, in milliseconds.
        public static let durationMilliseconds = "resourceloader.duration_ms"
        /// The `ResourceError` case that ended the fetch, as `ResourceError/logName` names it.
        public static let errorType = "error.type"
        /// The attempt that failed and is tried again, from 1.
        public static let attempt = "resourceloader.attempt"
        /// The wait before the next attempt, in milliseconds.
        public static let retryDelayMilliseconds = "resourceloader.retry_delay_ms"
        /// Why the attempt is tried again.
        public static let retryReason = "resourceloader.retry_reason"
    }

    /// The logger entries are written to.
    public let logger: Logger
    /// The level of a successful fetch's entry.
    public let successLevel: Logger.Level
    /// The level of a failed fetch's entry.
    public let failureLevel: Logger.Level
    /// The level of the entry written when an attempt is tried again.
    public let retryLevel: Logger.Level

    /// What a fetch sends, remembered for its retry entries.
    private let requests: RequestSummaries

    /// Creates a monitor that logs to `logger`.
    ///
    /// - Parameters:
    ///   - logger: Where the entries go; its level decides which are written.
    ///   - successLevel: The level of a successful fetch's entry. Default: `debug`.
    ///   - failureLevel: The level of a failed fetch's entry. Default: `warning`.
    ///   - retryLevel: The level of a retry's entry. Default: `warning`.
    public init(
        logger: Logger,
        successLevel: Logger.Level = .debug,
        failureLevel: Logger.Level = .warning,
        retryLevel: Logger.Level = .warning
    ) {
        self.logger = logger
        self.successLevel = successLevel
        self.failureLevel = failureLevel
        self.retryLevel = retryLevel
        self.requests = RequestSummaries()
    }

    /// Remembers the request, when retry entries are logged, to name it in them.
    public func attemptSent(_ event: FetchEvent.AttemptSent) {
        guard event.attempt == 1, logger.logLevel <= retryLevel else { return }
        requests.remember(event.request, for: event.context.fetchID)
    }

    /// Logs that an attempt is tried again, at ``retryLevel``.
    public func retryScheduled(_ event: FetchEvent.RetryScheduled) {
        logger.log(level: retryLevel, "fetch attempt will be retried", metadata: {
            var metadata = requests.request(for: event.context.fetchID).map(Self.requestMetadata) ?? [:]
            metadata[MetadataKey.fetchID] = .stringConvertible(event.context.fetchID)
            metadata[MetadataKey.resourceType] = .string(event.context.resourceTypeName)
            metadata[MetadataKey.attempt] = .stringConvertible(event.attempt)
            metadata[MetadataKey.retryDelayMilliseconds] = .string(Self.milliseconds(event.delay))
            metadata[MetadataKey.retryReason] = .string(event.reason.logName)
            return metadata
        }())
    }

    /// Logs the fetch's outcome: at ``successLevel`` when it succeeded, ``failureLevel`` when not.
    public func fetchFinished(_ event: FetchEvent.Finished) {
        // Unconditionally: a handler's level can change while a fetch runs.
        requests.forget(event.context.fetchID)
        let failed = event.error != nil
        logger.log(level: failed ? failureLevel : successLevel, failed ? "fetch failed" : "fetch succeeded", metadata: {
            var metadata = event.request.map(Self.requestMetadata) ?? [:]
            metadata[MetadataKey.fetchID] = .stringConvertible(event.context.fetchID)
            metadata[MetadataKey.resourceType] = .string(event.context.resourceTypeName)
            if let statusCode = event.statusCode {
                metadata[MetadataKey.statusCode] = .stringConvertible(statusCode)
            }
            if let bodyByteCount = event.bodyByteCount {
                metadata[MetadataKey.bodyByteCount] = .stringConvertible(bodyByteCount)
            }
            metadata[MetadataKey.attempts] = .stringConvertible(event.attempts)
            metadata[MetadataKey.durationMilliseconds] = .string(Self.milliseconds(event.duration))
            if let error = event.error {
                metadata[MetadataKey.errorType] = .string(error.logName)
            }
            return metadata
        }())
    }

    /// How many fetches' requests the monitor remembers for retry entries: none once every
    /// fetch has finished.
    var requestsInProgress: Int { requests.count }

    /// The metadata that names `request`: method and URL, redacted.
    static func requestMetadata(_ request: URLRequest) -> Logger.Metadata {
        // A method that is not an HTTP token (a request no transport sends) is not written: a
        // handler that writes metadata as it is would let a line break in it forge an entry.
        let method = request.httpMethod ?? "GET"
        var metadata: Logger.Metadata = [MetadataKey.method: .string(HTTPMethod(rawValue: method) == nil ? "(invalid method)" : method)]
        guard let url = request.url else { return metadata }
        metadata[MetadataKey.url] = .string(LoggingFetchMonitor.redacted(url))
        // The URL's own accessors: parsing it again into `URLComponents` costs more than the rest.
        if let host = url.host(percentEncoded: true) { metadata[MetadataKey.host] = .string(host) }
        if let port = url.port { metadata[MetadataKey.port] = .stringConvertible(port) }
        metadata[MetadataKey.path] = .string(url.path(percentEncoded: true))
        return metadata
    }


    /// `duration` in milliseconds with three decimals, as in `"41.250"`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        let sign = microseconds < 0 ? "-" : ""
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}

/// The requests of the fetches in progress, by fetch identifier: what a retry entry names. An
/// entry is added on a fetch's first attempt and removed when the fetch finishes, which every
/// fetch does.
final class RequestSummaries: @unchecked Sendable {
    // `lock` guards `summaries`.
    private let lock = NSLock()
    private var summaries: [UInt64: URLRequest] = [:]

    func remember(_ request: URLRequest, for fetchID: UInt64) {
        lock.withLock { summaries[fetchID] = request }
    }

    func request(for fetchID: UInt64) -> URLRequest? {
        lock.withLock { summaries[fetchID] }
    }

    func forget(_ fetchID: UInt64) {
        lock.withLock { _ = summaries.removeValue(forKey: fetchID) }
    }

    /// How many fetches are remembered: for tests that check nothing is kept after a fetch.
    var count: Int {
        lock.withLock { summaries.count }
    }
}
#endif
