import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A content-coded response's progress counts its coded bytes as they arrive, against its
/// `Content-Length`, when the library decodes it; the decoded bytes, with no total, when the
/// transport decoded it first.
@Suite("Progress of a content-coded body")
struct CodedBodyProgressTests {
    // Made for each test rather than held in statics, which the leak checker reports.
    let text = Data(String(repeating: "<city name=\"Lisbon\"/><city name=\"Zürich\"/>", count: 5_000).utf8)
    var gzipped: Data { Data(Compressor.compress(Array(text), .gzip)) }

    func gzipResponse() -> FakeResponse {
        let gzipped = gzipped
        return .status(200, headers: ["Content-Encoding": "gzip", "Content-Length": "\(gzipped.count)"], body: gzipped).inPieces(8)
    }

    /// Checks that `values` count the coded body on the wire, up to its whole length.
    func expectWireBytes(_ values: [TransferProgress], sourceLocation: SourceLocation = #_sourceLocation) {
        let total = Int64(gzipped.count)
        #expect(!values.isEmpty, sourceLocation: sourceLocation)
        #expect(values.allSatisfy { $0.direction == .download && $0.counting == .wireBytes && $0.totalBytes == total }, "\(values)", sourceLocation: sourceLocation)
        #expect(values.first?.completedBytes == 0, sourceLocation: sourceLocation)
        #expect(values.last?.completedBytes == total, sourceLocation: sourceLocation)
        #expect(values.last?.fractionCompleted == 1, sourceLocation: sourceLocation)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }, sourceLocation: sourceLocation)
    }

    @Test func aFetchCountsTheCodedBytesOnTheWireAgainstTheContentLength() async throws {
        // GIVEN a gzip body handed over in pieces
        let session = FakeURLSession()
        session.stub(.any, with: gzipResponse())
        let seen = Locked<[TransferProgress]>([])

        // WHEN it is fetched with progress
        let model = try await ResourceService<BytesResource>(session: session).fetch(
            BytesResource(url: URL(string: "https://example.com/cities.xml")!), progressQueue: DispatchQueue(label: "progress")
        ) { progress in seen.withLock { $0.append(progress) } }

        // THEN the model is the decoded body, and the progress counts the coded bytes
        #expect(model == text)
        expectWireBytes(seen.withLock { $0 })
    }

    @Test func aDownloadCountsTheCodedBytesAndPlacesTheDecodedFile() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = FakeURLSession()
        session.stub(.any, with: gzipResponse())
        let seen = Locked<[TransferProgress]>([])

        let placed = try await DownloadService<TestDownload>(session: session).fetch(
            TestDownload(url: URL(string: "https://example.com/cities.xml")!, destination: scratch.file("cities.xml")), progressQueue: DispatchQueue(label: "progress")
        ) { progress in seen.withLock { $0.append(progress) } }

        #expect(try Data(contentsOf: placed) == text)
        expectWireBytes(seen.withLock { $0 })
    }

    @Test func aBodyThePlatformDecodedCountsItsDecodedBytesWithoutATotal() async throws {
        // GIVEN a request that asks for gzip itself, which URLSession then decodes
        let gzipped = gzipped
        let server = try LoopbackHTTPServer { _ in
            .status(200, headers: ["Content-Encoding": "gzip"], body: gzipped)
        }
        defer { server.stop() }
        let seen = Locked<[TransferProgress]>([])
        let resource = BytesResource(url: server.baseURL.appendingPathComponent("cities.xml"), headerFields: ["Accept-Encoding": "gzip"])

        // WHEN it is fetched through URLSessionTransport
        let model = try await ResourceService<BytesResource>(session: URLSessionTransport.shared).fetch(resource, progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress) }
        }

        // THEN the progress says it counts decoded bytes, of an unknown total
        #expect(model == text)
        let values = seen.withLock { $0 }
        #expect(values.allSatisfy { $0.counting == .decodedBytes && $0.totalBytes == nil }, "\(values)")
        #expect(values.last?.completedBytes == Int64(text.count))
    }

    @Test func aBodyWithoutCodingCountsItsOwnBytes() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, body: text).inPieces(4))
        let seen = Locked<[TransferProgress]>([])

        _ = try await ResourceService<BytesResource>(session: session).fetch(BytesResource(url: URL(string: "https://example.com/cities.xml")!), progressQueue: DispatchQueue(label: "progress")) { progress in
            seen.withLock { $0.append(progress) }
        }

        let values = seen.withLock { $0 }
        #expect(values.allSatisfy { $0.counting == .bodyBytes })
        #expect(values.last?.completedBytes == Int64(text.count))
    }
}
