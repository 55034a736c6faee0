import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``TransferReceiver`` that collects a response's body into `Data`, within a size limit, and
/// hands over the head and the body once the transfer completes.
///
/// The limit is kept as bytes arrive, whatever the transport: a declared `Content-Length` over it
/// stops the transfer before the body is read, and a body without one is stopped as soon as it
/// crosses it. Either way the answer is ``ResourceError/responseTooLarge(limit:)``, and no more
/// than the limit is ever held. ``ResourceService`` collects every response this way; use one
/// to call a transport yourself:
///
/// ```swift
/// let collector = ResponseCollector(maximumBytes: 1 << 20) { answer in
///     if case .success(let (body, head)) = answer { print(head.statusCode, body.count) }
/// }
/// let handle = URLSessionTransport.shared.startTransfer(request, options: TransferOptions(), receiver: collector)
/// ```
public final class ResponseCollector: TransferReceiver {
    private struct State {
        var head: ResponseHead?
        var body = Data()
        var completion: (@Sendable (Result<(Data, ResponseHead), any Error>) -> Void)?
    }

    /// The largest body accepted, in bytes.
    public let maximumBytes: Int
    private let ignoresDeclaredLength: Bool
    // `state` is a `Locked`: its lock guards the head, the body and the completion.
    private let state: Locked<State>

    /// Creates a collector.
    ///
    /// - Parameters:
    ///   - maximumBytes: The largest body accepted, in bytes.
    ///   - ignoresDeclaredLength: `true` for the answer to a `HEAD` request, whose
    ///     `Content-Length` describes a body that is not sent.
    ///   - completion: Receives the body and head once the whole body has arrived, or the error
    ///     that ended the transfer. Called exactly once, on the thread that completes the transfer.
    public init(
        maximumBytes: Int,
        ignoresDeclaredLength: Bool = false,
        completion: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) {
        self.maximumBytes = maximumBytes
        self.ignoresDeclaredLength = ignoresDeclaredLength
        self.state = Locked(State(completion: completion))
    }

    /// Ignores the progress of the request body.
    public func transferDidSend(_ sent: Int64, of expected: Int64?) {}

    /// Ignored: the collector counts the decoded bytes it keeps.
    public func transferDidReceive(codedByteCount: Int) {}

    /// The most bytes reserved ahead of a body from its declared length: a larger body grows
    /// from there as it arrives, so that a declaration alone never asks for more memory.
    static let largestReservation = 32 << 20

    /// Keeps the head; stops the transfer if it declares a body over the limit. An identity body's
    /// declared `Content-Length` within the limit (up to 32 MiB) is reserved, so
    /// that the body is collected without growing (and copying) its buffer.
    public func transferDidReceive(head: ResponseHead) -> TransferDecision {
        var reserved = 0
        if !ignoresDeclaredLength, Self.mayHaveBody(head.statusCode),
            let declared = head.value(forHTTPHeaderField: "Content-Length"),
            let length = TransferRules.declaredContentLength(declared)
        {
            guard length <= Int64(maximumBytes) else { return .stop(.responseTooLarge(limit: maximumBytes)) }
            if head.value(forHTTPHeaderField: "Content-Encoding") == nil {
                reserved = Int(min(max(length, 0), Int64(Self.largestReservation)))
            }
        }
        state.withLock { state in
            state.head = head
            if reserved > 0, state.body.isEmpty { state.body.reserveCapacity(reserved) }
        }
        return .proceed
    }

    /// Appends `chunk` to the body; stops the transfer if the body would cross the limit.
    public func transferDidReceive(_ chunk: Data) -> TransferDecision {
        let limit = maximumBytes
        return state.withLock { state in
            guard chunk.count <= limit - state.body.count else { return .stop(.responseTooLarge(limit: limit)) }
            state.body.append(chunk)
            return .proceed
        }
    }

    /// Hands over the body and head, or `error`; a transfer that completes without a head is
    /// `URLError(.badServerResponse)`.
    public func transferDidComplete(with error: (any Error)?) {
        let (completion, answer) = state.withLock { state -> ((@Sendable (Result<(Data, ResponseHead), any Error>) -> Void)?, Result<(Data, ResponseHead), any Error>) in
            let completion = state.completion
            state.completion = nil
            if let error { return (completion, .failure(error)) }
            guard let head = state.head else { return (completion, .failure(URLError(.badServerResponse))) }
            let body = state.body
            state.body = Data()
            return (completion, .success((body, head)))
        }
        completion?(answer)
    }

    /// The body collected so far. It shares the collector's buffer (nothing is copied): a
    /// ``CachingTransport`` reads it when the transfer completes, to store the response.
    package var collectedBody: Data {
        state.withLock { $0.body }
    }

    /// `false` for the statuses that never have a body (1xx, `204`, `304`).
    static func mayHaveBody(_ statusCode: Int) -> Bool {
        statusCode >= 200 && statusCode != 204 && statusCode != 304
    }
}

extension ResponseCollector {
    /// A collector for `request` sent with `options`, whose completion receives the body and the
    /// head's `HTTPURLResponse`: what ``URLSessionType/data(for:options:completionHandler:)``
    /// answers. A head that cannot be made into one (it has no URL) is
    /// `URLError(.badServerResponse)`.
    public convenience init(
        for request: URLRequest,
        options: TransferOptions,
        completion: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) {
        self.init(maximumBytes: options.maximumResponseBytes, ignoresDeclaredLength: request.isHEAD) { answer in
            completion(answer.flatMap { body, head in
                guard let response = head.httpURLResponse else { return .failure(URLError(.badServerResponse)) }
                return .success((body, response))
            })
        }
    }
}

extension URLRequest {
    /// `true` for a `HEAD` request, whose answer's `Content-Length` describes a body not sent.
    package var isHEAD: Bool {
        httpMethod.map { ResponseHead.sameFieldName($0, "HEAD") } ?? false
    }
}
