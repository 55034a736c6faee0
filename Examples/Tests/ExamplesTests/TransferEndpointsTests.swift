import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A form of the test's own, sent to the upload endpoint.
private struct FormUpload: NetworkResourceType, JSONDecodableResourceType {
    typealias Model = UploadReceipt
    let url: URL
    let form: MultipartFormData
    var httpMethod: HTTPMethod { .post }
    var body: RequestBody? { get throws { try .multipart(form) } }
}

/// The status, header fields and body of one plain request.
private func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data) {
    try await withCheckedThrowingContinuation { continuation in
        URLSession.shared.dataTask(with: request) { data, response, error in
            guard let response = response as? HTTPURLResponse else {
                continuation.resume(throwing: error ?? URLError(.badServerResponse))
                return
            }
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            continuation.resume(returning: (response.statusCode, headers, data ?? Data()))
        }.resume()
    }
}

/// The fixture server's upload and download endpoints, which the `transfers` demo uses.
@Suite("Fixture server transfer endpoints")
struct TransferEndpointsTests {
    @Test func hostileNamesArriveAsOneFieldEachWithTheLiteralName() async throws {
        let server = try FixtureServer(sampleByteCount: 0)
        defer { server.stop() }
        let names = ["a\"; filename=\"x.exe", "line\r\nX-Injected: 1", "emoji 📦 ü"]
        var form = MultipartFormData()
        for (index, name) in names.enumerated() { form.append("value \(index)", named: name) }
        form.append(Data([0, 1, 2, 3, 255]), named: "blob", fileName: "q\"uote.bin", contentType: "application/x-test")

        let receipt = try await ResourceService<FormUpload>().fetch(FormUpload(url: WorldDirectory.Endpoints(baseURL: server.baseURL).uploads, form: form))

        #expect(receipt.parts.map(\.name) == names + ["blob"])
        #expect(receipt.parts.prefix(3).allSatisfy { $0.fileName == nil && $0.contentType == nil })
        #expect(receipt.parts.prefix(3).map(\.byteCount) == [7, 7, 7])
        #expect(receipt.parts.last == UploadReceipt.Part(
            name: "blob", fileName: "q\"uote.bin", contentType: "application/x-test", byteCount: 5,
            sha256: SHA256Digest(of: Data([0, 1, 2, 3, 255])).hex))
        #expect(server.uploads == [receipt])
    }

    @Test func aBodyThatIsNotAFormIsRefused() async throws {
        let server = try FixtureServer(sampleByteCount: 0)
        defer { server.stop() }
        for contentType in ["text/plain", "multipart/form-data; boundary=xyz"] {
            var request = URLRequest(url: server.baseURL.appendingPathComponent("uploads"))
            request.httpMethod = "POST"
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("--xyz\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--xyz--\r\n".utf8)
            let answer = try await send(request)
            #expect(answer.status == 400, "\(contentType)")
        }
        #expect(server.uploads.isEmpty)
    }

    @Test func theSampleIsServedWithRangesATagAndADigest() async throws {
        let server = try FixtureServer(sampleByteCount: 10_000, downloadPace: .zero)
        defer { server.stop() }
        let url = WorldDirectory.Endpoints(baseURL: server.baseURL).downloads.appendingPathComponent("sample.bin")

        let whole = try await send(URLRequest(url: url))
        #expect(whole.status == 200)
        #expect(whole.body.count == 10_000)
        #expect(SHA256Digest(of: whole.body) == server.sampleDigest)
        #expect(whole.headers["etag"] == server.sampleTag)
        #expect(whole.headers["repr-digest"] == "sha-256=:\(Data(server.sampleDigest.bytes).base64EncodedString()):")

        var ranged = URLRequest(url: url)
        ranged.setValue("bytes=9000-", forHTTPHeaderField: "Range")
        ranged.setValue(server.sampleTag, forHTTPHeaderField: "If-Range")
        let rest = try await send(ranged)
        #expect(rest.status == 206)
        #expect(rest.headers["content-range"] == "bytes 9000-9999/10000")
        #expect(rest.body == whole.body.suffix(1000))

        ranged.setValue("bytes=10-19", forHTTPHeaderField: "Range")
        let middle = try await send(ranged)
        #expect(middle.status == 206)
        #expect(middle.body == whole.body.subdata(in: 10..<20))

        ranged.setValue("\"another\"", forHTTPHeaderField: "If-Range")
        let changed = try await send(ranged)
        #expect(changed.status == 200)
        #expect(changed.body == whole.body)

        ranged.setValue(nil, forHTTPHeaderField: "If-Range")
        ranged.setValue("bytes=10000-", forHTTPHeaderField: "Range")
        let past = try await send(ranged)
        #expect(past.status == 416)
        #expect(past.headers["content-range"] == "bytes */10000")

        let checksum = try await send(URLRequest(url: url.appendingPathExtension("sha256")))
        #expect(String(decoding: checksum.body, as: UTF8.self) == "\(server.sampleDigest.hex)  sample.bin\n")
        #expect(server.downloadRequests.map(\.status) == [200, 206, 206, 200, 416])
        #expect(server.downloadRequests.map(\.range) == [nil, "bytes=9000-", "bytes=10-19", "bytes=10-19", "bytes=10000-"])
    }
}
