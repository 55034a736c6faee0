#if AsyncHTTPClient
import Foundation
import NIOCore

extension AsyncHTTPClientTransport {
    /// The idle timeouts of a transport's transfers, checked by one scheduled task for all of
    /// them rather than one per transfer.
    ///
    /// A task scheduled on an event loop from another thread costs a hand-off to the loop, and
    /// cancelling it searches the loop's queue of scheduled tasks, which holds one task per
    /// request in flight: at high concurrency that is a measurable share of a request's CPU.
    /// Here a transfer costs an insertion and a removal in a dictionary. The one task runs at the
    /// earliest moment a watched transfer could time out, fails the transfers idle for their whole
    /// timeout, and schedules itself again for the next such moment; a transfer that could time
    /// out earlier than that schedules another. So a timeout fires when it would have with a task
    /// of its own, and the task is scheduled about once per idle timeout (60 seconds by default)
    /// while requests keep ending before theirs.
    final class IdleTimeouts: @unchecked Sendable {
        /// Where the check runs.
        private let eventLoopGroup: any EventLoopGroup
        // `lock` guards `transfers` and `nextCheck`.
        private let lock = NSLock()
        /// The transfers in flight that have an idle timeout.
        private var transfers: [ObjectIdentifier: Transfer] = [:]
        /// When the earliest scheduled check runs; `nil` while none is.
        private var nextCheck: NIODeadline?

        init(eventLoopGroup: any EventLoopGroup) {
            self.eventLoopGroup = eventLoopGroup
        }

        /// Watches `transfer`, which times out at `deadline` unless a byte arrives first, until
        /// ``stopWatching(_:)``.
        func watch(_ transfer: Transfer, until deadline: NIODeadline) {
            let schedules = lock.withLock {
                transfers[ObjectIdentifier(transfer)] = transfer
                guard nextCheck.map({ deadline < $0 }) ?? true else { return false }
                nextCheck = deadline
                return true
            }
            if schedules { scheduleCheck(at: deadline) }
        }

        /// Stops watching `transfer`, which has finished.
        func stopWatching(_ transfer: Transfer) {
            lock.withLock { _ = transfers.removeValue(forKey: ObjectIdentifier(transfer)) }
        }

        private func scheduleCheck(at deadline: NIODeadline) {
            // Weak: a check still pending does not keep a released transport's watch alive.
            eventLoopGroup.any().scheduleTask(deadline: deadline) { [weak self] in self?.check(scheduledFor: deadline) }
        }

        /// Fails the transfers idle for their whole timeout, and schedules the next check.
        private func check(scheduledFor deadline: NIODeadline) {
            let now = NIODeadline.now()
            // The lock is held across the scan, so that a transfer watched meanwhile either is
            // scanned or finds `nextCheck` set by it. (A transfer's own lock is taken inside this
            // one, never the other way round: a transfer stops being watched after releasing its.)
            let (expired, next) = lock.withLock { () -> ([Transfer], NIODeadline?) in
                if nextCheck == deadline || nextCheck.map({ $0 <= now }) == true { nextCheck = nil }
                var expired: [Transfer] = []
                var next: NIODeadline?
                for transfer in transfers.values {
                    // A transfer that has just finished is about to stop being watched.
                    guard let due = transfer.idleDeadline() else { continue }
                    if due <= now {
                        expired.append(transfer)
                    } else if next.map({ due < $0 }) ?? true {
                        next = due
                    }
                }
                // A check that a transfer watched since scheduled, no later than `next`, stays
                // the next one; otherwise this one schedules it.
                if let pending = nextCheck, next.map({ pending <= $0 }) ?? true { return (expired, nil) }
                nextCheck = next
                return (expired, next)
            }
            if let next { scheduleCheck(at: next) }
            for transfer in expired {
                // One that received a byte since the scan is watched until its new deadline.
                if let due = transfer.timeOutIfIdle(at: now) { watch(transfer, until: due) }
            }
        }
    }
}
#endif
