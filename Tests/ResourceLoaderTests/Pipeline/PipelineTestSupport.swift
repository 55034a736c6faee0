import Foundation
import ResourceLoader
import ResourceLoaderTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A monitor that writes down every event it is told of, as short lines.
final class EventRecorder: FetchMonitor, @unchecked Sendable {
    // `lock` guards `lines` and `finished`.
    private let lock = NSLock()
    private var lines: [String] = []
    private var finished: [FetchEvent.Finished] = []
    private var durations: [String: Duration] = [:]
    let name: String
    let shared: SharedLog?

    init(name: String = "", shared: SharedLog? = nil) {
        self.name = name
        self.shared = shared
    }

    var events: [String] { lock.withLock { lines } }
    var finishedEvents: [FetchEvent.Finished] { lock.withLock { finished } }
    var recordedDurations: [String: Duration] { lock.withLock { durations } }

    private func record(_ line: String, duration: (String, Duration)? = nil) {
        lock.withLock {
            lines.append(line)
            if let duration { durations[duration.0] = duration.1 }
        }
        shared?.append("\(name) \(line)")
    }

    func requestReady(_ event: FetchEvent.RequestReady) {
        record("ready \(event.request.httpMethod ?? "GET") \(event.request.url?.path ?? "")")
    }

    func attemptSent(_ event: FetchEvent.AttemptSent) {
        record("sent \(event.attempt)")
    }

    func responseReceived(_ event: FetchEvent.ResponseReceived) {
        record("response \(event.attempt) \(event.statusCode.map(String.init) ?? "-") \(event.bodyByteCount)B",
               duration: ("response", event.duration))
    }

    func retryScheduled(_ event: FetchEvent.RetryScheduled) {
        let reason: String
        switch event.reason {
        case .status(let status): reason = "status \(status)"
        case .transport(let code): reason = "transport \(code.rawValue)"
        case .credentialRejected(let status): reason = "credential \(status)"
        }
        record("retry \(event.attempt) after \(event.delay.milliseconds)ms \(reason)")
    }

    func modelMade(_ event: FetchEvent.ModelMade) {
        record("model", duration: ("model", event.duration))
    }

    func fetchFinished(_ event: FetchEvent.Finished) {
        let outcome: String
        switch event.result {
        case .success: outcome = "success"
        case .failure(let error): outcome = error.caseName
        }
        lock.withLock { finished.append(event) }
        record("finished \(outcome) attempts=\(event.attempts)", duration: ("fetch", event.duration))
    }
}

/// Lines from several monitors, in the order they were written.
final class SharedLog: @unchecked Sendable {
    // `lock` guards `lines`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// An adapter that says it has started, then waits (for up to ten minutes) until its task is
/// cancelled, and remembers that it was.
final class StallingAdapter: RequestAdapter, @unchecked Sendable {
    // `lock` guards `sawCancellation` and `calls`.
    private let lock = NSLock()
    private var sawCancellation = false
    private var calls = 0
    let started: AsyncStream<Void>
    private let startedContinuation: AsyncStream<Void>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream<Void>.makeStream()
    }

    var wasCancelled: Bool { lock.withLock { sawCancellation } }
    /// Whether the pipeline called the adapter at all (a fetch that ends before its adapter task
    /// runs never calls it).
    var wasCalled: Bool { lock.withLock { calls > 0 } }

    /// Waits until the adapter has been called.
    func waitUntilStarted() async {
        for await _ in started { return }
    }

    func adapt(_ request: URLRequest) async throws -> URLRequest {
        lock.withLock { calls += 1 }
        startedContinuation.yield()
        do {
            try await Task.sleep(for: .seconds(600))
        } catch {
            lock.withLock { sawCancellation = true }
            throw error
        }
        return request
    }
}

/// A transport that advances a manual clock by `delay` before handing the request on, so that
/// attempt durations are known exactly.
struct ClockAdvancingSession: URLSessionType {
    let clock: ManualClock
    let delay: Duration
    let session: FakeURLSession

    func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        clock.advance(by: delay)
        return session.data(for: request, options: options, completionHandler: completionHandler)
    }
}

/// A resource whose parsing advances a manual clock, so that parse durations are known exactly.
struct ClockedResource: NetworkResourceType, DataResourceType {
    let clock: ManualClock
    let parsing: Duration
    var url: URL { URL(string: "https://api.example.com/clocked")! }

    func model(from data: Data) throws -> Int {
        clock.advance(by: parsing)
        return data.count
    }
}

/// A login resource that must not carry the pipeline's credential.
struct LoginResource: NetworkResourceType, DataResourceType {
    var url: URL { URL(string: "https://api.example.com/login")! }
    var httpMethod: HTTPMethod { .post }
    var usesPipelineAdapters: Bool { false }

    func model(from data: Data) throws -> Data { data }
}

/// Adds `name: value` to every request, appending to a value already there so that order shows.
func headerAdapter(_ name: String, _ value: String) -> ClosureRequestAdapter {
    ClosureRequestAdapter { request in
        var request = request
        let existing = request.value(forHTTPHeaderField: name).map { $0 + "," } ?? ""
        request.setValue(existing + value, forHTTPHeaderField: name)
        return request
    }
}

struct AdapterFailure: Error, Equatable {
    let code: Int
}

extension ResourceService {
    /// The completion-handler fetch, awaited, with how many times the completion ran by the
    /// time the outcome arrived (and a little after).
    func fetchWithCompletion(_ resource: Resource) async -> Result<Resource.Model, ResourceError> {
        await withCheckedContinuation { continuation in
            fetch(resource, callbackQueue: DispatchQueue(label: "test.callback")) { result in
                continuation.resume(returning: result)
            }
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// A resource whose parsing sleeps for `parsing` seconds, then counts the bytes.
struct SlowlyParsedResource: NetworkResourceType, DataResourceType {
    let parsing: TimeInterval
    var url: URL { URL(string: "https://api.example.com/slow")! }

    func model(from data: Data) throws -> Int {
        Thread.sleep(forTimeInterval: parsing)
        return data.count
    }
}

/// Holds a parse until the test opens it (or ten minutes pass), and tells when a parse began.
final class ParseGate: @unchecked Sendable {
    private let go = DispatchSemaphore(value: 0)
    // `lock` guards `started`.
    private let lock = NSLock()
    private var started = false

    var hasStarted: Bool { lock.withLock { started } }

    func open() { go.signal() }

    func pass() {
        lock.withLock { started = true }
        _ = go.wait(timeout: .now() + 600)
    }
}

/// A resource whose parsing waits at its gate, then counts the bytes.
struct GatedParseResource: NetworkResourceType, DataResourceType {
    let gate: ParseGate
    var url: URL { URL(string: "https://api.example.com/gated")! }

    func model(from data: Data) throws -> Int {
        gate.pass()
        return data.count
    }
}

/// An adapter that ignores cancellation: it returns the request unchanged only once
/// ``release()`` is called.
final class ReleasedAdapter: RequestAdapter, @unchecked Sendable {
    // `lock` guards the fields below.
    private let lock = NSLock()
    private var started = false
    private var released = false
    private var waiter: CheckedContinuation<Void, Never>?

    var hasStarted: Bool { lock.withLock { started } }

    func release() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            released = true
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    func adapt(_ request: URLRequest) async throws -> URLRequest {
        await withCheckedContinuation { continuation in
            let isReleased = lock.withLock {
                started = true
                if !released { waiter = continuation }
                return released
            }
            if isReleased { continuation.resume() }
        }
        return request
    }
}

/// A monitor whose `fetchFinished` releases a ``ReleasedAdapter``, then watches the transport for
/// two seconds, and remembers whether a request reached it.
final class TransportWatcher: FetchMonitor, @unchecked Sendable {
    let adapter: ReleasedAdapter
    let session: FakeURLSession
    // `lock` guards `seen`.
    private let lock = NSLock()
    private var seen: Bool?

    init(adapter: ReleasedAdapter, session: FakeURLSession) {
        self.adapter = adapter
        self.session = session
    }

    /// `nil` until `fetchFinished` is done watching.
    var sawRequest: Bool? { lock.withLock { seen } }

    func fetchFinished(_ event: FetchEvent.Finished) {
        adapter.release()
        let giveUp = Date().addingTimeInterval(2)
        var sawRequest = false
        while !sawRequest, Date() < giveUp {
            sawRequest = !session.receivedRequests.isEmpty
            if !sawRequest { usleep(1_000) }
        }
        lock.withLock { seen = sawRequest }
    }
}

/// A resource that builds its own request, with a method that is not an HTTP token when
/// `invalidates` is set.
struct InvalidatingResource: NetworkResourceType, DataResourceType {
    let invalidates: Bool
    var url: URL { URL(string: "https://api.example.com/invalidating")! }

    func urlRequest() throws(ResourceError) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = invalidates ? "GET /admin" : "GET"
        return request
    }

    func model(from data: Data) throws -> Data { data }
}
