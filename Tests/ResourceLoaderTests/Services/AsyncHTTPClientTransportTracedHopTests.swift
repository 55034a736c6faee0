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
/// prefers the client's event loop as its executor, so it runs while synchronous work holds every
/// thread of Swift's cooperative pool, as the delegate API's hops do.
@Suite("AsyncHTTPClientTransport: traced hops run on the event loop")
struct AsyncHTTPClientTransportTracedHopTests {
    @Test func aTracedHopAnswersWhileEveryThreadOfTheCooperativePoolIsHeld() async throws {
        // GIVEN a server and a transport whose client traces
        let server = try LoopbackHTTPServer { _ in .json(#"{"a":"b"}"#) }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: TransportUnderTest.tracingConfiguration)
        let request = URLRequest(url: server.baseURL)

        // WHEN busy tasks hold every thread of the pool until the transport has answered (or 20
        // seconds have passed: a hop waiting for the pool would answer only once they let go).
        // Other tests' work may keep a thread busy when the hold starts: the hold then lets go at
        // once and is tried again a little later, up to ten times.
        var run: (held: Bool, value: Result<(Data, URLResponse), any Error>??) = (false, nil)
        var answers = Answers()
        for attempt in 0..<10 where !run.held {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(500)) }
            answers = Answers()
            run = try await offTheCooperativePool { [answers] in
                CooperativePoolHold.whileHeld {
                    _ = transport.data(for: request, options: TransferOptions()) { answers.record($0) }
                    return answers.first(within: .seconds(20))
                }
            }
        }

        // THEN the pool was held throughout, and the transport answered meanwhile
        try #require(run.held, "the test could not hold every thread of the pool")
        let answer = try #require(run.value ?? nil, "no answer while the pool was held")
        #expect(try answer.get().0 == Data(#"{"a":"b"}"#.utf8))
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
    /// the pool was held throughout, and what `body` returned (`nil` if the pool could not be
    /// held, and `body` was not called).
    ///
    /// Call it from a thread that is not the pool's (``offTheCooperativePool(_:)``). It starts
    /// holding tasks one by one until a task started after them cannot run at once (the pool's
    /// width is the number of cores on Linux and Apple platforms; it looks rather than assumes).
    /// That probe task, of high priority, stays queued ahead of any task of lower or equal priority
    /// while no thread of the pool is free, so it tells, after `body`, whether one was free at any
    /// time meanwhile (whoever held it). A holding task that cannot start at once finds a thread
    /// busy with other work; then the hold lets go rather than keep part of the pool from the
    /// other tests, and returns `false`. The holding tasks spin rather than wait, so that no thread
    /// of the pool looks blocked (Dispatch may add a thread beside blocked ones), and let go when
    /// `body` returns.
    static func whileHeld<Value>(_ body: () -> Value) -> (held: Bool, value: Value?) {
        let release = Flag()
        defer { release.set() }
        var probe: DispatchSemaphore?
        for _ in 0..<64 where probe == nil {
            let started = DispatchSemaphore(value: 0)
            // (High priority: ahead of the tasks other tests have queued.)
            Task.detached(priority: .high) { hold(signalling: started, until: release) }
            guard started.wait(timeout: .now() + 2) == .success else { return (false, nil) }
            let candidate = DispatchSemaphore(value: 0)
            Task.detached(priority: .high) { candidate.signal() }
            if candidate.wait(timeout: .now() + 0.1) == .timedOut { probe = candidate }
        }
        guard let probe else { return (false, nil) }
        let value = body()
        return (probe.wait(timeout: .now()) == .timedOut, value)
    }

    /// Tells `started`, then keeps the calling thread busy until `release` is set.
    private static func hold(signalling started: DispatchSemaphore, until release: Flag) {
        started.signal()
        // (Two minutes at most, whatever happens.)
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
