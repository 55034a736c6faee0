import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("WS-Security")
struct WSSecurityTests {
    static let password = "Pa55-<&>-WORD"
    static let created = Date(timeIntervalSince1970: 1_767_323_045.5)  // 2026-01-02T03:04:05.5Z
    static let nonce: [UInt8] = Array(0..<16)
    static let wsse = WSSecurityHeader.securityNamespace
    static let wsu = WSSecurityHeader.utilityNamespace

    static func adapter(_ type: WSSecurityUsernameToken.PasswordType, password: String = password) -> WSSecurityAdapter {
        WSSecurityAdapter(
            WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: password, passwordType: type)),
            now: { created }, nonce: { nonce })
    }

    static func request(body: String, contentType: String = "text/xml; charset=utf-8") -> URLRequest {
        var request = URLRequest(url: URL(string: "https://example.com/soap")!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        return request
    }

    @Test func theDigestIsTheProfilesBase64OfSHA1OfNonceCreatedAndPassword() throws {
        // The example of the UsernameToken profile's users (soapUI, WSS4J), checked with Python's hashlib.
        let token = WSSecurityUsernameToken(username: "user", password: "userpassword")
        let nonce = try #require(Data(base64Encoded: "LKqI6G/AikKCQrN0zqZFlg=="))
        #expect(token.passwordDigest(nonce: Array(nonce), created: "2010-09-16T07:50:45Z") == "tuOSpGlFlIXsozq4HFNeeGeFLEI=")
    }

    @Test func theBlockHoldsTimestampAndTokenFromTheInjectedClockAndNonce() throws {
        let header = WSSecurityHeader(
            usernameToken: WSSecurityUsernameToken(username: "ada", password: Self.password), timestampValidity: .seconds(300))
        let block = try header.headerBlock(at: Self.created, nonce: Self.nonce)
        #expect(block.mustUnderstand)
        let security = block.element
        #expect(security.name == "Security" && security.namespaceURI == Self.wsse)
        let timestamp = try #require(security.child(named: "Timestamp", namespaceURI: Self.wsu))
        #expect(timestamp.child(named: "Created")?.text == "2026-01-02T03:04:05.5Z")
        #expect(timestamp.child(named: "Expires")?.text == "2026-01-02T03:09:05.5Z")
        let token = try #require(security.child(named: "UsernameToken", namespaceURI: Self.wsse))
        #expect(token.child(named: "Username")?.text == "ada")
        let password = try #require(token.child(named: "Password"))
        #expect(password.attribute(named: "Type")?.hasSuffix("#PasswordDigest") == true)
        let expected = WSSecurityUsernameToken(username: "ada", password: Self.password)
            .passwordDigest(nonce: Self.nonce, created: "2026-01-02T03:04:05.5Z")
        #expect(password.text == expected)
        #expect(token.child(named: "Nonce")?.text == Data(Self.nonce).base64EncodedString())
        #expect(token.child(named: "Nonce")?.attribute(named: "EncodingType")?.hasSuffix("#Base64Binary") == true)
        #expect(token.child(named: "Created", namespaceURI: Self.wsu)?.text == "2026-01-02T03:04:05.5Z")
        // Text passwords are sent as they are, escaped.
        let text = try WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: Self.password, passwordType: .text))
            .headerBlock(at: Self.created, nonce: Self.nonce)
        #expect(text.element.child(named: "UsernameToken")?.child(named: "Password")?.text == Self.password)
        #expect(text.element.child(named: "UsernameToken")?.child(named: "Password")?.attribute(named: "Type")?.hasSuffix("#PasswordText") == true)
        // No timestamp when there is no validity.
        let untimed = try WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "a", password: "b"), timestampValidity: nil)
            .headerBlock(at: Self.created, nonce: Self.nonce)
        #expect(untimed.element.child(named: "Timestamp") == nil)
    }

    @Test func theAdapterAddsTheBlockToEveryKindOfEnvelope() async throws {
        let bodies = [
            // No Header: one is added, with the envelope's prefix.
            #"<?xml version="1.0"?><!-- a > comment --><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" a="x>y"><s:Body><op/></s:Body></s:Envelope>"#,
            // An empty Header.
            #"<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Header/><s:Body><op/></s:Body></s:Envelope>"#,
            // A Header with a block already.
            #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"> <s:Header><t:Trace xmlns:t="urn:t">1</t:Trace></s:Header><s:Body><op/></s:Body></s:Envelope>"#,
            // The envelope namespace as the default namespace, and an operation in none.
            #"<Envelope xmlns="http://www.w3.org/2003/05/soap-envelope"><Body><op xmlns="">x</op></Body></Envelope>"#,
        ]
        for body in bodies {
            let adapted = try await Self.adapter(.digest).adapt(Self.request(body: body))
            let envelope = try XMLTree(data: try #require(adapted.httpBody)).root
            let namespace = try #require(envelope.namespaceURI)
            let version = try #require(SOAPVersion(envelopeNamespace: namespace))
            let header = try #require(envelope.child(named: "Header", namespaceURI: namespace))
            let security = try #require(header.children.first)
            #expect(security.name == "Security" && security.namespaceURI == Self.wsse, "\(body)")
            #expect(security.attribute(named: "mustUnderstand", namespaceURI: namespace) == (version == .v1_1 ? "1" : "true"))
            #expect(envelope.children.map(\.name) == ["Header", "Body"])
            // The rest is kept: the body's operation and any earlier block.
            #expect(envelope.child(named: "Body")?.children.first?.name == "op")
            #expect(envelope.child(named: "Body")?.children.first?.namespaceURI == nil)
            if body.contains("Trace") { #expect(header.children.map(\.name) == ["Security", "Trace"]) }
        }
    }

    @Test func commentsInstructionsQuotedBracketsAndAByteOrderMarkDoNotMisplaceTheBlock() async throws {
        let bodies = [
            "\u{FEFF}" + #"<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#,
            #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><!-- <s:Header> --><?pi >?><s:Body/></s:Envelope>"#,
            #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/">"#
                + #"<!-- first --><?pi x?>  <s:Header note='a>b' other="/>"/><s:Body/></s:Envelope>"#,
        ]
        for body in bodies {
            let adapted = try await Self.adapter(.text).adapt(Self.request(body: body))
            let envelope = try XMLTree(data: try #require(adapted.httpBody)).root
            #expect(envelope.children.map(\.name) == ["Header", "Body"], "\(body)")
            #expect(envelope.child(named: "Header")?.children.map(\.name) == ["Security"], "\(body)")
            if body.contains("note=") { #expect(envelope.child(named: "Header")?.attribute(named: "note") == "a>b") }
        }
        // UTF-16 is refused rather than spliced into byte by byte.
        var request = Self.request(body: "")
        request.httpBody = Data([0xFF, 0xFE]) + #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#.data(using: .utf16LittleEndian)!
        await #expect(throws: ResourceError.self) { try await Self.adapter(.text).adapt(request) }
        // So is a document whose declaration names another encoding, whose bytes UTF-8 would corrupt.
        for (declared, encoding) in [("ISO-8859-1", String.Encoding.isoLatin1), ("UTF-16LE", .utf16LittleEndian), ("UTF-16BE", .utf16BigEndian)] {
            let text = #"<?xml version="1.0" encoding="\#(declared)"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><n>José</n></s:Body></s:Envelope>"#
            var request = Self.request(body: "")
            let encoded: Data? = text.data(using: encoding)
            guard let encoded, (try? XMLTree(data: encoded)) != nil else {
                Issue.record("the \(declared) envelope does not parse")
                continue
            }
            request.httpBody = encoded
            await #expect(throws: ResourceError.self, "\(declared)") { try await Self.adapter(.text).adapt(request) }
        }
    }

    @Test func requestsThatAreNotSOAPPassAndABrokenSOAPBodyFails() async throws {
        let json = Self.request(body: #"{"a":1}"#, contentType: "application/json")
        #expect(try await Self.adapter(.text).adapt(json).httpBody == json.httpBody)
        for body in ["<notAnEnvelope/>", "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"/>", "not xml"] {
            await #expect(throws: ResourceError.self) { try await Self.adapter(.text).adapt(Self.request(body: body)) }
        }
    }

    @Test func aPipelineAddsTheHeaderToATypedCallAndEachAttemptGetsAFreshNonce() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
            <placeOrderResponse xmlns="urn:example:orders"><orderID>O-1</orderID></placeOrderResponse>
            </soap:Body></soap:Envelope>
            """))
        let pipeline = ResourcePipeline(session: session, adapters: [WSSecurityAdapter(
            WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: Self.password)))])
        let service = ResourceService<PlaceOrder>(pipeline: pipeline)
        #expect(try await service.fetch(PlaceOrder()) == "O-1")
        #expect(try await service.fetch(PlaceOrder()) == "O-1")
        let nonces = try session.receivedRequests.map { request in
            let envelope = try XMLTree(data: try #require(request.httpBody)).root
            #expect(envelope.element(atPath: ["Body", "placeOrder", "customer"])?.text == "Ada <&>")
            return try #require(envelope.element(atPath: ["Header", "Security", "UsernameToken", "Nonce"])?.text)
        }
        #expect(nonces.count == 2)
        #expect(Set(nonces).count == 2)
        #expect(nonces.allSatisfy { Data(base64Encoded: $0)?.count == 16 })
    }

    @Test func thePasswordIsInNoDescriptionDumpErrorOrLogLine() async throws {
        let secret = "S3CRET-pa55"
        let token = WSSecurityUsernameToken(username: "ada", password: secret, passwordType: .text)
        let header = WSSecurityHeader(usernameToken: token)
        var dumped = ""
        dump(header, to: &dumped)
        dump(token, to: &dumped)
        let descriptions = [
            String(describing: token), String(reflecting: token), "\(token)", String(describing: header),
            String(reflecting: header), dumped, String(describing: [token]), String(describing: Optional(header)),
        ]
        for text in descriptions {
            #expect(!text.contains(secret), "\(text)")
            #expect(!text.contains("pa55"))
        }
        // An invalid password is refused without being quoted.
        let bad = WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: secret + "\u{1}", passwordType: .text))
        do {
            _ = try bad.headerBlock(at: Self.created, nonce: Self.nonce)
            Issue.record("a password with U+0001 was written")
        } catch {
            #expect(!error.description.contains(secret))
            #expect(!String(reflecting: error).contains(secret))
        }
        // A fetch whose request carries the password, answered by a security Fault, logs no trace
        // of it: not the password, the digest or the nonce.
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>
            <faultcode>soap:Client</faultcode><faultstring>Bad password \(secret)</faultstring>
            </soap:Fault></soap:Body></soap:Envelope>
            """, statusCode: 500))
        let lines = LoggingFetchMonitorTests.Lines()
        for type in [WSSecurityUsernameToken.PasswordType.text, .digest] {
            let pipeline = ResourcePipeline(
                session: session, adapters: [Self.adapter(type, password: secret)], monitors: [LoggingFetchMonitor(sink: lines.append)])
            let result = await ResourceService<PlaceOrder>(pipeline: pipeline).fetchWithCompletion(PlaceOrder())
            guard case .failure(let error) = result else {
                Issue.record("the Fault was not reported")
                continue
            }
            #expect(!error.description.contains(secret))
        }
        let digest = WSSecurityUsernameToken(username: "ada", password: secret).passwordDigest(nonce: Self.nonce, created: "2026-01-02T03:04:05.5Z")
        #expect(lines.all.count == 2)
        for line in lines.all {
            #expect(!line.contains(secret))
            #expect(!line.contains(digest))
            #expect(!line.contains(Data(Self.nonce).base64EncodedString()))
        }
    }
}
