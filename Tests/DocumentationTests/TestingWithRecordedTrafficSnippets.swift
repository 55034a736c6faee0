// The code blocks of TestingWithRecordedTraffic.md, verbatim, so that they are compiled (and the
// replay test run). `DocumentationSnippetTests` checks that each block stands here unchanged.
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URL of a test fixture: here, a file in a temporary directory that holds a recording of
/// `Cities(continent: "europe")`, made without the network.
func fixture(_ name: String) -> URL {
    RecordedTrafficFixtures.directory.appendingPathComponent(name)
}

enum RecordedTrafficFixtures {
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-traffic-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = URL(string: "https://api.example.com/europe.json")!
        let head = ResponseHead(statusCode: 200, url: url, headerFields: [("Content-Type", "application/json")])
        let entry = HAR.Entry(
            request: URLRequest(url: url), head: head, body: Data(#"{"cities": [{"name": "Lisbon"}]}"#.utf8),
            startedAt: Date(), duration: .milliseconds(40))
        let har = HAR(log: HAR.Log(creator: HAR.Creator(name: "DocumentationTests", version: "1"), entries: [entry]))
        try? har.write(to: directory.appendingPathComponent("cities.har"))
        return directory
    }()
}

@Suite("Testing with recorded traffic")
struct TestingWithRecordedTrafficSnippets {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RECORD_HAR"] == "1"))
    func recordEuropeanCities() async throws {
        let recorder = RecordingTransport(wrapping: URLSessionTransport())
        let service = ResourceService<Cities>(session: recorder)
        _ = try await service.fetch(Cities(continent: "europe"))
        try recorder.write(to: fixture("cities.har"))
    }

    @Test func europeanCitiesDecodeFromTheRecording() async throws {
        let replay = try ReplayTransport(contentsOf: fixture("cities.har"))
        let service = ResourceService<Cities>(session: replay)
        let cities = try await service.fetch(Cities(continent: "europe"))
        #expect(cities.map(\.name) == ["Lisbon"])
        #expect(replay.replayer.unusedEntries.isEmpty)
    }

    static func moreRedaction() {
        let redaction = HARRedaction.standard
            .redacting(headerFields: ["X-Api-Key"])
            .redacting(parameters: ["session_id"])
        let recorder = RecordingTransport(wrapping: URLSessionTransport(), redaction: redaction)
        _ = recorder
    }

    static func rules() throws {
        let replay = try ReplayTransport(
            contentsOf: fixture("search.har"),
            rules: [.method, .urlIgnoringQueryOrder, .headers(["Accept-Language"]), .body],
            exhaustion: .fail
        )
        _ = replay
    }

    static func uploadLimit() throws {
        let recorder = RecordingTransport(wrapping: URLSessionTransport(), maximumRecordedBodyBytes: 64 * 1024)
        // ...
        let replay = try ReplayTransport(
            contentsOf: fixture("uploads.har"), rules: [.method, .url, .body], maximumRecordedBodyBytes: 64 * 1024)
        _ = (recorder, replay)
    }
}
