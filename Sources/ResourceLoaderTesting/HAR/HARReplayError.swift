import Foundation
import ResourceLoader

/// Why a ``HARReplayer`` (or ``ReplayTransport``) could not answer a request.
///
/// The descriptions name requests by their redacted method and URL and quote only redacted
/// values, so an error that reaches a log or a test report carries no credential.
public enum HARReplayError: Error, ContentFreeDescription, Equatable {
    /// No entry matches the request. `closest` is the entry with the fewest differences, when
    /// the archive has any entry.
    case noMatch(request: String, closest: ClosestEntry?)
    /// Every entry that matches the request has answered once, and the replayer was told not to
    /// repeat the last one.
    case exhausted(request: String, entries: Int)
    /// The matching entry's body is marked base64 but is not valid base64.
    case unreadableBody(entry: Int)

    /// The recorded entry nearest to a request that matched none.
    public struct ClosestEntry: Sendable, Equatable {
        /// The entry's position in the archive, from 0.
        public let index: Int
        /// The entry's method and URL.
        public let request: String
        /// How the entry differs from the request, one line per rule that failed.
        public let differences: [String]

        /// Creates a description of the closest entry.
        public init(index: Int, request: String, differences: [String]) {
            self.index = index
            self.request = request
            self.differences = differences
        }
    }

    /// What went wrong, naming the request and, for ``noMatch(request:closest:)``, the closest
    /// entry and how it differs.
    public var description: String {
        switch self {
        case .noMatch(let request, nil):
            return "The HAR has no entry for \(request): it has no entries"
        case .noMatch(let request, let closest?):
            return "The HAR has no entry for \(request); the closest is entry \(closest.index), \(closest.request), which differs in "
                + closest.differences.joined(separator: "; ")
        case .exhausted(let request, let entries):
            return "The HAR's \(entries) entries for \(request) have all been used"
        case .unreadableBody(let entry):
            return "Entry \(entry) of the HAR has a body marked base64 that is not valid base64"
        }
    }
}
