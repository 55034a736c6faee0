import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``ResourceLoader/URLSessionType`` that sends every request through another transport and
/// records each exchange as HAR 1.2.
///
/// Wrap the real transport once, run the code under test against the real service, and write the
/// archive for ``ReplayTransport`` to answer from in CI:
///
/// ```swift
/// let recorder = RecordingTransport(wrapping: URLSessionTransport())
/// let service = ResourceService<Cities>(session: recorder)
/// _ = try await service.fetch(Cities(continent: "europe"))
/// try recorder.write(to: URL(fileURLWithPath: "Tests/Fixtures/cities.har"))
/// ```
///
/// Credentials are redacted by default (see ``HARRedaction``); binary bodies are written as
/// base64. Answers, errors and cancellation pass through unchanged; an exchange that fails
/// (no response) is not recorded. Safe to use from any thread.
public struct RecordingTransport: URLSessionType {
    /// The transport requests are sent through.
    public let base: any URLSessionType
    /// The recorder the exchanges go to.
    public let recorder: HARRecorder

    /// Creates a transport that records what `base` sends and receives.
    ///
    /// - Parameters:
    ///   - base: The transport that sends the requests.
    ///   - redaction: What to keep out of the archive; ``HARRedaction/standard`` by default.
    public init(wrapping base: any URLSessionType, redaction: HARRedaction = .standard) {
        self.init(wrapping: base, recorder: HARRecorder(redaction: redaction))
    }

    /// Creates a transport that records what `base` sends and receives into `recorder`.
    public init(wrapping base: any URLSessionType, recorder: HARRecorder) {
        self.base = base
        self.recorder = recorder
    }

    /// The archive of every exchange recorded so far.
    public var har: HAR { recorder.har }

    /// Writes ``har`` to `url`, atomically.
    ///
    /// - Throws: the file system's error.
    public func write(to url: URL) throws {
        try recorder.write(to: url)
    }

    /// Sends `request` through ``base`` and records the exchange when it answers with an HTTP
    /// response.
    public func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        let (startedAt, start, recorder) = (Date(), ContinuousClock.now, recorder)
        return base.data(for: request, options: options) { answer in
            if case .success(let (body, response)) = answer, let response = response as? HTTPURLResponse {
                recorder.record(
                    request: request, head: ResponseHead(response), body: body, startedAt: startedAt,
                    duration: ContinuousClock.now - start)
            }
            completionHandler(answer)
        }
    }

    /// Sends `request` through ``base`` and records the exchange when it answers.
    public func send(
        _ request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) -> any Cancellable {
        let (startedAt, start, recorder) = (Date(), ContinuousClock.now, recorder)
        return base.send(request, options: options) { answer in
            if case .success(let (body, head)) = answer {
                recorder.record(request: request, head: head, body: body, startedAt: startedAt, duration: ContinuousClock.now - start)
            }
            completionHandler(answer)
        }
    }
}
