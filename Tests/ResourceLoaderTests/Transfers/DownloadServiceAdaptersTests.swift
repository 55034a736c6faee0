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
}
