import Foundation
import Testing

@testable import ResourceLoader

@Suite("PendingFetch")
struct PendingFetchTests {
    /// A transfer handle that counts its cancellations.
    final class Transfer: Cancellable, @unchecked Sendable {
        let cancels = Counter()
        func cancel() { cancels.increment() }
    }

    /// What the completion saw: the outcome, and how often the transfer had been cancelled then.
    typealias Delivery = (result: Result<Int, ResourceError>, cancelsSeen: Int)

    /// A fetch without a callback queue, whose completion records into `deliveries`.
    private func makeFetch(recordingInto deliveries: Locked<[Delivery]>, transfer: Transfer) -> PendingFetch<Int> {
        PendingFetch<Int>(callbackQueue: nil) { result in
            deliveries.withLock { $0.append((result, transfer.cancels.value)) }
        }
    }

    @Test func cancellingStopsTheTransferBeforeTheOutcomeIsDelivered() {
        let deliveries = Locked<[Delivery]>([])
        let transfer = Transfer()
        let fetch = makeFetch(recordingInto: deliveries, transfer: transfer)
        let number = fetch.beginTransfer()
        fetch.attach(transfer, number: number)
        fetch.cancel()
        fetch.cancel()
        let seen = deliveries.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.result.failure?.caseName == "cancelled")
        #expect(seen.first?.cancelsSeen == 1)
        #expect(transfer.cancels.value == 1)
    }

    @Test func aCancellationWhileTheTransferStartsWaitsForItToBeAttachedAndCancelled() {
        let deliveries = Locked<[Delivery]>([])
        let transfer = Transfer()
        let fetch = makeFetch(recordingInto: deliveries, transfer: transfer)
        let number = fetch.beginTransfer()
        fetch.cancel()
        #expect(fetch.isFinished)
        #expect(deliveries.withLock { $0.isEmpty })
        // A late answer from the transfer does not take the outcome's place.
        #expect(!fetch.finish(.success(1)))
        fetch.attach(transfer, number: number)
        let seen = deliveries.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.result.failure?.caseName == "cancelled")
        #expect(seen.first?.cancelsSeen == 1)
    }

    @Test func anAnswerWhileTheTransferStartsIsDeliveredAtOnce() {
        let deliveries = Locked<[Delivery]>([])
        let transfer = Transfer()
        let fetch = makeFetch(recordingInto: deliveries, transfer: transfer)
        let number = fetch.beginTransfer()
        #expect(fetch.finish(.success(7)))
        #expect(deliveries.withLock { $0.map { try? $0.result.get() } } == [7])
        fetch.cancel()
        fetch.attach(transfer, number: number)
        #expect(deliveries.withLock { $0.count } == 1)
        #expect(transfer.cancels.value <= 1)
    }

    @Test func aCompletionGivenLaterStillWaitsForTheTransferItsOutcomeStopped() {
        let deliveries = Locked<[Delivery]>([])
        let transfer = Transfer()
        let fetch = PendingFetch<Int>(callbackQueue: nil)
        let number = fetch.beginTransfer()
        fetch.cancel()
        fetch.whenFinished { result in deliveries.withLock { $0.append((result, transfer.cancels.value)) } }
        #expect(deliveries.withLock { $0.isEmpty })
        fetch.attach(transfer, number: number)
        let seen = deliveries.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.cancelsSeen == 1)
    }

    /// A transport that answers before `startTransfer` returns: the next transfer, begun from
    /// that answer, is attached before the first, and cancelling stops it, not the first.
    @Test func aTransferAttachedAfterALaterOneLeavesTheLaterOneToCancel() {
        let deliveries = Locked<[Delivery]>([])
        let first = Transfer()
        let second = Transfer()
        let fetch = makeFetch(recordingInto: deliveries, transfer: second)
        let firstNumber = fetch.beginTransfer()
        let secondNumber = fetch.beginTransfer()
        fetch.attach(second, number: secondNumber)
        fetch.attach(first, number: firstNumber)
        fetch.cancel()
        let seen = deliveries.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.result.failure?.caseName == "cancelled")
        #expect(seen.first?.cancelsSeen == 1)
        #expect(second.cancels.value == 1)
        #expect(first.cancels.value == 0)
    }

    @Test func anOutcomeBeforeTheCompletionWaitsForIt() {
        let pending = PendingFetch<Int>(callbackQueue: nil)
        pending.cancel()
        let received = Locked<[Result<Int, ResourceError>]>([])
        pending.whenFinished { result in received.withLock { $0.append(result) } }
        pending.finish(.success(1))
        #expect(received.withLock { $0.count } == 1)
        #expect(received.withLock { $0.first?.failure?.caseName } == "cancelled")
    }
}
