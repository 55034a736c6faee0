import Foundation

/// A clock that stands still until a test moves it, so that tests can assert durations, waits
/// and expiry without sleeping.
///
/// Give it to a `ResourcePipeline` and advance it from the test, from an adapter or from a
/// transport; the durations the pipeline's monitors see are the advances made in between, and a
/// credential expires when the clock passes its date:
///
/// ```swift
/// let clock = ManualClock()
/// let pipeline = ResourcePipeline(session: session, monitors: [recorder], clock: clock)
/// clock.advance(by: .milliseconds(250))
/// ```
///
/// ``sleep(until:tolerance:)`` suspends until ``advance(by:)`` reaches the deadline, or throws
/// `CancellationError` when the sleeping task is cancelled. To test a retry schedule, let the
/// fetch run in a task and move the clock to each wait as it begins with
/// ``advanceToNextSleeper()``, which returns how long the wait was:
///
/// ```swift
/// let fetch = Task { try await service.fetch(Cities()) }
/// #expect(await clock.advanceToNextSleeper() == .milliseconds(500))
/// let cities = try await fetch.value
/// ```
public final class ManualClock: Clock, @unchecked Sendable {
    /// A reading of a ``ManualClock``: the time advanced since the clock was made.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock was made.
        public let offset: Duration

        /// Creates an instant `offset` after the clock was made.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Tasks waiting in ``waitForSleepers(count:)``, resumed whenever a sleeper arrives.
        var sleeperWatchers: [CheckedContinuation<Void, Never>] = []
    }

    // `lock` guards `state`.
    private let lock = NSLock()
    private var state = State()

    /// Creates a clock that reads zero.
    public init() {}

    /// The current reading: the sum of every ``advance(by:)`` so far.
    public var now: Instant {
        withState { $0.now }
    }

    /// Zero: the clock moves only by what it is advanced.
    public var minimumResolution: Duration { .zero }

    /// Moves the clock forward by `duration` and wakes the sleepers whose deadline it reached.
    public func advance(by duration: Duration) {
        let woken = withState { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Suspends until the clock has been advanced to `deadline`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = withState { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (ready, watchers) = withState { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    defer { state.sleeperWatchers = [] }
                    return (false, state.sleeperWatchers)
                }
                if ready { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = withState { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int {
        withState { $0.sleepers.count }
    }

    /// Suspends until at least `count` tasks are sleeping on the clock.
    ///
    /// Use it to wait until the code under test has reached a wait (a retry's backoff, say)
    /// before moving the clock. It waits as long as it takes: bound the test with a time limit.
    public func waitForSleepers(count: Int = 1) async {
        while withState({ $0.sleepers.count < count }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = withState { state -> Bool in
                    if state.sleepers.count >= count { return true }
                    state.sleeperWatchers.append(continuation)
                    return false
                }
                if satisfied { continuation.resume() }
            }
        }
    }

    /// Waits until a task sleeps on the clock, then advances the clock to the earliest wake-up
    /// and returns how far it moved: the length of the wait, measured from the current reading.
    @discardableResult
    public func advanceToNextSleeper() async -> Duration {
        while true {
            await waitForSleepers(count: 1)
            let step = withState { state -> Duration? in
                state.sleepers.map(\.deadline).min().map { state.now.duration(to: $0) }
            }
            // A sleeper cancelled in between is gone: wait for the next one.
            guard let step else { continue }
            advance(by: max(step, .zero))
            return step
        }
    }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
