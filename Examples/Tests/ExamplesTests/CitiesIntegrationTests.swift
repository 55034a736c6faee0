import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Cities` through the facade, the real `URLSession` and the fixture server over loopback.
@Suite("Cities over loopback")
struct CitiesIntegrationTests {
    let server: FixtureServer
    let directory: WorldDirectory

    init() throws {
        server = try FixtureServer()
        directory = WorldDirectory(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral))
    }

    @Test func loadsTheCitiesOfAContinent() async throws {
        let cities = try await directory.cities(in: "europe")
        #expect(cities.map(\.name) == FixtureServer.continents["europe"])
    }

    @Test func keepsNonASCIINames() async throws {
        #expect(try await directory.cities(in: "asia").first?.name == "東京")
    }

    @Test func loadsWithACompletionHandlerOnTheChosenQueue() async throws {
        let queue = DispatchQueue(label: "cities")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let (result, onQueue) = await withCheckedContinuation { continuation in
            directory.cities(in: "oceania", callbackQueue: queue) { result in
                continuation.resume(returning: (result, DispatchQueue.getSpecific(key: key) == true))
            }
        }
        #expect(try result.get().map(\.name) == ["Auckland", "Sydney"])
        #expect(onQueue)
    }

    @Test func anUnknownContinentIsA404() async {
        let error = await fetchError("atlantis")
        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 404)
        #expect(String(decoding: failure.bodyPrefix, as: UTF8.self).contains("No such continent"))
    }

    @Test func aMalformedBodyIsAParsingError() async {
        #expect(await fetchError("malformed")?.isParsing == true)
    }

    @Test func anErrorInA200IsAServiceLevelError() async {
        let error = await fetchError("overloaded")
        guard case .serviceLevel(let underlying) = error else {
            Issue.record("expected serviceLevel, got \(String(describing: error))")
            return
        }
        #expect((underlying as? ExampleServiceError)?.error.contains("quota") == true)
    }

    @Test func aSlowServiceTimesOutAtTheDeadline() async {
        let impatient = WorldDirectory(
            baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
            options: TransferOptions(deadline: .milliseconds(200)))
        do {
            _ = try await impatient.cities(in: "slow")
            Issue.record("expected a timeout")
        } catch {
            guard case .timedOut = error else {
                Issue.record("expected timedOut, got \(error)")
                return
            }
        }
    }

    @Test func cancellingMidRequestThrowsCancelled() async throws {
        let directory = self.directory
        let task = Task { try await directory.cities(in: "slow") }
        try await waitUntil { server.requestCount == 1 }
        task.cancel()
        let result = await task.result
        #expect((result.failure as? ResourceError)?.isCancelled == true)
    }

    private func fetchError(_ continent: String) async -> ResourceError? {
        do {
            _ = try await directory.cities(in: continent)
            return nil
        } catch {
            return error
        }
    }
}

extension ResourceError {
    var isParsing: Bool {
        if case .parsing = self { return true }
        return false
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Polls `condition` until it holds; records an issue after 10 s so a bug cannot hang the run.
func waitUntil(_ condition: @Sendable () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<10_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("condition never became true", sourceLocation: sourceLocation)
}

@Suite("Cities with operations over loopback")
struct CitiesOperationIntegrationTests {
    @Test func loadsSeveralContinentsOnAQueue() async throws {
        let server = try FixtureServer()
        let directory = WorldDirectory(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral))
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        let operations = ["europe", "asia", "oceania"].map { directory.citiesOperation(in: $0) }
        await queue.addOperationsAndWait(operations)
        #expect(try operations.map { try $0.result?.get().count } == [4, 3, 2])
    }

    @Test func cancellingAllOperationsEndsThemWithoutCompletions() async throws {
        let server = try FixtureServer()
        let directory = WorldDirectory(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral))
        let calls = Counter()
        let queue = OperationQueue()
        let operations = (0..<3).map { _ in
            directory.citiesOperation(in: "slow", callbackQueue: .global()) { _, _ in calls.increment() }
        }
        operations.forEach(queue.addOperation)
        try await waitUntil { server.requestCount == 3 }
        queue.cancelAllOperations()
        try await waitUntil { operations.allSatisfy(\.isFinished) }
        #expect(operations.allSatisfy { $0.result?.failure?.isCancelled == true })
        #expect(calls.value == 0)
    }
}

final class Counter: @unchecked Sendable {
    // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
