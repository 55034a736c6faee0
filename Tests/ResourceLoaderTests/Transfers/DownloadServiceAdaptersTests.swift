import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Downloads through the completion handler and a pipeline's retries")
struct DownloadServiceAdaptersTests {
    @Test func theCompletionHandlerReceivesThePlacedFileOnItsQueue() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(40_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let queue = DispatchQueue(label: "downloads")
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

        let result = await withCheckedContinuation { continuation in
            service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")), callbackQueue: queue) { result in
                dispatchPrecondition(condition: .onQueue(queue))
                continuation.resume(returning: result)
            }
        }

        #expect(try Data(contentsOf: try result.get()) == body)
    }

    @Test func aCancelledHandleDeliversCancelledAndLeavesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(100_000)
        let server = try LoopbackHTTPServer { _ in
            .script([
                .write(DownloadFixtures.head(200, [("ETag", "\"v1\""), ("Content-Length", "\(body.count)")]) + body.prefix(10_000)),
                .pause(.seconds(20)),
                .close,
            ])
        }
        defer { server.stop() }
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

        let result = await withCheckedContinuation { continuation in
            let handle = service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")), callbackQueue: .global()) { result in
                continuation.resume(returning: result)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) { handle.cancel() }
        }

        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.isCancelled)
        #expect(scratch.contents().isEmpty)
        #expect(scratch.openDescriptors().isEmpty)
    }

    @Test func aPipelinesRetryOfA503GivesEachAttemptItsOwnReceiver() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(60_000)
        let attempts = Locked(0)
        let server = try LoopbackHTTPServer { request in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            guard attempt > 1 else { return .status(503, body: Data("busy".utf8)) }
            return DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"")
        }
        defer { server.stop() }
        let monitor = ProgressRecordingMonitor()
        let pipeline = ResourcePipeline(retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10)), monitors: [monitor])
        let service = DownloadService<TestDownload>(pipeline: pipeline)

        let placed = try await service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")))

        #expect(try Data(contentsOf: placed) == body)
        #expect(attempts.withLock { $0 } == 2)
        #expect(scratch.contents() == ["data.bin"])
        #expect(monitor.seen.withLock { $0 }.last == .finished)
    }

    @Test(arguments: [false, true])
    func aPipelineWithAnAdapterStreamsTheFirstAttemptToTheFile(suspending: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(50_000)
        let headers = Locked<[String?]>([])
        let server = try LoopbackHTTPServer { request in
            headers.withLock { $0.append(request.value(forHeaderField: "X-App")) }
            return DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"")
        }
        defer { server.stop() }
        let adapter = suspending
            ? ClosureRequestAdapter { request in
                await Task.yield()
                var request = request
                request.setValue("demo", forHTTPHeaderField: "X-App")
                return request
            }
            : ClosureRequestAdapter { request in
                var request = request
                request.setValue("demo", forHTTPHeaderField: "X-App")
                return request
            }
        let pipeline = ResourcePipeline(adapters: [adapter], monitors: [ProgressRecordingMonitor()])
        let service = DownloadService<TestDownload>(pipeline: pipeline)

        let placed = try await service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")))

        #expect(try Data(contentsOf: placed) == body)
        #expect(headers.withLock { $0 } == ["demo"])
        #expect(scratch.contents() == ["data.bin"])
    }

    struct Refused: Error {}

    @Test(arguments: [false, true], ["adapter", "cancelled"])
    func aResumeThatFailsBeforeAnyAttemptRemovesOrReportsThePartialFile(keepsPartialFile: Bool, cause: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // GIVEN a download resuming a 5-byte partial file, through a pipeline whose adapter
        // throws, or in a task already cancelled
        let partial = scratch.file(".data.bin.partial")
        try Data("abcde".utf8).write(to: partial)
        let resource = TestDownload(
            url: URL(string: "https://example.com/data")!, destination: scratch.file("data.bin"),
            resumeFrom: ResumableDownload(partialFile: partial, byteCount: 5, validator: .entityTag("\"v1\""), expectedLength: 10),
            keepsPartialFile: keepsPartialFile
        )
        let session = FakeURLSession()
        let adapters: [any RequestAdapter] = cause == "adapter" ? [ClosureRequestAdapter { _ in throw Refused() }] : []
        let service = DownloadService<TestDownload>(pipeline: ResourcePipeline(session: session, adapters: adapters))

        // WHEN it is downloaded
        let result = await Task { () async -> Result<URL, ResourceError> in
            if cause == "cancelled" { withUnsafeCurrentTask { $0?.cancel() } }
            do throws(ResourceError) { return .success(try await service.fetch(resource)) } catch { return .failure(error) }
        }.value

        // THEN nothing is sent; the partial file goes with the error when kept, and is removed
        // otherwise
        #expect(session.receivedRequests.isEmpty)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        var underlying = error
        if keepsPartialFile {
            guard case .downloadInterrupted(let kept, let stopped) = error else {
                Issue.record("expected the partial file reported, got \(error)")
                return
            }
            #expect(kept == resource.resumeFrom)
            #expect(try Data(contentsOf: partial) == Data("abcde".utf8))
            #expect(scratch.contents() == [".data.bin.partial"])
            underlying = stopped
        } else {
            #expect(scratch.contents().isEmpty)
        }
        switch (cause, underlying) {
        case ("adapter", .requestAdaptationFailed(let thrown)): #expect(thrown is Refused)
        case ("cancelled", .cancelled): break
        default: Issue.record("expected the \(cause) error, got \(error)")
        }
    }
}
