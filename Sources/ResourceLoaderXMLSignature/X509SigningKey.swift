#if XMLSignature
import Crypto
import Foundation
import ResourceLoader
import SwiftASN1
import X509
import _CryptoExtras

/// A private key and its X.509 v3 certificate, read from PEM, that sign WS-Security requests:
/// RSA-SHA256 (PKCS#1 v1.5) or ECDSA-P256-SHA256, over swift-crypto.
///
/// ```swift
/// import ResourceLoader
/// import ResourceLoaderXMLSignature
///
/// let key = try X509SigningKey(privateKeyPEM: keyPEM, certificatePEM: certificatePEM)
/// let pipeline = ResourcePipeline(adapters: [
///     WSSecurityAdapter(WSSecurityHeader(), signer: WSSecuritySigner(key: key))
/// ])
/// ```
///
/// The algorithm follows the key: an RSA key (2048 bits or more, PKCS#1 `RSA PRIVATE KEY` or
/// PKCS#8 `PRIVATE KEY`) signs with RSA-SHA256, a P-256 key (SEC 1 `EC PRIVATE KEY` or PKCS#8)
/// with ECDSA-SHA256. The certificate must hold the key's public half, so a request is never
/// signed with a key its certificate cannot verify.
///
/// The private key never appears in the value's description, its reflection (`dump`) or an
/// error: errors say which part was refused, never its content.
public struct X509SigningKey: WSSecuritySigningKey {
    /// A signature algorithm.
    public enum Algorithm: String, Sendable, Hashable {
        /// RSA with SHA-256 and PKCS#1 v1.5 padding (`…xmldsig-more#rsa-sha256`).
        case rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
        /// ECDSA over P-256 with SHA-256 (`…xmldsig-more#ecdsa-sha256`).
        case ecdsaP256SHA256 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"
    }

    /// The key's algorithm.
    public let algorithm: Algorithm
    /// The certificate, DER-encoded.
    public let certificate: Data
    private let key: Key

    /// The private key, one case per algorithm.
    private enum Key: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    /// Reads a private key and its certificate from PEM.
    ///
    /// - Throws: `ResourceError.invalidRequest(reason:)` when the certificate is not an X.509
    ///   certificate in PEM, the key is neither an RSA key of 2048 bits or more nor a P-256 key
    ///   in PEM, or the certificate does not hold the key's public half. The reason never quotes
    ///   either.
    public init(privateKeyPEM: String, certificatePEM: String) throws(ResourceError) {
        let certificate: Certificate
        let der: [UInt8]
        do {
            der = try PEMDocument(pemString: certificatePEM).derBytes
            certificate = try Certificate(derEncoded: der)
        } catch {
            throw .invalidRequest(reason: "the WS-Security signing certificate is not an X.509 certificate in PEM")
        }
        if let p256 = try? P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM) {
            guard certificate.publicKey == Certificate.PublicKey(p256.publicKey) else {
                throw .invalidRequest(reason: "the WS-Security signing certificate does not hold the signing key's public key")
            }
            key = .p256(p256)
            algorithm = .ecdsaP256SHA256
        } else if let rsa = try? _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM) {
            guard certificate.publicKey == Certificate.PublicKey(rsa.publicKey) else {
                throw .invalidRequest(reason: "the WS-Security signing certificate does not hold the signing key's public key")
            }
            key = .rsa(rsa)
            algorithm = .rsaSHA256
        } else {
            throw .invalidRequest(reason: "the WS-Security signing key is neither an RSA key of 2048 bits or more nor a P-256 key in PEM")
        }
        self.certificate = Data(der)
    }

    /// The `SignatureMethod` URI of ``algorithm``.
    public var signatureAlgorithm: String { algorithm.rawValue }

    /// Signs `bytes`: an RSA signature as is, an ECDSA signature as `r` and `s` of 32 bytes each,
    /// as XML Signature writes them.
    public func signature(for bytes: Data) throws -> Data {
        switch key {
        case .rsa(let key): try key.signature(for: bytes, padding: .insecurePKCS1v1_5).rawRepresentation
        case .p256(let key): try key.signature(for: bytes).rawRepresentation
        }
    }
}

extension X509SigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The algorithm and the certificate's size; never the key.
    public var description: String { "X509SigningKey(algorithm: \(algorithm), certificate: \(certificate.count) bytes)" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The algorithm and the certificate; never the key.
    public var customMirror: Mirror { Mirror(self, children: ["algorithm": algorithm, "certificate": certificate]) }
}
#endif
