extension FetchEvent {
    /// A transfer's body moved on: see ``FetchMonitor/transferProgressed(_:)``.
    public struct TransferProgressed: Sendable {
        /// The fetch.
        public let context: Context
        /// How far it has got.
        public let progress: TransferProgress

        /// Creates an event; the pipeline makes them, and tests of monitors make their own.
        public init(context: Context, progress: TransferProgress) {
            self.context = context
            self.progress = progress
        }
    }
}

extension PipelineFetch {
    /// Tells the monitors the transfer moved on.
    func progressed(_ progress: TransferProgress) {
        let event = FetchEvent.TransferProgressed(context: context, progress: progress)
        for monitor in pipeline.monitors { monitor.transferProgressed(event) }
    }
}

extension TransferProgressReporter {
    /// A reporter for a fetch that reports to `sink` and to the monitors of `fetch`'s pipeline;
    /// `nil` when there is no one to report to.
    static func forFetch(
        _ fetch: PipelineFetch?,
        sink: (@Sendable (TransferProgress) -> Void)?,
        elapsed: @escaping @Sendable () -> Duration
    ) -> TransferProgressReporter? {
        let monitored = fetch.flatMap { $0.pipeline.monitors.isEmpty ? nil : $0 }
        switch (monitored, sink) {
        case (nil, nil):
            return nil
        case (let fetch?, nil):
            return TransferProgressReporter(elapsed: elapsed) { fetch.progressed($0) }
        case (nil, let sink?):
            return TransferProgressReporter(elapsed: elapsed, sink: sink)
        case (let fetch?, let sink?):
            return TransferProgressReporter(elapsed: elapsed) { progress in
                fetch.progressed(progress)
                sink(progress)
            }
        }
    }
}
