import Foundation

/// The private key and X.509 certificate that sign a SOAP request's WS-Security `Signature`.
///
/// ResourceLoader itself canonicalizes, digests and assembles the signature (see
/// ``WSSecuritySigner``); the key only signs the canonical `SignedInfo` bytes, so that the core
/// needs no cryptography package. Enable the `XMLSignature` package trait and use the
/// `ResourceLoaderXMLSignature` product's `X509SigningKey` (RSA-SHA256 or ECDSA-P256-SHA256 over
/// swift-crypto, keys and certificates read from PEM), or conform a key of your own, such as one
/// held in a hardware module.
///
/// A conforming type must never put key material in its description, a log line or an error.
public protocol WSSecuritySigningKey: Sendable {
    /// The XML Signature `SignatureMethod` algorithm URI, such as
    /// `http://www.w3.org/2001/04/xmldsig-more#rsa-sha256`.
    var signatureAlgorithm: String { get }
    /// The signer's X.509 v3 certificate, DER-encoded: sent in the `BinarySecurityToken`, so the
    /// service knows which key to verify with.
    var certificate: Data { get }
    /// Signs `bytes` (the canonical `SignedInfo`) and returns the `SignatureValue`'s bytes, in the
    /// form XML Signature gives for the algorithm (for ECDSA, `r` and `s` concatenated).
    func signature(for bytes: Data) throws -> Data
}
