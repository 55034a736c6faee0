import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("ResourceOperation")
struct ResourceOperationTests {
    let session = FakeURLSession()
    let citiesJSON = #"{"cities":[{"name":"Lisbon"},{"name":"Oslo"}]}"#
    let callbackQueue = DispatchQueue(label: "ResourceOperationTests.callbacks")

    /// No deadline: the cancellation tests' answers take ten minutes, and only the cancellation
    /// may end them, however long a loaded machine takes to get to it.
    var service: ResourceService<CitiesResource> { ResourceService(session: session, options: TransferOptions(deadline: nil)) }

    // MARK: outcomes

    @Test func deliversTheModelOnceOnTheCallbackQueueAndFinishes() async throws {
        // GIVEN a stubbed response and a queue marked so the completion can recognise it
        session.stub(.any, with: .json(citiesJSON))
        let key = DispatchSpecificKey<String>()
        callbackQueue.setSpecific(key: key, value: "callbacks")
        let calls = Counter()
        let onCallbackQueue = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, _ in
            calls.increment()
            if DispatchQueue.getSpecific(key: key) == "callbacks" { onCallbackQueue.increment() }
        }
        // WHEN it runs on a queue
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        // THEN the completion ran once, on the chosen queue, and the result is kept
        #expect(calls.value == 1)
        #expect(onCallbackQueue.value == 1)
        #expect(operation.isFinished)
        #expect(try #require(operation.result).get().map(\.name) == ["Lisbon", "Oslo"])
    }

    @Test func theCompletionReceivesTheOperationAndTheResult() async throws {
        session.stub(.any, with: .json(citiesJSON))
        let received = Shared<(ObjectIdentifier, [City])?>(nil)
        let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { operation, result in
            received.set((ObjectIdentifier(operation), (try? result.get()) ?? []))
        }
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        let (identity, cities) = try #require(received.get())
        #expect(identity == ObjectIdentifier(operation))
        #expect(cities.count == 2)
    }

    @Test func deliversAFailureOnceAndFinishes() async throws {
        session.stub(.any, with: .status(404))
        let calls = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, result in
            #expect(result.failure?.statusCode == 404)
            calls.increment()
        }
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        #expect(calls.value == 1)
        #expect(operation.isFinished)
        #expect(operation.result?.failure?.statusCode == 404)
    }

    @Test func theDefaultCallbackQueueIsMain() async {
        // On Linux the main queue may be drained off the main thread, so ask the queue.
        session.stub(.any, with: .json(citiesJSON))
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        let onMain = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: service) { _, _ in
            if DispatchQueue.getSpecific(key: key) == true { onMain.increment() }
        }
        #expect(operation.callbackQueue.getSpecific(key: key) == true)
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        #expect(onMain.value == 1)
    }

    @Test func withoutACompletionTheResultIsKept() async throws {
        session.stub(.any, with: .json(citiesJSON))
        let operation = ResourceOperation(resource: CitiesResource(), service: service)
        #expect(operation.result == nil)
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        #expect(try #require(operation.result).get().count == 2)
    }

    @Test func worksWithAnyService() async throws {
        // GIVEN the bundled fixture read by the local-file service
        let url = try #require(Bundle.module.url(forResource: "europe", withExtension: "json", subdirectory: "Fixtures"))
        let operation = ResourceOperation(
            resource: CitiesResource(), service: LocalFileResourceService<CitiesResource>(fileURL: url))
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        #expect(try #require(operation.result).get().isEmpty == false)
    }

    @Test func finishesOnceWhenTheServiceAnswersBeforeFetchReturns() async throws {
        // GIVEN a service that calls its completion synchronously, inside fetch
        let calls = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: ImmediateService()) { _, _ in calls.increment() }
        // WHEN the operation is started by hand
        operation.start()
        // THEN the completion ran once and the operation finished
        #expect(calls.value == 1)
        #expect(operation.isFinished)
        #expect(try #require(operation.result).get().map(\.name) == ["Instant"])
    }

    @Test func theConvenienceInitialiserUsesADefaultResourceService() {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        let operation = ResourceOperation(resource: CitiesResource())
        #expect(operation.service.session is URLSessionTransport)
        #expect(operation.service.options == TransferOptions())
        #expect(operation.service.options.deadline == .seconds(60))
        #expect(operation.callbackQueue.getSpecific(key: key) == true)
    }

    // MARK: cancellation

    @Test func anOperationCancelledBeforeItStartsFinishesWithoutFetchingOrCalling() async {
        session.stub(.any, with: .json(citiesJSON))
        let calls = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, _ in
            calls.increment()
        }
        operation.cancel()
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        await drain(callbackQueue)
        #expect(operation.isFinished)
        #expect(calls.value == 0)
        #expect(operation.result?.failure?.isCancelled == true)
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func cancellingInFlightCancelsTheFetchAndFinishesAtOnce() async {
        // GIVEN an operation whose response would take a minute
        session.stub(.any, with: .json(citiesJSON).delayed(by: .seconds(600)))
        let calls = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, _ in
            calls.increment()
        }
        let queue = OperationQueue()
        queue.addOperation(operation)
        await withTimeLimit { try? await waitUntil { session.receivedRequests.count == 1 } }
        // WHEN it is cancelled while the request is in flight
        operation.cancel()
        // THEN it has finished by the time cancel() returns, without calling the completion
        #expect(operation.isFinished)
        #expect(operation.isCancelled)
        await withTimeLimit { try? await waitUntil { queue.operationCount == 0 } }
        await drain(callbackQueue)
        #expect(calls.value == 0)
        #expect(operation.result?.failure?.isCancelled == true)
    }

    @Test func cancellingWhileTheOutcomeWaitsForTheCallbackQueueSkipsTheCompletion() async {
        // GIVEN an outcome that cannot be handed over because the callback queue is held
        session.stub(.any, with: .json(citiesJSON))
        callbackQueue.suspend()
        let calls = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, _ in
            calls.increment()
        }
        OperationQueue().addOperation(operation)
        await withTimeLimit { try? await waitUntil { session.receivedRequests.count == 1 } }
        // WHEN the operation is cancelled, then the callback queue is released
        operation.cancel()
        callbackQueue.resume()
        await drain(callbackQueue)
        // THEN the completion never ran, whenever the outcome reached the queue
        #expect(calls.value == 0)
        #expect(operation.isFinished)
        #expect(operation.result?.failure?.isCancelled == true)
    }

    @Test func cancellingAfterTheCompletionChangesNothing() async throws {
        session.stub(.any, with: .json(citiesJSON))
        let calls = Counter()
        let operation = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, _ in
            calls.increment()
        }
        await withTimeLimit { await OperationQueue().addOperationAndWait(operation) }
        operation.cancel()
        operation.cancel()
        await drain(callbackQueue)
        #expect(calls.value == 1)
        #expect(try #require(operation.result).get().count == 2)
    }

    @Test func cancelAllOperationsFinishesEveryOperationWithoutCallingCompletions() async {
        // GIVEN a serial queue with five slow operations, one of them in flight
        session.stub(.any, with: .json(citiesJSON).delayed(by: .seconds(600)))
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let calls = Counter()
        let operations = (0..<5).map { _ in
            ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, _ in
                calls.increment()
            }
        }
        for operation in operations { queue.addOperation(operation) }
        await withTimeLimit { try? await waitUntil { session.receivedRequests.count == 1 } }
        // WHEN the queue cancels everything. (`cancelAllOperations()` cancels one operation after
        // the other: once the first has finished, the queue may start the second before its
        // turn to be cancelled comes, and it then rightly sends its request. Suspended, the
        // queue starts nothing until every operation is cancelled.)
        queue.isSuspended = true
        queue.cancelAllOperations()
        queue.isSuspended = false
        // THEN all finish, only the first ever sent a request, and no completion ran
        await withTimeLimit { try? await waitUntil { operations.allSatisfy { $0.isFinished } } }
        await drain(callbackQueue)
        #expect(calls.value == 0)
        #expect(session.receivedRequests.count == 1)
        #expect(operations.allSatisfy { $0.result?.failure?.isCancelled == true })
    }

    // MARK: dependencies

    @Test func aDependentOperationSeesTheResultOfItsDependency() async {
        // GIVEN a block that depends on a resource operation
        session.stub(.any, with: .json(citiesJSON))
        let fetch = ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, _ in }
        let seen = Shared<[String]?>(nil)
        let report = BlockOperation { seen.set((try? fetch.result?.get())?.map(\.name)) }
        report.addDependency(fetch)
        // WHEN both run, dependent first in the array
        await withTimeLimit { await OperationQueue().addOperationsAndWait([report, fetch]) }
        // THEN the block ran after the fetch had its result
        #expect(seen.get() == ["Lisbon", "Oslo"])
    }

    // MARK: value

    @Test func valueReturnsTheModel() async throws {
        session.stub(.any, with: .json(citiesJSON))
        let operation = ResourceOperation(resource: CitiesResource(), service: service)
        OperationQueue().addOperation(operation)
        let cities = await withTimeLimit { try? await operation.value }
        #expect(cities??.count == 2)
    }

    @Test func valueThrowsTheError() async {
        session.stub(.any, with: .status(500))
        let operation = ResourceOperation(resource: CitiesResource(), service: service)
        OperationQueue().addOperation(operation)
        let error = await withTimeLimit { () -> ResourceError? in
            do throws(ResourceError) {
                _ = try await operation.value
                return nil
            } catch {
                return error
            }
        }
        #expect(error??.statusCode == 500)
    }

    @Test func cancellingTheTaskAwaitingValueCancelsTheOperation() async {
        // GIVEN a task awaiting an operation whose response would take a minute
        session.stub(.any, with: .json(citiesJSON).delayed(by: .seconds(600)))
        let operation = ResourceOperation(resource: CitiesResource(), service: service)
        OperationQueue().addOperation(operation)
        let task = Task { try await operation.value }
        await withTimeLimit { try? await waitUntil { session.receivedRequests.count == 1 } }
        // WHEN the task is cancelled
        task.cancel()
        // THEN the operation is cancelled and finished, and the task throws cancelled
        let result = await withTimeLimit { await task.result }
        #expect((result?.failure as? ResourceError)?.isCancelled == true)
        #expect(operation.isCancelled)
        #expect(operation.isFinished)
    }
}

// MARK: - Helpers

/// Returns once everything already submitted to `queue` has run.
func drain(_ queue: DispatchQueue) async {
    await withTimeLimit {
        await withCheckedContinuation { continuation in
            queue.async(flags: .barrier) { continuation.resume() }
        }
    }
}

/// A value shared between a test and the closures it hands out.
final class Shared<Value: Sendable>: @unchecked Sendable {
    // `lock` guards `value`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
}

/// A service that answers inside `fetch`, before returning, which the contract does not forbid.
private struct ImmediateService: ResourceServiceType {
    final class Handle: Cancellable { func cancel() {} }

    func fetch(
        _ resource: CitiesResource,
        callbackQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<[City], ResourceError>) -> Void
    ) -> any Cancellable {
        completion(.success([City(name: "Instant")]))
        return Handle()
    }
}
