import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``TransferReceiver`` that reports the progress of both bodies to a
/// ``TransferProgressReporter`` and hands everything on to a ``ResponseCollector``.
final class ProgressReportingReceiver: TransferReceiver {
    private struct State {
        /// The body bytes handed on.
        var received: Int64 = 0
        /// The coded bytes reported by the decoder before this receiver.
        var wire: Int64 = 0
        /// The length the response's `Content-Length` declares (one length, or a list of equal
        /// ones); `0` for a response that has no body (answering a `HEAD`, or a `204` or `304`),
        /// whatever its field says.
        var declared: Int64?
        /// What the response's progress counts; `nil` before the head, and for a content-coded
        /// body until it is known whether its bytes come counted on the wire or decoded.
        var counting: TransferProgress.Counting?
    }

    private let collector: ResponseCollector
    private let reporter: TransferProgressReporter
    /// Whether the request is a `HEAD`, whose answer's `Content-Length` describes a body not sent.
    private let answersHEAD: Bool
    // `state` is a `Locked`: its lock guards the counts and what they count.
    private let state = Locked(State())

    init(collector: ResponseCollector, reporter: TransferProgressReporter, answersHEAD: Bool) {
        self.collector = collector
        self.reporter = reporter
        self.answersHEAD = answersHEAD
    }

    /// Makes, for each attempt, a collector as the fetch core would, wrapped in a reporter.
    static func factory(reporting reporter: TransferProgressReporter) -> ReceiverFactory {
        { request, options, completion in
            ProgressReportingReceiver(
                collector: ResponseCollector(maximumBytes: options.maximumResponseBytes, ignoresDeclaredLength: request.isHEAD, completion: completion),
                reporter: reporter,
                answersHEAD: request.isHEAD
            )
        }
    }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        reporter.sent(sent, of: expected)
        collector.transferDidSend(sent, of: expected)
    }

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        let decision = collector.transferDidReceive(head: head)
        guard case .proceed = decision else { return decision }
        // A response without a body has none to count, whatever its fields describe.
        let bodiless = answersHEAD || !ResponseCollector.mayHaveBody(head.statusCode)
        let coded = !bodiless && head.value(forHTTPHeaderField: "Content-Encoding").map { !TransferRules.isIdentity($0) } ?? false
        // One length, or a list of equal ones (RFC 9112 §6.3), as the collector reads it.
        let declared = bodiless ? 0 : head.value(forHTTPHeaderField: "Content-Length").flatMap(TransferRules.declaredContentLength)
        state.withLock { state in
            state = State(declared: declared, counting: coded ? nil : .bodyBytes)
        }
        // A coded body's first value waits until it is known what its bytes count.
        if !coded { reporter.received(0, of: declared) }
        return decision
    }

    func transferDidReceive(codedByteCount: Int) {
        let progress = state.withLock { state -> (Int64, Int64?)? in
            guard state.counting == nil || state.counting == .wireBytes else { return nil }
            state.counting = .wireBytes
            state.wire += Int64(codedByteCount)
            return (state.wire, state.declared)
        }
        if let (wire, declared) = progress { reporter.received(wire, of: declared, counting: .wireBytes) }
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        let decision = collector.transferDidReceive(chunk)
        guard case .proceed = decision else { return decision }
        let progress = state.withLock { state -> (Int64, Int64?, TransferProgress.Counting)? in
            state.received += Int64(chunk.count)
            if state.counting == nil { state.counting = .decodedBytes }
            switch state.counting {
            case .bodyBytes?: return (state.received, state.declared, .bodyBytes)
            case .decodedBytes?: return (state.received, nil, .decodedBytes)
            case .wireBytes?, nil: return nil
            }
        }
        if let (completed, total, counting) = progress { reporter.received(completed, of: total, counting: counting) }
        return decision
    }

    func transferDidComplete(with error: (any Error)?) {
        // A coded body that ended before anything said what its bytes count: its one value.
        let undecided = state.withLock { state -> Bool in
            guard state.counting == nil, error == nil else { return false }
            state.counting = .decodedBytes
            return true
        }
        if undecided { reporter.received(0, of: nil, counting: .decodedBytes) }
        collector.transferDidComplete(with: error)
    }
}
