// The code blocks of WritingATransport.md, verbatim, so that they are compiled and run.
// `DocumentationSnippetTests` checks that each block stands here unchanged.
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts bytes, for the article's wrapper transport.
final class ByteCounter: @unchecked Sendable {
    // `lock` guards `total`.
    private let lock = NSLock()
    private var total = 0

    func add(_ count: Int) {
        lock.withLock { total += count }
    }

    var count: Int { lock.withLock { total } }
}

struct CountingTransport: HTTPTransport {
    let base: any HTTPTransport
    let counter: ByteCounter

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        base.startTransfer(request, options: options, receiver: CountingReceiver(receiver: receiver, counter: counter))
    }
}

final class CountingReceiver: TransferReceiver {
    let receiver: any TransferReceiver
    let counter: ByteCounter

    init(receiver: any TransferReceiver, counter: ByteCounter) {
        self.receiver = receiver
        self.counter = counter
    }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        receiver.transferDidSend(sent, of: expected)
    }

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        receiver.transferDidReceive(head: head)
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        counter.add(chunk.count)
        return receiver.transferDidReceive(chunk)
    }

    func transferDidReceive(codedByteCount: Int) {
        receiver.transferDidReceive(codedByteCount: codedByteCount)
    }

    func transferDidComplete(with error: (any Error)?) {
        receiver.transferDidComplete(with: error)
    }
}

@Suite("WritingATransport article")
struct WritingATransportSnippets {
    @Test(arguments: TransportConformance.Check.allCases)
    func countingTransportConforms(_ check: TransportConformance.Check) async throws {
        try await TransportConformance { CountingTransport(base: URLSessionTransport(), counter: ByteCounter()) }.verify(check)
    }

    @Test func theWrapperCountsTheBodyOfAFetch() async throws {
        let server = try LoopbackHTTPServer { _ in .status(200, body: Data(repeating: 0x61, count: 5_000)) }
        defer { server.stop() }
        let counter = ByteCounter()
        let transport = CountingTransport(base: URLSessionTransport(), counter: counter)
        let (body, head) = try await withCheckedThrowingContinuation { continuation in
            _ = transport.startTransfer(
                URLRequest(url: server.baseURL), options: TransferOptions(),
                receiver: ResponseCollector(maximumBytes: 1 << 20) { continuation.resume(with: $0) })
        }
        #expect(head.statusCode == 200)
        #expect(body.count == 5_000)
        #expect(counter.count == 5_000)
    }
}
