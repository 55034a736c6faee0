import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("ResourceService")
struct ResourceServiceTests {
    let session = FakeURLSession()
    let citiesURL = "https://api.example.com/europe.json"
    let citiesJSON = #"{"cities":[{"name":"Lisbon"},{"name":"Oslo"}]}"#

    // MARK: async

    @Test func fetchesAndParsesAModel() async throws {
        // GIVEN a stubbed cities response
        session.stub(.url(citiesURL), with: .json(citiesJSON))
        // WHEN the resource is fetched
        let cities = try await ResourceService<CitiesResource>(session: session).fetch(CitiesResource())
        // THEN the model is parsed and exactly one request was sent
        #expect(cities.map(\.name) == ["Lisbon", "Oslo"])
        #expect(session.receivedRequests.map(\.url?.absoluteString) == [citiesURL])
    }

    @Test(arguments: [200, 201, 299])
    func acceptableStatusesSucceed(status: Int) async throws {
        session.stub(.any, with: .json(citiesJSON, statusCode: status))
        #expect(try await ResourceService<CitiesResource>(session: session).fetch(CitiesResource()).count == 2)
    }

    @Test(arguments: [199, 300, 404, 500])
    func otherStatusesAreHTTPStatusErrors(status: Int) async throws {
        session.stub(.any, with: .status(status, headers: ["X-Request-Id": "r-1"], body: Data("nope".utf8)))
        let error = await fetchError(CitiesResource())
        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == status)
        #expect(failure.value(forHeaderField: "x-request-id") == "r-1")
        #expect(failure.bodyPrefix == Data("nope".utf8))
        #expect(error?.statusCode == status)
    }

    @Test func theErrorBodyIsCapped() async {
        session.stub(.any, with: .status(500, body: Data(repeating: 65, count: 100_000)))
        guard case .httpStatus(let failure) = await fetchError(CitiesResource()) else {
            Issue.record("expected httpStatus")
            return
        }
        #expect(failure.bodyPrefix.count == ResourceError.HTTPStatusFailure.bodyPrefixLimit)
    }

    @Test func aResourceCanWidenItsAcceptableStatuses() async throws {
        var resource = CityNamesResource()
        resource.acceptableStatusCodes = 200..<500
        session.stub(.any, with: .json(#"{"cities":[]}"#, statusCode: 404))
        #expect(try await ResourceService<CityNamesResource>(session: session).fetch(resource) == [])
    }

    @Test func aServiceLevelErrorInA200IsReported() async {
        session.stub(.any, with: .json(#"{"error":"quota exceeded"}"#))
        let error = await fetchError(CityNamesResource())
        guard case .serviceLevel(let underlying) = error else {
            Issue.record("expected serviceLevel, got \(String(describing: error))")
            return
        }
        #expect(underlying as? CityNamesResource.ServiceError == .init(message: "quota exceeded"))
    }

    @Test func anEmptyBodyIsAnEmptyResponseError() async {
        session.stub(.any, with: .status(204))
        let error = await fetchError(CitiesResource())
        guard case .emptyResponse(let status) = error else {
            Issue.record("expected emptyResponse, got \(String(describing: error))")
            return
        }
        #expect(status == 204)
    }

    @Test func malformedJSONIsAParsingError() async {
        session.stub(.any, with: .json(#"{"cities": [{"name": "Lis"#))
        #expect(await fetchError(CitiesResource())?.caseName == "parsing")
    }

    @Test func anInvalidRequestIsReportedWithoutSendingAnything() async {
        var endpoint = Endpoint("https://example.com/")
        endpoint.headerFields = ["X-A": "1\r\n2"]
        let error = await fetchError(endpoint)
        #expect(error?.caseName == "invalidRequest")
        #expect(session.receivedRequests.isEmpty)
    }

    @Test(arguments: [
        (URLError.Code.notConnectedToInternet, "transport"),
        (.cannotConnectToHost, "transport"),
        (.timedOut, "timedOut"),
        (.cancelled, "cancelled"),
    ])
    func transportErrorsAreMapped(code: URLError.Code, expected: String) async {
        session.stub(.any, with: .error(URLError(code)))
        let error = await fetchError(CitiesResource())
        #expect(error?.caseName == expected)
        if case .transport(let reported, _) = error {
            #expect(reported == code)
        }
    }

    @Test func aNonHTTPResponseIsATransportError() async {
        let error = await ResourceService<CitiesResource>(session: NonHTTPSession()).fetchError(CitiesResource())
        guard case .transport(let code, _) = error else {
            Issue.record("expected transport, got \(String(describing: error))")
            return
        }
        #expect(code == .badServerResponse)
    }

    @Test func cancellingTheTaskBeforeTheFetchThrowsCancelled() async {
        session.stub(.any, with: .json(citiesJSON))
        let service = ResourceService<CitiesResource>(session: session)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await service.fetch(CitiesResource())
        }
        let result = await task.result
        #expect((result.failure as? ResourceError)?.isCancelled == true)
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func cancellingTheTaskDuringTheRequestCancelsItAndThrowsCancelled() async throws {
        // GIVEN a response that would take a minute
        session.stub(.any, with: .json(citiesJSON).delayed(by: .seconds(600)))
        let service = ResourceService<CitiesResource>(session: session, options: TransferOptions(deadline: nil))
        let task = Task { try await service.fetch(CitiesResource()) }
        // WHEN the task is cancelled once the request is in flight
        try await waitUntil { session.receivedRequests.count == 1 }
        task.cancel()
        // THEN the fetch throws cancelled without waiting for the response
        let result = await task.result
        #expect((result.failure as? ResourceError)?.isCancelled == true)
    }

    @Test func theDeadlineBoundsTheWholeTransfer() async {
        session.stub(.any, with: .json(citiesJSON).delayed(by: .seconds(60)))
        let service = ResourceService<CitiesResource>(session: session, options: TransferOptions(deadline: .milliseconds(50)))
        #expect(await service.fetchError(CitiesResource())?.caseName == "timedOut")
    }

    // MARK: completion handler

    @Test func completionIsDeliveredOnceOnTheChosenQueue() async throws {
        session.stub(.any, with: .json(citiesJSON))
        let queue = DispatchQueue(label: "chosen")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "chosen")
        let calls = Counter()
        try await confirmation { delivered in
            await withCheckedContinuation { continuation in
                ResourceService<CitiesResource>(session: session).fetch(CitiesResource(), callbackQueue: queue) { result in
                    #expect(DispatchQueue.getSpecific(key: key) == "chosen")
                    #expect((try? result.get())?.count == 2)
                    calls.increment()
                    delivered()
                    continuation.resume()
                }
            }
            // Anything delivered twice would arrive on the same serial queue after this.
            try await Task.sleep(for: .milliseconds(20))
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        }
        #expect(calls.value == 1)
    }

    @Test func theDefaultCallbackQueueIsMain() async {
        // On Linux the main queue may be drained off the main thread, so ask the queue.
        session.stub(.any, with: .json(citiesJSON))
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        let onMain = await withCheckedContinuation { continuation in
            ResourceService<CitiesResource>(session: session).fetch(CitiesResource()) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
            }
        }
        #expect(onMain)
    }

    @Test func cancellingBeforeTheResponseDeliversCancelledOnce() async throws {
        session.stub(.any, with: .json(citiesJSON).delayed(by: .milliseconds(30)))
        let calls = Counter()
        let queue = DispatchQueue(label: "serial")
        let result = await withCheckedContinuation { continuation in
            let handle = ResourceService<CitiesResource>(session: session).fetch(CitiesResource(), callbackQueue: queue) { result in
                calls.increment()
                continuation.resume(returning: result)
            }
            handle.cancel()
            handle.cancel()
        }
        #expect(result.failure?.isCancelled == true)
        // The stubbed response still arrives after 30 ms; it must not produce a second call.
        try await Task.sleep(for: .milliseconds(100))
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(calls.value == 1)
    }

    @Test func cancellingImmediatelyDeliversCancelledAndNeverTheModel() async {
        session.stub(.any, with: .json(citiesJSON))
        for _ in 0..<200 {
            let result = await withCheckedContinuation { continuation in
                ResourceService<CitiesResource>(session: session)
                    .fetch(CitiesResource(), callbackQueue: .global()) { continuation.resume(returning: $0) }
                    .cancel()
            }
            // Either outcome may win the race, but there is exactly one (the continuation
            // would trap on a second resume).
            if case .failure(let error) = result { #expect(error.isCancelled) }
        }
    }

    @Test func cancellingAfterCompletionChangesNothing() async {
        session.stub(.any, with: .json(citiesJSON))
        let calls = Counter()
        var handle: (any Cancellable)?
        let result = await withCheckedContinuation { continuation in
            handle = ResourceService<CitiesResource>(session: session).fetch(CitiesResource(), callbackQueue: .global()) {
                calls.increment()
                continuation.resume(returning: $0)
            }
        }
        handle?.cancel()
        #expect((try? result.get())?.count == 2)
        #expect(calls.value == 1)
    }

    // MARK: where parsing runs

    /// Records whether `model(from:)` ran on a queue tagged with `key`.
    struct QueueProbe: NetworkResourceType, DataResourceType {
        var url = URL(string: "https://api.example.com/probe")!
        let key: DispatchSpecificKey<String>
        func model(from data: Data) throws -> String {
            DispatchQueue.getSpecific(key: key) ?? "untagged"
        }
    }

    @Test func parsingRunsOnAChosenCallbackQueue() async throws {
        session.stub(.any, with: .status(200, body: Data("x".utf8)))
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "parsing", attributes: .concurrent)
        queue.setSpecific(key: key, value: "callback queue")
        let parsedOn = try await withCheckedContinuation { continuation in
            ResourceService<QueueProbe>(session: session).fetch(QueueProbe(key: key), callbackQueue: queue) {
                continuation.resume(returning: $0)
            }
        }.get()
        #expect(parsedOn == "callback queue")
    }

    @Test func parsingStaysOffTheMainQueue() async throws {
        session.stub(.any, with: .status(200, body: Data("x".utf8)))
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let service = ResourceService<QueueProbe>(session: session)
        let parsedViaCompletion = try await withCheckedContinuation { continuation in
            service.fetch(QueueProbe(key: key)) { continuation.resume(returning: $0) }
        }.get()
        #expect(parsedViaCompletion == "untagged")
        #expect(try await service.fetch(QueueProbe(key: key)) == "untagged")
    }

    // MARK: who cancels the transfer

    /// A transport that answers only when told to, and counts how often it was cancelled.
    final class ManualTransport: URLSessionType, @unchecked Sendable {
        final class Handle: Cancellable, @unchecked Sendable {
            let cancels = Counter()
            func cancel() { cancels.increment() }
        }
        // `lock` guards `handlers` and `handles`.
        private let lock = NSLock()
        private var handlers: [@Sendable (Result<(Data, URLResponse), any Error>) -> Void] = []
        private var handles: [Handle] = []

        var requestCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return handles.count
        }

        func data(
            for request: URLRequest, options: TransferOptions,
            completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
        ) -> any Cancellable {
            let handle = Handle()
            lock.lock()
            handlers.append(completionHandler)
            handles.append(handle)
            lock.unlock()
            return handle
        }

        var cancelCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return handles.reduce(0) { $0 + $1.cancels.value }
        }

        func answer(_ result: Result<(Data, URLResponse), any Error>) {
            lock.lock()
            let handler = handlers.removeFirst()
            lock.unlock()
            handler(result)
        }
    }

    @Test func cancellingOrTheDeadlineCancelsTheTransferButAnAnswerDoesNot() async throws {
        // An answer, even a failed one, means the transfer is over: cancelling it from inside
        // the transport's callback (a refused redirect, say) makes FoundationNetworking trap.
        let transport = ManualTransport()
        let service = ResourceService<CitiesResource>(session: transport, options: TransferOptions(deadline: nil))
        let failed = Task { await service.fetchError(CitiesResource()) }
        try await waitUntil { transport.requestCount == 1 }
        transport.answer(.failure(URLError(.cannotConnectToHost)))
        #expect(await failed.value?.caseName == "transport")
        #expect(transport.cancelCount == 0)

        let cancelled = Task { await service.fetchError(CitiesResource()) }
        try await waitUntil { transport.requestCount == 2 }
        cancelled.cancel()
        #expect(await cancelled.value?.caseName == "cancelled")
        #expect(transport.cancelCount == 1)

        let impatient = ResourceService<CitiesResource>(session: transport, options: TransferOptions(deadline: .milliseconds(20)))
        #expect(await impatient.fetchError(CitiesResource())?.caseName == "timedOut")
        #expect(transport.cancelCount == 2)
    }

    // MARK: helpers

    private func fetchError<Resource: NetworkResourceType & DataResourceType>(_ resource: Resource) async -> ResourceError? {
        await ResourceService<Resource>(session: session).fetchError(resource)
    }
}

extension ResourceService {
    func fetchError(_ resource: Resource) async -> ResourceError? {
        do {
            _ = try await fetch(resource)
            return nil
        } catch {
            return error
        }
    }
}

final class Counter: @unchecked Sendable {
    // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// Polls `condition` until it holds; fails after 60 s by the clock so a broken test cannot hang.
///
/// The bound is time, not a number of polls: on a loaded machine a 1 ms sleep takes several, and
/// 10,000 polls once ran out before a request reached a loopback server.
func waitUntil(_ condition: @Sendable () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let giveUp = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < giveUp {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("condition never became true", sourceLocation: sourceLocation)
}
