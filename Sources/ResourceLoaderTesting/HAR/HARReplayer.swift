import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Finds the recorded entry that answers each request: the matching logic of
/// ``ReplayTransport``, independent of any transport.
///
/// Each request is redacted with ``redaction`` (the recorder's redaction, so that a live
/// credential compares equal to the recorded placeholder), its ``HARRedaction/entry`` closure
/// included, which runs on an entry of the request with an empty response (status `0`), and is
/// compared with every entry by ``rules``. When several entries match, as when a request
/// repeats, they answer in the order recorded, each once; after the last, ``Exhaustion``
/// decides. Safe to use from any thread.
public final class HARReplayer: @unchecked Sendable {
    /// What happens to a request whose matching entries have all answered.
    public enum Exhaustion: Sendable {
        /// The last matching entry answers again (the default).
        case repeatLast
        /// The request fails with ``HARReplayError/exhausted(request:entries:)``.
        case fail
    }

    /// The archive answered from.
    public let har: HAR
    /// The rules an entry must satisfy to answer a request.
    public let rules: [HARMatchingRule]
    /// The redaction applied to each request before matching, and to the requests named in errors.
    public let redaction: HARRedaction
    /// What happens once the matching entries have all answered.
    public let exhaustion: Exhaustion

    // `lock` guards `uses`: how many times each entry has answered.
    private let lock = NSLock()
    private var uses: [Int]

    /// Creates a replayer.
    ///
    /// - Parameters:
    ///   - har: The archive to answer from.
    ///   - rules: The rules an entry must satisfy; method and URL by default.
    ///   - redaction: Applied to each request before matching; use the recorder's.
    ///   - exhaustion: What happens once the matching entries have all answered.
    public init(har: HAR, rules: [HARMatchingRule] = HARMatchingRule.standard, redaction: HARRedaction = .standard, exhaustion: Exhaustion = .repeatLast) {
        self.har = har
        self.rules = rules
        self.redaction = redaction
        self.exhaustion = exhaustion
        self.uses = Array(repeating: 0, count: har.log.entries.count)
    }

    /// The entry that answers `request`, redacted with ``redaction`` (its `entry` closure
    /// included), counted as used.
    public func entry(for request: URLRequest) -> Result<HAR.Entry, HARReplayError> {
        entry(for: HAR.Request(live: request, sentBody: nil, redaction: redaction))
    }

    /// The entry that answers `live` (a request already recorded and redacted), counted as used.
    public func entry(for live: HAR.Request) -> Result<HAR.Entry, HARReplayError> {
        let entries = har.log.entries
        var matching: [Int] = []
        var closest: HARReplayError.ClosestEntry?
        for (index, entry) in entries.enumerated() {
            let differences = rules.compactMap { $0.difference(between: live, and: entry.request) }
            if differences.isEmpty {
                matching.append(index)
            } else if closest == nil || differences.count < closest!.differences.count {
                closest = HARReplayError.ClosestEntry(
                    index: index, request: "\(entry.request.method) \(entry.request.url)", differences: differences)
            }
        }
        let name = "\(live.method) \(live.url)"
        guard let last = matching.last else { return .failure(.noMatch(request: name, closest: closest)) }
        let chosen: Int? = lock.withLock {
            let index = matching.first { uses[$0] == 0 } ?? (exhaustion == .repeatLast ? last : nil)
            if let index { uses[index] += 1 }
            return index
        }
        guard let chosen else { return .failure(.exhausted(request: name, entries: matching.count)) }
        return .success(entries[chosen])
    }

    /// The entries that have not answered any request yet, by position; a test can check that
    /// it made every recorded request.
    public var unusedEntries: [Int] {
        lock.withLock { uses.indices.filter { uses[$0] == 0 } }
    }
}
