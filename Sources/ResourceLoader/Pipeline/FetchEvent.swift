import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The events a ``FetchMonitor`` is told of, one type per event.
///
/// Durations are measured with the pipeline's ``ResourcePipeline/clock``. Each event has a public
/// initialiser, so that a monitor of your own can be tested with events made by hand.
public enum FetchEvent {
    /// What every event says about the fetch it belongs to.
    public struct Context: Sendable, Hashable {
        /// Tells this fetch's events apart from other fetches': unique among the fetches of the
        /// process.
        public let fetchID: UInt64
        /// The resource type being fetched.
        public let resourceType: any ResourceType.Type

        /// Creates a context, for tests of a monitor.
        public init(fetchID: UInt64, resourceType: any ResourceType.Type) {
            self.fetchID = fetchID
            self.resourceType = resourceType
        }

        /// The name of the resource type being fetched, such as `"Cities"`. Made the first time a
        /// type's name is asked for, and kept for the process's lifetime (naming a type costs more
        /// than the rest of an event, and a process fetches a bounded set of types).
        public var resourceTypeName: String {
            let type = ObjectIdentifier(resourceType)
            if let name = Self.typeNames.withLock({ $0[type] }) { return name }
            let name = String(describing: resourceType)
            Self.typeNames.withLock { $0[type] = name }
            return name
        }

        /// The names ``resourceTypeName`` has made, by type.
        private static let typeNames = Locked<[ObjectIdentifier: String]>([:])

        /// Whether two contexts belong to the same fetch of the same resource type.
        public static func == (lhs: Context, rhs: Context) -> Bool {
            lhs.fetchID == rhs.fetchID && ObjectIdentifier(lhs.resourceType) == ObjectIdentifier(rhs.resourceType)
        }

        /// Hashes the fetch's identifier and resource type.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(fetchID)
            hasher.combine(ObjectIdentifier(resourceType))
        }

        /// The fetch the current task is running through a ``ResourcePipeline``: set while the
        /// pipeline runs its adapters, its authenticator and its transport for that fetch, and
        /// `nil` anywhere else.
        ///
        /// An adapter that must tie what it does to the events its monitor side sees (a tracer
        /// starting a span in ``RequestAdapter/adapt(_:)`` and ending it in
        /// ``FetchMonitor/fetchFinished(_:)``, say) reads it to know which fetch it adapts.
        @TaskLocal public static var current: Context?

        /// The fetch whose attempts the current task makes: set only in the task a pipeline
        /// starts for them, which it cancels when the fetch ends. There, and only there,
        /// `Task.isCancelled` says that this fetch is over; a fetch's events may also be told
        /// on its caller's thread, whose task has nothing to do with the fetch.
        @TaskLocal package static var attempting: Context?

        /// What tells the monitors of the current fetch's events (set where ``current`` is):
        /// nothing once the fetch has finished.
        @TaskLocal package static var events: (any FetchEventGate)?
    }

    /// The request is ready to be sent: see ``FetchMonitor/requestReady(_:)``.
    public struct RequestReady: Sendable {
        /// The fetch.
        public let context: Context
        /// The request after the adapters.
        public let request: URLRequest

        /// Creates the event, for tests of a monitor.
        public init(context: Context, request: URLRequest) {
            self.context = context
            self.request = request
        }
    }

    /// An attempt is handed to the transport: see ``FetchMonitor/attemptSent(_:)``.
    public struct AttemptSent: Sendable {
        /// The fetch.
        public let context: Context
        /// Which attempt this is, from 1.
        public let attempt: Int
        /// The request as sent.
        public let request: URLRequest

        /// Creates the event, for tests of a monitor.
        public init(context: Context, attempt: Int, request: URLRequest) {
            self.context = context
            self.attempt = attempt
            self.request = request
        }
    }

    /// The transport answered an attempt: see ``FetchMonitor/responseReceived(_:)``.
    public struct ResponseReceived: Sendable {
        /// The fetch.
        public let context: Context
        /// Which attempt answered, from 1.
        public let attempt: Int
        /// The response's HTTP status code.
        ///
        /// Optional for source compatibility only: a transport's answer that is not an HTTP
        /// response fails the attempt with ``ResourceError/transport(_:underlying:)``
        /// (`badServerResponse`) and is not reported as a response, so in the events a
        /// ``ResourcePipeline`` reports this is never `nil`.
        public let statusCode: Int?
        /// The size of the response body, in bytes: for a download, the bytes of it written to
        /// the file (decoded, when the transport decodes a content coding).
        public let bodyByteCount: Int
        /// From handing the request to the transport to its answer.
        public let duration: Duration

        /// Creates the event, for tests of a monitor.
        public init(context: Context, attempt: Int, statusCode: Int?, bodyByteCount: Int, duration: Duration) {
            self.context = context
            self.attempt = attempt
            self.statusCode = statusCode
            self.bodyByteCount = bodyByteCount
            self.duration = duration
        }
    }

    /// An attempt failed in a way worth trying again, and another is scheduled: see
    /// ``FetchMonitor/retryScheduled(_:)``.
    public struct RetryScheduled: Sendable {
        /// Why an attempt is tried again.
        public enum Reason: Sendable, Hashable {
            /// The server answered with a status the ``RetryPolicy`` retries, such as `503`.
            case status(Int)
            /// The transport failed in a way the ``RetryPolicy`` retries, such as
            /// `.networkConnectionLost`.
            case transport(URLError.Code)
            /// The server rejected the credential the attempt carried (with this status, `401`
            /// by default); the request is replayed once with a new one.
            case credentialRejected(statusCode: Int)
        }

        /// The fetch.
        public let context: Context
        /// The attempt that failed, from 1; the next attempt is `attempt + 1`.
        public let attempt: Int
        /// How long the fetch waits before the next attempt: the backoff, or what the server's
        /// `Retry-After` asked for; `.zero` for a replay after a rejected credential, which waits
        /// only for the credential to be refreshed.
        public let delay: Duration
        /// Why the attempt is tried again.
        public let reason: Reason

        /// Creates the event, for tests of a monitor.
        public init(context: Context, attempt: Int, delay: Duration, reason: Reason) {
            self.context = context
            self.attempt = attempt
            self.delay = delay
            self.reason = reason
        }
    }

    /// The model was made: see ``FetchMonitor/modelMade(_:)``.
    public struct ModelMade: Sendable {
        /// The fetch.
        public let context: Context
        /// How long validating the response and making the model took.
        public let duration: Duration

        /// Creates the event, for tests of a monitor.
        public init(context: Context, duration: Duration) {
            self.context = context
            self.duration = duration
        }
    }

    /// The fetch is over: see ``FetchMonitor/fetchFinished(_:)``.
    public struct Finished: Sendable {
        /// The fetch.
        public let context: Context
        /// The last request the fetch knew: as sent, or as built when it failed before sending;
        /// `nil` when the request could not be built.
        public let request: URLRequest?
        /// Success, or the error the caller receives.
        public let result: Result<Void, ResourceError>
        /// The last response's HTTP status code; `nil` without an HTTP response.
        public let statusCode: Int?
        /// The size of the last response's body, in bytes, as ``ResponseReceived/bodyByteCount``
        /// counts it; `nil` without a response.
        public let bodyByteCount: Int?
        /// How many attempts were handed to the transport: `0` when none was.
        public let attempts: Int
        /// From the start of the fetch to its outcome.
        public let duration: Duration

        /// Creates the event, for tests of a monitor.
        public init(
            context: Context,
            request: URLRequest?,
            result: Result<Void, ResourceError>,
            statusCode: Int?,
            bodyByteCount: Int?,
            attempts: Int,
            duration: Duration
        ) {
            self.context = context
            self.request = request
            self.result = result
            self.statusCode = statusCode
            self.bodyByteCount = bodyByteCount
            self.attempts = attempts
            self.duration = duration
        }

        /// The error the caller receives, or `nil` on success.
        public var error: ResourceError? {
            if case .failure(let error) = result { return error }
            return nil
        }
    }
}

extension FetchEvent.RetryScheduled.Reason {
    /// The reason in words that carry nothing from the request or the response, for logs and
    /// traces: `"status(503)"`, `"transport(-1005)"` or `"credentialRejected(401)"`.
    public var logName: String {
        switch self {
        case .status(let status): "status(\(status))"
        case .transport(let code): "transport(\(code.rawValue))"
        case .credentialRejected(let status): "credentialRejected(\(status))"
        }
    }
}

/// What tells a fetch's monitors of its events: none after its ``FetchMonitor/fetchFinished(_:)``.
package protocol FetchEventGate: AnyObject, Sendable {
    /// Tells each of `monitors` with `call`, unless the fetch is over; returns whether it was
    /// still going on once they were told.
    func tell(_ monitors: [any FetchMonitor], _ call: (any FetchMonitor) -> Void) -> Bool

    /// Tells each of `monitors` with `call` once the fetch's events are over: after its
    /// ``FetchMonitor/fetchFinished(_:)``, at once when that has been told already. For what a
    /// fetch set going outlives it, such as a background validation of the cache.
    func tellAfterTheEnd(_ monitors: [any FetchMonitor], _ call: @escaping @Sendable (any FetchMonitor) -> Void)
}
