import Foundation

/// A request body, or a part of one, whose bytes come from an `AsyncSequence` of chunks: data
/// produced as it is sent (a recording, a compressor's output, a proxied download).
///
/// A stream can be sent once. A redirect that must send the body again (`307`, `308`) is refused
/// with ``ResourceError/RedirectRefusal/unrepeatableBody``, a retry is not made once the stream
/// has been read, and a transport asked to send it a second time fails with
/// ``ResourceError/invalidRequest(reason:)``: never with an empty body. Use a file
/// (``RequestBody/file(_:contentType:)``) for a body that must survive redirects and retries.
///
/// With a `length`, the request declares it in `Content-Length`, and a stream that produces more
/// or fewer bytes fails the transfer; without one, the body is sent with chunked transfer coding.
///
/// ```swift
/// let chunks = AsyncStream<Data> { continuation in
///     continuation.yield(Data("hello, ".utf8))
///     continuation.yield(Data("world".utf8))
///     continuation.finish()
/// }
/// let body = RequestBody.stream(RequestBodyStream(chunks), contentType: "text/plain")
/// ```
///
/// The sequence is iterated in a task of its own, which runs ahead of what has been sent by up to
/// 256 KiB of chunks (and then waits, so memory holds no more than that and one chunk): a sequence
/// of small chunks is not held up after each one. The task prefers a serial queue of its own as
/// its executor, so it never waits for a thread of Swift's cooperative pool (on Apple platforms
/// older than macOS 15, iOS 18, tvOS 18, watchOS 11 and visionOS 2, which have no task executors,
/// it runs on the global executor). Cancelling the transfer cancels that task.
public final class RequestBodyStream: Sendable, Hashable {
    /// The number of bytes the stream produces, when it is known in advance.
    public let length: Int64?
    /// Iterates the sequence, handing each chunk to the pump and returning at its end.
    private let produce: @Sendable (StreamPump) async throws -> Void
    // `state` is a `Locked`: its lock guards whether the stream has been read.
    private let state = Locked(false)

    /// Creates a stream from a sequence of chunks.
    ///
    /// - Parameters:
    ///   - chunks: The body's bytes, in order. Empty chunks are skipped.
    ///   - length: The number of bytes `chunks` produces, if known; `nil` sends the body chunked.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64? = nil) where Chunks.Element == Data {
        self.length = length
        self.produce = { pump in
            for try await chunk in chunks where !chunk.isEmpty {
                guard await pump.put(chunk) else { return }
            }
        }
    }

    /// Creates a stream from a sequence of byte arrays.
    ///
    /// - Parameters:
    ///   - chunks: The body's bytes, in order. Empty chunks are skipped.
    ///   - length: The number of bytes `chunks` produces, if known; `nil` sends the body chunked.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64? = nil) where Chunks.Element == [UInt8] {
        self.length = length
        self.produce = { pump in
            for try await chunk in chunks where !chunk.isEmpty {
                guard await pump.put(Data(chunk)) else { return }
            }
        }
    }

    /// Whether the stream has been read (or started to be): it cannot be sent again.
    public var isConsumed: Bool { state.withLock { $0 } }

    /// Claims the stream for one send and starts iterating it; `nil` if it was claimed before.
    func start() -> StreamPump? {
        let claimed = state.withLock { consumed -> Bool in
            defer { consumed = true }
            return !consumed
        }
        guard claimed else { return nil }
        let pump = StreamPump()
        let produce = produce
        let work: @Sendable () async -> Void = {
            do {
                try await produce(pump)
                pump.finish(nil)
            } catch {
                pump.finish(error)
            }
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            let executor = SerialQueueTaskExecutor(label: "ResourceLoader.RequestBodyStream")
            pump.task = Task(executorPreference: executor) {
                await work()
                // The task keeps its executor alive until it ends, whatever the runtime retains.
                withExtendedLifetime(executor) {}
            }
        } else {
            pump.task = Task { await work() }
        }
        return pump
    }

    /// Streams are equal only to themselves.
    public static func == (lhs: RequestBodyStream, rhs: RequestBodyStream) -> Bool { lhs === rhs }

    /// Hashes the stream's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Hands the chunks of a ``RequestBodyStream`` from the task that iterates it to the thread that
/// sends them: the producer hands chunks over until ``bufferLimit`` bytes wait to be taken, and
/// then waits (without blocking a thread) until the consumer has taken enough; the consumer blocks
/// until a chunk arrives. The consumer is a transport's sending thread, never a thread of the
/// cooperative pool.
final class StreamPump: @unchecked Sendable {
    /// How many bytes of chunks may wait to be taken before the producer waits.
    static let bufferLimit = 256 * 1024

    private struct State {
        /// The chunks handed over and not yet taken, in order, from `head`.
        var chunks: [Data] = []
        var head = 0
        var bufferedBytes = 0
        var isFinished = false
        var error: (any Error)?
        var isClosed = false
        var producer: CheckedContinuation<Void, Never>?
    }

    // `condition` guards `state` and `task`, and wakes the consumer.
    private let condition = NSCondition()
    private var state = State()
    private var storedTask: Task<Void, Never>?

    /// The task that iterates the sequence; cancelled by ``close()``.
    var task: Task<Void, Never>? {
        get { condition.withLock { storedTask } }
        set {
            let closed = condition.withLock { () -> Bool in
                storedTask = newValue
                return state.isClosed
            }
            if closed { newValue?.cancel() }
        }
    }

    /// Hands `chunk` over, waiting while ``bufferLimit`` bytes or more wait to be taken; `false`
    /// once the consumer has closed.
    func put(_ chunk: Data) async -> Bool {
        let mustWait = condition.withLock { () -> Bool? in
            guard !state.isClosed else { return nil }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            condition.broadcast()
            return state.bufferedBytes >= Self.bufferLimit
        }
        guard let mustWait else { return false }
        if mustWait {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                condition.lock()
                guard !state.isClosed, state.bufferedBytes >= Self.bufferLimit else {
                    condition.unlock()
                    continuation.resume()
                    return
                }
                state.producer = continuation
                condition.unlock()
            }
        }
        return condition.withLock { !state.isClosed }
    }

    /// The sequence ended, with `error` if it threw.
    func finish(_ error: (any Error)?) {
        condition.withLock {
            state.isFinished = true
            state.error = error
            condition.broadcast()
        }
    }

    /// Blocks until the next chunk arrives; `nil` at the end of the sequence.
    ///
    /// - Throws: the error the sequence threw.
    func take() throws -> Data? {
        condition.lock()
        while state.head == state.chunks.count, !state.isFinished, !state.isClosed {
            condition.wait()
        }
        if state.head < state.chunks.count {
            let chunk = state.chunks[state.head]
            state.chunks[state.head] = Data()
            state.head += 1
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 1024, state.head * 2 >= state.chunks.count {
                // Taken chunks are dropped in batches, so that a producer that stays ahead does
                // not grow the array.
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            state.bufferedBytes -= chunk.count
            var producer: CheckedContinuation<Void, Never>?
            if state.bufferedBytes < Self.bufferLimit {
                producer = state.producer
                state.producer = nil
            }
            condition.unlock()
            producer?.resume()
            return chunk
        }
        let error = state.error
        condition.unlock()
        if let error { throw error }
        return nil
    }

    /// Stops the sequence: cancels its task and releases a producer waiting to hand over a chunk.
    func close() {
        let (producer, task) = condition.withLock { () -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            state.isClosed = true
            state.chunks = []
            state.head = 0
            state.bufferedBytes = 0
            let producer = state.producer
            state.producer = nil
            condition.broadcast()
            return (producer, storedTask)
        }
        producer?.resume()
        task?.cancel()
    }
}

