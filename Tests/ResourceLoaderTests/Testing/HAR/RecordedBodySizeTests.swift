import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sizes a recording gives bodies: as they went over the wire, or unknown.
@Suite("HAR body sizes")
struct RecordedBodySizeTests {
    @Test func aCompressedResponseIsRecordedWithItsSizeAsReceived() async throws {
        // GIVEN a response sent in gzip
        let text = Data(String(repeating: "<city name=\"Lisbon\"/>", count: 200).utf8)
        let coded = Data(Compressor.compress(Array(text), .gzip))
        let session = FakeURLSession()
        session.stub(.path("/cities.xml"), with: .status(200, headers: ["Content-Type": "text/xml", "Content-Encoding": "gzip"], body: coded))
        let recording = RecordingTransport(wrapping: session)

        // WHEN it is recorded
        let (body, _) = try await exchange(URLRequest(url: URL(string: "https://api.example.com/cities.xml")!), through: recording).get()

        // THEN the body's size is as received, the content's decoded, and the compression the
        // bytes it saved
        #expect(body == text)
        let response = try #require(recording.har.log.entries.first?.response)
        #expect(response.bodySize == coded.count)
        #expect(response.content.size == text.count)
        #expect(response.content.compression == text.count - coded.count)
    }

    @Test func anUncompressedResponseIsRecordedWithoutACompression() async throws {
        // GIVEN a response sent as it is
        let session = FakeURLSession()
        session.stub(.path("/cities.json"), with: .json(#"{"cities": []}"#))
        let recording = RecordingTransport(wrapping: session)

        // WHEN it is recorded
        _ = try await exchange(URLRequest(url: URL(string: "https://api.example.com/cities.json")!), through: recording).get()

        // THEN its size on the wire is its size, with no compression
        let response = try #require(recording.har.log.entries.first?.response)
        #expect(response.bodySize == 14)
        #expect(response.content.size == 14)
        #expect(response.content.compression == nil)
    }

    @Test func aRawBodyStreamIsRecordedWithAnUnknownSize() async throws {
        // GIVEN a request whose body is a plain `httpBodyStream`, which a recording cannot read
        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data("payload".utf8))

        // WHEN it is recorded
        let entry = HAR.Entry(
            request: request, head: ResponseHead(statusCode: 204, url: request.url, headerFields: []), body: Data(),
            startedAt: Date(), duration: .milliseconds(1))

        // THEN its size is unknown (-1), not zero, and no bytes are claimed for it
        #expect(entry.request.bodySize == -1)
        #expect(entry.request.postData?.text?.isEmpty ?? true)

        // AND a request without a body still has a body of zero bytes
        let bodiless = HAR.Request(URLRequest(url: URL(string: "https://api.example.com/cities.json")!))
        #expect(bodiless.bodySize == 0)
        #expect(bodiless.postData == nil)
    }
}
