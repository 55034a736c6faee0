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
        // GIVEN a server that answers 401 with a challenge shortly after the request arrives
        let requestArrived = DispatchSemaphore(value: 0)
        let challenger = try LoopbackHTTPServer { _ in
            requestArrived.signal()
            return .status(401, headers: ["WWW-Authenticate": "Basic realm=\"r\""], body: Data("denied".utf8))
                .delayed(by: .milliseconds(300))
        }
        defer { challenger.stop() }
        let other = try LoopbackHTTPServer { _ in .status(200, body: Data("ok".utf8)) }
        defer { other.stop() }
        let transport = URLSessionTransport()
        let answer = AnswerBox()
        let handle = transport.data(for: URLRequest(url: challenger.baseURL), options: TransferOptions()) { answer.set($0) }
        try await offTheCooperativePool { _ = requestArrived.wait(timeout: .now() + 30) }

        // WHEN another transfer's receiver holds the work queue while the 401 arrives, and the
        // transfer is cancelled meanwhile (its cancel() then waits behind the 401's callbacks)
        let holder = QueueHolder()
        let holding = transport.startTransfer(URLRequest(url: other.baseURL), options: TransferOptions(), receiver: holder)
        try await offTheCooperativePool {
            _ = holder.isHolding.wait(timeout: .now() + 30)
            Thread.sleep(forTimeInterval: 0.8)
        }
        let answeredBeforeCancel = answer.value != nil
        Thread.detachNewThread { handle.cancel() }
        try await offTheCooperativePool { Thread.sleep(forTimeInterval: 0.2) }
        holder.release.signal()
        let result = await withTimeLimit { await answer.wait() }
        _ = holding

        // THEN the transfer ends as cancelled, not with the 401 as its answer
        #expect(!answeredBeforeCancel, "the 401 was answered before the work queue was held: the test proved nothing")
        #expect((result?.failure as? URLError)?.code == .cancelled, "got \(String(describing: result))")
    }
}

/// Holds the delegate's queue in ``transferDidReceive(head:)`` until ``release`` is signalled.
private final class QueueHolder: TransferReceiver, @unchecked Sendable {
    let isHolding = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func transferDidSend(_ sent: Int64, of expected: Int64?) {}
    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        isHolding.signal()
        _ = release.wait(timeout: .now() + 10)
        return .proceed
    }
    func transferDidReceive(_ chunk: Data) -> TransferDecision { .proceed }
    func transferDidReceive(codedByteCount: Int) {}
    func transferDidComplete(with error: (any Error)?) {}
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
