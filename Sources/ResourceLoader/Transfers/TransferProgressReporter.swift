import Foundation

/// Turns the byte counts a receiver sees into throttled ``TransferProgress`` values for one
/// fetch, and hands them to a sink: a callback on a queue, an `AsyncStream`, the pipeline's
/// monitors.
///
/// A value is passed on when it is the first, when ``minimumInterval`` has passed since the last
/// one passed on (by the injected stopwatch), or when at least ``minimumFraction`` more of a
/// known total is done. ``finish()`` passes on the last value seen, if it was held back, and
/// then nothing more is passed on: the sink's last value is the final one.
final class TransferProgressReporter: Sendable {
    private struct State {
        var lastDelivered: TransferProgress?
        var lastDeliveredAt: Duration?
        var latest: TransferProgress?
        var isFinished = false
    }

    /// The least time between two values passed on: 100 ms.
    static let minimumInterval: Duration = .milliseconds(100)
    /// The least fraction of a known total between two values passed on (when less time has
    /// passed): 1%.
    static let minimumFraction = 0.01

    private let elapsed: @Sendable () -> Duration
    private let sink: @Sendable (TransferProgress) -> Void
    // `state` is a `Locked`: its lock guards every field of `State`, and is held while a value
    // is handed to the sink, so the sink sees values in order.
    private let state = Locked(State())

    /// - Parameters:
    ///   - elapsed: The time since some fixed start: a stopwatch's reading.
    ///   - sink: Receives the values passed on, in order, never two at once.
    init(elapsed: @escaping @Sendable () -> Duration, sink: @escaping @Sendable (TransferProgress) -> Void) {
        self.elapsed = elapsed
        self.sink = sink
    }

    /// `completed` bytes of the response body received, of `total` when known, counted as
    /// `counting` says.
    func received(_ completed: Int64, of total: Int64?, counting: TransferProgress.Counting = .bodyBytes) {
        report(TransferProgress(direction: .download, completedBytes: completed, totalBytes: total, counting: counting))
    }

    /// `sent` bytes of the request body gone out, of `total` when known.
    func sent(_ sent: Int64, of total: Int64?) {
        report(TransferProgress(direction: .upload, completedBytes: sent, totalBytes: total))
    }

    /// Reports `progress`, unless it is held back by the throttle.
    func report(_ progress: TransferProgress) {
        let now = elapsed()
        state.withLock { state in
            guard !state.isFinished else { return }
            // The request body's last value, if throttled away, goes before the response's first.
            if let latest = state.latest, latest.direction != progress.direction, latest != state.lastDelivered {
                sink(latest)
                state.lastDelivered = latest
            }
            state.latest = progress
            guard Self.passes(progress, at: now, after: state.lastDelivered, at: state.lastDeliveredAt) else { return }
            state.lastDelivered = progress
            state.lastDeliveredAt = now
            sink(progress)
        }
    }

    /// Passes on the last value seen if the throttle held it back; nothing is passed on after.
    func finish() {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.isFinished = true
            if let latest = state.latest, latest != state.lastDelivered { sink(latest) }
        }
    }

    private static func passes(
        _ progress: TransferProgress,
        at now: Duration,
        after last: TransferProgress?,
        at lastTime: Duration?
    ) -> Bool {
        guard let last, let lastTime else { return true }
        if progress == last { return false }
        if progress.direction != last.direction { return true }
        if now - lastTime >= minimumInterval { return true }
        if let fraction = progress.fractionCompleted, let lastFraction = last.fractionCompleted, fraction - lastFraction >= minimumFraction {
            return true
        }
        return false
    }
}
