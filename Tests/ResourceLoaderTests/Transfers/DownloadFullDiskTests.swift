import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Downloads onto a full disk: a small tmpfs")
struct DownloadFullDiskTests {
    /// Runs `command` with `arguments`; returns whether it exited with status 0.
    static func run(_ command: String, _ arguments: [String]) async throws -> Bool {
        try await offTheCooperativePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }

    @Test func aDownloadLargerThanTheFileSystemFailsWithENOSPCAndLeavesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let mountPoint = scratch.file("disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let mount = ["/bin/mount", "/usr/bin/mount"].first(where: FileManager.default.isExecutableFile(atPath:))
        guard let mount, try await Self.run(mount, ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint.path]) else {
            // Mounting needs root and a system that allows it: skipped elsewhere.
            print("skipped: cannot mount a tmpfs here")
            return
        }
        let unmount = ["/bin/umount", "/usr/bin/umount"].first(where: FileManager.default.isExecutableFile(atPath:)) ?? "/bin/umount"
        let body = DownloadFixtures.body(1_000_000)
        let server = try LoopbackHTTPServer { request in DownloadFixtures.rangeResponse(for: request, body: body, etag: "\"v1\"") }
        defer { server.stop() }
        let service = DownloadService<TestDownload>(session: URLSessionTransport.shared)

        var outcome: ResourceError?
        do {
            _ = try await service.fetch(TestDownload(url: server.baseURL.appendingPathComponent("data"), destination: mountPoint.appendingPathComponent("data.bin")))
        } catch {
            outcome = error
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: mountPoint.path)) ?? ["(unreadable)"]
        let descriptors = scratch.openDescriptors()
        _ = try await Self.run(unmount, [mountPoint.path])

        guard case .fileSystem(let failure) = outcome else {
            Issue.record("expected fileSystem, got \(String(describing: outcome))")
            return
        }
        #expect(failure.posixCode == .ENOSPC)
        #expect(left.isEmpty)
        #expect(descriptors.isEmpty)
    }
}
