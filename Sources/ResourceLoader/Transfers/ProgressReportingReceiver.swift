import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``TransferReceiver`` that reports the progress of both bodies to a
/// ``TransferProgressReporter`` and hands everything on to a ``ResponseCollector``.
final class ProgressReportingReceiver: TransferReceiver {
    private struct State {
        var received: Int64 = 0
        var total: Int64?
        var decoded = false
    }

    private let collector: ResponseCollector
    private let reporter: TransferProgressReporter
    // `state` is a `Locked`: its lock guards the count of body bytes and the total.
    private let state = Locked(State())

    init(collector: ResponseCollector, reporter: TransferProgressReporter) {
        self.collector = collector
        self.reporter = reporter
    }

    /// Makes, for each attempt, a collector as the fetch core would, wrapped in a reporter.
    static func factory(reporting reporter: TransferProgressReporter) -> ReceiverFactory {
        { request, options, completion in
            ProgressReportingReceiver(
                collector: ResponseCollector(maximumBytes: options.maximumResponseBytes, ignoresDeclaredLength: request.isHEAD, completion: completion),
                reporter: reporter
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
        let coded = head.value(forHTTPHeaderField: "Content-Encoding").map { $0.trimmingCharacters(in: .whitespaces).lowercased() != "identity" } ?? false
        let total = coded ? nil : head.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
        state.withLock { state in
            state.received = 0
            state.total = total
            state.decoded = coded
        }
        reporter.received(0, of: total, decoded: coded)
        return decision
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        let decision = collector.transferDidReceive(chunk)
        guard case .proceed = decision else { return decision }
        let (received, total, decoded) = state.withLock { state in
            state.received += Int64(chunk.count)
            return (state.received, state.total, state.decoded)
        }
        reporter.received(received, of: total, decoded: decoded)
        return decision
    }

    func transferDidComplete(with error: (any Error)?) {
        collector.transferDidComplete(with: error)
    }
}
