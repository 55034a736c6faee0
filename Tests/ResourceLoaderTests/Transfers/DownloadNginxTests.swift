import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Downloads against nginx's range handling on 127.0.0.1")
struct DownloadNginxTests {
    /// nginx serving one file, or `nil` (skipped) where nginx is absent; under `CI=true` its
    /// absence fails the test.
    static func serving(_ body: Data) async throws -> NginxServer? {
        guard let executable = NginxServer.executable else {
            try #require(ProcessInfo.processInfo.environment["CI"] != "true", "nginx is needed under CI=true (.ci/run installs it)")
            print("skipped: nginx is not installed")
            return nil
        }
        let server = try await NginxServer.start(executable: executable)
        try body.write(to: server.root.appendingPathComponent("export.bin"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: server.root.appendingPathComponent("export.bin").path)
        return server
    }

    /// The entity tag nginx gives the file.
    static func entityTag(of url: URL) async throws -> String {
        var request = URLRequest(url: url)
        request.httpMethod = "HEAD"
        let head = try await withCheckedThrowingContinuation { continuation in
            let collector = ResponseCollector(maximumBytes: 1024, ignoresDeclaredLength: true) { answer in
                continuation.resume(with: answer.map(\.1))
            }
            _ = URLSessionTransport.shared.startTransfer(request, options: TransferOptions(), receiver: collector)
        }
        return try #require(head.value(forHTTPHeaderField: "ETag"))
    }

    @Test func aPartialFileResumesWith206AndAStaleOneRestartsWith200() async throws {
        let body = DownloadFixtures.body(1_500_000)
        guard let nginx = try await Self.serving(body) else { return }
        defer { nginx.stop() }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.baseURL.appendingPathComponent("export.bin")
        let etag = try await Self.entityTag(of: url)
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

        // The current version: nginx answers 206 from byte 600,000, appended.
        let partial = scratch.file(".fresh.partial")
        try body.prefix(600_000).write(to: partial)
        var resource = TestDownload(url: url, destination: scratch.file("fresh.bin"), expectedSHA256: SHA256Digest(of: body))
        resource.resumeFrom = ResumableDownload(partialFile: partial, byteCount: 600_000, validator: .entityTag(etag))
        #expect(try Data(contentsOf: try await service.fetch(resource)) == body)

        // Another version's bytes: If-Range fails, nginx answers 200, the file starts over.
        let stale = scratch.file(".stale.partial")
        try DownloadFixtures.body(600_000, seed: 42).write(to: stale)
        resource = TestDownload(url: url, destination: scratch.file("stale.bin"), expectedSHA256: SHA256Digest(of: body))
        resource.resumeFrom = ResumableDownload(partialFile: stale, byteCount: 600_000, validator: .entityTag("\"0-0\""))
        #expect(try Data(contentsOf: try await service.fetch(resource)) == body)

        #expect(scratch.contents() == ["fresh.bin", "stale.bin"])
    }

    @Test func aWholePartialFileGets416AndIsPlacedAndALongerOneIsRefused() async throws {
        let body = DownloadFixtures.body(200_000)
        guard let nginx = try await Self.serving(body) else { return }
        defer { nginx.stop() }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.baseURL.appendingPathComponent("export.bin")
        let etag = try await Self.entityTag(of: url)
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

        let whole = scratch.file(".whole.partial")
        try body.write(to: whole)
        var resource = TestDownload(url: url, destination: scratch.file("whole.bin"))
        resource.resumeFrom = ResumableDownload(partialFile: whole, byteCount: 200_000, validator: .entityTag(etag))
        #expect(try Data(contentsOf: try await service.fetch(resource)) == body)

        let longer = scratch.file(".longer.partial")
        try DownloadFixtures.body(250_000).write(to: longer)
        resource = TestDownload(url: url, destination: scratch.file("longer.bin"))
        resource.resumeFrom = ResumableDownload(partialFile: longer, byteCount: 250_000, validator: .entityTag(etag))
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        guard case .resumeRefused(.rangeNotSatisfiable(let length)) = error else {
            Issue.record("expected resumeRefused(rangeNotSatisfiable), got \(String(describing: error))")
            return
        }
        #expect(length == 200_000)
        #expect(scratch.contents() == ["whole.bin"])
    }
}
