// The code blocks of LoadingWithOperations.md, verbatim, so that they compile. They sit at the
// same lines as in the article (indentation aside; `DocumentationSnippetTests` checks it), so
// keep the two in step.

import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A namespace for the article's snippets. They load `Cities`, defined with the Getting Started
/// snippets, as the article assumes.
struct LoadingWithOperationsSnippets {}

// MARK: - Run a resource operation

extension LoadingWithOperationsSnippets {
    func runAResourceOperation() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4

        let operation = ResourceOperation(resource: Cities(continent: "europe")) { _, result in
            switch result {
            case .success(let cities):
                print("Loaded \(cities.count) cities")
            case .failure(let error):
                print("Could not load the cities: \(error)")
            }
        }
        queue.addOperation(operation)
    }

    func chooseTheServiceAndTheCallbackQueue(session: FakeURLSession, queue: OperationQueue) {
        let service = ResourceService<Cities>(session: session)
        let operation = ResourceOperation(
            resource: Cities(continent: "asia"),
            service: service,
            callbackQueue: .global()
        ) { operation, result in
            print("\(operation.resource.continent): \((try? result.get())?.count ?? 0) cities")
        }
        queue.addOperation(operation)
    }
}

// MARK: - Cancel when the user leaves

extension LoadingWithOperationsSnippets {
    @MainActor
    final class CitiesScreen {
        private let queue = OperationQueue()
        private(set) var names: [String] = []

        func didAppear() {
            let operation = ResourceOperation(resource: Cities(continent: "europe")) { [weak self] _, result in
                // The completion runs on the main queue.
                MainActor.assumeIsolated {
                    self?.names = (try? result.get())?.map(\.name) ?? []
                }
            }
            queue.addOperation(operation)
        }

        func didDisappear() {
            queue.cancelAllOperations()
        }
    }
}

// MARK: - Make one load wait for another

extension LoadingWithOperationsSnippets {
    func makeOneLoadWaitForAnother(queue: OperationQueue) {
        let europe = ResourceOperation(resource: Cities(continent: "europe"))
        let asia = ResourceOperation(resource: Cities(continent: "asia"))
        let summary = BlockOperation {
            let count = [europe, asia].map { (try? $0.result?.get())?.count ?? 0 }.reduce(0, +)
            print("\(count) cities in all")
        }
        summary.addDependency(europe)
        summary.addDependency(asia)
        queue.addOperations([europe, asia, summary], waitUntilFinished: false)
    }
}

// MARK: - Wait from async code

extension LoadingWithOperationsSnippets {
    func loadEuropeAndAsia(
        with service: ResourceService<Cities>,
        on queue: OperationQueue
    ) async throws(ResourceError) -> [City] {
        let europe = ResourceOperation(resource: Cities(continent: "europe"), service: service)
        let asia = ResourceOperation(resource: Cities(continent: "asia"), service: service)
        await queue.addOperationsAndWait([europe, asia])
        return try await europe.value + asia.value
    }

    func awaitOneOperation(queue: OperationQueue) async throws -> [City] {
        let operation = ResourceOperation(resource: Cities(continent: "europe"))
        queue.addOperation(operation)
        let cities = try await operation.value
        return cities
    }
}

// MARK: - Write your own asynchronous operation

extension LoadingWithOperationsSnippets {
    final class Pause: AsynchronousOperation, @unchecked Sendable {
        private let seconds: Double

        init(seconds: Double) {
            self.seconds = seconds
        }

        override func main() {
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                self.finish()
            }
        }
    }
}

// MARK: - The snippets at work

// The time limit bounds the run should a bug leave an operation unfinished.
@Suite("Loading with operations snippets", .timeLimit(.minutes(1)))
struct LoadingWithOperationsSnippetTests {
    @Test func loadEuropeAndAsiaReturnsBothContinents() async throws {
        let session = FakeURLSession()
        session.stub(.url("https://api.example.com/europe.json"), with: .json(#"{"cities":[{"name":"Lisbon"}]}"#))
        session.stub(.url("https://api.example.com/asia.json"), with: .json(#"{"cities":[{"name":"Hanoi"}]}"#))
        let snippets = LoadingWithOperationsSnippets()
        let cities = try await snippets.loadEuropeAndAsia(with: ResourceService(session: session), on: OperationQueue())
        #expect(cities.map(\.name) == ["Lisbon", "Hanoi"])
    }

    @Test func pauseFinishes() async {
        let pause = LoadingWithOperationsSnippets.Pause(seconds: 0.01)
        await OperationQueue().addOperationAndWait(pause)
        #expect(pause.isFinished)
    }
}
