// The code blocks of UploadsDownloadsAndProgress.md, verbatim, so that they are compiled and run.
// `DocumentationSnippetTests` checks that each block stands here unchanged.
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Export: DownloadResourceType {
    typealias Model = URL
    let url: URL
    let destination: URL
    var expectedSHA256: SHA256Digest?
    var resumeFrom: ResumableDownload?
    var keepsPartialFile: Bool { true }
}

func download(_ export: Export, with service: DownloadService<Export>) async throws(ResourceError) -> URL {
    try await service.fetch(export)
}

func downloadResuming(_ export: Export, with service: DownloadService<Export>) async throws(ResourceError) -> URL {
    var export = export
    for _ in 0..<3 {
        do {
            return try await service.fetch(export)
        } catch .downloadInterrupted(let partial, let underlying) where !underlying.isCancelled {
            export.resumeFrom = partial
        }
    }
    return try await service.fetch(export)
}

func downloadShowingProgress(_ export: Export, with service: DownloadService<Export>) async throws(ResourceError) -> URL {
    try await service.fetch(export, progressQueue: .global()) { progress in
        if let fraction = progress.fractionCompleted {
            print("\(Int(fraction * 100))%")
        }
    }
}

func downloadFollowingProgress(_ export: Export, with service: DownloadService<Export>) async throws(ResourceError) -> URL {
    let task = service.fetchTask(export)
    for await progress in task.progress {
        print(progress.completedBytes, progress.totalBytes ?? -1)
    }
    return try await task.value
}

@Suite("UploadsDownloadsAndProgress article")
struct UploadsDownloadsAndProgressSnippets {
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("article-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theArticlesDownloadsResumeAfterACutAndReportProgress() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let served = ManagedCount()
        let server = try LoopbackHTTPServer { request in
            let head = "HTTP/1.1 200 OK\r\nETag: \"e1\"\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            guard served.next() > 1 else { return .script([.write(Data(head.utf8) + body.prefix(50_000)), .close]) }
            guard request.value(forHeaderField: "Range") == "bytes=50000-", request.value(forHeaderField: "If-Range") == "\"e1\"" else {
                return .script([.write(Data(head.utf8) + body), .close])
            }
            let part = body.suffix(from: 50_000)
            let partial = "HTTP/1.1 206 Partial Content\r\nETag: \"e1\"\r\nContent-Range: bytes 50000-199999/200000\r\nContent-Length: \(part.count)\r\nConnection: close\r\n\r\n"
            return .script([.write(Data(partial.utf8) + part), .close])
        }
        defer { server.stop() }
        let service = DownloadService<Export>()
        let url = server.baseURL.appendingPathComponent("export")
        let expected = try #require(SHA256Digest(hex: sha256Hex(body)))

        let resumed = try await downloadResuming(Export(url: url, destination: directory.appendingPathComponent("a.bin"), expectedSHA256: expected), with: service)
        #expect(try Data(contentsOf: resumed) == body)
        #expect(served.value == 2)

        let plain = try await download(Export(url: url, destination: directory.appendingPathComponent("b.bin")), with: service)
        let shown = try await downloadShowingProgress(Export(url: url, destination: directory.appendingPathComponent("c.bin")), with: service)
        let followed = try await downloadFollowingProgress(Export(url: url, destination: directory.appendingPathComponent("d.bin")), with: service)
        for file in [plain, shown, followed] { #expect(try Data(contentsOf: file) == body) }
    }

    @Test func theArticlesFakeSessionHandsTheBodyOverInPieces() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Content-Length": "4096"], body: Data(count: 4096)).inPieces(4))
        let service = DownloadService<Export>(session: session)

        let task = service.fetchTask(Export(url: URL(string: "https://example.com/export")!, destination: directory.appendingPathComponent("e.bin")))
        var counts: [Int64] = []
        for await progress in task.progress { counts.append(progress.completedBytes) }
        _ = try await task.value
        #expect(counts == [0, 1024, 2048, 3072, 4096])
    }

    @Test func theArticlesCutConnectionIsResumed() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let export = Export(url: URL(string: "https://example.com/export")!, destination: directory.appendingPathComponent("f.bin"))

        let body = Data(count: 4096)
        let session = FakeURLSession()
        session.stub(.any, with: [
            .status(200, headers: ["ETag": "\"v1\"", "Content-Length": "4096"], body: body).cut(afterBytes: 1024),
            .status(206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 1024-4095/4096"], body: body.dropFirst(1024)),
        ])
        let file = try await downloadResuming(export, with: DownloadService<Export>(session: session))

        #expect(try Data(contentsOf: file) == body)
        #expect(session.receivedRequests.map { $0.value(forHTTPHeaderField: "Range") } == [nil, "bytes=1024-"])
    }

    /// The hexadecimal SHA-256 of `data`, by the library's own digest.
    func sha256Hex(_ data: Data) -> String { SHA256Digest(of: data).hex }
}

/// A counter the loopback server's handler bumps.
final class ManagedCount: @unchecked Sendable {
    // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0

    func next() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}
