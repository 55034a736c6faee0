import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records the events a pipeline's monitors see, in order.
final class ProgressRecordingMonitor: FetchMonitor {
    enum Seen: Equatable {
        case progress(TransferProgress)
        case finished
    }

    let seen = Locked<[Seen]>([])

    func transferProgressed(_ event: FetchEvent.TransferProgressed) {
        seen.withLock { $0.append(.progress(event.progress)) }
    }

    func fetchFinished(_ event: FetchEvent.Finished) {
        seen.withLock { $0.append(.finished) }
    }
}

/// A POST of `payload` whose model is the byte count the server answers with.
struct CountedUpload: NetworkResourceType, DataResourceType {
    let url: URL
    let payload: Data
    var httpMethod: HTTPMethod { .post }
    var body: RequestBody? { .data(payload, contentType: "application/octet-stream") }
    func model(from data: Data) throws -> Int { Int(String(decoding: data, as: UTF8.self)) ?? -1 }
}

/// A request whose answer has no body, whatever its `Content-Length` says: a `HEAD`, or a `GET`
/// answered `204` or `304`. The model is the body's byte count.
struct BodilessAnswer: NetworkResourceType, DataResourceType {
    let url: URL
    var httpMethod: HTTPMethod
    func model(from data: Data) throws -> Int { data.count }
}

/// A `GET` whose model is the body's byte count.
struct CountedBody: NetworkResourceType, DataResourceType {
    let url: URL
    func model(from data: Data) throws -> Int { data.count }
}

@Suite("Progress: throttled, in order, the final value before the outcome")
struct TransferProgressTests {
    @Test func aDownloadsProgressRunsOnTheQueueAndEndsWithTheWholeBodyBeforeTheModel() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(2_000_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let queue = DispatchQueue(label: "progress")
        let seen = Locked<[TransferProgress]>([])
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

        let started = ContinuousClock.now
        _ = try await service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")), progressQueue: queue) { progress in
            dispatchPrecondition(condition: .onQueue(queue))
            seen.withLock { $0.append(progress) }
        }

        let values = seen.withLock { $0 }
        #expect(values.last == TransferProgress(direction: .download, completedBytes: 2_000_000, totalBytes: 2_000_000))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
        // Throttled: at most one value per 1% of the body, plus one per 100 ms the run took.
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        let tenthsOfSeconds = Int(seconds) * 10 + Int(attoseconds / 100_000_000_000_000_000)
        #expect(values.count <= 102 + tenthsOfSeconds + 1)
    }

    @Test func aTasksProgressSequenceEndsWithTheFinalValueAndMonitorsSeeItBeforeTheEnd() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = DownloadFixtures.body(500_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let monitor = ProgressRecordingMonitor()
        let service = DownloadService<TestDownload>(pipeline: ResourcePipeline(monitors: [monitor]))

        let task = service.fetchTask(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: scratch.file("data.bin")))
        var values: [TransferProgress] = []
        for await progress in task.progress { values.append(progress) }
        let placed = try await task.value

        #expect(try Data(contentsOf: placed) == body)
        #expect(values.last?.completedBytes == 500_000)
        #expect(values.last?.totalBytes == 500_000)
        let seen = monitor.seen.withLock { $0 }
        #expect(seen.last == .finished)
        #expect(seen.dropLast().last == .progress(TransferProgress(direction: .download, completedBytes: 500_000, totalBytes: 500_000)))
    }

    @Test(arguments: [("HEAD", 200), ("GET", 204), ("GET", 304)])
    func anAnswerWithoutABodyEndsAtZeroOfZero(method: String, status: Int) async throws {
        // GIVEN an answer whose Content-Length describes a body it does not carry
        let server = try LoopbackHTTPServer { _ in .status(status, headers: ["Content-Length": "1234", "ETag": "\"v1\""]) }
        defer { server.stop() }
        let service = ResourceService<BodilessAnswer>(session: URLSessionTransport.shared)
        let seen = Locked<[TransferProgress]>([])

        // WHEN it is fetched with progress
        let resource = BodilessAnswer(url: server.baseURL.appendingPathComponent("city"), httpMethod: HTTPMethod(rawValue: method)!)
        _ = try? await service.fetch(resource, progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress) }
        }

        // THEN the response's progress is complete: nothing of nothing, not 0 of 1234
        let downloads = seen.withLock { $0 }.filter { $0.direction == .download }
        #expect(downloads.last == TransferProgress(direction: .download, completedBytes: 0, totalBytes: 0))
        #expect(downloads.allSatisfy { $0.totalBytes == 0 })
    }

    @Test func aContentLengthRepeatedWithEqualValuesIsTheResponsesTotal() async throws {
        // GIVEN an answer whose Content-Length is given twice with the same value (RFC 9112
        // §6.3 lets a recipient take it as one), as a transport that joins repeated fields
        // hands it over
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Content-Length": "1000, 1000"], body: DownloadFixtures.body(1_000)).inPieces(4))
        let service = ResourceService<CountedBody>(session: session)
        let seen = Locked<[TransferProgress]>([])

        // WHEN it is fetched with progress
        let count = try await service.fetch(
            CountedBody(url: URL(string: "https://example.com/data")!), progressQueue: DispatchQueue(label: "progress")
        ) { progress in seen.withLock { $0.append(progress) } }

        // THEN every value has that length as its total
        #expect(count == 1_000)
        let downloads = seen.withLock { $0 }.filter { $0.direction == .download }
        #expect(downloads.last == TransferProgress(direction: .download, completedBytes: 1_000, totalBytes: 1_000))
        #expect(downloads.allSatisfy { $0.totalBytes == 1_000 }, "\(downloads)")
    }

    @Test func aConcurrentQueueGetsTheValuesOneAtATimeInOrderTheFinalOneLast() async throws {
        // GIVEN a body that arrives in pieces with its Content-Length, and a concurrent queue
        // whose callback takes its time over the first value (0 bytes, at the head)
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Content-Length": "1000"], body: DownloadFixtures.body(1_000)).inPieces(4))
        let service = ResourceService<CountedBody>(session: session)
        let queue = DispatchQueue(label: "progress", attributes: .concurrent)
        let running = Locked(0)
        let overlapped = Locked(false)
        let ran = Locked<[TransferProgress]>([])

        // WHEN it is fetched with progress on that queue
        let count = try await service.fetch(CountedBody(url: URL(string: "https://example.com/data")!), progressQueue: queue) { progress in
            let others = running.withLock { running in
                defer { running += 1 }
                return running
            }
            if others > 0 { overlapped.withLock { $0 = true } }
            if progress.completedBytes == 0 { Thread.sleep(forTimeInterval: 0.2) }
            ran.withLock { $0.append(progress) }
            running.withLock { $0 -= 1 }
        }

        // THEN no two calls overlapped, they ran in order, and the last to run had the final value
        #expect(count == 1_000)
        let values = ran.withLock { $0 }
        #expect(!overlapped.withLock { $0 })
        #expect(values.first?.completedBytes == 0)
        #expect(values.last == TransferProgress(direction: .download, completedBytes: 1_000, totalBytes: 1_000))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes }, "\(values)")
    }

    @Test func anUploadReportsItsRequestBodyThenTheResponse() async throws {
        let payload = DownloadFixtures.body(3_000_000)
        let server = try LoopbackHTTPServer { request in .status(200, body: Data("\(request.body.count)".utf8)) }
        defer { server.stop() }
        let service = ResourceService<CountedUpload>(session: URLSessionTransport.shared)
        let seen = Locked<[TransferProgress]>([])

        let count = try await service.fetch(CountedUpload(url: server.baseURL.appendingPathComponent("upload"), payload: payload), progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress) }
        }

        #expect(count == 3_000_000)
        let values = seen.withLock { $0 }
        let uploads = values.filter { $0.direction == .upload }
        #expect(uploads.last?.completedBytes == 3_000_000)
        #expect(uploads.allSatisfy { $0.totalBytes == 3_000_000 })
        #expect(values.last == TransferProgress(direction: .download, completedBytes: 7, totalBytes: 7))
        let firstDownload = try #require(values.firstIndex { $0.direction == .download })
        #expect(values[firstDownload...].allSatisfy { $0.direction == .download })
    }
}
