import AsyncHTTPClient
import Foundation
import NIOCore
import ResourceLoader
import ResourceLoaderAsyncHTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Downloads: one large body from nginx to a file on tmpfs

/// The download the benchmark makes: the file replaced on every run.
struct BenchDownload: DownloadResourceType {
    typealias Model = URL
    let url: URL
    let destination: URL
    var overwritePolicy: DownloadOverwritePolicy { .replace }
    var timeoutInterval: TimeInterval? { 120 }
}

/// One way of moving a large body from nginx into a file.
enum DownloadContender: String, CaseIterable {
    case asyncHTTPClientTransport = "DownloadService over AsyncHTTPClientTransport"
    case curl = "curl -o"
    case fileDownloadDelegate = "AsyncHTTPClient FileDownloadDelegate"
    case urlSessionTransport = "DownloadService over URLSessionTransport"
    case rawURLSession = "raw URLSession data task writing to a FileHandle"

    var key: String {
        switch self {
        case .asyncHTTPClientTransport: "download-asynchttpclienttransport"
        case .curl: "curl"
        case .fileDownloadDelegate: "filedownloaddelegate"
        case .urlSessionTransport: "download-urlsessiontransport"
        case .rawURLSession: "raw-urlsession-file"
        }
    }

    /// Moves the body at `url` into the file at `path`; returns the file's size.
    func download(_ url: URL, to path: String) throws -> Int64 {
        try? FileManager.default.removeItem(atPath: path)
        let destination = URL(fileURLWithPath: path)
        switch self {
        case .asyncHTTPClientTransport, .urlSessionTransport:
            let transport: any HTTPTransport = self == .urlSessionTransport ? URLSessionTransport() : AsyncHTTPClientTransport()
            let service = DownloadService<BenchDownload>(session: transport, options: TransferOptions(deadline: nil))
            _ = try blocking { try await service.fetch(BenchDownload(url: url, destination: destination)) }
            withExtendedLifetime(transport) {}
        case .curl:
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "-o", path, url.absoluteString]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw HarnessError("curl exited with \(process.terminationStatus)") }
        case .fileDownloadDelegate:
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let request = try HTTPClient.Request(url: url)
            let delegate = try FileDownloadDelegate(path: path)
            _ = try client.execute(request: request, delegate: delegate).wait()
            try client.syncShutdown()
        case .rawURLSession:
            guard FileManager.default.createFile(atPath: path, contents: nil) else { throw HarnessError("cannot create \(path)") }
            let handle = try FileHandle(forWritingTo: destination)
            let done = DispatchSemaphore(value: 0)
            let delegate = RawFileSessionDelegate(handle: handle) { done.signal() }
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            var request = URLRequest(url: url)
            request.timeoutInterval = 120
            session.dataTask(with: request).resume()
            done.wait()
            session.finishTasksAndInvalidate()
            try handle.synchronize()
            try handle.close()
            if let error = delegate.error { throw HarnessError("raw URLSession: \(error)") }
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }
}

/// A bare `URLSession` data delegate that writes each piece to a file.
final class RawFileSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // The session calls it one call at a time; the parent reads `error` after the end.
    let handle: FileHandle
    let end: () -> Void
    var error: (any Error)?

    init(handle: FileHandle, end: @escaping () -> Void) {
        self.handle = handle
        self.end = end
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        do {
            try handle.write(contentsOf: data)
        } catch {
            self.error = error
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if self.error == nil { self.error = error }
        end()
    }
}

/// `--child download CONTENDER URL PATH`: one download in a process of its own, so that its peak
/// resident memory is its own. Prints a ``StreamingReport``.
func runDownloadChild(_ key: String, url: String, path: String) throws {
    guard let contender = DownloadContender.allCases.first(where: { $0.key == key }), let url = URL(string: url) else {
        throw HarnessError("usage: --child download CONTENDER URL PATH")
    }
    // A download of the one-byte `small.bin` first, so that the peak grows by what the large
    // download holds, not by the client's libraries and threads starting.
    _ = try contender.download(url.deletingLastPathComponent().appendingPathComponent("small.bin"), to: path + ".warm-up")
    try? FileManager.default.removeItem(atPath: path + ".warm-up")
    resetPeakResident()
    let baseline = peakResidentBytes() ?? 0
    let start = now()
    let bytes = try contender.download(url, to: path)
    let seconds = Double(now() - start) / 1e9
    let report = StreamingReport(seconds: seconds, bytes: bytes, peakGrowthBytes: (peakResidentBytes() ?? 0) - baseline)
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

/// The downloads group: a body of 1 GiB (128 MiB with `--quick`) from nginx on 127.0.0.1 to a
/// file on tmpfs (`/dev/shm`), each download in a child process, the contenders interleaved,
/// three rounds, the median of each; a 100 MiB download for the memory comparison; then SHA-256
/// of the same size of file, ours against `sha256sum`.
func runDownloads(_ recorder: Recorder, quick: Bool) throws {
    guard let nginx = NginxServer.locateOrInstall() else { throw HarnessError("downloads: nginx is not available") }
    let size = quick ? 128 << 20 : 1 << 30
    let small = 100 << 20
    let tmpfs = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path
    let directory = URL(fileURLWithPath: tmpfs).appendingPathComponent("resourceloader-bench-download-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try NginxServer(binary: nginx, files: ["small.bin": Data([0])])
    defer { server.stop() }
    // nginx serves the bodies from sparse files, which cost no disk.
    for (name, length) in [("big.bin", size), ("hundred.bin", small)] {
        let file = server.directory.appendingPathComponent("www/\(name)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw HarnessError("downloads: cannot create \(name)") }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
        chmod(file.path, 0o644)
    }
    let target = directory.appendingPathComponent("download.bin").path
    func child(_ contender: DownloadContender, _ name: String, _ expected: Int) throws -> StreamingReport {
        let output = try runChild(["--child", "download", contender.key, "http://127.0.0.1:\(server.port)/\(name)", target])
        try? FileManager.default.removeItem(atPath: target)
        guard let line = output.split(separator: "\n").last else { throw HarnessError("downloads: no report") }
        let report = try JSONDecoder().decode(StreamingReport.self, from: Data(line.utf8))
        guard report.bytes == Int64(expected) else { throw HarnessError("downloads: \(contender.rawValue) wrote \(report.bytes) bytes of \(expected)") }
        return report
    }
    var reports: [DownloadContender: [StreamingReport]] = [:]
    for round in 1...3 {
        for contender in DownloadContender.allCases {
            log("downloads: round \(round), \(contender.rawValue), \(size >> 20) MiB")
            reports[contender, default: []].append(try child(contender, "big.bin", size))
        }
    }
    var throughput: [DownloadContender: Double] = [:]
    var growth: [DownloadContender: Double] = [:]
    for contender in DownloadContender.allCases {
        let runs = reports[contender] ?? []
        throughput[contender] = median(runs.map { Double($0.bytes) / megabyte / $0.seconds })
        growth[contender] = median(runs.map { Double($0.peakGrowthBytes) / Double(1 << 20) })
        var measurement = Measurement(group: "downloads", scenario: "\(size >> 20) MiB body to a file on tmpfs", contender: contender.rawValue)
        measurement.megabytesPerSecond = throughput[contender]
        measurement.peakAboveInputMegabytes = growth[contender].map { $0 * Double(1 << 20) / megabyte }
        recorder.measurements.append(measurement)
    }
    let comparisons: [(DownloadContender, DownloadContender, Double)] = [
        (.asyncHTTPClientTransport, .curl, 0.75),
        (.asyncHTTPClientTransport, .fileDownloadDelegate, 0.9),
        (.urlSessionTransport, .rawURLSession, 0.9),
    ]
    for (ours, baseline, bound) in comparisons {
        guard let mine = throughput[ours], let theirs = throughput[baseline] else { continue }
        recorder.target(
            "downloads.\(ours.key)_vs_\(baseline.key)", ratio: mine / theirs, atLeast: bound,
            detail: String(format: "%.0f vs %.0f MB/s, median of 3 interleaved child runs, %d MiB to tmpfs", mine, theirs, size >> 20))
    }
    for ours in [DownloadContender.asyncHTTPClientTransport, .urlSessionTransport] {
        log("downloads: \(ours.rawValue), 100 MiB, for memory")
        let hundred = median(try (1...3).map { _ in Double(try child(ours, "hundred.bin", small).peakGrowthBytes) / Double(1 << 20) })
        let big = growth[ours] ?? 0
        recorder.target(
            "downloads.\(ours.key)_peak_growth_mib", ratio: big, atMost: 16,
            detail: String(format: "peak RSS growth of the child over a %d MiB download: %.1f MiB", size >> 20, big))
        recorder.target(
            "downloads.\(ours.key)_growth_100mib_to_full_mib", ratio: abs(big - hundred), atMost: 4,
            detail: String(format: "peak RSS growth %.1f MiB at 100 MiB, %.1f MiB at %d MiB", hundred, big, size >> 20))
    }
    try runSHA256(recorder, size: size, directory: directory)
}

/// SHA-256 of one file on tmpfs: ``SHA256Digest/init(ofFileAt:)`` against `sha256sum`, three
/// interleaved rounds, the median of each. The file holds varied bytes, not zeros.
func runSHA256(_ recorder: Recorder, size: Int, directory: URL) throws {
    let file = directory.appendingPathComponent("hash.bin")
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw HarnessError("sha256: cannot create the file") }
    let handle = try FileHandle(forWritingTo: file)
    var block = [UInt8](repeating: 0, count: 1 << 20)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for index in 0..<(size >> 20) {
        for offset in stride(from: 0, to: block.count, by: 8) {
            state = state &* 6364136223846793005 &+ 1442695040888963407 &+ UInt64(index)
            withUnsafeBytes(of: state.littleEndian) { bytes in
                for byte in 0..<8 { block[offset + byte] = bytes[byte] }
            }
        }
        try handle.write(contentsOf: block)
    }
    try handle.close()
    var ours: [Double] = []
    var tool: [Double] = []
    var digests: Set<String> = []
    for round in 1...3 {
        log("sha256: round \(round), \(size >> 20) MiB")
        var start = now()
        digests.insert(try SHA256Digest(ofFileAt: file).hex)
        ours.append(Double(size) / megabyte / (Double(now() - start) / 1e9))
        start = now()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let printed = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        tool.append(Double(size) / megabyte / (Double(now() - start) / 1e9))
        digests.insert(String(String(decoding: printed, as: UTF8.self).prefix(64)))
    }
    guard digests.count == 1 else { throw HarnessError("sha256: our digest and sha256sum's differ: \(digests.sorted())") }
    for (contender, values) in [("SHA256Digest(ofFileAt:)", ours), ("sha256sum", tool)] {
        var measurement = Measurement(group: "downloads", scenario: "SHA-256 of \(size >> 20) MiB on tmpfs", contender: contender)
        measurement.megabytesPerSecond = median(values)
        recorder.measurements.append(measurement)
    }
    recorder.target(
        "downloads.sha256_vs_sha256sum", ratio: median(ours) / median(tool), atLeast: 0.5,
        detail: String(format: "%.0f vs %.0f MB/s, median of 3 interleaved rounds, %d MiB", median(ours), median(tool), size >> 20))
}
