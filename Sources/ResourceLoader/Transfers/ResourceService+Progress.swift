import Foundation

extension ResourceService {
    /// Fetches `resource`, reporting the progress of its request body (an upload) and of its
    /// response body to `progress` on `progressQueue`, and returns its model.
    ///
    /// `progress` receives throttled values (see ``TransferProgress``): ``TransferProgress/Direction/upload``
    /// ones while the body goes out, then ``TransferProgress/Direction/download`` ones, and
    /// always the last one, in order and one call at a time, also on a concurrent queue; every
    /// call has run before this method returns or throws.
    public func fetch(
        _ resource: Resource,
        progressQueue: DispatchQueue,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws(ResourceError) -> Resource.Model {
        let result = await TransferTask<Resource.Model>.delivering(to: progress, on: progressQueue) { sink in
            await runReportingProgress(resource, sink: sink)
        }
        return try result.get()
    }

    /// Starts fetching `resource` and returns at once: the task's ``TransferTask/progress`` is
    /// an `AsyncSequence` of throttled values that ends with the last one, and its
    /// ``TransferTask/value`` is the model.
    public func fetchTask(_ resource: Resource) -> TransferTask<Resource.Model> {
        TransferTask(running: { sink in await runReportingProgress(resource, sink: sink) })
    }

    /// Fetches `resource` with progress to `sink` and to the pipeline's monitors.
    private func runReportingProgress(
        _ resource: Resource,
        sink: @escaping @Sendable (TransferProgress) -> Void
    ) async -> Result<Resource.Model, ResourceError> {
        let fetch = pipelineFetch(for: resource)
        let stopwatch = pipeline?.stopwatch ?? Stopwatch(ContinuousClock())
        let reporter = TransferProgressReporter.forFetch(fetch, sink: sink, elapsed: stopwatch.elapsed)
        let result = await run(resource, fetch: fetch, progress: reporter)
        reporter?.finish()
        fetch?.finished(with: result)
        return result
    }
}
