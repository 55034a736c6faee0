// The code blocks of GettingStarted.md, verbatim, so that they are compiled (and the test one
// run). `DocumentationSnippetTests` checks that each block stands here unchanged.
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct City: Decodable, Sendable {
    let name: String
}

struct Cities: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }

    let continent: String
    var url: URL { URL(string: "https://api.example.com/\(continent).json")! }

    func model(from root: Root) -> [City] { root.cities }
}

struct Archive: NetworkResourceType, JSONDecodableResourceType {
    typealias Model = [City]
    var url: URL { URL(string: "https://api.example.com/archive.json")! }
    var jsonParsingOptions: JSONParsingOptions {
        JSONParsingOptions(maximumValueCount: 16_000_000, maximumContainerCount: 4_000_000)
    }
}

enum GettingStartedSnippets {
    static func fetching() async throws {
        let service = ResourceService<Cities>()
        let cities = try await service.fetch(Cities(continent: "europe"))
        _ = cities
    }

    static func completion(service: ResourceService<Cities>) {
        let request = service.fetch(Cities(continent: "asia")) { result in
            switch result {
            case .success(let cities): print(cities.map(\.name))
            case .failure(let error): print(error)
            }
        }
        request.cancel()  // the handler then receives .cancelled, once
    }

    static func errors(service: ResourceService<Cities>) async {
        do throws(ResourceError) {
            let cities = try await service.fetch(Cities(continent: "atlantis"))
            print(cities)
        } catch .httpStatus(let failure) where failure.statusCode == 404 {
            print("There is no such continent")
        } catch .transport(let code, _) {
            print("The network failed: \(code)")
        } catch {
            print("Something else went wrong: \(error)")
        }
    }
}

@Test func loadsEuropeanCities() async throws {
    let session = FakeURLSession()
    session.stub(.url("https://api.example.com/europe.json"),
                 with: .json(#"{"cities": [{"name": "Lisbon"}]}"#))
    let service = ResourceService<Cities>(session: session)

    let cities = try await service.fetch(Cities(continent: "europe"))

    #expect(cities.map(\.name) == ["Lisbon"])
    #expect(session.receivedRequests.count == 1)
}

@Test func theErrorSnippetReachesThe404Branch() async {
    let session = FakeURLSession()
    session.stub(.any, with: .status(404))
    // Runs the article's error-handling code against a 404; it must not throw or trap.
    await GettingStartedSnippets.errors(service: ResourceService<Cities>(session: session))
    #expect(session.receivedRequests.map(\.url?.lastPathComponent) == ["atlantis.json"])
}

// From the documentation comment of `JSONDecodableResourceType`.
struct APIError: Error, Decodable { let error: String }

struct Quota: JSONDecodableResourceType {
    typealias Model = [String: Int]
    typealias ServiceError = APIError
}

// From README.md: a resource operation on a queue.
enum ReadmeSnippets {
    static func operations() {
        let queue = OperationQueue()
        let operation = ResourceOperation(resource: Cities(continent: "europe")) { _, result in
            print(result)
        }
        queue.addOperation(operation)

        // When the user leaves the screen:
        queue.cancelAllOperations()
    }
}
