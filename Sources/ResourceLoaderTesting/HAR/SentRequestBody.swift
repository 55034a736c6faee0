import Foundation
import ResourceLoader

/// A streamed request body as it was sent (a file, a stream, a `multipart/form-data` form), for
/// the archive: its bytes up to a limit, and its size.
///
/// ``RecordingTransport`` and ``ReplayTransport`` read the body of a request whose
/// `URLRequest.streamedBody` is set, which `HAR.Request`'s `init(_:redaction:)` cannot see (it
/// reads `httpBody` only), and record it with ``HAR/Request/init(_:sentBody:redaction:)``.
public struct SentRequestBody: Sendable, Hashable {
    /// The body's bytes, or `nil` when there were more than the limit they were read with, or
    /// when they could not be read (``readFailure``).
    public var bytes: Data?
    /// How many bytes the body had; `-1` when that is not known.
    public var byteCount: Int64
    /// Why the body's bytes could not be read, when they could not; `nil` otherwise.
    public var readFailure: String?

    /// The largest body whose bytes are kept unless a recorder or replayer is given another
    /// limit: 1 MiB.
    public static let defaultLimit = 1024 * 1024

    /// Creates the record of a body.
    ///
    /// - Parameters:
    ///   - bytes: The body's bytes, or `nil` when they were over the limit or could not be read.
    ///   - byteCount: How many bytes the body had; `-1` when that is not known.
    ///   - readFailure: Why the bytes could not be read, when they could not.
    public init(bytes: Data?, byteCount: Int64, readFailure: String? = nil) {
        self.bytes = bytes
        self.byteCount = byteCount
        self.readFailure = readFailure
    }

    /// The bytes `body` sends, read with a reader of its own, within `limit`: a body whose
    /// length is known to be over it is not read at all.
    ///
    /// Reads files from disk, and waits for a stream's chunks, on the calling thread: call it
    /// off the cooperative pool. A stream is consumed.
    ///
    /// - Throws: the reader's ``ResourceLoader/ResourceError`` (a file shorter than when the
    ///   body was made, a stream that failed or is already consumed).
    public static func read(_ body: RequestBody, limit: Int = SentRequestBody.defaultLimit) throws(ResourceError) -> SentRequestBody {
        let reader = body.makeReader()
        defer { reader.close() }
        return try read(from: reader, length: body.length, limit: limit)
    }

    /// The bytes `reader` yields, within `limit`; a body whose `length` is over it is not read.
    static func read(from reader: RequestBodyReader, length: Int64?, limit: Int) throws(ResourceError) -> SentRequestBody {
        if let length, length > Int64(limit) {
            return SentRequestBody(bytes: nil, byteCount: length)
        }
        let tap = RequestBodyTap(limit: limit)
        while let chunk = try reader.read() {
            tap.append(chunk)
        }
        return tap.sent
    }
}

/// Keeps a copy of the bytes of a request body as they are read, up to a limit past which only
/// their number is kept.
final class RequestBodyTap: @unchecked Sendable {
    private let limit: Int
    // `lock` guards `bytes` and `count`.
    private let lock = NSLock()
    private var bytes: Data? = Data()
    private var count: Int64 = 0

    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    func append(_ chunk: Data) {
        lock.withLock {
            count += Int64(chunk.count)
            guard bytes != nil else { return }
            if count > Int64(limit) {
                bytes = nil
            } else {
                bytes?.append(chunk)
            }
        }
    }

    /// What was read so far.
    var sent: SentRequestBody {
        lock.withLock { SentRequestBody(bytes: bytes, byteCount: count) }
    }
}

/// The chunks of a one-shot body, read from it as they are asked for and copied to a tap on
/// the way: a ``RecordingTransport`` sends a ``RequestBodyStream`` of these in place of the
/// body, so that it sees the bytes as the transport reads them.
///
/// Each chunk is read on a thread of Dispatch's global queue (a stream's reader blocks until the
/// next chunk arrives), never on the cooperative pool; cancelling the iteration closes the
/// reader, which ends the original stream.
struct TappedBodyChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let body: RequestBody
    let tap: RequestBodyTap

    func makeAsyncIterator() -> Iterator {
        Iterator(reader: body.makeReader(), tap: tap)
    }

    struct Iterator: AsyncIteratorProtocol {
        let reader: RequestBodyReader
        let tap: RequestBodyTap

        func next() async throws -> Data? {
            let (reader, tap) = (reader, tap)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                    DispatchQueue.global().async {
                        do {
                            let chunk = try reader.read()
                            if let chunk { tap.append(chunk) } else { reader.close() }
                            continuation.resume(returning: chunk)
                        } catch {
                            reader.close()
                            continuation.resume(throwing: error)
                        }
                    }
                }
            } onCancel: {
                reader.close()
            }
        }
    }
}
