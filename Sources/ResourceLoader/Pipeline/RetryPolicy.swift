import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When a ``ResourcePipeline`` tries a request again, and how long it waits first.
///
/// A failed attempt is tried again when all of these hold:
/// - it failed in a way that means "try again": the server answered with one of
///   ``retryableStatusCodes``, or the transport failed with one of ``retryableTransportErrors``;
/// - the request's method is one of ``retryableMethods`` (the idempotent ones by default: a
///   `POST` is never retried unless the resource asks for it);
/// - fewer than ``maximumAttempts`` attempts have been made, a replay after a rejected
///   credential not counted;
/// - the wait fits in what is left of the fetch's ``TransferOptions/deadline``: a retry that
///   could not start before the deadline is not made, and the fetch ends with the last attempt's
///   outcome at once.
///
/// The replay of a request whose credential the server rejected is no retry, and this policy
/// does not govern it: the server refused the request, so the ``CredentialStore`` sends it
/// again once with the new credential, whatever its method (a `POST` too), unless its body is
/// a one-shot stream already read.
///
/// The wait is the server's `Retry-After` when the response carries a valid one (delta-seconds
/// or an HTTP-date, at most ``maximumRetryAfter``); otherwise exponential backoff with full
/// jitter: before retry *n* (from 1), a random duration between zero and
/// `min(maximumDelay, baseDelay × 2ⁿ⁻¹)`. The wait is measured on the pipeline's
/// ``ResourcePipeline/clock``, so tests control it with a `ManualClock`.
///
/// When no retry is made the caller receives what the last attempt ended with: its response,
/// validated as usual (a `503` becomes ``ResourceError/httpStatus(_:)``), or its transport error.
/// ``FetchMonitor/retryScheduled(_:)`` tells monitors of each retry, and
/// ``FetchEvent/Finished/attempts`` how many attempts were made.
///
/// ```swift
/// let pipeline = ResourcePipeline(retryPolicy: RetryPolicy(maximumAttempts: 4))
/// ```
///
/// A resource adjusts the pipeline's policy for its own requests with
/// ``NetworkResourceType/retryPolicy(_:)``, for example to let a SOAP `POST` that is safe to
/// repeat be retried:
///
/// ```swift
/// func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy {
///     var policy = pipelinePolicy
///     policy.retryableMethods.insert(.post)
///     return policy
/// }
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// How the backoff is spread out.
    public enum Jitter: Sendable, Hashable {
        /// A random wait between zero and the exponential ceiling, so that clients that failed
        /// together do not come back together. The default.
        case full
        /// Exactly the exponential ceiling: predictable, for tests and for a single client.
        case none
    }

    /// The most attempts a fetch makes, the first one included: `1` never retries. Default: `3`.
    ///
    /// A replay after the ``CredentialStore`` refreshed a rejected credential is not counted
    /// against it.
    public var maximumAttempts: Int
    /// The ceiling of the wait before the first retry; it doubles before each one after.
    /// Default: 500 ms.
    public var baseDelay: Duration
    /// The most a backoff wait can be, however many retries came before. Default: 30 s.
    public var maximumDelay: Duration
    /// How the backoff is spread out. Default: ``Jitter/full``.
    public var jitter: Jitter
    /// The most a server's `Retry-After` can make a fetch wait; a longer one waits this long.
    /// Default: 60 s.
    public var maximumRetryAfter: Duration
    /// The methods whose requests may be sent again. Default: the idempotent `GET`, `HEAD`,
    /// `PUT`, `DELETE` and `OPTIONS`.
    public var retryableMethods: Set<HTTPMethod>
    /// The statuses that mean "try again". Default: `408`, `429`, `500`, `502`, `503` and `504`.
    public var retryableStatusCodes: Set<Int>
    /// The transport failures that mean "try again". Default: the connection was lost or could
    /// not be made, and the host's name could not be resolved.
    ///
    /// `.timedOut` here retries an attempt whose transport timed out (the request's idle
    /// timeout, `URLRequest.timeoutInterval`); the fetch's ``TransferOptions/deadline`` is never
    /// retried. `.cancelled` here has no effect: a cancellation is never retried.
    public var retryableTransportErrors: Set<URLError.Code>

    /// The idempotent methods: `GET`, `HEAD`, `PUT`, `DELETE` and `OPTIONS`.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options]
    /// `408`, `429`, `500`, `502`, `503` and `504`.
    public static let transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// `.networkConnectionLost`, `.cannotConnectToHost`, `.cannotFindHost` and
    /// `.dnsLookupFailed`.
    public static let transientTransportErrors: Set<URLError.Code> = [
        .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
    ]

    /// A policy that never retries: a pipeline's default.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// Creates a policy; every parameter has the default documented on its property.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(30),
        jitter: Jitter = .full,
        maximumRetryAfter: Duration = .seconds(60),
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.transientStatusCodes,
        retryableTransportErrors: Set<URLError.Code> = RetryPolicy.transientTransportErrors
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableTransportErrors = retryableTransportErrors
    }

    /// Whether the policy can retry anything at all.
    var retries: Bool { maximumAttempts > 1 }

    /// The longest backoff before retry `retry` (from 1): `min(maximumDelay, baseDelay × 2ⁿ⁻¹)`,
    /// never negative.
    public func backoffCeiling(beforeRetry retry: Int) -> Duration {
        let base = max(baseDelay, .zero)
        let cap = max(maximumDelay, .zero)
        // Doubling past 62 times overflows; the cap is reached long before.
        let doublings = min(max(retry - 1, 0), 62)
        var ceiling = base
        for _ in 0..<doublings {
            guard ceiling < cap else { break }
            ceiling = ceiling * 2
        }
        return min(ceiling, cap)
    }

    /// The backoff before retry `retry` (from 1), spread by ``jitter`` with `generator`.
    public func backoff(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = backoffCeiling(beforeRetry: retry)
        switch jitter {
        case .none:
            return ceiling
        case .full:
            let nanoseconds = Self.nanoseconds(ceiling)
            guard nanoseconds > 0 else { return .zero }
            return .nanoseconds(Int64.random(in: 0...nanoseconds, using: &generator))
        }
    }

    /// The wait a `Retry-After` field value asks for, at most ``maximumRetryAfter``; `nil` when
    /// the value is neither delta-seconds nor an HTTP-date (RFC 9110, section 10.2.3).
    ///
    /// - Parameters:
    ///   - value: The field's value.
    ///   - responseDate: The date an HTTP-date is measured from: the response's own `Date` when
    ///     it has a valid one (so the client's clock does not matter), else the current date.
    public func retryAfterDelay(_ value: String, from responseDate: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let delay: Duration
        if let seconds = Self.deltaSeconds(text) {
            delay = .seconds(seconds)
        } else if let date = HTTPDate.parse(text) {
            let interval = date.timeIntervalSince(responseDate)
            // A date in the past means "now"; one beyond the cap waits the cap.
            delay = interval <= 0 ? .zero : .milliseconds(Int64(min(interval, 1e12) * 1000))
        } else {
            return nil
        }
        return min(delay, max(maximumRetryAfter, .zero))
    }

    /// `1*DIGIT`, saturating at a value larger than any cap.
    private static func deltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var seconds: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            seconds = min(seconds * 10 + Int64(byte - UInt8(ascii: "0")), 1_000_000_000_000)
        }
        return seconds
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let whole = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !whole.overflow else { return .max }
        return whole.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000).overflow
            ? .max : whole.partialValue + attoseconds / 1_000_000_000
    }
}
