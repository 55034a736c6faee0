import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``TransferReceiver`` that decodes a body in a `gzip` or `deflate` content coding as its
/// pieces arrive and hands the decoded pieces to another receiver: made by
/// ``TransferRules/decodingContent(for:limit:)``.
///
/// The decoder checks gzip's CRC-32 and length trailer and zlib's Adler-32, so a corrupt body, or
/// one cut short, ends the transfer with ``ResourceError/transport(_:underlying:)``
/// (`URLError.Code.cannotDecodeContentData`, underlying ``ContentDecodingError``) rather than a
/// partial body; the decoded bytes are bounded by the limit as they are produced, so a
/// decompression bomb fails with ``ResourceError/responseTooLarge(limit:)`` after `limit` bytes.
/// A body in any other coding, or in none, passes through unchanged. The receiver it hands on to
/// learns how many coded bytes arrived, with ``TransferReceiver/transferDidReceive(codedByteCount:)``:
/// `0` once the head is accepted, then each piece's length before what the piece decodes to.
final class ContentDecodingReceiver: TransferReceiver, @unchecked Sendable {
    private let receiver: any TransferReceiver
    private let limit: Int
    // The transport calls a receiver one call at a time, each after the one before it returned;
    // `lock` guards `decoder` all the same, since those calls may come from different threads.
    private let lock = NSLock()
    private var decoder: ContentDecoder?

    init(receiver: any TransferReceiver, limit: Int) {
        self.receiver = receiver
        self.limit = limit
    }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        receiver.transferDidSend(sent, of: expected)
    }

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        guard let value = head.value(forHTTPHeaderField: "Content-Encoding"), let coding = ContentCoding(headerValue: value),
            coding != .identity
        else { return receiver.transferDidReceive(head: head) }
        let decoder = ContentDecoder(coding: coding, limit: limit)
        lock.withLock { self.decoder = decoder }
        let decision = receiver.transferDidReceive(head: head)
        if case .proceed = decision { receiver.transferDidReceive(codedByteCount: 0) }
        return decision
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        guard let decoder = lock.withLock({ decoder }) else { return receiver.transferDidReceive(chunk) }
        receiver.transferDidReceive(codedByteCount: chunk.count)
        var decision = TransferDecision.proceed
        do {
            try chunk.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { decoded in
                    guard case .proceed = decision else { return }
                    decision = receiver.transferDidReceive(Data(decoded))
                }
            }
        } catch {
            return .stop(ResourceError(transportError: error))
        }
        return decision
    }

    /// Counts from a decoder before this one are handed on only for a body this one leaves
    /// alone; it counts the bytes it decodes itself.
    func transferDidReceive(codedByteCount: Int) {
        if lock.withLock({ decoder }) == nil { receiver.transferDidReceive(codedByteCount: codedByteCount) }
    }

    func transferDidComplete(with error: (any Error)?) {
        if error == nil, let decoder = lock.withLock({ decoder }) {
            do {
                try decoder.finish()
            } catch {
                receiver.transferDidComplete(with: error)
                return
            }
        }
        receiver.transferDidComplete(with: error)
    }
}
