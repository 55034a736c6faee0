import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wraps the receiver of a transfer whose request carries a streamed ``RequestBody``: reports
/// the body's length as the progress total when the transport cannot tell it, closes the body's
/// streams when the transfer ends (so no file stays open, whatever the transport does with
/// them), and reports why reading the body failed rather than the transport's own error for it,
/// or rather than a success: a transport that stopped reading at the failure may have sent the
/// body cut short.
///
/// A transport that reads the body through ``RequestBodyInputStream``s registers each one it
/// hands to a task with ``add(_:)``; ``closeStreams()`` stops them early (on cancellation, before
/// the task is cancelled, so that a read waiting for a stream's next chunk returns at once).
package final class StreamedBodyReceiver: TransferReceiver, @unchecked Sendable {
    private let receiver: any TransferReceiver
    private let length: Int64?
    // `streams` is a `Locked`: its lock guards the streams handed to tasks and whether they are
    // closed.
    private let streams = Locked<(open: [RequestBodyInputStream], failures: [ResourceError], isClosed: Bool, isCancelled: Bool)>(
        ([], [], false, false))

    package init(_ receiver: any TransferReceiver, body: RequestBody) {
        self.receiver = receiver
        self.length = body.length
    }

    /// Keeps `stream` to close when the transfer ends; closes it at once if it has ended.
    package func add(_ stream: RequestBodyInputStream) {
        let closed = streams.withLock { state -> Bool in
            if !state.isClosed { state.open.append(stream) }
            return state.isClosed
        }
        if closed { stream.close() }
    }

    /// The transfer is being cancelled: closes its streams, and completes it as cancelled
    /// whatever error the transport reports for a stream closed under it.
    package func cancel() {
        streams.withLock { $0.isCancelled = true }
        closeStreams()
    }

    /// Closes every stream handed to a task, keeping why any of them failed.
    package func closeStreams() {
        let open = streams.withLock { state -> [RequestBodyInputStream] in
            state.isClosed = true
            defer { state.open = [] }
            return state.open
        }
        for stream in open { stream.close() }
        let failures = open.compactMap { stream -> ResourceError? in
            guard let failure = stream.readFailure, !failure.isCancelled else { return nil }
            return failure
        }
        if !failures.isEmpty { streams.withLock { $0.failures += failures } }
    }

    package func transferDidSend(_ sent: Int64, of expected: Int64?) {
        receiver.transferDidSend(sent, of: length ?? expected)
    }

    package func transferDidReceive(head: ResponseHead) -> TransferDecision {
        receiver.transferDidReceive(head: head)
    }

    package func transferDidReceive(_ chunk: Data) -> TransferDecision {
        receiver.transferDidReceive(chunk)
    }

    package func transferDidReceive(codedByteCount: Int) {
        receiver.transferDidReceive(codedByteCount: codedByteCount)
    }

    package func transferDidComplete(with error: (any Error)?) {
        closeStreams()
        let (failure, isCancelled) = streams.withLock { ($0.failures.first, $0.isCancelled) }
        switch (error, failure) {
        case (nil, nil): receiver.transferDidComplete(with: nil)
        case (_?, _) where isCancelled: receiver.transferDidComplete(with: URLError(.cancelled))
        case (_, let failure?): receiver.transferDidComplete(with: failure)
        case (let error?, nil): receiver.transferDidComplete(with: error)
        }
    }
}
