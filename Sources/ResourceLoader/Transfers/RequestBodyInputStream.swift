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
/// ``URLSessionTransport`` gives each task a new one (``makeCopy()``), and the request
/// ``TransferRules/redirect(statusCode:location:after:original:redirectsFollowed:options:)``
/// returns to resend the body carries a new one, so a body resent on a redirect is read from its
/// start.
///
/// A read returns `0` only at the end of the body. A stream whose reading failed, or that was
/// closed before its end (a cancelled transfer closes it), fails every read from then on with
/// `-1` and a ``streamError`` (``ResourceError/cancelled`` for a close), and says it has bytes
/// available so that a reader that asks first still reads, and sees the failure: a transport
/// never takes the body for whole and ends it as if it were.
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

    /// Closes the stream, releasing an open file and stopping a stream's task. Closed before its
    /// end, the stream fails every read from then on with ``ResourceError/cancelled``.
    public override func close() {
        let reader = lock.withLock { () -> RequestBodyReader? in
            if !isAtEnd, failure == nil { failure = .cancelled }
            if status != .error { status = .closed }
            return self.reader
        }
        reader?.close()
    }

    /// Reads up to `len` bytes; `0` at the end (or when `len` is `0`), `-1` after a failure or a
    /// close before the end (see ``readFailure``).
    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard len > 0 else { return 0 }
        let reader = lock.withLock { () -> RequestBodyReader? in
            guard status == .open || status == .reading else { return nil }
            status = .reading
            return self.reader
        }
        guard let reader else { return lock.withLock { isAtEnd ? 0 : -1 } }
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

    /// `true` while open and not at the end (the next read may block until bytes are ready), and
    /// after a failure or a close before the end, whose next read reports it.
    public override var hasBytesAvailable: Bool {
        lock.withLock { !isAtEnd && (status == .open || status == .reading || failure != nil) }
    }

    /// The stream's status.
    public override var streamStatus: Stream.Status { lock.withLock { status } }

    /// The failure that ended reading, if any.
    public override var streamError: (any Error)? { lock.withLock { failure } }
}
