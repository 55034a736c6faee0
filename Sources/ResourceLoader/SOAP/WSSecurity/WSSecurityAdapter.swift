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
///
/// Given a ``WSSecuritySigner``, the adapter also signs every request: the block then carries the
/// signer's certificate and a `Signature` over the `Body` and the `Timestamp`, made after the
/// token and timestamp are fresh (see ``WSSecuritySigner``).
public struct WSSecurityAdapter: RequestAdapter {
    /// The header to add.
    public let header: WSSecurityHeader
    /// The signer, if requests are signed.
    public let signer: WSSecuritySigner?
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
    ///   - signer: Signs every request when given. Default: `nil`, no signature.
    public init(
        _ header: WSSecurityHeader,
        now: @escaping @Sendable () -> Date = { Date() },
        nonce: @escaping @Sendable () -> [UInt8] = WSSecurityAdapter.randomNonce,
        signer: WSSecuritySigner? = nil
    ) {
        self.header = header
        self.signer = signer
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
    ///   SOAP envelope, the block cannot be written, or the signer fails.
    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        guard let contentType = request.value(forHTTPHeaderField: "Content-Type")?.lowercased(),
            contentType.hasPrefix("text/xml") || contentType.hasPrefix("application/soap+xml")
        else { return request }
        guard let body = request.httpBody else {
            throw ResourceError.invalidRequest(reason: "a SOAP request has no body to add a WS-Security header to")
        }
        var adapted = request
        if let signer {
            adapted.httpBody = try signer.signedEnvelope(body, header: header, at: now(), nonce: nonce())
        } else {
            adapted.httpBody = try SOAPEnvelope.inserting(header.headerBlock(at: now(), nonce: nonce()), into: body)
        }
        return adapted
    }
}
