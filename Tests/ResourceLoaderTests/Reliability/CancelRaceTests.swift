import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches cancelled the moment they start, through every real transport against a loopback
/// server: the process survives, and each fetch has exactly one outcome.
@Suite("Cancel races over real transports")
struct CancelRaceTests {
    typealias Transport = TransportUnderTest

    private static let body = #"{"cities":[{"name":"Lisbon"}]}"#

    /// A server that answers every request at once with ``body``, a service over a new
    /// transport of `transport`'s kind, and the resource to fetch from the server.
    private static func serving(
        through transport: Transport
    ) throws -> (LoopbackHTTPServer, ResourceService<CitiesResource>, CitiesResource) {
        let server = try LoopbackHTTPServer { _ in .json(body) }
        let resource = CitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        return (server, ResourceService<CitiesResource>(session: transport.session), resource)
    }

    @Test(arguments: Transport.allCases)
    func completionFetchesCancelledAtOnceEachEndOnce(transport: Transport) async throws {
        // GIVEN a server that answers at once, and a transport of each kind
        let (server, service, resource) = try Self.serving(through: transport)
        defer { server.stop() }
        let count = 3_000
        let tally = OutcomeTally(count: count)

        // WHEN each completion-handler fetch is cancelled straight after it starts
        await withTimeLimit(.seconds(300)) {
            await withCheckedContinuation { continuation in
                let group = DispatchGroup()
                for index in 0..<count {
                    group.enter()
                    service.fetch(resource, callbackQueue: .global()) { result in
                        tally.record(result, at: index)
                        group.leave()
                    }.cancel()
                }
                group.notify(queue: .global()) { continuation.resume() }
            }
        }

        // THEN every fetch ended exactly once, cancelled or with the model
        #expect(tally.wrongIndices.isEmpty, "first wrong: \(tally.wrongIndices.prefix(5))")
    }

    @Test(arguments: Transport.allCases)
    func operationsCancelledAllAtOnceEachEndOnce(transport: Transport) async throws {
        // GIVEN rounds of eight operations on a queue, as the README's pattern adds them
        let (server, service, resource) = try Self.serving(through: transport)
        defer { server.stop() }
        let rounds = 150
        let perRound = 8
        let tally = OutcomeTally(count: rounds * perRound)

        // WHEN each round is cancelled with `cancelAllOperations()` straight after being added
        for round in 0..<rounds {
            let queue = OperationQueue()
            let operations = (0..<perRound).map { slot in
                ResourceOperation(resource: resource, service: service, callbackQueue: .global()) { _, result in
                    tally.record(result, at: round * perRound + slot)
                }
            }
            for operation in operations { queue.addOperation(operation) }
            queue.cancelAllOperations()
            let allFinished = BlockOperation {}
            for operation in operations { allFinished.addDependency(operation) }
            await withTimeLimit(.seconds(60)) { await OperationQueue().addOperationAndWait(allFinished) }
            for (slot, operation) in operations.enumerated() where operation.result?.failure?.isCancelled == true {
                tally.noteCancelledWithoutCompletion(at: round * perRound + slot)
            }
        }

        // THEN each operation finished with one outcome: its completion ran once with the model,
        // or it was cancelled (and then its completion did not run)
        #expect(tally.wrongIndices.isEmpty, "first wrong: \(tally.wrongIndices.prefix(5))")
    }

    @Test(arguments: Transport.allCases)
    func asyncFetchesCancelledAtOnceEachEndOnce(transport: Transport) async throws {
        // GIVEN a server that answers at once
        let (server, service, resource) = try Self.serving(through: transport)
        defer { server.stop() }

        // WHEN 500 tasks are each cancelled straight after they start
        let outcomes = await withTimeLimit(.seconds(300)) {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<500 {
                    let task = Task { () -> Result<[City], ResourceError> in
                        do throws(ResourceError) { return .success(try await service.fetch(resource)) } catch { return .failure(error) }
                    }
                    task.cancel()
                    group.addTask {
                        switch await task.value {
                        case .success(let cities): cities == [City(name: "Lisbon")]
                        case .failure(let error): error.isCancelled
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }

        // THEN each ended cancelled or with the model
        #expect(outcomes?.count == 500)
        #expect(outcomes?.allSatisfy { $0 } == true)
    }
}

/// How often each fetch's completion ran, and with what.
private final class OutcomeTally: @unchecked Sendable {
    // `lock` guards `calls`, `right` and `cancelledSilently`.
    private let lock = NSLock()
    private var calls: [Int]
    private var right: [Bool]
    private var cancelledSilently: [Bool]

    init(count: Int) {
        calls = Array(repeating: 0, count: count)
        right = Array(repeating: false, count: count)
        cancelledSilently = Array(repeating: false, count: count)
    }

    func record(_ result: Result<[City], ResourceError>, at index: Int) {
        let isRight: Bool = switch result {
        case .success(let cities): cities == [City(name: "Lisbon")]
        case .failure(let error): error.isCancelled
        }
        lock.withLock {
            calls[index] += 1
            right[index] = isRight
        }
    }

    /// An operation that was cancelled, whose completion is not called.
    func noteCancelledWithoutCompletion(at index: Int) {
        lock.withLock { cancelledSilently[index] = true }
    }

    /// The fetches whose completion did not run exactly once with a right outcome (an operation
    /// cancelled before it delivered counts as right with no call).
    var wrongIndices: [Int] {
        lock.withLock {
            calls.indices.filter { index in
                !(calls[index] == 1 && right[index] || calls[index] == 0 && cancelledSilently[index])
            }
        }
    }
}
