#if XMLSignature
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import ResourceLoaderXMLSignature
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Our WS-Security signatures, checked by an independent verifier, signxml (PyPI), with keys and
/// certificates python `cryptography` makes for the run: RSA-SHA256 and ECDSA-P256-SHA256 verify;
/// a tampered body, a tampered timestamp and another certificate each fail; a UsernameToken,
/// Timestamp and Signature envelope verifies; a signed pipeline request verifies.
@Suite("XML Signature: signxml verifies our WS-Security signatures", .enabled(if: PythonPeer.shouldRun, "python3 with signxml is not installed: pip install signxml lxml cryptography"))
struct X509SigningKeyTests {
    static let envelope = """
        <?xml version="1.0" encoding="utf-8"?>
        <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>\
        <getUserDetails xmlns="urn:example:users"><userID>42</userID><note>a &lt; b &amp; "c"</note></getUserDetails>\
        </soap:Body></soap:Envelope>
        """
    static let created = Date()

    static func identities() async throws -> TestIdentities {
        try #require(try await TestIdentities.make(), "python cryptography could not make the test keys")
    }

    static func sign(_ key: X509SigningKey, header: WSSecurityHeader = WSSecurityHeader(), envelope: String = envelope) throws -> String {
        let signed = try WSSecuritySigner(key: key).signedEnvelope(Data(envelope.utf8), header: header, at: created, nonce: Array(0..<16))
        return String(decoding: signed, as: UTF8.self)
    }

    static func verdicts(_ cases: [SignXMLVerifier.Case]) async throws -> [String] {
        let verdicts = try #require(try await SignXMLVerifier.verdicts(cases), "signxml did not run")
        try #require(verdicts.count == cases.count)
        return verdicts
    }

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test func rsaAndECDSASignaturesOverBodyAndTimestampVerify() async throws {
        let identities = try await Self.identities()
        let rsa = try X509SigningKey(privateKeyPEM: identities.rsa.key, certificatePEM: identities.rsa.certificate)
        let ec = try X509SigningKey(privateKeyPEM: identities.ec.key, certificatePEM: identities.ec.certificate)
        #expect(rsa.algorithm == .rsaSHA256)
        #expect(ec.algorithm == .ecdsaP256SHA256)
        // The traditional PEM forms read as the same keys.
        let rsaTraditional = try X509SigningKey(privateKeyPEM: identities.rsa.traditionalKey, certificatePEM: identities.rsa.certificate)
        let ecTraditional = try X509SigningKey(privateKeyPEM: identities.ec.traditionalKey, certificatePEM: identities.ec.certificate)
        let cases = try [rsa, ec, rsaTraditional, ecTraditional].map {
            SignXMLVerifier.Case(envelope: Self.base64(try Self.sign($0)), certificate: nil, references: 2)
        }
        #expect(try await Self.verdicts(cases) == Array(repeating: "verified Body Timestamp", count: 4))
    }

    @Test func aTamperedBodyATamperedTimestampAndAnotherCertificateFailVerification() async throws {
        let identities = try await Self.identities()
        for identity in [identities.rsa, identities.ec] {
            let key = try X509SigningKey(privateKeyPEM: identity.key, certificatePEM: identity.certificate)
            let signed = try Self.sign(key)
            let expires = try #require(signed.range(of: "<wsu:Expires>")).upperBound
            var laterExpiry = signed
            laterExpiry.replaceSubrange(expires ..< signed.index(expires, offsetBy: 4), with: "2099")
            let cases = [
                SignXMLVerifier.Case(envelope: Self.base64(signed), certificate: nil, references: 2),
                SignXMLVerifier.Case(envelope: Self.base64(signed.replacingOccurrences(of: "<userID>42<", with: "<userID>43<")), certificate: nil, references: 2),
                SignXMLVerifier.Case(envelope: Self.base64(laterExpiry), certificate: nil, references: 2),
                SignXMLVerifier.Case(envelope: Self.base64(signed), certificate: identities.otherRSA.certificate, references: 2),
            ]
            let verdicts = try await Self.verdicts(cases)
            #expect(verdicts[0] == "verified Body Timestamp")
            for verdict in verdicts.dropFirst() { #expect(verdict.hasPrefix("refused "), "\(verdict)") }
        }
    }

    @Test func aUsernameTokenTimestampAndSignatureEnvelopeVerifies() async throws {
        let identities = try await Self.identities()
        let key = try X509SigningKey(privateKeyPEM: identities.ec.key, certificatePEM: identities.ec.certificate)
        for type in [WSSecurityUsernameToken.PasswordType.digest, .text] {
            let header = WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: "s3cret <&>", passwordType: type))
            let signed = try Self.sign(key, header: header)
            let security = try #require(try XMLTree(string: signed).root.element(atPath: ["Header", "Security"]))
            #expect(security.children.map(\.name) == ["Timestamp", "UsernameToken", "BinarySecurityToken", "Signature"])
            #expect(try await Self.verdicts([.init(envelope: Self.base64(signed), certificate: nil, references: 2)]) == ["verified Body Timestamp"])
        }
    }

    @Test func aPipelineSignsEveryRequestAndEachVerifies() async throws {
        let identities = try await Self.identities()
        let key = try X509SigningKey(privateKeyPEM: identities.rsa.key, certificatePEM: identities.rsa.certificate)
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>\
            <getUserDetailsResponse xmlns="urn:example:users"><name>Ada</name></getUserDetailsResponse></soap:Body></soap:Envelope>
            """))
        let pipeline = ResourcePipeline(session: session, adapters: [
            WSSecurityAdapter(
                WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: "secret")),
                signer: WSSecuritySigner(key: key))
        ])
        let service = ResourceService<GetUserDetails>(pipeline: pipeline)
        #expect(try await service.fetch(GetUserDetails(userID: "7 <&>")) == User(name: "Ada"))
        #expect(try await service.fetch(GetUserDetails(userID: "8")) == User(name: "Ada"))
        let cases = try session.receivedRequests.map {
            SignXMLVerifier.Case(envelope: try #require($0.httpBody).base64EncodedString(), certificate: nil, references: 2)
        }
        #expect(cases.count == 2)
        #expect(try await Self.verdicts(cases) == ["verified Body Timestamp", "verified Body Timestamp"])
    }

    @Test func aMismatchedOrUnreadableKeyIsRefusedWithoutQuotingIt() async throws {
        let identities = try await Self.identities()
        let keyBody = identities.rsa.key.split(separator: "\n")[1]
        let attempts: [(String, String)] = [
            (identities.rsa.key, identities.otherRSA.certificate),
            (identities.ec.key, identities.rsa.certificate),
            ("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n", identities.rsa.certificate),
            (identities.rsa.key, "not a certificate"),
        ]
        for (key, certificate) in attempts {
            #expect {
                try X509SigningKey(privateKeyPEM: key, certificatePEM: certificate)
            } throws: { error in
                guard case ResourceError.invalidRequest(let reason) = error else { return false }
                return !reason.contains(keyBody) && !"\(error)".contains(keyBody)
            }
        }
        let key = try X509SigningKey(privateKeyPEM: identities.rsa.key, certificatePEM: identities.rsa.certificate)
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, key.debugDescription, dumped, "\(WSSecuritySigner(key: key))"] {
            #expect(!text.contains(keyBody))
            #expect(!text.contains("PRIVATE"))
        }
    }
}

/// The same signatures checked by a second, independent verifier: libxmlsec1's `xmlsec1`.
@Suite("XML Signature: xmlsec1 verifies our WS-Security signatures", .enabled(if: XMLSecVerifier.shouldRun && PythonPeer.shouldRun, "xmlsec1 is not installed: apt-get install xmlsec1"))
struct XMLSecVerificationTests {
    @Test func bothAlgorithmsVerifyAndTamperingOrAnotherCertificateFails() async throws {
        let identities = try await X509SigningKeyTests.identities()
        let soap = "http://schemas.xmlsoap.org/soap/envelope/"
        for identity in [identities.rsa, identities.ec] {
            let key = try X509SigningKey(privateKeyPEM: identity.key, certificatePEM: identity.certificate)
            let header = WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: "secret"))
            let signed = try X509SigningKeyTests.sign(key, header: header)
            #expect(try await XMLSecVerifier.verifiesOffThePool(Data(signed.utf8), certificate: identity.certificate, soapNamespace: soap))
            let tampered = signed.replacingOccurrences(of: "<userID>42<", with: "<userID>43<")
            #expect(try await !XMLSecVerifier.verifiesOffThePool(Data(tampered.utf8), certificate: identity.certificate, soapNamespace: soap))
            #expect(try await !XMLSecVerifier.verifiesOffThePool(Data(signed.utf8), certificate: identities.otherRSA.certificate, soapNamespace: soap))
        }
    }
}

/// The README's `GetUserDetails`, with a smaller `User`.
struct GetUserDetails: SOAPResourceType {
    typealias Model = User
    let userID: String
    var url: URL { URL(string: "https://example.com/users")! }
    var operationNamespace: String? { "urn:example:users" }
    var operation: String { "getUserDetails" }
    var parameters: SOAPParameters { ["userID": .text(userID)] }
}

/// The user `GetUserDetails` answers.
struct User: Decodable, Sendable, Equatable {
    let name: String
}
#endif
