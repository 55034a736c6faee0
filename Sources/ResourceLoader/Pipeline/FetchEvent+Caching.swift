import Foundation

extension FetchEvent {
    /// The pipeline's ``HTTPCache`` decided something about an attempt: see
    /// ``FetchMonitor/cacheDecided(_:)``.
    public struct CacheDecided: Sendable {
        /// What the cache did.
        public enum Outcome: Sendable, Hashable {
            /// A fresh stored response answered, without the network.
            case hit
            /// No stored response could answer: the request went to the network.
            case miss
            /// A stored response was validated with a conditional request, and the origin's
            /// `304` confirmed it: the stored body answered (the response was revalidated).
            case conditionalHit
            /// A stored response was validated with a conditional request, and the origin
            /// answered with a new response instead, or with a `304` for another
            /// representation, which cannot update it (RFC 9111, section 4.3.4): the request
            /// was then sent again without validators, and ``stored`` or ``notStored(_:)``
            /// follows for its answer.
            case conditionalMiss
            /// The network failed (or answered `500`, `502`, `503` or `504`) and a stale stored
            /// response answered in its place, within the cache's `stale-if-error` bound.
            case staleIfError
            /// A stale stored response answered at once, within its `stale-while-revalidate`
            /// window (RFC 5861), and the cache validates it in the background; what that
            /// validation does follows as ``conditionalHit``, ``conditionalMiss``, ``stored`` or
            /// ``notStored(_:)``, reported to the same fetch's monitors.
            case staleWhileRevalidate
            /// The request said `only-if-cached` and nothing stored could answer: the fetch
            /// fails with ``ResourceError/notCached``, and nothing was sent.
            case onlyIfCachedUnsatisfied
            /// The whole response was handed to the store (which drops one larger than its
            /// limit).
            case stored
            /// The response was not stored, for this reason.
            case notStored(CachePolicy.NotStoredReason)
            /// An unsafe request's answer invalidated this many URLs' stored responses (RFC 9111,
            /// section 4.4).
            case invalidated(Int)
        }

        /// The fetch.
        public let context: Context
        /// The URL the request was for.
        public let url: URL?
        /// What the cache did.
        public let outcome: Outcome

        /// Creates the event, for tests of a monitor.
        public init(context: Context, url: URL?, outcome: Outcome) {
            self.context = context
            self.url = url
            self.outcome = outcome
        }
    }
}

extension FetchEvent.CacheDecided.Outcome {
    /// The outcome in words that carry nothing from the request or the response, for logs and
    /// metrics: `"hit"`, `"miss"`, `"notStored(authorization)"`…
    public var logName: String {
        switch self {
        case .hit: "hit"
        case .miss: "miss"
        case .conditionalHit: "conditionalHit"
        case .conditionalMiss: "conditionalMiss"
        case .staleIfError: "staleIfError"
        case .staleWhileRevalidate: "staleWhileRevalidate"
        case .onlyIfCachedUnsatisfied: "onlyIfCachedUnsatisfied"
        case .stored: "stored"
        case .notStored(let reason): "notStored(\(reason.rawValue))"
        case .invalidated(let count): "invalidated(\(count))"
        }
    }
}
