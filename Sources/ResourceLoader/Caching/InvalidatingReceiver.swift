import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Passes an unsafe request's answer on, and when its status is not an error removes what is
/// stored for the URLs it invalidates (``CachePolicy/invalidatedURLs(method:url:response:)``):
/// the URL that answered, the request's, and the answer's `Location` and `Content-Location` on
/// the origin of the URL that answered.
final class InvalidatingReceiver: TransferReceiver {
    private let receiver: any TransferReceiver
    private let method: String
    private let url: URL
    private let store: any HTTPCacheStore
    private let report: (@Sendable (FetchEvent.CacheDecided.Outcome) -> Void)?

    init(
        receiver: any TransferReceiver,
        method: String,
        url: URL,
        store: any HTTPCacheStore,
        report: (@Sendable (FetchEvent.CacheDecided.Outcome) -> Void)?
    ) {
        self.receiver = receiver
        self.method = method
        self.url = url
        self.store = store
        self.report = report
    }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        receiver.transferDidSend(sent, of: expected)
    }

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        let urls = CachePolicy.invalidatedURLs(method: method, url: url, response: head)
        for url in urls {
            store.removeResponse(forKey: CachePolicy.key(method: "GET", url: url))
            store.removeResponse(forKey: CachePolicy.key(method: "HEAD", url: url))
        }
        if !urls.isEmpty { report?(.invalidated(urls.count)) }
        return receiver.transferDidReceive(head: head)
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        receiver.transferDidReceive(chunk)
    }

    func transferDidReceive(codedByteCount: Int) {
        receiver.transferDidReceive(codedByteCount: codedByteCount)
    }

    func transferDidComplete(with error: (any Error)?) {
        receiver.transferDidComplete(with: error)
    }
}
