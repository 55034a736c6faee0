import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download resource whose every requirement a test sets.
struct TestDownload: DownloadResourceType {
    typealias Model = URL
    var url: URL
    var destination: URL
    var httpMethod: HTTPMethod = .get
    var overwritePolicy: DownloadOverwritePolicy = .failIfExists
    var expectedSHA256: SHA256Digest?
    var resumeFrom: ResumableDownload?
    var keepsPartialFile = false
}

/// A directory of its own for one test, removed by ``remove()``.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("downloads-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names in the directory and below it, sorted.
    func contents() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: url.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.sorted()
    }

    /// The descriptors this process holds open on files in the directory: none once a download
    /// is over. Empty where `/proc/self/fd` does not exist.
    func openDescriptors() -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)") else { return nil }
            return target.hasPrefix(url.path) ? target : nil
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Bodies and the server that answers for them as RFC 9110 says: `Range`, `If-Range`, `206`,
/// `416`, with an entity tag.
enum DownloadFixtures {
    /// `count` bytes that differ from byte to byte.
    static func body(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) })
    }

    static func head(_ status: Int, _ fields: [(String, String)]) -> Data {
        var text = "HTTP/1.1 \(status) \(status == 206 ? "Partial Content" : status == 416 ? "Range Not Satisfiable" : "OK")\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Data(text.utf8)
    }

    /// A response serving `body` with `etag`, honouring `Range: bytes=N-` when `If-Range` is
    /// absent or equal to `etag`, as a server that implements ranges does.
    static func rangeResponse(
        for request: LoopbackHTTPServer.Request,
        body: Data,
        etag: String,
        extraFields: [(String, String)] = []
    ) -> LoopbackHTTPServer.Response {
        let ifRange = request.value(forHeaderField: "If-Range")
        if let range = request.value(forHeaderField: "Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst("bytes=".count).dropLast()), ifRange == nil || ifRange == etag
        {
            guard start < body.count else {
                return .script([.write(head(416, [("Content-Range", "bytes */\(body.count)"), ("Content-Length", "0")])), .close])
            }
            let part = body.subdata(in: start..<body.count)
            let fields = [("ETag", etag), ("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)"), ("Content-Length", "\(part.count)")] + extraFields
            return .script([.write(head(206, fields) + part), .close])
        }
        return .script([.write(head(200, [("ETag", etag), ("Content-Length", "\(body.count)")] + extraFields) + body), .close])
    }

    /// The base64 `sha-256` member of a `Content-Digest` or `Repr-Digest` for `data`.
    static func digestField(_ data: Data) -> String {
        "sha-256=:\(Data(SHA256.hash(data)).base64EncodedString()):"
    }
}
