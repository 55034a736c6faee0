import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

/// ``URLSessionTransport/data(for:options:completionHandler:)``'s cancellation against callbacks
/// FoundationNetworking has already queued, over loopback.
///
/// On Linux the transport's delegate callbacks run on FoundationNetworking's work queue, which
/// every session in the process shares, and a task's `cancel()` waits for that queue. A receiver
/// that holds the queue lets a test put a response's callbacks ahead of a cancellation.
@Suite("URLSessionTransport: cancellation against queued callbacks")
struct URLSessionTransportCancellationTests {
    @Test func aChallengeThatArrivesAfterCancelEndsAsCancelled() async throws {
        // GIVEN a server that answers 401 with a challenge once another transfer's receiver
        // holds the work queue
        let requestArrived = DispatchSemaphore(value: 0)
        let holder = QueueHolder()
        let challenger = try LoopbackHTTPServer { _ in
            requestArrived.signal()
            _ = holder.isHolding.wait(timeout: .now() + 30)
            return .status(401, headers: ["WWW-Authenticate": "Basic realm=\"r\""], body: Data("denied".utf8))
        }
        defer { challenger.stop() }
        let other = try LoopbackHTTPServer { _ in .status(200, body: Data("ok".utf8)) }
        defer { other.stop() }
        let transport = URLSessionTransport()
        let answer = AnswerBox()
        let handle = transport.data(for: URLRequest(url: challenger.baseURL), options: TransferOptions()) { answer.set($0) }
        try await offTheCooperativePool { _ = requestArrived.wait(timeout: .now() + 30) }

        // WHEN another transfer's receiver holds the work queue while the 401 arrives, and the
        // transfer is cancelled meanwhile (its cancel() then waits behind the 401's callbacks).
        // All of it runs on threads of its own: a task of Swift's cooperative pool may be
        // waiting for the held queue.
        let answeredBeforeCancel = AnswerFlag()
        holder.whileHolding = {
            Thread.sleep(forTimeInterval: 0.5)
            answeredBeforeCancel.set(answer.value != nil)
            Thread.detachNewThread { handle.cancel() }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let holding = transport.startTransfer(URLRequest(url: other.baseURL), options: TransferOptions(), receiver: holder)
        let result = await withTimeLimit { await answer.wait() }
        _ = holding

        // THEN the transfer ends as cancelled, not with the 401 as its answer
        #expect(!answeredBeforeCancel.value, "the 401 was answered before the work queue was held: the test proved nothing")
        #expect((result?.failure as? URLError)?.code == .cancelled, "got \(String(describing: result))")
    }

    @Test func cancelReturnsWhileAnotherTransfersReceiverHoldsTheWorkQueue() async throws {
        // GIVEN a transfer in flight to a server that has not answered yet
        let release = DispatchSemaphore(value: 0)
        let requestArrived = DispatchSemaphore(value: 0)
        let slow = try LoopbackHTTPServer { _ in
            requestArrived.signal()
            _ = release.wait(timeout: .now() + 30)
            return .status(200, body: Data("late".utf8))
        }
        defer { slow.stop() }
        defer { release.signal() }
        let other = try LoopbackHTTPServer { _ in .status(200, body: Data("ok".utf8)) }
        defer { other.stop() }
        let transport = URLSessionTransport()
        let answer = AnswerBox()
        let handle = transport.data(for: URLRequest(url: slow.baseURL), options: TransferOptions()) { answer.set($0) }
        try await offTheCooperativePool { _ = requestArrived.wait(timeout: .now() + 30) }

        // WHEN another transfer's receiver holds the work queue, and the first transfer is
        // cancelled meanwhile, on threads of their own
        let returnedWhileHeld = AnswerFlag()
        let holder = QueueHolder()
        holder.whileHolding = {
            let returned = AnswerFlag()
            Thread.detachNewThread {
                handle.cancel()
                returned.set(true)
            }
            Thread.sleep(forTimeInterval: 0.5)
            returnedWhileHeld.set(returned.value)
        }
        let holding = transport.startTransfer(URLRequest(url: other.baseURL), options: TransferOptions(), receiver: holder)
        let result = await withTimeLimit { await answer.wait() }
        _ = holding

        // THEN cancel() returned without waiting for the queue (so a fetch's cancellation and
        // deadline do not wait for it either), and the transfer ends as cancelled
        #expect(returnedWhileHeld.value, "cancel() waited for the work queue")
        #expect((result?.failure as? URLError)?.code == .cancelled, "got \(String(describing: result))")
    }
}

/// Holds the delegate's queue in ``transferDidReceive(head:)`` while ``whileHolding`` runs on a
/// thread of its own.
private final class QueueHolder: TransferReceiver, @unchecked Sendable {
    /// Signalled once the holding starts.
    let isHolding = DispatchSemaphore(value: 0)
    /// Set before the transfer starts.
    var whileHolding: @Sendable () -> Void = {}

    func transferDidSend(_ sent: Int64, of expected: Int64?) {}
    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        isHolding.signal()
        let release = DispatchSemaphore(value: 0)
        let action = whileHolding
        Thread.detachNewThread {
            action()
            release.signal()
        }
        _ = release.wait(timeout: .now() + 30)
        return .proceed
    }
    func transferDidReceive(_ chunk: Data) -> TransferDecision { .proceed }
    func transferDidReceive(codedByteCount: Int) {}
    func transferDidComplete(with error: (any Error)?) {}
}

/// A flag set from another thread.
private final class AnswerFlag: @unchecked Sendable {
    // `lock` guards `flag`.
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
    func set(_ value: Bool) { lock.lock(); flag = value; lock.unlock() }
}

/// The answer of a completion handler, awaited once.
private final class AnswerBox: @unchecked Sendable {
    // `lock` guards `answer` and `waiter`.
    private let lock = NSLock()
    private var answer: Result<(Data, URLResponse), any Error>?
    private var waiter: CheckedContinuation<Result<(Data, URLResponse), any Error>, Never>?

    var value: Result<(Data, URLResponse), any Error>? { lock.lock(); defer { lock.unlock() }; return answer }

    func set(_ result: Result<(Data, URLResponse), any Error>) {
        lock.lock()
        guard answer == nil else { lock.unlock(); return }
        answer = result
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: result)
    }

    func wait() async -> Result<(Data, URLResponse), any Error> {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let answer {
                lock.unlock()
                continuation.resume(returning: answer)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
#endif
