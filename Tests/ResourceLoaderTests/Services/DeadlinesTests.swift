import Foundation
import Testing

@testable import ResourceLoader

@Suite("Deadlines")
struct DeadlinesTests {
    /// Records when its deadline passed, in a log shared by several targets.
    final class Target: DeadlineExpiring, @unchecked Sendable {
        let name: Int
        let log: Locked<[Int]>
        var deadlineSlot = -1

        init(_ name: Int, log: Locked<[Int]>) {
            self.name = name
            self.log = log
        }

        func deadlinePassed() {
            log.withLock { $0.append(name) }
        }
    }

    /// Waits, up to 10 s, until `log` holds `count` entries.
    private func wait(for count: Int, in log: Locked<[Int]>) async throws {
        for _ in 0..<1_000 where log.withLock({ $0.count }) < count {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func deadlinesPassInTheirOrderWhateverTheOrderTheyWereScheduledIn() async throws {
        let deadlines = Deadlines()
        let log = Locked<[Int]>([])
        let targets = (0..<3).map { Target($0, log: log) }
        // Scheduled latest first: each new one is the earliest, so the timer is reprogrammed.
        // From one starting time, a second ahead, so that a pause between two calls on a loaded
        // machine changes neither their order nor whether the first passes before the last is set.
        let start = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
        deadlines.schedule(targets[2], atUptime: start + 200_000_000)
        deadlines.schedule(targets[1], atUptime: start + 100_000_000)
        deadlines.schedule(targets[0], atUptime: start)
        try await wait(for: 3, in: log)
        #expect(log.withLock { $0 } == [0, 1, 2])
        #expect(targets.allSatisfy { $0.deadlineSlot == -1 })
    }

    @Test func aCancelledDeadlineNeverPassesAndTheOthersStillDo() async throws {
        let deadlines = Deadlines()
        let log = Locked<[Int]>([])
        // Durations out of order, so that cancelling takes entries out of the heap's middle.
        let targets = (0..<64).map { Target($0, log: log) }
        // From one starting time: scheduling 64 of them can take longer than the 1 ms between
        // two durations (under the address sanitizer on a busy machine it did), and durations
        // counted from each call's own "now" would then not be in the order checked below. A
        // second ahead, so that none passes before it is scheduled or cancelled.
        let start = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
        for target in targets {
            deadlines.schedule(target, atUptime: start + UInt64(50 + (target.name * 37) % 200) * 1_000_000)
        }
        let cancelled = Set(targets.filter { $0.name % 3 == 0 }.map(\.name))
        for target in targets where cancelled.contains(target.name) {
            deadlines.cancel(target)
            #expect(target.deadlineSlot == -1)
        }
        // Cancelling twice, or after the deadline, does nothing.
        deadlines.cancel(targets[0])
        try await wait(for: targets.count - cancelled.count, in: log)
        try await Task.sleep(for: .milliseconds(100))
        let passed = log.withLock { $0 }
        #expect(Set(passed) == Set(targets.map(\.name)).subtracting(cancelled))
        #expect(passed.count == targets.count - cancelled.count)
        // In deadline order.
        #expect(passed.map { (50 + ($0 * 37) % 200) } == passed.map { (50 + ($0 * 37) % 200) }.sorted())
    }

    @Test func aDeadlineAlreadyDueOrFarAwayIsAccepted() async throws {
        let deadlines = Deadlines()
        let log = Locked<[Int]>([])
        let now = Target(0, log: log)
        let never = Target(1, log: log)
        deadlines.schedule(never, after: .seconds(Int64.max))
        deadlines.schedule(now, after: .zero)
        try await wait(for: 1, in: log)
        #expect(log.withLock { $0 } == [0])
        deadlines.cancel(never)
        #expect(never.deadlineSlot == -1)
    }

    @Test func aFinishedFetchIsNotKeptAliveByItsDeadline() {
        weak var released: PendingFetch<Int>?
        do {
            let pending = PendingFetch<Int>(callbackQueue: nil) { _ in }
            pending.startDeadline(.seconds(60))
            #expect(pending.deadlineSlot >= 0)
            pending.finish(.success(1))
            #expect(pending.deadlineSlot == -1)
            released = pending
        }
        #expect(released == nil)
    }

    @Test func aFetchFinishedLeavingItsDeadlineIsReleasedOnceTheDeadlineIsTakenOut() {
        // The async bridge finishes on the transport's thread and takes the deadline out on its own.
        weak var released: PendingFetch<Int>?
        do {
            let pending = PendingFetch<Int>(callbackQueue: nil) { _ in }
            pending.startDeadline(.seconds(60))
            #expect(pending.finishLeavingDeadline(.success(1)))
            #expect(pending.deadlineSlot >= 0)
            pending.cancelDeadline()
            #expect(pending.deadlineSlot == -1)
            released = pending
        }
        #expect(released == nil)
    }

    @Test func aDeadlineLeftBehindThatPassesDeliversNothingMore() async throws {
        // GIVEN a fetch finished with its deadline left scheduled
        let outcomes = Locked<[Result<Int, ResourceError>]>([])
        let pending = PendingFetch<Int>(callbackQueue: nil) { result in outcomes.withLock { $0.append(result) } }
        // (long enough that a machine loaded by a sanitizer run still finishes the fetch first)
        pending.startDeadline(.seconds(2))
        #expect(pending.finishLeavingDeadline(.success(1)))
        // WHEN the deadline passes before it is taken out (a later one, which passes after it,
        // tells when)
        let marker = Locked(false)
        let later = PendingFetch<Int>(callbackQueue: nil) { _ in marker.withLock { $0 = true } }
        later.startDeadline(.milliseconds(2_100))
        try await waitUntil { marker.withLock { $0 } }
        try await Task.sleep(for: .milliseconds(50))
        // THEN the one outcome is the answer, and taking the deadline out now does nothing
        pending.cancelDeadline()
        #expect(outcomes.withLock { $0.count } == 1)
        #expect(try outcomes.withLock { $0 }.first?.get() == 1)
    }
}
