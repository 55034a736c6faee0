import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the bytes of a streamed ``RequestBody`` once, in order, as a transport sends them: a
/// file is read from disk piece by piece, a ``RequestBodyStream`` chunk by chunk, a multipart
/// body part by part. Nothing is assembled in memory and nothing is copied to a temporary file.
///
/// Make one for each send with ``RequestBody/makeReader()``. Reading blocks the calling thread
/// until the next bytes are ready (a disk read, or the next chunk of a stream): call it from a
/// thread of the transport's own (a session's work queue, an `I/O` queue), never from a task of
/// the cooperative pool. ``close()`` releases the file descriptor and stops a stream's task, and
/// may be called from any thread, also while a read waits.
///
/// A file that ends before the length it had when the body was made, or a stream that produces
/// more or fewer bytes than it declared, fails the read with
/// ``ResourceError/invalidRequest(reason:)``: the server never receives a body shorter or longer
/// than its `Content-Length`. A body that cannot be sent as it declares itself (see
/// ``RequestBody/makeReader()``) fails the first read with
/// ``ResourceError/invalidRequest(reason:)``, before any of its bytes is read. So does a file
/// that is not a regular file when it is opened (a FIFO, a device, a directory), without
/// waiting for it.
public final class RequestBodyReader: @unchecked Sendable {
    /// Where the reader is within one segment of the body.
    private enum Source {
        case bytes(Data, offset: Int)
        case file(descriptor: Int32, remaining: Int64)
        case stream(StreamPump, RequestBodyStream, pending: Data, produced: Int64)
    }

    /// The number of bytes the body has, when it is known.
    public let length: Int64?
    // `lock` guards every stored property below.
    private let lock = NSLock()
    private var segments: ArraySlice<RequestBody.Segment>
    private var current: Source?
    private var isClosed = false
    /// Whether a read of the current file runs without the lock: ``close()`` leaves the file's
    /// descriptor to that read, which closes it once it returns.
    private var isReadingFile = false
    private var bytesReadSoFar: Int64 = 0
    /// Why the body cannot be sent, for a reader of a body refused when it was made: every read
    /// throws it.
    private let refusal: ResourceError?

    init(segments: [RequestBody.Segment], length: Int64?) {
        self.segments = segments[...]
        self.length = length
        self.refusal = nil
    }

    /// A reader of a body that cannot be sent: every read throws `refusal`.
    init(refusal: ResourceError) {
        self.segments = []
        self.length = nil
        self.refusal = refusal
    }

    deinit {
        release(current)
    }

    /// The number of bytes read so far.
    public var bytesRead: Int64 { lock.withLock { bytesReadSoFar } }

    /// Reads up to `maximumCount` bytes; `nil` at the end of the body. Blocks until they are ready.
    ///
    /// A `maximumCount` of `0` or less asks for nothing: it returns empty `Data` at once and
    /// reads nothing.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when the body cannot be sent as it
    ///   declares itself, when a file cannot be read or does not match its length, when a stream
    ///   fails or does not match its length, or when a stream was sent before;
    ///   ``ResourceError/cancelled`` once the reader is closed.
    public func read(upTo maximumCount: Int = 64 * 1024) throws(ResourceError) -> Data? {
        guard maximumCount > 0 else {
            if let refusal { throw refusal }
            return Data()
        }
        var data = Data(count: maximumCount)
        let result = data.withUnsafeMutableBytes { buffer in
            Result { () throws(ResourceError) -> Int in try read(into: buffer) }
        }
        let count = try result.get()
        guard count > 0 else { return nil }
        data.count = count
        return data
    }

    /// Reads up to `buffer.count` bytes into `buffer`; returns how many. Blocks until they are
    /// ready. From a non-empty buffer, `0` means the end of the body; an empty buffer asks for
    /// nothing and gets `0` at once, wherever the body stands.
    ///
    /// - Throws: as ``read(upTo:)``.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ResourceError) -> Int {
        if let refusal { throw refusal }
        guard buffer.count > 0 else { return 0 }
        while true {
            lock.lock()
            guard !isClosed else {
                lock.unlock()
                throw .cancelled
            }
            if current == nil {
                guard let segment = segments.popFirst() else {
                    lock.unlock()
                    return 0
                }
                if case .file(let url, let length) = segment, length > 0 {
                    // Opened without the lock, so that `close()` never waits for the file system.
                    lock.unlock()
                    let descriptor = try Self.openFile(url)
                    lock.lock()
                    guard !isClosed else {
                        lock.unlock()
                        _ = systemClose(descriptor)
                        throw .cancelled
                    }
                    current = .file(descriptor: descriptor, remaining: length)
                } else {
                    do {
                        current = try Self.open(segment)
                    } catch {
                        lock.unlock()
                        throw error
                    }
                }
            }
            switch current! {
            case .bytes(let data, let offset):
                let count = min(buffer.count, data.count - offset)
                if count > 0 {
                    data.withUnsafeBytes { bytes in
                        buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
                    }
                }
                current = offset + count == data.count ? nil : .bytes(data, offset: offset + count)
                bytesReadSoFar += Int64(count)
                lock.unlock()
                if count > 0 { return count }
            case .file(let descriptor, let remaining):
                // Read without the lock, so that `close()` returns while the read runs; the
                // descriptor stays open until it returns.
                isReadingFile = true
                lock.unlock()
                let wanted = Int(min(Int64(buffer.count), remaining))
                var count: Int
                repeat {
                    count = systemRead(descriptor, buffer.baseAddress, wanted)
                } while count < 0 && errno == EINTR
                let readError = count < 0 ? errno : 0
                lock.lock()
                isReadingFile = false
                guard !isClosed else {
                    // `close()` left the descriptor to this read.
                    lock.unlock()
                    _ = systemClose(descriptor)
                    throw .cancelled
                }
                if count <= 0 {
                    let reason = count == 0
                        ? "the body file ended \(remaining) bytes before the length it had when the body was made"
                        : "the body file could not be read (errno \(readError))"
                    lock.unlock()
                    throw .invalidRequest(reason: reason)
                }
                if Int64(count) == remaining {
                    _ = systemClose(descriptor)
                    current = nil
                } else {
                    current = .file(descriptor: descriptor, remaining: remaining - Int64(count))
                }
                bytesReadSoFar += Int64(count)
                lock.unlock()
                return count
            case .stream(let pump, let stream, let pending, let produced):
                if !pending.isEmpty {
                    let count = min(buffer.count, pending.count)
                    pending.withUnsafeBytes { bytes in buffer.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: count) }
                    current = .stream(pump, stream, pending: pending.dropFirst(count), produced: produced)
                    bytesReadSoFar += Int64(count)
                    lock.unlock()
                    return count
                }
                lock.unlock()
                // Waits for the next chunk without the lock, so that `close()` can wake it.
                let chunk: Data?
                do {
                    chunk = try pump.take()
                } catch {
                    throw .invalidRequest(reason: "the body stream failed (\(ResourceError.summary(ofUnderlying: error)))")
                }
                lock.lock()
                guard !isClosed else {
                    lock.unlock()
                    throw .cancelled
                }
                if let chunk {
                    let total = produced + Int64(chunk.count)
                    if let length = stream.length, total > length {
                        lock.unlock()
                        throw .invalidRequest(reason: "the body stream produced more than its declared \(length) bytes")
                    }
                    current = .stream(pump, stream, pending: Data(chunk), produced: total)
                    lock.unlock()
                } else {
                    if let length = stream.length, produced != length {
                        lock.unlock()
                        throw .invalidRequest(reason: "the body stream ended after \(produced) of its declared \(length) bytes")
                    }
                    current = nil
                    lock.unlock()
                }
            }
        }
    }

    /// Releases what the reader holds: closes an open file, stops a stream. Reads fail with
    /// ``ResourceError/cancelled`` from then on. Calling it again does nothing.
    public func close() {
        let source = lock.withLock { () -> Source? in
            guard !isClosed else { return nil }
            isClosed = true
            segments = []
            defer { current = nil }
            // A file being read is closed by that read, once it returns.
            if isReadingFile, case .file = current { return nil }
            return current
        }
        release(source)
    }

    private func release(_ source: Source?) {
        switch source {
        case .file(let descriptor, _): _ = systemClose(descriptor)
        case .stream(let pump, _, _, _): pump.close()
        case .bytes, nil: break
        }
    }

    /// Opens one segment for reading.
    private static func open(_ segment: RequestBody.Segment) throws(ResourceError) -> Source {
        switch segment {
        case .bytes(let data):
            return .bytes(data, offset: 0)
        case .file(let url, let length):
            guard length > 0 else { return .bytes(Data(), offset: 0) }
            return .file(descriptor: try openFile(url), remaining: length)
        case .stream(let stream):
            guard let pump = stream.start() else {
                throw .invalidRequest(reason: "the body stream has been sent already and cannot be read again")
            }
            return .stream(pump, stream, pending: Data(), produced: 0)
        }
    }

    /// Opens the regular file `url` names for reading. Opened with `O_NONBLOCK`, so that a FIFO
    /// does not wait for a writer, then refused unless it is a regular file.
    private static func openFile(_ url: URL) throws(ResourceError) -> Int32 {
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            path.map { systemOpen($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } ?? -1
        }
        guard descriptor >= 0 else {
            throw .invalidRequest(reason: "the body file \(url.lastPathComponent) cannot be opened (errno \(errno))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            _ = systemClose(descriptor)
            throw .invalidRequest(reason: "the body file \(url.lastPathComponent) is not a regular file")
        }
        // Reads of the file block as usual.
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let error = errno
            _ = systemClose(descriptor)
            throw .invalidRequest(reason: "the body file \(url.lastPathComponent) cannot be opened (errno \(error))")
        }
        return descriptor
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    open(path, flags)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
