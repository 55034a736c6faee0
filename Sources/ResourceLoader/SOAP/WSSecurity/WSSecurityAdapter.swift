import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``RequestAdapter`` that adds a WS-Security header block to every SOAP request: a fresh
/// `Timestamp` and `UsernameToken` (new nonce, new `Created`) for each attempt.
///
/// ```swift
/// let pipeline = ResourcePipeline(adapters: [
///     WSSecurityAdapter(WSSecurityHeader(
///         usernameToken: WSSecurityUsernameToken(username: "ada", password: secret)))
/// ])
/// let service = ResourceService<CreateOrder>(pipeline: pipeline)
/// ```
///
/// A request is SOAP when its `Content-Type` is `text/xml` or `application/soap+xml`; other
/// requests pass unchanged. The block goes first in the envelope's `Header`, which is added when
/// there is none; the rest of the body is kept byte for byte. A SOAP request whose body is not a
/// SOAP envelope fails with ``ResourceError/requestAdaptationFailed(_:)`` rather than go out
/// without its security header. Nothing the adapter reports quotes the password.
public struct WSSecurityAdapter: RequestAdapter {
    /// The header to add.
    public let header: WSSecurityHeader
    private let now: @Sendable () -> Date
    private let nonce: @Sendable () -> [UInt8]

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - header: The header to add.
    ///   - now: The current date, read once per request for `Created` and `Expires`. Default:
    ///     the system's. Tests pass a fixed or manual clock's date.
    ///   - nonce: The token's nonce, made once per request. Default: 16 bytes from the system's
    ///     secure random number generator.
    public init(
        _ header: WSSecurityHeader,
        now: @escaping @Sendable () -> Date = { Date() },
        nonce: @escaping @Sendable () -> [UInt8] = WSSecurityAdapter.randomNonce
    ) {
        self.header = header
        self.now = now
        self.nonce = nonce
    }

    /// 16 bytes from the system's secure random number generator.
    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Returns `request` with the header block in its envelope.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when a SOAP request's body is not a
    ///   SOAP envelope, or the block cannot be written.
    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        guard let contentType = request.value(forHTTPHeaderField: "Content-Type")?.lowercased(),
            contentType.hasPrefix("text/xml") || contentType.hasPrefix("application/soap+xml")
        else { return request }
        guard let body = request.httpBody else {
            throw ResourceError.invalidRequest(reason: "a SOAP request has no body to add a WS-Security header to")
        }
        let block = try header.headerBlock(at: now(), nonce: nonce())
        var adapted = request
        adapted.httpBody = try SOAPEnvelope.inserting(block, into: body)
        return adapted
    }
}
