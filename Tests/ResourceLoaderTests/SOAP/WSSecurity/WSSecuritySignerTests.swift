import Foundation
@testable import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The signer's envelope work, with a stand-in key (the real keys and an independent verifier
/// are in ResourceLoaderXMLSignatureTests, with the `XMLSignature` trait): where the IDs go,
/// what is digested, and the refusals.
@Suite("WS-Security signer: envelope, references and digests")
struct WSSecuritySignerTests {
    /// A key that "signs" with SHA-256 of what it is given, so the test can check what that was.
    struct DigestKey: WSSecuritySigningKey {
        var signatureAlgorithm: String { "urn:test:sha256-of-signed-info" }
        var certificate: Data { Data("not a real certificate".utf8) }
        func signature(for bytes: Data) throws -> Data { Data(SHA256.hash(bytes)) }
    }

    struct FailingKey: WSSecuritySigningKey {
        struct Failure: Error {}
        var signatureAlgorithm: String { "urn:test:fails" }
        var certificate: Data { Data() }
        func signature(for bytes: Data) throws -> Data { throw Failure() }
    }

    static let created = Date(timeIntervalSince1970: 1_767_323_045)
    static let envelope = #"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><t:Trace xmlns:t="urn:t">1</t:Trace></s:Header><s:Body><op xmlns="urn:op"><a>x &amp; y</a></op></s:Body></s:Envelope>"#
    static let c14n = ExclusiveXMLCanonicalization()

    static func signed(_ text: String = envelope, header: WSSecurityHeader = WSSecurityHeader()) throws -> Data {
        try WSSecuritySigner(key: DigestKey()).signedEnvelope(Data(text.utf8), header: header, at: created, nonce: Array(0..<16))
    }

    @Test func theBodyAndTimestampAreReferencedWithTheirCanonicalDigests() throws {
        let signed = try Self.signed()
        let document = try XMLCanonicalDocument(data: signed)
        let tree = try XMLTree(data: signed)
        let body = try #require(tree.root.child(named: "Body"))
        #expect(body.attribute(named: "Id", namespaceURI: WSSecurityHeader.utilityNamespace) == "Body-1")
        let security = try #require(tree.root.child(named: "Header")?.child(named: "Security"))
        #expect(security.children.map(\.name) == ["Timestamp", "BinarySecurityToken", "Signature"])
        let signature = try #require(security.child(named: "Signature", namespaceURI: WSSecuritySigner.signatureNamespace))
        let signedInfo = try #require(signature.child(named: "SignedInfo"))
        let references = signedInfo.children.filter { $0.name == "Reference" }
        #expect(references.map { $0.attribute(named: "URI") } == ["#Body-1", "#TS-1"])
        for reference in references {
            let id = String(try #require(reference.attribute(named: "URI")).dropFirst())
            let canonical = try #require(document.canonicalizedElement(withID: id, using: Self.c14n))
            #expect(reference.child(named: "DigestValue")?.text == Data(SHA256.hash(canonical)).base64EncodedString())
            #expect(reference.child(named: "Transforms")?.child(named: "Transform")?.attribute(named: "Algorithm") == Self.c14n.algorithm)
        }
        // The body's canonical form starts with its own declarations only.
        let canonicalBody = String(decoding: try #require(document.canonicalizedElement(withID: "Body-1", using: Self.c14n)), as: UTF8.self)
        #expect(canonicalBody.hasPrefix(#"<s:Body xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsu="\#(WSSecurityHeader.utilityNamespace)" wsu:Id="Body-1"><op xmlns="urn:op"><a>x &amp; y</a></op>"#))
        // What the key signed is the exclusive canonical SignedInfo, with its ds prefix declared.
        let canonicalSignedInfo = try #require(document.canonicalizedFirstElement(named: "ds:SignedInfo", using: Self.c14n))
        #expect(String(decoding: canonicalSignedInfo, as: UTF8.self).hasPrefix(#"<ds:SignedInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:CanonicalizationMethod"#))
        #expect(signature.child(named: "SignatureValue")?.text == Data(SHA256.hash(canonicalSignedInfo)).base64EncodedString())
        let token = try #require(security.child(named: "BinarySecurityToken"))
        #expect(token.text == Data("not a real certificate".utf8).base64EncodedString())
        #expect(signature.child(named: "KeyInfo")?.child(named: "SecurityTokenReference")?.child(named: "Reference")?.attribute(named: "URI") == "#X509-1")
    }

    @Test func aBodyWithAnIDKeepsItAndWithoutATimestampOnlyTheBodyIsSigned() throws {
        let text = #"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:wsu="\#(WSSecurityHeader.utilityNamespace)"><e:Body wsu:Id="mine"/></e:Envelope>"#
        let signed = try Self.signed(text, header: WSSecurityHeader(timestampValidity: nil))
        let references = try XMLTree(data: signed).root.child(named: "Header")?.child(named: "Security")?.child(named: "Signature")?
            .child(named: "SignedInfo")?.children.filter { $0.name == "Reference" }.map { $0.attribute(named: "URI") }
        #expect(references == ["#mine"])
    }

    @Test func aWsuPrefixBoundElsewhereIsNotReused() throws {
        let text = #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsu="urn:other"><s:Body/></s:Envelope>"#
        let body = try #require(try XMLTree(data: Self.signed(text)).root.child(named: "Body"))
        #expect(body.attribute(named: "Id", namespaceURI: WSSecurityHeader.utilityNamespace) == "Body-1")
    }

    @Test func whatCannotBeSignedIsRefusedWithATypedError() throws {
        // Not an envelope; no Body; an ID taken twice; a key that fails.
        for text in ["<a/>", #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"/>"#, "not xml"] {
            #expect(throws: ResourceError.self) { try Self.signed(text) }
        }
        let taken = #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x Id="TS-1"/></s:Body></s:Envelope>"#
        #expect(throws: ResourceError.self) { try Self.signed(taken) }
        #expect {
            try WSSecuritySigner(key: FailingKey()).signedEnvelope(Data(Self.envelope.utf8), header: WSSecurityHeader(), at: Self.created, nonce: [])
        } throws: { error in
            guard case ResourceError.invalidRequest(let reason) = error else { return false }
            return reason.contains("could not sign")
        }
    }

    @Test func aBodyIDTakenTwiceIsRefusedWithoutQuotingIt() throws {
        // GIVEN a Body whose own wsu:Id is also the ID of an element inside it
        let text = #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsu="\#(WSSecurityHeader.utilityNamespace)"><s:Body wsu:Id="acct-7731-secret"><x Id="acct-7731-secret"/></s:Body></s:Envelope>"#
        // WHEN it is signed THEN the refusal names the part, never the document's value
        #expect {
            try Self.signed(text)
        } throws: { error in
            guard case ResourceError.invalidRequest(let reason) = error else { return false }
            return reason.contains("the Body's ID") && !reason.contains("acct-7731-secret")
        }
    }

    @Test func theAdapterSignsSOAPRequestsWithAFreshTimestamp() async throws {
        var request = URLRequest(url: URL(string: "https://example.com/soap")!)
        request.httpMethod = "POST"
        request.httpBody = Data(Self.envelope.utf8)
        request.setValue("text/xml; charset=utf-8", forHTTPHeaderField: "Content-Type")
        let adapter = WSSecurityAdapter(
            WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: "secret")),
            now: { Self.created }, nonce: { Array(0..<16) }, signer: WSSecuritySigner(key: DigestKey()))
        let adapted = try await adapter.adapt(request)
        let body = try #require(adapted.httpBody)
        let security = try #require(try XMLTree(data: body).root.child(named: "Header")?.child(named: "Security"))
        #expect(security.children.map(\.name) == ["Timestamp", "UsernameToken", "BinarySecurityToken", "Signature"])
        #expect(security.child(named: "Timestamp")?.child(named: "Created")?.text == "2026-01-02T03:04:05Z")
        #expect(!"\(adapter.signer!)".contains("secret"))
    }
}
