import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Many operations at once, checking invariants rather than timings: every operation finishes,
/// every completion runs at most once, and every outcome is the right one.
@Suite("ResourceOperation under stress")
struct ResourceOperationStressTests {
    let session = FakeURLSession()
    let callbackQueue = DispatchQueue(label: "ResourceOperationStressTests.callbacks")

    /// Stubs eight endpoints; the last one answers HTTP 500.
    func stubEndpoints() {
        for endpoint in 0..<8 {
            let response: FakeResponse = endpoint == 7
                ? .status(500)
                : .json(#"{"cities":[{"name":"City \#(endpoint)"}]}"#)
            session.stub(.url(Self.url(endpoint)), with: response)
        }
    }

    static func url(_ endpoint: Int) -> String { "https://api.example.com/cities/\(endpoint)" }

    @Test func tenThousandOperationsAllFinishWithTheRightResults() async throws {
        // GIVEN 10,000 operations spread over eight endpoints, one of which fails
        stubEndpoints()
        let count = 10_000
        let service = ResourceService<CitiesResource>(session: session)
        let log = OutcomeLog(count: count)
        let operations = (0..<count).map { index in
            ResourceOperation(
                resource: CitiesResource(url: URL(string: Self.url(index % 8))!),
                service: service,
                callbackQueue: callbackQueue
            ) { _, result in
                log.record(result, at: index)
            }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8

        // WHEN they all run through one queue
        await withTimeLimit(.seconds(300)) { await queue.addOperationsAndWait(operations) }

        // THEN each finished, its completion ran once, and it got its endpoint's outcome
        #expect(session.receivedRequests.count == count)
        var wrong: [Int] = []
        for (index, operation) in operations.enumerated() {
            let endpoint = index % 8
            let calls = log.calls(at: index)
            let outcome = log.result(at: index)
            let isRight: Bool
            switch outcome {
            case .success(let cities)?:
                isRight = endpoint != 7 && cities == [City(name: "City \(endpoint)")]
            case .failure(let error)?:
                isRight = endpoint == 7 && error.statusCode == 500
            case nil:
                isRight = false
            }
            if !(operation.isFinished && calls == 1 && isRight && operation.result != nil) {
                wrong.append(index)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) operations went wrong, first: \(wrong.prefix(5))")
    }

    @Test func aThousandCancelVersusCompleteRacesEachEndOnce() async throws {
        // GIVEN 1,000 operations whose responses are ready at once
        session.stub(.any, with: .json(#"{"cities":[{"name":"Lisbon"}]}"#))
        let count = 1_000
        let service = ResourceService<CitiesResource>(session: session)
        let log = OutcomeLog(count: count)
        let operations = (0..<count).map { index in
            ResourceOperation(resource: CitiesResource(), service: service, callbackQueue: callbackQueue) { _, result in
                // Runs on the serial callback queue, like the cancellations of even indices.
                if log.cancelHasReturned(at: index) { log.noteLateCompletion(at: index) }
                log.record(result, at: index)
            }
        }
        let queue = OperationQueue()
        let cancellations = DispatchGroup()

        // WHEN each is cancelled at a different moment of its run: on the callback queue, from
        // another thread, or straight after being queued. The spread of moments only varies
        // which side wins; the checks below hold whichever does.
        for (index, operation) in operations.enumerated() {
            queue.addOperation(operation)
            let moment = DispatchTime.now() + .microseconds(index % 100 * 200)
            switch index % 3 {
            case 0:
                cancellations.enter()
                DispatchQueue.global().asyncAfter(deadline: moment) {
                    callbackQueue.async {
                        operation.cancel()
                        log.noteCancelReturned(at: index)
                        cancellations.leave()
                    }
                }
            case 1:
                cancellations.enter()
                DispatchQueue.global().asyncAfter(deadline: moment) {
                    operation.cancel()
                    cancellations.leave()
                }
            default:
                operation.cancel()
            }
        }
        let allFinished = BlockOperation {}
        for operation in operations { allFinished.addDependency(operation) }
        await withTimeLimit(.seconds(300)) {
            await OperationQueue().addOperationAndWait(allFinished)
            await withCheckedContinuation { continuation in
                cancellations.notify(queue: .global()) { continuation.resume() }
            }
        }
        await drain(callbackQueue)

        // THEN each finished with exactly one terminal outcome: either its completion ran once
        // with the model, or it was cancelled and its completion never ran
        var wrong: [Int] = []
        var details: [String] = []
        for (index, operation) in operations.enumerated() {
            let calls = log.calls(at: index)
            let delivered = calls == 1 && (try? log.result(at: index)?.get()) == [City(name: "Lisbon")]
                && (try? operation.result?.get()) == [City(name: "Lisbon")]
            let cancelled = calls == 0 && operation.result?.failure?.isCancelled == true
            // (`isCancelled` stays false when cancel() comes after the operation finished.)
            if !(operation.isFinished && delivered != cancelled && (!cancelled || operation.isCancelled)) {
                wrong.append(index)
                details.append("#\(index): finished \(operation.isFinished), cancelled \(operation.isCancelled), \(calls) calls with \(String(describing: log.result(at: index))), result \(String(describing: operation.result))")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) operations went wrong: \(details.prefix(5).joined(separator: "; "))")
        // Cancelling on the callback queue is never followed by the completion.
        #expect(log.lateCompletions.isEmpty)
    }
}

/// What each operation's completion received, by index.
private final class OutcomeLog: @unchecked Sendable {
    // `lock` guards every array below.
    private let lock = NSLock()
    private var callCounts: [Int]
    private var results: [Result<[City], ResourceError>?]
    private var cancelReturned: [Bool]
    private var late: [Int] = []

    init(count: Int) {
        callCounts = Array(repeating: 0, count: count)
        results = Array(repeating: nil, count: count)
        cancelReturned = Array(repeating: false, count: count)
    }

    func record(_ result: Result<[City], ResourceError>, at index: Int) {
        withLock { callCounts[index] += 1; results[index] = result }
    }

    func noteCancelReturned(at index: Int) { withLock { cancelReturned[index] = true } }
    func noteLateCompletion(at index: Int) { withLock { late.append(index) } }
    func cancelHasReturned(at index: Int) -> Bool { withLock { cancelReturned[index] } }
    func calls(at index: Int) -> Int { withLock { callCounts[index] } }
    func result(at index: Int) -> Result<[City], ResourceError>? { withLock { results[index] } }
    var lateCompletions: [Int] { withLock { late } }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
