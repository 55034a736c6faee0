import AsyncHTTPClient
import Foundation
import NIOCore
import ResourceLoader
import ResourceLoaderAsyncHTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Streaming: one large body through a transport into a counting sink

/// One way of moving a large body from nginx into a sink that only counts its bytes.
enum StreamingContender: String, CaseIterable {
    case urlSessionTransport = "URLSessionTransport → TransferReceiver"
    case rawURLSession = "raw URLSession data task delegate"
    case asyncHTTPClientTransport = "AsyncHTTPClientTransport → TransferReceiver"
    case rawAsyncHTTPClient = "raw AsyncHTTPClient response delegate"

    var key: String {
        switch self {
        case .urlSessionTransport: "urlsessiontransport"
        case .rawURLSession: "raw-urlsession"
        case .asyncHTTPClientTransport: "asynchttpclienttransport"
        case .rawAsyncHTTPClient: "raw-asynchttpclient"
        }
    }

    /// The raw client each of ours is compared with.
    var baseline: StreamingContender? {
        switch self {
        case .urlSessionTransport: .rawURLSession
        case .asyncHTTPClientTransport: .rawAsyncHTTPClient
        case .rawURLSession, .rawAsyncHTTPClient: nil
        }
    }

    /// Moves the body at `url` into a counting sink; returns how many bytes arrived.
    func transfer(_ url: URL) throws -> Int64 {
        let done = DispatchSemaphore(value: 0)
        let counted = CountingSink()
        switch self {
        case .urlSessionTransport, .asyncHTTPClientTransport:
            let transport: any HTTPTransport = self == .urlSessionTransport ? URLSessionTransport() : AsyncHTTPClientTransport()
            counted.onEnd = { done.signal() }
            var request = URLRequest(url: url)
            request.timeoutInterval = 120
            _ = transport.startTransfer(request, options: TransferOptions(deadline: nil), receiver: counted)
            done.wait()
            withExtendedLifetime(transport) {}
        case .rawURLSession:
            let delegate = RawSessionDelegate(sink: counted) { done.signal() }
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            var request = URLRequest(url: url)
            request.timeoutInterval = 120
            session.dataTask(with: request).resume()
            done.wait()
            session.finishTasksAndInvalidate()
        case .rawAsyncHTTPClient:
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let request = try HTTPClient.Request(url: url)
            let delegate = RawClientDelegate(sink: counted)
            _ = try client.execute(request: request, delegate: delegate).wait()
            try client.syncShutdown()
        }
        if let error = counted.error { throw HarnessError("\(rawValue): \(error)") }
        return counted.bytes
    }
}

/// Counts the bytes of a body, whichever client hands them over.
final class CountingSink: TransferReceiver, @unchecked Sendable {
    // Each client calls it one call at a time; the parent reads it after the end.
    var bytes: Int64 = 0
    var error: (any Error)?
    var onEnd: (() -> Void)?

    func transferDidSend(_ sent: Int64, of expected: Int64?) {}
    func transferDidReceive(head: ResponseHead) -> TransferDecision { .proceed }
    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        bytes += Int64(chunk.count)
        return .proceed
    }
    func transferDidReceive(codedByteCount: Int) {}
    func transferDidComplete(with error: (any Error)?) {
        self.error = error
        onEnd?()
    }
}

/// A bare `URLSession` data delegate that counts bytes.
final class RawSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let sink: CountingSink
    let end: () -> Void

    init(sink: CountingSink, end: @escaping () -> Void) {
        self.sink = sink
        self.end = end
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        sink.bytes += Int64(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        sink.error = error
        end()
    }
}

/// A bare AsyncHTTPClient delegate that counts bytes.
final class RawClientDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void
    let sink: CountingSink

    init(sink: CountingSink) {
        self.sink = sink
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        sink.bytes += Int64(buffer.readableBytes)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}

/// What a streaming child reports.
struct StreamingReport: Codable {
    var seconds: Double
    var bytes: Int64
    var peakGrowthBytes: Int
}

/// `--child streaming CONTENDER URL`: one transfer in a process of its own, so that its peak
/// resident memory is its own. A transfer of the one-byte `small.bin` beside `URL` comes first,
/// so that the peak grows by what the large transfer holds, not by the client's libraries and
/// threads starting.
func runStreamingChild(_ key: String, url: String) throws {
    guard let contender = StreamingContender.allCases.first(where: { $0.key == key }), let url = URL(string: url) else {
        throw HarnessError("usage: --child streaming CONTENDER URL")
    }
    _ = try contender.transfer(url.deletingLastPathComponent().appendingPathComponent("small.bin"))
    resetPeakResident()
    let baseline = peakResidentBytes() ?? 0
    let start = now()
    let bytes = try contender.transfer(url)
    let seconds = Double(now() - start) / 1e9
    let report = StreamingReport(seconds: seconds, bytes: bytes, peakGrowthBytes: (peakResidentBytes() ?? 0) - baseline)
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

/// The streaming group: a body of 1 GiB (128 MiB with `--quick`) from nginx, through each transport
/// into a counting sink and through the raw client it wraps, each transfer in a child process.
/// Seven rounds (three with `--quick`), the contenders in the other order every other round; a
/// speed target is the median of the rounds' ratios of a transport to its raw client, the
/// throughputs and peaks the median of each contender's rounds.
func runStreaming(_ recorder: Recorder, quick: Bool) throws {
    guard let nginx = NginxServer.locateOrInstall() else { throw HarnessError("streaming: nginx is not available") }
    let size = quick ? 128 << 20 : 1 << 30
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resourceloader-bench-stream-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    // nginx serves the body from a file; a sparse one costs no disk.
    let server = try NginxServer(binary: nginx, files: ["small.bin": Data([0])])
    defer { server.stop() }
    let big = server.directory.appendingPathComponent("www/big.bin")
    guard FileManager.default.createFile(atPath: big.path, contents: nil) else { throw HarnessError("streaming: cannot create the body file") }
    let handle = try FileHandle(forWritingTo: big)
    try handle.truncate(atOffset: UInt64(size))
    try handle.close()
    chmod(big.path, 0o644)
    let url = "http://127.0.0.1:\(server.port)/big.bin"
    var reports: [StreamingContender: [StreamingReport]] = [:]
    let rounds = quick ? 3 : 7
    for round in 1...rounds {
        for contender in round.isMultiple(of: 2) ? StreamingContender.allCases.reversed() : StreamingContender.allCases {
            log("streaming: round \(round), \(contender.rawValue), \(size >> 20) MiB")
            let output = try runChild(["--child", "streaming", contender.key, url])
            guard let line = output.split(separator: "\n").last else { throw HarnessError("streaming: no report") }
            let report = try JSONDecoder().decode(StreamingReport.self, from: Data(line.utf8))
            guard report.bytes == Int64(size) else { throw HarnessError("streaming: \(contender.rawValue) moved \(report.bytes) bytes of \(size)") }
            reports[contender, default: []].append(report)
        }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    var throughput: [StreamingContender: Double] = [:]
    var growth: [StreamingContender: Double] = [:]
    for contender in StreamingContender.allCases {
        let runs = reports[contender] ?? []
        throughput[contender] = median(runs.map { Double($0.bytes) / megabyte / $0.seconds })
        growth[contender] = median(runs.map { Double($0.peakGrowthBytes) / Double(1 << 20) })
        var measurement = Measurement(group: "streaming", scenario: "\(size >> 20) MiB body into a counting sink", contender: contender.rawValue)
        measurement.megabytesPerSecond = throughput[contender]
        measurement.peakAboveInputMegabytes = growth[contender].map { $0 * Double(1 << 20) / megabyte }
        recorder.measurements.append(measurement)
    }
    for contender in StreamingContender.allCases {
        guard let baseline = contender.baseline, let ours = throughput[contender], let raw = throughput[baseline],
            let oursRuns = reports[contender], let rawRuns = reports[baseline]
        else { continue }
        let ratios = zip(oursRuns, rawRuns).map { pair in pair.1.seconds / pair.0.seconds }.sorted()
        recorder.target(
            "streaming.\(contender.key)_vs_\(baseline.key)", ratio: median(ratios), atLeast: 0.9,
            detail: String(format: "%.0f vs %.0f MB/s, median of %d rounds' ratios of interleaved child runs, %d MiB (per-round %.2f–%.2f)",
                           ours, raw, ratios.count, size >> 20, ratios.first ?? 0, ratios.last ?? 0))
        recorder.target(
            "streaming.\(contender.key)_peak_growth_mib", ratio: growth[contender], atMost: 16,
            detail: String(format: "peak RSS growth of the child over the transfer: %.1f MiB (raw client: %.1f MiB)",
                           growth[contender] ?? 0, growth[baseline] ?? 0))
    }
}
