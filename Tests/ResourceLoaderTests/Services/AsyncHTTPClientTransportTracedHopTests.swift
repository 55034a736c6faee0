#if AsyncHTTPClient
import Dispatch
import Foundation
import ResourceLoader
import ResourceLoaderAsyncHTTPClient
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client that traces sends each hop from a Swift task (AsyncHTTPClient's async API); that task
/// prefers the client's event loop as its executor, and the request body goes out without a task of
/// AsyncHTTPClient's own, so a hop runs while synchronous work holds every thread of Swift's
/// cooperative pool, as the delegate API's hops do. So does a hop whose body is a stream, traced or
/// not: the stream's task prefers a serial queue of its own.
@Suite("AsyncHTTPClientTransport: traced hops run on the event loop", .serialized)
struct AsyncHTTPClientTransportTracedHopTests {
    /// The requests the test sends: one without a body, one with, and one whose body a 307 sends
    /// again to another location.
    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        case get, post, postRedirectedWith307, postStream
        var testDescription: String { rawValue }
    }

    /// Whether `traced`, the transport traces.
    static let cases: [(Shape, Bool)] = Shape.allCases.map { ($0, true) } + [(.postStream, false)]

    @Test(arguments: cases)
    func aHopAnswersWhileEveryThreadOfTheCooperativePoolIsHeld(shape: Shape, traced: Bool) async throws {
        // GIVEN a server and a transport whose client traces
        let bodies = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/final" else { return .status(307, headers: ["Location": "/final"]) }
            bodies.append(String(decoding: request.body, as: UTF8.self))
            return .json(#"{"a":"b"}"#)
        }
        defer { server.stop() }
        let transport = traced
            ? AsyncHTTPClientTransport(configuration: TransportUnderTest.tracingConfiguration) : AsyncHTTPClientTransport()
        var request = URLRequest(url: server.baseURL.appendingPathComponent(shape == .postRedirectedWith307 ? "start" : "final"))
        switch shape {
        case .get:
            break
        case .post, .postRedirectedWith307:
            request.httpMethod = "POST"
            request.httpBody = Data("<Envelope/>".utf8)
        case .postStream:
            // A stream's sequence runs in a task of its own, which must not wait for the pool.
            request.httpMethod = "POST"
            let chunks = AsyncStream<Data> { continuation in
                for piece in ["<Enve", "lope", "/>"] { continuation.yield(Data(piece.utf8)) }
                continuation.finish()
            }
            request.setBody(.stream(RequestBodyStream(chunks)))
        }
        let sent = request

        // WHEN busy tasks hold every thread of the pool until the transport has answered (or 20
        // seconds have passed: a hop waiting for the pool would answer only once they let go).
        // Other tests' work may keep a thread when the hold starts, and then the pool is not held
        // throughout: the hold is tried again, up to three times.
        var run: (held: Bool, value: Result<(Data, URLResponse), any Error>?)?
        var answers = Answers()
        for _ in 0..<3 where run?.held != true {
            answers = Answers()
            run = try await offTheCooperativePool { [answers] in
                CooperativePoolHold.whileHeld {
                    _ = transport.data(for: sent, options: TransferOptions()) { answers.record($0) }
                    return answers.first(within: .seconds(20))
                }
            }
        }

        // THEN the pool was held throughout, and the transport answered meanwhile
        let held = try #require(run)
        try #require(held.held, "the test could not hold every thread of the pool")
        let answer = try #require(held.value, "no answer while the pool was held")
        #expect(try answer.get().0 == Data(#"{"a":"b"}"#.utf8))
        #expect(bodies.values == [shape == .get ? "" : "<Envelope/>"])
        // AND only once (a second answer would follow the first at once)
        try await Task.sleep(for: .milliseconds(100))
        #expect(answers.count == 1)
        try await transport.shutdown()
    }
}

/// Holds every thread of Swift's cooperative pool with tasks that keep their thread busy until
/// released, as CPU-heavy synchronous work does.
enum CooperativePoolHold {
    /// Calls `body` while tasks hold every thread of the cooperative pool, and returns whether
    /// the pool was held throughout, and what `body` returned.
    ///
    /// Call it from a thread that is not the pool's (``offTheCooperativePool(_:)``). It starts
    /// holding tasks one by one until a task started after them cannot run (the pool's width is
    /// the number of cores on Linux and Apple platforms; it looks rather than assumes). That probe
    /// task stays queued while the pool is held, so it also tells, after `body`, whether the pool
    /// was held throughout. The holding tasks spin rather than wait, so that no thread of the pool
    /// looks blocked (Dispatch may add a thread beside blocked ones), and let go when `body`
    /// returns, or after two minutes whatever happens.
    static func whileHeld<Value>(_ body: () -> Value) -> (held: Bool, value: Value) {
        let release = Flag()
        defer { release.set() }
        var holders = 0
        var probe: DispatchSemaphore?
        while probe == nil, holders < 64 {
            let started = DispatchSemaphore(value: 0)
            Task.detached { hold(signalling: started, until: release) }
            holders += 1
            // Other tests' work may hold a thread for a while; a holder that cannot start within
            // a minute finds the pool held.
            guard started.wait(timeout: .now() + 60) == .success else { break }
            // A task started now runs at once unless the pool is held (or another test's work
            // holds a thread for longer than this; the check after `body` finds that out).
            let candidate = DispatchSemaphore(value: 0)
            Task.detached { candidate.signal() }
            if candidate.wait(timeout: .now() + 1.5) == .timedOut { probe = candidate }
        }
        let value = body()
        guard let probe else { return (false, value) }
        return (probe.wait(timeout: .now()) == .timedOut, value)
    }

    /// Tells `started`, then keeps the calling thread busy until `release` is set.
    private static func hold(signalling started: DispatchSemaphore, until release: Flag) {
        started.signal()
        let end = ContinuousClock.now + .seconds(120)
        while !release.isSet, ContinuousClock.now < end {}
    }

    /// A flag set once, read from any thread.
    private final class Flag: @unchecked Sendable {
        // `lock` guards `value`.
        private let lock = NSLock()
        private var value = false

        func set() {
            lock.withLock { value = true }
        }

        var isSet: Bool {
            lock.withLock { value }
        }
    }
}

/// The answers a transport gives to one request, from any thread.
final class Answers: @unchecked Sendable {
    // `lock` guards `answers`.
    private let lock = NSLock()
    private var answers: [Result<(Data, URLResponse), any Error>] = []
    private let arrived = DispatchSemaphore(value: 0)

    /// Records `answer`.
    func record(_ answer: Result<(Data, URLResponse), any Error>) {
        lock.withLock { answers.append(answer) }
        arrived.signal()
    }

    /// The first answer, waiting for it for at most `limit` (blocks the calling thread).
    func first(within limit: Duration) -> Result<(Data, URLResponse), any Error>? {
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard arrived.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return nil }
        arrived.signal()
        return lock.withLock { answers.first }
    }

    /// How many answers arrived.
    var count: Int {
        lock.withLock { answers.count }
    }
}
#endif
