import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches ``DownloadResourceType`` resources: streams each body to a file, verifies it, moves it
/// into place and makes the model from it.
///
/// ```swift
/// let service = DownloadService<Dataset>()
/// let file = try await service.fetch(Dataset())
/// ```
///
/// A download runs through the same fetch core as every ``ResourceService`` fetch, on any
/// ``HTTPTransport`` (``URLSessionTransport``, `AsyncHTTPClientTransport`, `FakeURLSession`),
/// with the same deadline, cancellation, pipeline hooks and exactly one outcome; only the
/// receiver of the body differs: a file instead of memory. The steps:
/// 1. ``NetworkResourceType/urlRequest()`` builds the request; for a resource that
///    ``DownloadResourceType/resumeFrom`` a partial file, `Range: bytes=N-` and `If-Range` are
///    added. Each attempt a pipeline's ``RetryPolicy`` makes after the first asks for the rest of
///    the partial file as the attempts before it left it: after its last byte, under the
///    validator of the answer that wrote it; or for the whole body when they left none;
/// 2. the transport sends it; an answer the resource accepts (a `200`, or a `206` that
///    continues the partial file) is written to a temporary file beside the destination, or
///    appended to the partial file, within ``TransferOptions/maximumDownloadBytes``, and hashed
///    as it is written; any other answer is kept in memory and reported by
///    ``NetworkResourceType/validate(_:data:)`` as it would be for any resource. The answer to
///    a `HEAD` has no body: its file is empty, whatever its `Content-Length` and digests say.
///    A `416` that says the partial file is already whole stands for the `200` that would have
///    carried it: the resource validates that head, and the file is held to the limit;
/// 3. the file is flushed and checked against ``DownloadResourceType/expectedSHA256`` and the
///    response's `Content-Digest` and `Repr-Digest` (RFC 9530); a file a `416` completes,
///    against ``DownloadResourceType/expectedSHA256`` alone;
/// 4. it is moved to ``DownloadResourceType/destination`` as
///    ``DownloadResourceType/overwritePolicy`` says, in one atomic rename;
/// 5. ``DownloadResourceType/model(fromFileAt:response:)`` makes the model.
///
/// The outcome is delivered only once the temporary file has been removed, or kept to resume:
/// whoever receives ``ResourceError/cancelled`` finds nothing left behind. A cancelled or timed
/// out transfer is waited for at most 10 seconds: when the transport has still not finished with
/// the body by then, the outcome is delivered without it, and carries no partial file that
/// transfer may still change (none once its answer's head had arrived; one an earlier attempt
/// kept, as it left it, when the head had not, which the transfer then leaves alone); whatever
/// that transfer leaves when it does finish, a whole file or a partial one, is removed then;
/// until it finishes, its temporary file may still be beside the destination.
public struct DownloadService<Resource: DownloadResourceType>: ResourceServiceType {
    /// The transport requests are sent through.
    public let session: any HTTPTransport
    /// The limits applied to every transfer, unless a resource adjusts them with
    /// ``NetworkResourceType/transferOptions(_:)``.
    public let options: TransferOptions
    /// The pipeline the service was made from, or `nil` for one made with
    /// ``init(session:options:)``.
    public let pipeline: ResourcePipeline?
    /// How bytes reach the file: `write(2)`, or a failing stand-in in tests.
    let writer: DownloadWriter
    /// The clock progress is throttled by: the pipeline's, or the continuous clock.
    let stopwatch: Stopwatch
    /// How long the outcome waits for a transport to finish with the body: 10 seconds, or a
    /// shorter time a test injects.
    let settleBound: Duration

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - session: The transport. Default: ``URLSessionTransport/shared``.
    ///   - options: Limits for every transfer. Default: `TransferOptions()`.
    public init(session: any HTTPTransport = URLSessionTransport.shared, options: TransferOptions = TransferOptions()) {
        self.init(session: session, options: options, pipeline: nil, writer: .system)
    }

    /// Creates a service that fetches through `pipeline`: its transport, its options, its
    /// adapters and its monitors.
    public init(pipeline: ResourcePipeline) {
        self.init(session: pipeline.session, options: pipeline.options, pipeline: pipeline, writer: .system)
    }

    init(
        session: any HTTPTransport,
        options: TransferOptions,
        pipeline: ResourcePipeline?,
        writer: DownloadWriter,
        settleBound: Duration = .seconds(10)
    ) {
        self.session = session
        self.options = options
        self.pipeline = pipeline
        self.writer = writer
        self.stopwatch = pipeline?.stopwatch ?? Stopwatch(ContinuousClock())
        self.settleBound = settleBound
    }

    /// Downloads `resource` and returns its model.
    ///
    /// Cancelling the calling task cancels the download, which then throws
    /// ``ResourceError/cancelled``, or, when the resource keeps partial files and one was kept,
    /// ``ResourceError/downloadInterrupted(_:underlying:)`` carrying it with
    /// ``ResourceError/cancelled`` as `underlying`.
    public func fetch(_ resource: Resource) async throws(ResourceError) -> Resource.Model {
        try await run(resource).get()
    }

    /// Downloads `resource` and delivers the outcome exactly once on `callbackQueue`.
    ///
    /// - Returns: A handle that cancels the download; `completion` then receives
    ///   ``ResourceError/cancelled``, or, when the resource keeps partial files and one was
    ///   kept, ``ResourceError/downloadInterrupted(_:underlying:)`` carrying it with
    ///   ``ResourceError/cancelled`` as `underlying` (unless an outcome was already delivered).
    @discardableResult
    public func fetch(
        _ resource: Resource,
        callbackQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<Resource.Model, ResourceError>) -> Void
    ) -> any Cancellable {
        let task = Task {
            let result = await run(resource)
            callbackQueue.async { completion(result) }
        }
        return TaskCancellable(task)
    }

    /// Downloads `resource`, reporting its progress to `progress` on `progressQueue`, and
    /// returns its model.
    ///
    /// `progress` receives throttled values (see ``TransferProgress``) and always the last one,
    /// in order and one call at a time, also on a concurrent queue; every call has run before
    /// this method returns or throws.
    public func fetch(
        _ resource: Resource,
        progressQueue: DispatchQueue,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws(ResourceError) -> Resource.Model {
        let result = await TransferTask<Resource.Model>.delivering(to: progress, on: progressQueue) { sink in
            await run(resource, progress: sink)
        }
        return try result.get()
    }

    /// Starts downloading `resource` and returns at once: the task's
    /// ``TransferTask/progress`` is an `AsyncSequence` of throttled values that ends with the
    /// last one, and its ``TransferTask/value`` is the model.
    ///
    /// ```swift
    /// let task = service.fetchTask(Dataset())
    /// for await progress in task.progress { print(progress.completedBytes) }
    /// let file = try await task.value
    /// ```
    public func fetchTask(_ resource: Resource) -> TransferTask<Resource.Model> {
        TransferTask(running: { sink in await run(resource, progress: sink) })
    }

    /// Downloads `resource`, with progress to `progress` when given.
    func run(
        _ resource: Resource,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async -> Result<Resource.Model, ResourceError> {
        let fetch = pipelineFetch(for: resource)
        let reporter = TransferProgressReporter.forFetch(fetch, sink: progress, elapsed: stopwatch.elapsed)
        let result = await download(resource, fetch: fetch, progress: reporter)
        reporter?.finish()
        fetch?.finished(with: result)
        return result
    }

    private func download(
        _ resource: Resource,
        fetch: PipelineFetch?,
        progress: TransferProgressReporter?
    ) async -> Result<Resource.Model, ResourceError> {
        let staging = DownloadStaging(bound: settleBound, resumeFrom: resource.resumeFrom)
        if Task.isCancelled { return Self.failed(.cancelled, leaving: staging, for: resource) }
        let built: URLRequest
        do {
            built = try resource.urlRequest()
        } catch {
            return Self.failed(error, leaving: staging, for: resource)
        }
        let request = Self.request(built, resuming: resource.resumeFrom)
        fetch?.built(request)
        let options = resource.transferOptions(self.options)
        let configuration = FileDownloadReceiver.Configuration(
            destination: resource.destination,
            overwritePolicy: resource.overwritePolicy,
            expectedSHA256: resource.expectedSHA256,
            keepsPartialFile: resource.keepsPartialFile,
            maximumBytes: options.maximumDownloadBytes,
            maximumErrorBodyBytes: options.maximumResponseBytes,
            accepts: { head in Self.accepts(head, resource: resource) },
            writer: writer,
            progress: progress.map(Self.writtenBytesReporter)
        )
        // The transport may decode a coded body within `maximumResponseBytes`: a download's
        // body is bounded by its own limit instead, which the receiver keeps.
        var transferOptions = options
        transferOptions.maximumResponseBytes = max(options.maximumResponseBytes, Int(clamping: options.maximumDownloadBytes))
        var plan = plan(for: resource, options: transferOptions, fetch: fetch)
        plan.makeReceiver = { request, _, completion in
            FileDownloadReceiver(configuration: configuration, staging: staging, answersHEAD: request.isHEAD, completion: completion)
        }
        // A retry asks for the rest of the partial file the attempts before it left, which its
        // receiver continues (`DownloadStaging.resumePoint`).
        plan.requestForAttempt = { _ in Self.request(built, resuming: staging.resumePoint) }
        let answer = await FetchCore.awaiting(request, plan: plan, session: session, fetch: fetch)
        await staging.settled()
        switch answer {
        case .failure(let error):
            return Self.failed(error, leaving: staging, for: resource)
        case .success(let last):
            guard let staged = staging.takeStaged() else {
                // An answer kept in memory: the resource's validation says what is wrong. A
                // partial file kept to resume (by an earlier attempt, or the one being resumed)
                // goes with the error.
                let failure = Self.failure(for: last, resource: resource)
                if let partial = Self.keptPartial(in: staging, for: resource), case .failure(let error) = failure {
                    return .failure(.downloadInterrupted(partial, underlying: error))
                }
                return failure
            }
            if Task.isCancelled {
                if let resumable = staged.resumable { return .failure(.downloadInterrupted(resumable, underlying: .cancelled)) }
                DownloadFile.remove(staged.url)
                return .failure(.cancelled)
            }
            guard let fetch else { return Self.place(staged, for: resource) }
            return fetch.makeModel { Self.place(staged, for: resource) }
        }
    }

    /// `request`, as the resource built it, asking for the bytes after `partial` when there is
    /// one: `Range: bytes=N-`, and `If-Range` with its validator (RFC 9110 §13.1.5, §14.2).
    private static func request(_ request: URLRequest, resuming partial: ResumableDownload?) -> URLRequest {
        guard let partial else { return request }
        var request = request
        request.setValue("bytes=\(partial.byteCount)-", forHTTPHeaderField: "Range")
        request.setValue(partial.validator.ifRangeValue, forHTTPHeaderField: "If-Range")
        // The range counts the bytes of the representation as stored: a coded 206 could not
        // be appended, so the resume asks for none unless the resource names a coding.
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        return request
    }

    /// The outcome of a download that failed with `error`, with what its attempts left in
    /// `staging`, or, when it made none, the partial file it resumes. A finished file the
    /// cancellation or the deadline overtook before it was placed is kept with every byte when
    /// the resource keeps partial files, and removed otherwise; a partial file kept to resume
    /// goes with the error (``keptPartial(in:for:)``).
    private static func failed(
        _ error: ResourceError,
        leaving staging: DownloadStaging,
        for resource: Resource
    ) -> Result<Resource.Model, ResourceError> {
        if let staged = staging.takeStaged() {
            if let resumable = staged.resumable { return .failure(.downloadInterrupted(resumable, underlying: error)) }
            DownloadFile.remove(staged.url)
        }
        if let partial = keptPartial(in: staging, for: resource) { return .failure(.downloadInterrupted(partial, underlying: error)) }
        return .failure(error)
    }

    /// The partial file a failed download leaves to resume, when its resource keeps partial
    /// files. Otherwise the partial file being resumed, which the attempts left for a retry, is
    /// removed now that no attempt follows.
    private static func keptPartial(in staging: DownloadStaging, for resource: Resource) -> ResumableDownload? {
        guard resource.keepsPartialFile else {
            staging.discardResumable()
            return nil
        }
        return staging.resumable
    }

    /// Whether `resource` accepts the status of `head`: its validation, with no body.
    private static func accepts(_ head: ResponseHead, resource: Resource) -> Bool {
        guard let response = Resource.ValidatedResponse.validatable(from: head) else { return false }
        do {
            try resource.validate(response, data: Data())
            return true
        } catch {
            return false
        }
    }

    /// Hands the receiver's counts of bytes to `reporter`.
    private static func writtenBytesReporter(
        _ reporter: TransferProgressReporter
    ) -> @Sendable (Int64, Int64?, TransferProgress.Counting) -> Void {
        { completed, total, counting in reporter.received(completed, of: total, counting: counting) }
    }

    /// Moves the staged file to the resource's destination and makes the model from it. A file
    /// that cannot be placed (a file appeared at the destination under
    /// ``DownloadOverwritePolicy/failIfExists``) is removed, or kept to resume when the resource
    /// keeps partial files.
    private static func place(_ staged: DownloadStaging.Staged, for resource: Resource) -> Result<Resource.Model, ResourceError> {
        do {
            try DownloadFile.place(staged.url, at: resource.destination, policy: resource.overwritePolicy)
        } catch {
            if let resumable = staged.resumable { return .failure(.downloadInterrupted(resumable, underlying: error)) }
            DownloadFile.remove(staged.url)
            return .failure(error)
        }
        do {
            return .success(try resource.model(fromFileAt: resource.destination, response: staged.head))
        } catch {
            return .failure(ResourceError(parsingError: error, context: "making the model from the downloaded file"))
        }
    }

    /// The error for an answer whose body was kept in memory: the resource's validation's, or
    /// ``ResourceError/emptyResponse(statusCode:)`` when it accepts it (a `204`, say).
    private static func failure(for answer: FetchAnswer, resource: Resource) -> Result<Resource.Model, ResourceError> {
        guard let response = Resource.ValidatedResponse.validatable(from: answer.response) else {
            return .failure(.transport(.badServerResponse, underlying: URLError(.badServerResponse)))
        }
        do {
            try resource.validate(response, data: answer.data)
        } catch {
            return .failure(error)
        }
        return .failure(.emptyResponse(statusCode: answer.response.statusCode))
    }

    /// The pipeline's state for a download of `resource`, as for a ``ResourceService`` fetch.
    private func pipelineFetch(for resource: Resource) -> PipelineFetch? {
        PipelineFetch.forFetch(of: resource, through: pipeline)
    }

    /// The plan the attempts of a download run with, as for a ``ResourceService`` fetch.
    private func plan(for resource: Resource, options: TransferOptions, fetch: PipelineFetch?) -> FetchPlan {
        FetchPlan(for: resource, options: options, fetch: fetch)
    }
}
