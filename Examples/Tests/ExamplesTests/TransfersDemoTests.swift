import DemoSupport
import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Text written by progress bars, kept for a test to read.
final class WrittenText: @unchecked Sendable {
    // `lock` guards `pieces`.
    private let lock = NSLock()
    private var pieces: [String] = []

    var write: @Sendable (String) -> Void {
        { [self] text in lock.withLock { pieces.append(text) } }
    }

    /// Everything written, in order.
    var all: [String] { lock.withLock { pieces } }
}

/// A folder of the temporary directory for one test.
private func scratchDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("transfers-demo-\(UUID().uuidString)", isDirectory: true)
}

/// The `transfers` demo's flow over each transport, against the embedded server.
@Suite("Transfers demo")
struct TransfersDemoTests {
    @Test(arguments: Demo.Transport.allCases)
    func uploadsIntactAndResumesTheCutDownload(transport: Demo.Transport) async throws {
        let server = try FixtureServer(downloadPace: .milliseconds(1))
        defer { server.stop() }
        let work = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let text = WrittenText()
        let reports = ReportBox()

        // The same command line as the demo's, against this test's server.
        let status = await Demo.run(usage: "transfers", arguments: ["--base-url", server.baseURL.absoluteString, "--transport", transport.rawValue]) {
            directory, arguments in
            let demo = TransferDemo(
                endpoints: directory.endpoints, transport: arguments.transport.session, workDirectory: work,
                progressBar: { ProgressBar(label: $0, redrawsInPlace: false, write: text.write) })
            let report = try await demo.run()
            reports.set(report)
            return report.description
        }
        #expect(status == 0)
        let report = try #require(reports.value)

        // The server parsed the form back and got the file intact.
        #expect(server.uploads.count == 1)
        let receipt = try #require(server.uploads.first)
        let file = try #require(receipt.part(named: "file"))
        #expect(file.fileName == "upload-sample.bin")
        #expect(file.contentType == "application/octet-stream")
        #expect(file.byteCount == 1_234_567)
        #expect(file.sha256 == (try SHA256Digest(ofFileAt: report.uploadedFile)).hex)
        #expect(receipt.part(named: "caption")?.byteCount == "Sent by the transfers demo".utf8.count)
        #expect(report.receipt == receipt)

        // The first download was cut; the second asked for the rest with Range and If-Range.
        let partial = try #require(report.interruption)
        #expect(partial.byteCount > 0 && partial.byteCount <= Int64(TransferDemo.defaultCutAfter))
        let requests = server.downloadRequests
        #expect(requests.count == 2)
        #expect(requests.first?.range == nil && requests.first?.wasCut == true)
        #expect(requests.first?.bodyBytesSent == TransferDemo.defaultCutAfter)
        #expect(requests.last?.range == "bytes=\(partial.byteCount)-")
        #expect(requests.last?.ifRange == server.sampleTag)
        #expect(requests.last?.status == 206)

        // The placed file is the server's, byte for byte, and nothing else is left beside it.
        #expect(report.downloadedByteCount == Int64(server.sampleByteCount))
        #expect(try SHA256Digest(ofFileAt: report.downloadedFile) == server.sampleDigest)
        let left = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
        #expect(left == ["sample.bin", "upload-sample.bin"])

        // Each transfer drew its bar, line by line, up to its end.
        let lines = text.all
        #expect(lines.allSatisfy { $0.hasSuffix("\n") && !$0.contains("\r") })
        #expect(lines.contains { $0.hasPrefix("upload") && $0.contains("100%") })
        #expect(lines.contains { $0.hasPrefix("download") })
        #expect(lines.last?.hasPrefix("resume") == true && lines.last?.contains("100%") == true)
        #expect(lines.last?.hasSuffix("3.0 MiB of 3.0 MiB\n") == true)
        #expect(lines.first { $0.hasPrefix("resume") }.map { !$0.contains("  0%") } == true)
    }

    @Test func aDownloadThatIsNotCutIsPlacedWithoutResuming() async throws {
        let server = try FixtureServer(sampleByteCount: 300_000, downloadPace: .zero)
        defer { server.stop() }
        let work = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let demo = TransferDemo(
            endpoints: WorldDirectory.Endpoints(baseURL: server.baseURL), transport: Demo.Transport.urlSession.session,
            workDirectory: work, cutAfter: 1_000_000,
            progressBar: { ProgressBar(label: $0, redrawsInPlace: false, write: { _ in }) })

        let report = try await demo.run()

        #expect(report.interruption == nil)
        #expect(server.downloadRequests.map(\.status) == [200])
        #expect(try SHA256Digest(ofFileAt: report.downloadedFile) == server.sampleDigest)
    }
}

/// Holds the demo's report for the test to read after `Demo.run` returns.
final class ReportBox: @unchecked Sendable {
    // `lock` guards `report`.
    private let lock = NSLock()
    private var report: TransferDemo.Report?

    func set(_ report: TransferDemo.Report) { lock.withLock { self.report = report } }
    var value: TransferDemo.Report? { lock.withLock { report } }
}

/// The bar the demo draws: in place on a terminal, one line per tenth elsewhere.
@Suite("Progress bar")
struct ProgressBarTests {
    private func progress(_ done: Int64, of total: Int64?) -> TransferProgress {
        TransferProgress(direction: .download, completedBytes: done, totalBytes: total)
    }

    @Test func aLineShowsTheBarThePercentageAndTheBytes() {
        #expect(ProgressBar.line(label: "download", width: 10, progress: progress(1_572_864, of: 3_145_728))
            == "download [#####·····]  50% 1.5 MiB of 3.0 MiB")
        #expect(ProgressBar.line(label: "upload", width: 4, progress: progress(0, of: 2048)) == "upload [····]   0% 0 B of 2.0 KiB")
        #expect(ProgressBar.line(label: "upload", width: 4, progress: progress(2048, of: 2048)) == "upload [####] 100% 2.0 KiB of 2.0 KiB")
        #expect(ProgressBar.line(label: "download", width: 4, progress: progress(5000, of: nil)) == "download 4.9 KiB")
    }

    @Test func onATerminalTheBarIsRedrawnInPlace() {
        let text = WrittenText()
        let bar = ProgressBar(label: "x", width: 4, redrawsInPlace: true, write: text.write)
        for done in stride(from: Int64(0), through: 100, by: 25) { bar.report(progress(done, of: 100)) }
        bar.finish()

        let written = text.all
        #expect(written.count == 6)
        #expect(written.dropLast().allSatisfy { $0.hasPrefix("\r") && !$0.contains("\n") })
        #expect(written.last == "\n")
        #expect(written[4] == "\rx [####] 100% 100 B of 100 B")
    }

    @Test func elsewhereItWritesOneLinePerTenth() {
        let text = WrittenText()
        let bar = ProgressBar(label: "x", width: 4, redrawsInPlace: false, write: text.write)
        for done in Int64(0)...1000 { bar.report(progress(done, of: 1000)) }
        bar.finish()

        let written = text.all
        #expect(written.count == 11)
        #expect(written.allSatisfy { $0.hasSuffix("\n") && !$0.contains("\r") })
        #expect(written.first?.contains("  0%") == true)
        #expect(written.last?.contains("100%") == true)
    }

    @Test func withoutATotalItWritesOneLinePerMiB() {
        let text = WrittenText()
        let bar = ProgressBar(label: "x", redrawsInPlace: false, write: text.write)
        for done in stride(from: Int64(0), through: 3 * 1024 * 1024, by: 64 * 1024) { bar.report(progress(done, of: nil)) }

        #expect(text.all == ["x 0 B\n", "x 1.0 MiB\n", "x 2.0 MiB\n", "x 3.0 MiB\n"])
    }
}
