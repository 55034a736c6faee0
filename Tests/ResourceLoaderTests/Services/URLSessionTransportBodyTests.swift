import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request body's progress through ``URLSessionTransport`` when the server answers before
/// the body is all sent, over loopback.
@Suite("URLSessionTransport: upload progress and the head")
struct URLSessionTransportBodyTests {
    @Test func noUploadProgressIsReportedAfterTheHead() async throws {
        // GIVEN a server that answers 201 as soon as it has the head of a 4 MiB upload, then
        // reads the body slowly to its end
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 4 << 20) }
        defer { file.remove() }
        let server = try UploadFramingServer(
            answer: Data("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".utf8), pieceSize: 16 * 1024, pause: .milliseconds(2))
        defer { server.stop() }
        var request = URLRequest(url: server.url)
        request.httpMethod = "PUT"
        request.setBody(try .file(file.url))

        // WHEN the file is sent
        let recorder = ProgressRecorder()
        let handle = URLSessionTransport().startTransfer(request, options: TransferOptions(), receiver: recorder)
        let result = await withTimeLimit { await recorder.result }
        _ = handle

        // THEN the answer arrives, and no report of the body going out follows its head
        guard case .success(let (head, body))? = result else {
            Issue.record("expected the 201, got \(String(describing: result))")
            return
        }
        #expect(head.statusCode == 201)
        #expect(body == Data("ok".utf8))
        #expect(recorder.sendsAfterHead == 0, "\(recorder.sendsAfterHead) of \(recorder.reports.count) reports came after the head")
    }
}
