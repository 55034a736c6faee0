import Foundation
import ResourceLoader
import Testing

@Suite("LocalFileResourceService")
struct LocalFileResourceServiceTests {
    let fixture = Bundle.module.url(forResource: "europe", withExtension: "json", subdirectory: "Fixtures")!

    @Test func loadsAResourceFromAFile() async throws {
        let cities = try await LocalFileResourceService<CitiesResource>(fileURL: fixture).fetch(CitiesResource())
        #expect(cities.map(\.name) == ["Lisbon", "Oslo"])
    }

    @Test func mapsEachResourceToItsFile() async throws {
        let directory = fixture.deletingLastPathComponent()
        let service = LocalFileResourceService<CitiesResource> { resource in
            directory.appendingPathComponent(resource.url.lastPathComponent)
        }
        #expect(try await service.fetch(CitiesResource()).count == 2)
    }

    @Test func aMissingFileIsATypedError() async {
        let service = LocalFileResourceService<CitiesResource>(fileURL: URL(fileURLWithPath: "/nonexistent/cities.json"))
        do {
            _ = try await service.fetch(CitiesResource())
            Issue.record("expected an error")
        } catch {
            guard case .transport(let code, _) = error else {
                Issue.record("expected transport, got \(error)")
                return
            }
            #expect(code == .fileDoesNotExist)
        }
    }

    @Test func aNonFileURLIsAnInvalidRequest() async {
        let service = LocalFileResourceService<CitiesResource>(fileURL: URL(string: "https://example.com/a.json")!)
        await #expect(throws: ResourceError.self) { try await service.fetch(CitiesResource()) }
    }

    @Test func aMalformedFileIsAParsingError() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("malformed-\(UUID()).json")
        try Data("{\"cities\": [".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try await LocalFileResourceService<CitiesResource>(fileURL: url).fetch(CitiesResource())
            Issue.record("expected an error")
        } catch {
            #expect(error.caseName == "parsing")
        }
    }

    @Test func completionIsDeliveredOnTheChosenQueue() async {
        let queue = DispatchQueue(label: "files")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let onQueue = await withCheckedContinuation { continuation in
            LocalFileResourceService<CitiesResource>(fileURL: fixture).fetch(CitiesResource(), callbackQueue: queue) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
            }
        }
        #expect(onQueue)
    }
}
