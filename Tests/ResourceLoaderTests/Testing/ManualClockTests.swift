import Foundation
import ResourceLoaderTesting
import Testing

@Suite("ManualClock")
struct ManualClockTests {
    @Test func standsStillUntilAdvanced() {
        let clock = ManualClock()
        let start = clock.now
        #expect(start.offset == .zero)
        #expect(clock.now == start)
        clock.advance(by: .seconds(3))
        clock.advance(by: .milliseconds(500))
        #expect(start.duration(to: clock.now) == .milliseconds(3500))
        #expect(start < clock.now)
        #expect(clock.minimumResolution == .zero)
    }

    @Test func sleepersWakeWhenTheClockReachesTheirDeadline() async throws {
        let clock = ManualClock()
        let woke = Counter()
        let sleeper = Task {
            try await clock.sleep(for: .seconds(10))
            woke.increment()
        }
        // The sleeper has not run yet, or is waiting: either way, 9 seconds do not wake it.
        try await Task.sleep(for: .milliseconds(50))
        clock.advance(by: .seconds(9))
        try await Task.sleep(for: .milliseconds(50))
        #expect(woke.value == 0)
        clock.advance(by: .seconds(1))
        await withTimeLimit { try? await sleeper.value }
        #expect(woke.value == 1)
    }

    @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(4)), tolerance: nil)
    }

    @Test func cancellingASleeperThrows() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        sleeper.cancel()
        let outcome = await withTimeLimit { await sleeper.result }
        #expect(throws: CancellationError.self) { try outcome?.get() }
    }

    @Test func waitForSleepersReturnsOnceEnoughTasksSleep() async throws {
        let clock = ManualClock()
        #expect(clock.sleeperCount == 0)
        let first = Task { try await clock.sleep(for: .seconds(5)) }
        let second = Task { try await clock.sleep(for: .seconds(2)) }
        await withTimeLimit { await clock.waitForSleepers(count: 2) }
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(5))
        await withTimeLimit { _ = try? await (first.value, second.value) }
        #expect(clock.sleeperCount == 0)
    }

    @Test func advanceToNextSleeperMovesToTheEarliestWakeUpAndSaysHowFar() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(1))
        let late = Task { try await clock.sleep(for: .seconds(9)) }
        let early = Task { try await clock.sleep(for: .seconds(4)) }
        await withTimeLimit { await clock.waitForSleepers(count: 2) }

        let firstStep = await clock.advanceToNextSleeper()
        await withTimeLimit { try? await early.value }
        #expect(firstStep == .seconds(4))
        #expect(clock.now.offset == .seconds(5))
        #expect(clock.sleeperCount == 1)

        let secondStep = await clock.advanceToNextSleeper()
        await withTimeLimit { try? await late.value }
        #expect(secondStep == .seconds(5))
        #expect(clock.now.offset == .seconds(10))
    }

    @Test func advanceToNextSleeperWaitsForASleeperToArrive() async throws {
        let clock = ManualClock()
        let step = Task { await clock.advanceToNextSleeper() }
        let sleeper = Task { try await clock.sleep(for: .milliseconds(750)) }
        let moved = await withTimeLimit { await step.value }
        await withTimeLimit { try? await sleeper.value }
        #expect(moved == .milliseconds(750))
    }
}
