import Foundation

/// The `InputStream` a request carries a streamed ``RequestBody`` in, as its `httpBodyStream`.
///
/// It does two jobs. It carries the body through everything that handles a `URLRequest`
/// (adapters, credentials, wrapper transports) to the transport, which finds it with
/// `URLRequest.streamedBody`. And it reads the body, so a transport that only knows
/// `httpBodyStream` still sends it: each stream opened reads the body from its start with a
/// ``RequestBodyReader`` of its own (a stream body, once). Reads block until the bytes are
/// ready; transports call them on threads of their own.
///
/// ``URLSessionTransport`` gives each task a new one (``makeCopy()``), so a body resent on a
/// redirect is read from its start.
public final class RequestBodyInputStream: InputStream {
    /// The body the stream reads.
    public let body: RequestBody
    // `lock` guards `reader`, `status`, `failure` and `isAtEnd`.
    private let lock = NSLock()
    private var reader: RequestBodyReader?
    private var status: Stream.Status = .notOpen
    private var failure: ResourceError?
    private var isAtEnd = false

    /// Creates a stream that reads `body`.
    public init(body: RequestBody) {
        self.body = body
        super.init(data: Data())
    }

    /// A new, unopened stream of the same body.
    public func makeCopy() -> RequestBodyInputStream {
        RequestBodyInputStream(body: body)
    }

    /// Why reading failed, if it did: the error a transport reports instead of its own.
    public var readFailure: ResourceError? { lock.withLock { failure } }

    /// The number of bytes read so far.
    public var bytesRead: Int64 { lock.withLock { reader?.bytesRead ?? 0 } }

    /// Opens the stream: the body is read from its start.
    public override func open() {
        lock.withLock {
            guard status == .notOpen else { return }
            reader = body.makeReader()
            status = .open
        }
    }

    /// Closes the stream, releasing an open file and stopping a stream's task.
    public override func close() {
        let reader = lock.withLock { () -> RequestBodyReader? in
            if status != .error { status = .closed }
            return self.reader
        }
        reader?.close()
    }

    /// Reads up to `len` bytes; `0` at the end, `-1` after a failure (see ``readFailure``).
    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let reader = lock.withLock { () -> RequestBodyReader? in
            guard status == .open || status == .reading else { return nil }
            status = .reading
            return self.reader
        }
        guard let reader else { return lock.withLock { status == .atEnd || status == .closed ? 0 : -1 } }
        do {
            let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: len))
            lock.withLock {
                if status == .reading { status = count == 0 ? .atEnd : .open }
                if count == 0 { isAtEnd = true }
            }
            return count
        } catch {
            lock.withLock {
                failure = error
                status = .error
            }
            reader.close()
            return -1
        }
    }

    /// No buffer to lend: the bytes are read on demand.
    public override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    /// `true` while open and not at the end (the next read may block until bytes are ready).
    public override var hasBytesAvailable: Bool {
        lock.withLock { (status == .open || status == .reading) && !isAtEnd }
    }

    /// The stream's status.
    public override var streamStatus: Stream.Status { lock.withLock { status } }

    /// The failure that ended reading, if any.
    public override var streamError: (any Error)? { lock.withLock { failure } }
}
