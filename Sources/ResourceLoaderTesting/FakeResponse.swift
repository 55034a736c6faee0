import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``FakeURLSession`` stub answers: an HTTP response or a transport error, after an
/// optional delay.
///
/// ```swift
/// .status(404)
/// .json(#"{"cities": []}"#)
/// .status(200, headers: ["Content-Type": "text/xml"], body: Data(envelope.utf8))
/// .error(URLError(.notConnectedToInternet))
/// .json("[]").delayed(by: .milliseconds(200))
/// ```
public struct FakeResponse: Sendable {
    private enum Kind: Sendable {
        case http(statusCode: Int, headers: [String: String], body: Data)
        case error(any Error)
    }

    private let kind: Kind
    /// How long the session waits before answering.
    public let delay: Duration
    /// How many pieces the body is handed over in (see ``inPieces(_:)``). Default: 1.
    public private(set) var bodyPieces = 1
    /// How many reports of the request body going out come before the head (see
    /// ``reportingUpload(inSteps:)``). Default: 0.
    public private(set) var uploadSteps = 0
    /// Where the connection drops, and with which error (see ``cut(afterBytes:with:)``).
    /// Default: `nil`, the whole body arrives.
    public private(set) var cutAfterBytes: (count: Int, error: any Error)?

    private init(kind: Kind, delay: Duration = .zero) {
        self.kind = kind
        self.delay = delay
    }

    /// The same response, with its body handed over in `count` pieces of about equal size (at
    /// least one byte each), as a network would: a download's progress moves `count` times.
    ///
    /// ```swift
    /// session.stub(.any, with: .status(200, body: export).inPieces(10))
    /// ```
    public func inPieces(_ count: Int) -> FakeResponse {
        var copy = self
        copy.bodyPieces = max(1, count)
        return copy
    }

    /// The same response, preceded by `steps` reports of the request body going out
    /// (``ResourceLoader/TransferReceiver/transferDidSend(_:of:)``), in equal steps up to the
    /// whole body, at most one a byte: what a progress UI for an upload sees. A streamed body (a
    /// file, a stream, a multipart form) reports these steps instead of the pieces it was read
    /// in, against its length when it has one. A request without a body reports nothing.
    public func reportingUpload(inSteps steps: Int) -> FakeResponse {
        var copy = self
        copy.uploadSteps = max(0, steps)
        return copy
    }

    /// The same response, whose connection drops after `count` bytes of the body: the receiver
    /// gets the head and those bytes (in ``inPieces(_:)`` pieces of the whole body's size), then
    /// `error` instead of the end. What a test of an interrupted download needs: with a
    /// download that keeps its partial file, the fetch fails with
    /// ``ResourceLoader/ResourceError/downloadInterrupted(_:underlying:)``, and a `206` stubbed
    /// next finishes it.
    ///
    /// ```swift
    /// session.stub(.any, with: [
    ///     .status(200, headers: ["ETag": "\"v1\"", "Content-Length": "\(export.count)"], body: export)
    ///         .cut(afterBytes: 4096),
    ///     .status(206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 4096-\(export.count - 1)/\(export.count)"],
    ///             body: export.dropFirst(4096)),
    /// ])
    /// ```
    public func cut(afterBytes count: Int, with error: any Error = URLError(.networkConnectionLost)) -> FakeResponse {
        var copy = self
        copy.cutAfterBytes = (max(0, count), error)
        return copy
    }

    /// An HTTP response with the given status, headers and body.
    public static func status(_ statusCode: Int, headers: [String: String] = [:], body: Data = Data()) -> FakeResponse {
        FakeResponse(kind: .http(statusCode: statusCode, headers: headers, body: body))
    }

    /// A response with a JSON body and `Content-Type: application/json`.
    public static func json(_ text: String, statusCode: Int = 200) -> FakeResponse {
        .status(statusCode, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    /// A response with an XML body and `Content-Type: text/xml; charset=utf-8`.
    public static func xml(_ text: String, statusCode: Int = 200) -> FakeResponse {
        .status(statusCode, headers: ["Content-Type": "text/xml; charset=utf-8"], body: Data(text.utf8))
    }

    /// A transport failure, such as `URLError(.notConnectedToInternet)`.
    public static func error(_ error: any Error) -> FakeResponse {
        FakeResponse(kind: .error(error))
    }

    /// The same response, answered after `delay`.
    public func delayed(by delay: Duration) -> FakeResponse {
        var copy = FakeResponse(kind: kind, delay: delay)
        copy.bodyPieces = bodyPieces
        copy.uploadSteps = uploadSteps
        copy.cutAfterBytes = cutAfterBytes
        return copy
    }

    func answer(to request: URLRequest) -> Result<(Data, URLResponse), any Error> {
        switch kind {
        case .error(let error):
            return .failure(error)
        case .http(let statusCode, let headers, let body):
            let url = request.url ?? URL(string: "http://fake.invalid/")!
            guard let response = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers) else {
                return .failure(URLError(.badServerResponse))
            }
            return .success((body, response))
        }
    }
}
