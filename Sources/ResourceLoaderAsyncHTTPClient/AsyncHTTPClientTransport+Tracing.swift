#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ResourceLoader
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// AsyncHTTPClient traces every request its client's tracer sees, but only its async API starts
// that span from `ServiceContext.current` and injects the span's context into the request: its
// delegate API starts the span on an event loop, where no context is bound, so the span begins a
// trace of its own and nothing carries it to the server. A transport whose client traces therefore
// sends through the async API, inside the fetch's context.

extension AsyncHTTPClientTransport {
    /// `client`'s tracer, unless it has none or a no-op one.
    static func activeTracer(of client: HTTPClient) -> (any Tracer)? {
        guard let tracer = client.tracer, !(tracer is NoOpTracer) else { return nil }
        return tracer
    }
}

extension AsyncHTTPClientTransport.Transfer {
    /// The async API's request made of `parts`, and the context to send it in.
    ///
    /// The context is `serviceContext`, the caller's when the transfer started (or a top-level
    /// one), with the trace context `tracer` extracts from the request's header fields, where
    /// `TracingFetchMonitor` (or any adapter) injected the fetch span's: AsyncHTTPClient's span
    /// becomes that span's child.
    /// AsyncHTTPClient then adds the header fields of its own span's context beside any of the same
    /// name, so the fields `tracer` injects are dropped from the request first: the server receives
    /// one `traceparent`, naming the innermost span.
    ///
    /// A body held in memory in `parts` goes out as one buffer, which AsyncHTTPClient writes as
    /// soon as the head; the caller sets a streamed one, or one in memory over 1 MiB, as a
    /// ``TracedRequestBody``.
    static func tracedRequest(
        from parts: RequestParts, in serviceContext: ServiceContext?, tracer: any Tracer
    ) -> (request: HTTPClientRequest, context: ServiceContext) {
        var context = serviceContext ?? .topLevel
        tracer.extract(parts.headers, into: &context, using: HeaderFieldExtractor())
        var headers = parts.headers
        var injected: [String] = []
        tracer.inject(context, into: &injected, using: FieldNameCollector())
        for name in injected {
            headers.remove(name: name)
        }
        var traced = HTTPClientRequest(url: parts.url.absoluteString)
        traced.method = parts.method
        traced.headers = headers
        if let body = parts.body {
            traced.body = .bytes(ByteBuffer(bytes: body))
        }
        return (traced, context)
    }

    /// Starts the task that sends `request` as hop `hop` (`run(_:bodyLength:in:hop:)`), preferring
    /// `eventLoop` as its executor.
    ///
    /// The task's jobs then run on the event loop, as the delegate API's callbacks do, and never
    /// wait for a thread of the cooperative pool, which synchronous work elsewhere in the process
    /// can hold (`EventLoopTaskExecutor`). On Apple platforms older than macOS 15, iOS 18, tvOS 18,
    /// watchOS 11 and visionOS 2, which have no task executors, it runs on the global executor.
    func startTracedHop(
        _ request: HTTPClientRequest, bodyLength: Int, in context: ServiceContext, hop: Int, on eventLoop: any EventLoop
    ) -> Task<Void, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            let executor = EventLoopTaskExecutor(eventLoop)
            return Task(executorPreference: executor) {
                await self.run(request, bodyLength: bodyLength, in: context, hop: hop)
                // The task keeps its executor alive until it ends, whatever the runtime retains.
                withExtendedLifetime(executor) {}
            }
        }
        return Task { await self.run(request, bodyLength: bodyLength, in: context, hop: hop) }
    }

    /// Sends `request` over the async API as hop `hop`, with `context` as the task's
    /// `ServiceContext.current`, feeding the response to the same callbacks as the delegate API's
    /// hops.
    ///
    /// A body in memory, `bodyLength` bytes, is reported sent in one step when the response head
    /// arrives: the async API tells nothing sooner of a body written in one buffer. A streamed
    /// body (`bodyLength` 0) reports its pieces itself (``TracedRequestBody``).
    func run(_ request: HTTPClientRequest, bodyLength: Int, in context: ServiceContext, hop: Int) async {
        await ServiceContext.withValue(context) {
            do {
                // No deadline of the client's own: `ResourceService` enforces the fetch's, and the
                // idle timeout is checked as for every hop.
                let response = try await transport.client.execute(request, deadline: .distantFuture)
                if bodyLength > 0 { sentBodyPart(bodyLength, hop: hop) }
                let head = HTTPResponseHead(version: response.version, status: response.status, headers: response.headers)
                // A redirect followed, a refusal or a cancellation ends the hop: the response is
                // dropped unread, and AsyncHTTPClient closes its connection.
                if receivedHead(head, hop: hop, task: nil) != nil || !isCurrent(hop) { return }
                for try await part in response.body {
                    if receivedBodyPart(part, hop: hop) != nil || !isCurrent(hop) { return }
                }
                finished(hop: hop)
            } catch {
                failed(error, hop: hop)
            }
        }
    }
}

/// A large streamed request body for AsyncHTTPClient's async API: the bytes already read to learn
/// its size, if any, then each piece of up to 256 KiB read by the hop's ``RequestBodyReader`` when
/// the client asks for the next, so that no more than a piece is held besides, and counted as sent
/// as it is handed over.
///
/// The client asks from a task of its own, which runs on Swift's cooperative pool; each read
/// happens on a queue of the body's own while that task waits, never on a thread of the pool: a
/// file read blocks its thread, and a ``RequestBodyStream``'s reader waits for the stream's
/// producer, which may itself need the pool.
struct TracedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let reader: RequestBodyReader
    /// The body's first bytes, read from `reader` before the body was handed to the client.
    let first: ByteBuffer?
    /// Called with each piece's size as it is handed to the client.
    let sent: @Sendable (Int) -> Void

    init(reader: RequestBodyReader, first: Data? = nil, sent: @escaping @Sendable (Int) -> Void) {
        self.reader = reader
        self.first = first.flatMap { $0.isEmpty ? nil : ByteBuffer(bytes: $0) }
        self.sent = sent
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(reader: reader, first: first, sent: sent)
    }

    /// Hands over the first bytes, then reads the pieces in order; the end of the body is `nil`,
    /// a failed read an error.
    struct Iterator: AsyncIteratorProtocol {
        let reader: RequestBodyReader
        var first: ByteBuffer?
        let sent: @Sendable (Int) -> Void
        let queue = DispatchQueue(label: "ResourceLoader.AsyncHTTPClientTransport.tracedBody")

        mutating func next() async throws -> ByteBuffer? {
            if let first {
                self.first = nil
                sent(first.readableBytes)
                return first
            }
            let reader = reader
            let piece: ByteBuffer? = try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    var buffer = ByteBufferAllocator().buffer(capacity: BodyPump.pieceSize)
                    do {
                        let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: BodyPump.pieceSize) { bytes in
                            try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<BodyPump.pieceSize]))
                        }
                        continuation.resume(returning: count > 0 ? buffer : nil)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
            if let piece { sent(piece.readableBytes) }
            return piece
        }
    }
}

/// Reads header fields for an instrument's `extract`.
private struct HeaderFieldExtractor: Extractor {
    func extract(key: String, from headers: HTTPHeaders) -> String? {
        headers.first(name: key)
    }
}

/// Collects the names of the fields an instrument injects.
private struct FieldNameCollector: Injector {
    func inject(_ value: String, forKey key: String, into names: inout [String]) {
        names.append(key)
    }
}
#endif
