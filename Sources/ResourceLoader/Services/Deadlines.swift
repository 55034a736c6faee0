import Foundation

/// Something that fails when its deadline passes.
protocol DeadlineExpiring: AnyObject, Sendable {
    /// Where the deadline sits in ``Deadlines``' heap, `-1` when it is not scheduled. Read and
    /// written only by ``Deadlines``, under its lock; conforming types store it and nothing more.
    var deadlineSlot: Int { get set }

    /// Called once, on the deadlines' queue, when the deadline has passed before
    /// ``Deadlines/cancel(_:)`` was called.
    func deadlinePassed()
}

/// One timer for the deadlines of every fetch in flight.
///
/// Arming a `DispatchWorkItem` with `asyncAfter` for each request creates a dispatch timer
/// source per request, wakes the dispatch manager thread to program it, and fires it even after
/// the fetch has finished. Here the deadlines sit in a binary min-heap under one lock, a finished
/// fetch takes its entry out at once (so nothing outlives its fetch), and the one timer source is
/// reprogrammed only when the earliest deadline moves earlier: rarely, since fetches mostly share
/// one deadline duration and so arrive in deadline order.
final class Deadlines: @unchecked Sendable {
    /// The deadlines of every ``ResourceService`` fetch.
    static let shared = Deadlines()

    /// A scheduled deadline.
    private struct Entry {
        let deadline: UInt64
        let target: any DeadlineExpiring
    }

    /// The heap and what the timer is programmed for. Its methods expect the lock held.
    private struct State {
        var heap: [Entry] = []
        /// The uptime, in nanoseconds, the timer source is programmed for; `UInt64.max` when
        /// nothing is due.
        var armedFor = UInt64.max

        mutating func insert(_ entry: Entry) {
            entry.target.deadlineSlot = heap.count
            heap.append(entry)
            siftUp(heap.count - 1)
        }

        mutating func remove(at index: Int) -> Entry {
            let removed = heap[index]
            removed.target.deadlineSlot = -1
            let last = heap.removeLast()
            if index < heap.count {
                heap[index] = last
                last.target.deadlineSlot = index
                siftDown(index)
                siftUp(index)
            }
            return removed
        }

        private mutating func siftUp(_ start: Int) {
            var child = start
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].deadline < heap[parent].deadline else { return }
                swapEntries(child, parent)
                child = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                let right = left + 1
                let smaller = right < heap.count && heap[right].deadline < heap[left].deadline ? right : left
                guard heap[smaller].deadline < heap[parent].deadline else { return }
                swapEntries(smaller, parent)
                parent = smaller
            }
        }

        private mutating func swapEntries(_ a: Int, _ b: Int) {
            heap.swapAt(a, b)
            heap[a].target.deadlineSlot = a
            heap[b].target.deadlineSlot = b
        }
    }

    private let state = Locked(State())
    // A dispatch source may be programmed from any thread; `timer` itself never changes.
    private let timer: any DispatchSourceTimer

    init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ResourceLoader.deadlines"))
        timer.setEventHandler { [weak self] in self?.fireDueEntries() }
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Calls `target.deadlinePassed()` once `duration` has passed, unless ``cancel(_:)`` is
    /// called first.
    func schedule(_ target: any DeadlineExpiring, after duration: Duration) {
        schedule(target, atUptime: Self.uptime(after: duration))
    }

    /// Calls `target.deadlinePassed()` once the system's uptime reaches `deadline` (in
    /// nanoseconds, as `DispatchTime.uptimeNanoseconds`), unless ``cancel(_:)`` is called first.
    func schedule(_ target: any DeadlineExpiring, atUptime deadline: UInt64) {
        state.withLock { state in
            state.insert(Entry(deadline: deadline, target: target))
            // Programmed under the lock, so that a concurrent handler cannot program a later time
            // over it.
            if deadline < state.armedFor {
                state.armedFor = deadline
                program(for: deadline)
            }
        }
    }

    /// Forgets `target`'s deadline. Does nothing if it has passed or was never scheduled.
    func cancel(_ target: any DeadlineExpiring) {
        // The timer stays programmed: if it fires with nothing due, it reprograms itself for the
        // earliest deadline left.
        state.withLock { state in
            let slot = target.deadlineSlot
            if slot >= 0, slot < state.heap.count, state.heap[slot].target === target {
                _ = state.remove(at: slot)
            }
        }
    }

    /// The timer's handler: takes the due entries out under the lock, then expires them.
    private func fireDueEntries() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [any DeadlineExpiring] in
            var due: [any DeadlineExpiring] = []
            while let first = state.heap.first, first.deadline <= now {
                due.append(state.remove(at: 0).target)
            }
            state.armedFor = state.heap.first?.deadline ?? .max
            if state.armedFor != .max { program(for: state.armedFor) }
            return due
        }
        for target in due { target.deadlinePassed() }
    }

    private func program(for uptime: UInt64) {
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: uptime), leeway: .milliseconds(1))
    }

    /// The uptime in nanoseconds `duration` from now, saturating far in the future.
    private static func uptime(after duration: Duration) -> UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return now }
        let whole = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let total = whole.partialValue.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        let deadline = now.addingReportingOverflow(total.partialValue)
        // `DispatchTime` treats `UInt64.max` as "forever"; stay just below it.
        guard !whole.overflow, !total.overflow, !deadline.overflow else { return .max - 1 }
        return min(deadline.partialValue, .max - 1)
    }
}
