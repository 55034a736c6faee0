import ExampleResources
import Foundation
import ResourceLoader
import ResourceLoaderTesting

/// The fixture server's transfer endpoints: an upload endpoint that parses a
/// `multipart/form-data` form back, and a generated file to download with ranges and a digest.
/// It keeps a record of every upload and download request, for the tests.
final class TransferDesk: @unchecked Sendable {
    /// The path of the generated file.
    static let samplePath = "/downloads/sample.bin"
    /// The path of its SHA-256, as a `sha256sum` line.
    static let sampleDigestPath = "/downloads/sample.bin.sha256"
    /// How many bytes of the file one write sends before the server pauses.
    static let sliceBytes = 128 * 1024

    /// The generated file, its SHA-256 and its strong entity tag.
    struct Sample {
        let bytes: Data
        let digest: SHA256Digest
        let tag: String
    }

    /// The size of the generated file.
    let sampleByteCount: Int
    /// The pause between two slices of a download, which makes a progress bar visible.
    let pace: Duration

    private struct State {
        var uploads: [UploadReceipt] = []
        var downloads: [FixtureServer.DownloadRequest] = []
        var sample: Sample?
    }

    // `lock` guards `state`.
    private let lock = NSLock()
    private var state = State()

    init(sampleBytes: Int, pace: Duration) {
        sampleByteCount = sampleBytes
        self.pace = pace
    }

    /// The generated file, made and hashed on first use, so that a server whose file is never
    /// asked for does not spend the time.
    var sample: Sample {
        lock.withLock {
            if let sample = state.sample { return sample }
            let bytes = Data((0..<sampleByteCount).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
            let digest = SHA256Digest(of: bytes)
            let sample = Sample(bytes: bytes, digest: digest, tag: "\"sample-\(digest.hex.prefix(16))\"")
            state.sample = sample
            return sample
        }
    }

    var uploads: [UploadReceipt] { lock.withLock { state.uploads } }
    var downloads: [FixtureServer.DownloadRequest] { lock.withLock { state.downloads } }

    /// The answer to `request` when it is one of the transfer endpoints, else `nil`.
    func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response? {
        switch (request.method, request.path) {
        case ("POST", "/uploads"):
            return upload(request)
        case ("GET", Self.samplePath):
            return download(request)
        case ("GET", Self.sampleDigestPath):
            return .status(200, headers: ["Content-Type": "text/plain"], body: Data("\(sample.digest.hex)  sample.bin\n".utf8))
        default:
            return nil
        }
    }

    // MARK: Upload

    private func upload(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        guard let contentType = request.value(forHeaderField: "Content-Type"),
            let boundary = MultipartFormParser.boundary(inContentType: contentType),
            let parts = MultipartFormParser.parts(of: request.body, boundary: boundary)
        else {
            return .json(#"{"error": "The body is not a multipart/form-data form"}"#, status: 400)
        }
        let chunked = request.value(forHeaderField: "Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        let receipt = UploadReceipt(
            framing: chunked ? "chunked" : "Content-Length: \(request.body.count)",
            parts: parts.map { part in
                UploadReceipt.Part(
                    name: part.name, fileName: part.fileName, contentType: part.contentType,
                    byteCount: part.body.count, sha256: SHA256Digest(of: part.body).hex)
            })
        lock.withLock { state.uploads.append(receipt) }
        let data = (try? JSONEncoder().encode(receipt)) ?? Data()
        return .status(200, headers: ["Content-Type": "application/json; charset=utf-8"], body: data)
    }

    // MARK: Download

    /// Serves the sample as RFC 9110 says: `Range: bytes=N-` or `bytes=N-M` when `If-Range` is
    /// absent or names the current tag, `416` for a range past the end, the whole file otherwise;
    /// a `cut-after` query item closes the connection after that many bytes of the body.
    private func download(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let range = request.value(forHeaderField: "Range")
        let ifRange = request.value(forHeaderField: "If-Range")
        let cutAfter = request.queryItems.first { $0.name == "cut-after" }?.value.flatMap { Int($0) }
        let sample = self.sample
        let total = sample.bytes.count
        var status = 200
        var bytes = 0..<total
        if let range, ifRange == nil || ifRange == sample.tag {
            guard let requested = Self.byteRange(range) else {
                return record(request, status: 200, sent: total, cut: false, response: full(sample, cutAfter: cutAfter))
            }
            guard requested.lowerBound < total else {
                let head = Self.fields(416, [("Content-Range", "bytes */\(total)"), ("Content-Length", "0")])
                return record(request, status: 416, sent: 0, cut: false, response: .status(416, headers: head, body: Data()))
            }
            status = 206
            bytes = requested.lowerBound..<min(requested.upperBound, total)
        }
        if status == 200 {
            return record(request, status: 200, sent: min(cutAfter ?? total, total), cut: cutAfter.map { $0 < total } ?? false, response: full(sample, cutAfter: cutAfter))
        }
        let fields = Self.fields(
            206,
            [
                ("Content-Range", "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(total)"),
                ("Content-Length", "\(bytes.count)"),
            ] + commonFields(sample))
        let sent = min(cutAfter ?? bytes.count, bytes.count)
        return record(request, status: 206, sent: sent, cut: sent < bytes.count, response: paced(sample, status: 206, fields: fields, bytes: bytes, cutAfter: cutAfter))
    }

    private func commonFields(_ sample: Sample) -> [(String, String)] {
        [
            ("ETag", sample.tag),
            ("Accept-Ranges", "bytes"),
            ("Content-Type", "application/octet-stream"),
            ("Repr-Digest", "sha-256=:\(Data(sample.digest.bytes).base64EncodedString()):"),
        ]
    }

    private func full(_ sample: Sample, cutAfter: Int?) -> LoopbackHTTPServer.Response {
        let fields = Self.fields(200, [("Content-Length", "\(sample.bytes.count)")] + commonFields(sample))
        return paced(sample, status: 200, fields: fields, bytes: 0..<sample.bytes.count, cutAfter: cutAfter)
    }

    /// The head, then `bytes` of the sample in slices with a pause between them; when
    /// `cutAfter` is less than the body, the connection is closed after that many bytes.
    private func paced(_ sample: Sample, status: Int, fields: [String: String], bytes: Range<Int>, cutAfter: Int?) -> LoopbackHTTPServer.Response {
        var text = "HTTP/1.1 \(status) \(status == 206 ? "Partial Content" : "OK")\r\n"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var steps: [LoopbackHTTPServer.Step] = [.write(Data(text.utf8))]
        let end = bytes.lowerBound + min(cutAfter ?? bytes.count, bytes.count)
        var position = bytes.lowerBound
        while position < end {
            let next = min(position + Self.sliceBytes, end)
            if position > bytes.lowerBound { steps.append(.pause(pace)) }
            steps.append(.write(sample.bytes.subdata(in: position..<next)))
            position = next
        }
        guard end == bytes.upperBound else { return .script(steps + [.close]) }
        return .script(steps, keepingConnectionOpen: true)
    }

    private func record(
        _ request: LoopbackHTTPServer.Request, status: Int, sent: Int, cut: Bool, response: LoopbackHTTPServer.Response
    ) -> LoopbackHTTPServer.Response {
        let entry = FixtureServer.DownloadRequest(
            range: request.value(forHeaderField: "Range"), ifRange: request.value(forHeaderField: "If-Range"),
            status: status, bodyBytesSent: sent, wasCut: cut)
        lock.withLock { state.downloads.append(entry) }
        return response
    }

    /// The header fields as a dictionary, for a response head.
    private static func fields(_ status: Int, _ fields: [(String, String)]) -> [String: String] {
        Dictionary(fields, uniquingKeysWith: { $1 })
    }

    /// `bytes=N-` or `bytes=N-M` as a half-open range, or `nil` for any other form.
    static func byteRange(_ value: String) -> Range<Int>? {
        guard value.hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst("bytes=".count)
        let ends = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let start = Int(ends[0]), start >= 0 else { return nil }
        if ends[1].isEmpty { return start..<Int.max }
        guard let last = Int(ends[1]), last >= start, last < Int.max else { return nil }
        return start..<(last + 1)
    }
}
