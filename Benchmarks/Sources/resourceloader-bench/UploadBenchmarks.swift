import Foundation
import ResourceLoader
import ResourceLoaderAsyncHTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Uploads: a multipart form with one large file part, to a server that discards it

/// The sink the upload group sends to: a Python server on 127.0.0.1 that reads each request body
/// (by `Content-Length`, or chunked) and discards it, answering with the byte count.
private let uploadSinkScript = """
import http.server
class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_POST(self):
        count = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\\r\\n", b"\\n", b""):
                        pass
                    break
                left = size
                while left:
                    piece = self.rfile.read(min(left, 1 << 20))
                    if not piece:
                        return
                    left -= len(piece)
                    count += len(piece)
                self.rfile.readline()
        else:
            left = int(self.headers.get("Content-Length", "0"))
            while left:
                piece = self.rfile.read(min(left, 1 << 20))
                if not piece:
                    return
                left -= len(piece)
                count += len(piece)
        body = str(count).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
print(server.server_address[1], flush=True)
server.serve_forever()
"""

/// What an upload child reports.
struct UploadReport: Codable {
    var seconds: Double
    /// The body's length, as sent.
    var bytes: Int64
    /// What the sink counted.
    var received: Int64
    var peakGrowthBytes: Int
}

/// Collects the sink's short answer.
private final class AnswerSink: TransferReceiver, @unchecked Sendable {
    // The transport calls it one call at a time; the child reads it after the end.
    var body = Data()
    var error: (any Error)?
    var onEnd: (() -> Void)?

    func transferDidSend(_ sent: Int64, of expected: Int64?) {}
    func transferDidReceive(head: ResponseHead) -> TransferDecision { .proceed }
    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        body.append(chunk)
        return .proceed
    }
    func transferDidReceive(codedByteCount: Int) {}
    func transferDidComplete(with error: (any Error)?) {
        self.error = error
        onEnd?()
    }
}

/// Answers a raw `URLSession` data task's delegate calls.
private final class RawUploadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // The session calls it on its delegate queue, one call at a time; the child reads it after
    // the end.
    var body = Data()
    var error: (any Error)?
    let done = DispatchSemaphore(value: 0)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        body.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        self.error = error
        done.signal()
    }
}

/// The raw contender: FILE as the `httpBodyStream` (an `InputStream(fileAtPath:)`) of a data task
/// on an `.ephemeral` session, the way an app streams a file with `URLSession` alone.
private func rawURLSessionUpload(_ target: URL, file: String) throws -> (seconds: Double, bytes: Int64, answer: Data) {
    guard let stream = InputStream(fileAtPath: file) else { throw HarnessError("upload: cannot open \(file)") }
    let bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? -1
    let delegate = RawUploadDelegate()
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    var request = URLRequest(url: target)
    request.httpMethod = "POST"
    request.timeoutInterval = 600
    request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
    request.httpBodyStream = stream
    let start = now()
    session.dataTask(with: request).resume()
    delegate.done.wait()
    let seconds = Double(now() - start) / 1e9
    if let error = delegate.error { throw HarnessError("upload: \(error)") }
    return (seconds, bytes, delegate.body)
}

/// `--child upload URL FILE [TRANSPORT]`: one multipart upload of FILE through
/// `URLSessionTransport` (or `AsyncHTTPClientTransport` when TRANSPORT is `asynchttpclient`), in
/// a process of its own so that its peak resident memory is its own. With TRANSPORT
/// `raw-urlsession`, FILE itself is streamed by a raw `URLSession` data task.
func runUploadChild(url: String, file: String, transport name: String = "urlsession") throws {
    guard let target = URL(string: url) else { throw HarnessError("usage: --child upload URL FILE [TRANSPORT]") }
    resetPeakResident()
    let baseline = peakResidentBytes() ?? 0
    if name == "raw-urlsession" {
        let (seconds, bytes, answer) = try rawURLSessionUpload(target, file: file)
        let report = UploadReport(
            seconds: seconds, bytes: bytes, received: Int64(String(decoding: answer, as: UTF8.self)) ?? -1,
            peakGrowthBytes: (peakResidentBytes() ?? 0) - baseline)
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        return
    }
    var form = MultipartFormData()
    try form.appendFile(at: URL(fileURLWithPath: file), named: "file", contentType: "application/octet-stream")
    let body = try RequestBody.multipart(form)
    var request = URLRequest(url: target)
    request.httpMethod = "POST"
    request.timeoutInterval = 600
    request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
    request.setBody(body)
    let done = DispatchSemaphore(value: 0)
    let sink = AnswerSink()
    sink.onEnd = { done.signal() }
    let transport: any HTTPTransport = name == "asynchttpclient" ? AsyncHTTPClientTransport() : URLSessionTransport()
    let start = now()
    let handle = transport.startTransfer(request, options: TransferOptions(deadline: nil), receiver: sink)
    done.wait()
    let seconds = Double(now() - start) / 1e9
    withExtendedLifetime((transport, handle)) {}
    if let error = sink.error { throw HarnessError("upload: \(error)") }
    let received = Int64(String(decoding: sink.body, as: UTF8.self)) ?? -1
    let report = UploadReport(
        seconds: seconds, bytes: body.length ?? -1, received: received, peakGrowthBytes: (peakResidentBytes() ?? 0) - baseline)
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

/// `curl -F` of `file` to `url`; returns the seconds it took.
private func curlUpload(_ url: String, file: String) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "-sS", "-o", "/dev/null", "-F", "file=@\(file);type=application/octet-stream", url]
    let start = now()
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw HarnessError("upload: curl exited with status \(process.terminationStatus)") }
    return Double(now() - start) / 1e9
}

/// The upload group: a multipart form whose one file part is 1 GiB (128 MiB with `--quick`) of a
/// file on tmpfs (`/dev/shm` when there is one), sent to the same Python sink by
/// `URLSessionTransport` and by `AsyncHTTPClientTransport` (each in a child process, for its peak
/// memory) and by `curl -F`, interleaved, three rounds, the median of each; then the same upload
/// of 100 MiB, for how memory grows with size.
///
/// Rows, for each TRANSPORT (`urlsessiontransport`, `asynchttpclienttransport`):
/// `upload.TRANSPORT_vs_curl` (throughput ratio, ≥ 0.75), `upload.TRANSPORT_peak_growth_mib` (peak
/// RSS growth of the child for the large upload, ≤ 16 MiB) and
/// `upload.TRANSPORT_growth_100mib_to_large_mib` (peak growth at the large size minus at 100 MiB,
/// ≤ 4 MiB). On Linux URLSessionTransport sends the form chunked (FoundationNetworking sends body
/// streams chunked); AsyncHTTPClientTransport and curl send its `Content-Length`.
/// `upload.urlsessiontransport_vs_raw-urlsession` (≥ 0.9) compares URLSessionTransport with a raw
/// `URLSession` data task streaming the same file from an `InputStream`, interleaved with the rest:
/// what FoundationNetworking itself reaches.
func runUploads(_ recorder: Recorder, quick: Bool) throws {
    let size = quick ? 128 << 20 : 1 << 30
    let small = 100 << 20
    let shm = URL(fileURLWithPath: "/dev/shm")
    let base = FileManager.default.fileExists(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
    let directory = base.appendingPathComponent("resourceloader-bench-upload-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func makeFile(_ name: String, _ bytes: Int) throws -> String {
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw HarnessError("upload: cannot create \(path)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        // Written, not sparse: tmpfs then holds the pages, as a real file would.
        let piece = Data(repeating: 0x5A, count: 1 << 20)
        for _ in 0..<(bytes >> 20) { try handle.write(contentsOf: piece) }
        try handle.close()
        return path
    }
    let largeFile = try makeFile("large.bin", size)
    let smallFile = try makeFile("small.bin", small)

    let script = directory.appendingPathComponent("sink.py")
    try Data(uploadSinkScript.utf8).write(to: script)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    server.arguments = ["python3", script.path]
    let output = Pipe()
    server.standardOutput = output
    try server.run()
    defer {
        server.terminate()
        server.waitUntilExit()
    }
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        line.append(chunk)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw HarnessError("upload: the Python sink did not start")
    }
    let url = "http://127.0.0.1:\(port)/upload"

    func child(_ file: String, transport: String = "urlsession") throws -> UploadReport {
        let output = try runChild(["--child", "upload", url, file, transport])
        guard let last = output.split(separator: "\n").last else { throw HarnessError("upload: no report") }
        let report = try JSONDecoder().decode(UploadReport.self, from: Data(last.utf8))
        guard report.received == report.bytes else { throw HarnessError("upload: the sink counted \(report.received) of \(report.bytes) bytes") }
        return report
    }
    var ours: [UploadReport] = []
    var curl: [Double] = []
    var smallRuns: [UploadReport] = []
    var client: [UploadReport] = []
    var clientSmall: [UploadReport] = []
    var raw: [UploadReport] = []
    for round in 1...3 {
        log("upload: round \(round), \(size >> 20) MiB, URLSessionTransport, raw URLSession, AsyncHTTPClientTransport and curl -F")
        ours.append(try child(largeFile))
        raw.append(try child(largeFile, transport: "raw-urlsession"))
        curl.append(try curlUpload(url, file: largeFile))
        client.append(try child(largeFile, transport: "asynchttpclient"))
        smallRuns.append(try child(smallFile))
        clientSmall.append(try child(smallFile, transport: "asynchttpclient"))
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let curlSpeed = Double(size) / megabyte / median(curl)
    var curlMeasurement = Measurement(group: "upload", scenario: "\(size >> 20) MiB multipart file part", contender: "curl -F")
    curlMeasurement.megabytesPerSecond = curlSpeed
    recorder.measurements.append(curlMeasurement)
    // What FoundationNetworking itself sends a body stream at, for URLSessionTransport's row.
    let rawSpeed = median(raw.map { Double($0.bytes) / megabyte / $0.seconds })
    var rawMeasurement = Measurement(
        group: "upload", scenario: "\(size >> 20) MiB multipart file part",
        contender: "raw URLSession data task streaming the file")
    rawMeasurement.megabytesPerSecond = rawSpeed
    rawMeasurement.peakAboveInputMegabytes = median(raw.map { Double($0.peakGrowthBytes) }) / megabyte
    recorder.measurements.append(rawMeasurement)
    let oursSpeed = median(ours.map { Double($0.bytes) / megabyte / $0.seconds })
    recorder.target(
        "upload.urlsessiontransport_vs_raw-urlsession", ratio: oursSpeed / rawSpeed, atLeast: 0.9,
        detail: String(
            format: "%.0f vs %.0f MB/s (raw URLSession %.2fx curl -F), median of 3 interleaved runs, %d MiB", oursSpeed, rawSpeed,
            rawSpeed / curlSpeed, size >> 20))
    // URLSessionTransport sends the form chunked on Linux; AsyncHTTPClientTransport with its
    // Content-Length.
    for (contender, key, large, small) in [
        ("URLSessionTransport", "urlsessiontransport", ours, smallRuns),
        ("AsyncHTTPClientTransport", "asynchttpclienttransport", client, clientSmall),
    ] {
        let speed = median(large.map { Double($0.bytes) / megabyte / $0.seconds })
        let growth = median(large.map { Double($0.peakGrowthBytes) / Double(1 << 20) })
        let smallGrowth = median(small.map { Double($0.peakGrowthBytes) / Double(1 << 20) })
        var measurement = Measurement(group: "upload", scenario: "\(size >> 20) MiB multipart file part", contender: contender)
        measurement.megabytesPerSecond = speed
        measurement.peakAboveInputMegabytes = growth * Double(1 << 20) / megabyte
        recorder.measurements.append(measurement)
        recorder.target(
            "upload.\(key)_vs_curl", ratio: speed / curlSpeed, atLeast: 0.75,
            detail: String(format: "%.0f vs %.0f MB/s, median of 3 interleaved runs, %d MiB file part on tmpfs", speed, curlSpeed, size >> 20))
        recorder.target(
            "upload.\(key)_peak_growth_mib", ratio: growth, atMost: 16,
            detail: String(format: "peak RSS growth of the child over a %d MiB upload: %.1f MiB", size >> 20, growth))
        recorder.target(
            "upload.\(key)_growth_100mib_to_large_mib", ratio: abs(growth - smallGrowth), atMost: 4,
            detail: String(format: "peak RSS growth %.1f MiB at %d MiB, %.1f MiB at 100 MiB", growth, size >> 20, smallGrowth))
    }
}
