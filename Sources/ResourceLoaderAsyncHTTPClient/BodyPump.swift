#if AsyncHTTPClient
import AsyncHTTPClient
import Dispatch
import NIOCore
import ResourceLoader

/// Moves a streamed request body from its ``RequestBodyReader`` to AsyncHTTPClient's body
/// writer: it reads a piece into a new buffer, hands it to the writer, and reads the next while
/// the writer sends it, with at most ``maximumPiecesInFlight`` pieces handed over and not yet
/// written.
///
/// Reads block (a disk, or a stream's next chunk), so they run on a serial queue of the pump's
/// own, never on an event loop or the cooperative pool.
final class BodyPump: @unchecked Sendable {
    /// The most bytes read into one piece.
    static let pieceSize = 256 * 1024
    /// The most pieces handed to the writer and not yet written.
    static let maximumPiecesInFlight = 2

    let promise: EventLoopPromise<Void>
    private let reader: RequestBodyReader
    private let writer: HTTPClient.Body.StreamWriter
    private let queue = DispatchQueue(label: "ResourceLoader.AsyncHTTPClientTransport.body")
    private let allocator = ByteBufferAllocator()
    // Read and written only on `queue`.
    private var inFlight = 0
    private var hasEnded = false
    private var hasFailed = false

    init(reader: RequestBodyReader, writer: HTTPClient.Body.StreamWriter, promise: EventLoopPromise<Void>) {
        self.reader = reader
        self.writer = writer
        self.promise = promise
    }

    /// Starts moving the body.
    func start() {
        queue.async { self.pump() }
    }

    /// On `queue`: reads and hands over pieces until enough are in flight or the body ends, and
    /// fulfils the promise once the last piece is written.
    private func pump() {
        while !hasEnded, !hasFailed, inFlight < Self.maximumPiecesInFlight {
            var piece = allocator.buffer(capacity: Self.pieceSize)
            do {
                let count = try piece.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.pieceSize) { bytes in
                    try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<Self.pieceSize]))
                }
                guard count > 0 else {
                    hasEnded = true
                    break
                }
            } catch {
                fail(error)
                return
            }
            inFlight += 1
            writer.write(.byteBuffer(piece)).whenComplete { result in
                self.queue.async {
                    self.inFlight -= 1
                    switch result {
                    case .success: self.pump()
                    case .failure(let error): self.fail(error)
                    }
                }
            }
        }
        if hasEnded, !hasFailed, inFlight == 0 { promise.succeed(()) }
    }

    /// On `queue`: stops reading, and fails the promise with `error` (once).
    private func fail(_ error: any Error) {
        guard !hasFailed else { return }
        hasFailed = true
        reader.close()
        promise.fail(error)
    }
}
#endif
