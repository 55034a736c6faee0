// The code blocks of UploadingFiles.md, verbatim, so that they compile; keep the two in step.

import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Upload a file

struct UploadExport: NetworkResourceType, DataResourceType {
    typealias Model = Data
    let file: URL
    var url: URL { URL(string: "https://api.example.com/exports")! }
    var httpMethod: HTTPMethod { .put }
    var body: RequestBody? {
        get throws { try .file(file, contentType: "application/zip") }
    }
    func model(from data: Data) throws -> Data { data }
}

// MARK: - Send a form

struct UploadPhoto: NetworkResourceType, DataResourceType {
    typealias Model = Data
    let photo: URL
    let caption: String
    var url: URL { URL(string: "https://api.example.com/photos")! }
    var httpMethod: HTTPMethod { .post }
    var body: RequestBody? {
        get throws {
            var form = MultipartFormData()
            form.append(caption, named: "caption")
            try form.appendFile(at: photo, named: "photo", contentType: "image/jpeg")
            return try .multipart(form)
        }
    }
    func model(from data: Data) throws -> Data { data }
}

// MARK: - Stream bytes as they are produced

struct UploadingFilesSnippets {
    func streamedBody(of chunks: AsyncStream<Data>, length: Int64?) -> RequestBody {
        .stream(RequestBodyStream(chunks, length: length), contentType: "application/octet-stream")
    }
}

/// The article's resources, sent through `FakeURLSession`, which records what they sent.
@Suite("Uploading files article")
struct UploadingFilesSnippetTests {
    @Test func theArticlesResourcesSendTheirFilesAndForms() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("snippet-\(UUID().uuidString).jpg")
        try Data("jpeg bytes".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))

        _ = try await ResourceService<UploadExport>(session: session).fetch(UploadExport(file: file))
        _ = try await ResourceService<UploadPhoto>(session: session).fetch(UploadPhoto(photo: file, caption: "Lisbon"))

        let sent = session.receivedRequests
        #expect(sent.first?.httpBody == Data("jpeg bytes".utf8))
        #expect(sent.first?.value(forHTTPHeaderField: "Content-Type") == "application/zip")
        let form = String(decoding: try #require(sent.last?.httpBody), as: UTF8.self)
        #expect(form.contains("name=\"caption\"\r\n\r\nLisbon\r\n"))
        #expect(form.contains("filename=\"\(file.lastPathComponent)\"\r\nContent-Type: image/jpeg\r\n\r\njpeg bytes\r\n"))
    }

    @Test func theStreamedBodyDeclaresItsLength() {
        let body = UploadingFilesSnippets().streamedBody(of: AsyncStream { $0.finish() }, length: 0)
        #expect(body.length == 0)
        #expect(!body.isRepeatable)
    }
}
