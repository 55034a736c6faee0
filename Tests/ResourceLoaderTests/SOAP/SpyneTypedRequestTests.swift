import Foundation
import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The types of `Fixtures/spyne-typed-service.py`, as a WSDL code generator would write them.
enum Shop {
    static let namespace = "urn:example:shop"

    struct Address: Codable, Equatable, Sendable {
        let street: String
        let city: String
    }

    struct LineItem: Codable, Equatable, Sendable {
        let sku: String
        let quantity: Int
        let price: Decimal
    }

    struct Card: Codable, Equatable, Sendable {
        let number: String
        let holder: String
    }

    enum Color: String, Codable, Sendable {
        case red, green, blue
    }

    /// `xs:choice` of `card` and `iban`.
    enum Payment: Codable, Equatable, Sendable, XMLChoice {
        case card(Card)
        case iban(String)
    }

    class Animal: Codable, XMLSchemaType, @unchecked Sendable {
        // Immutable: `@unchecked` only because a non-final class cannot be checked.
        let name: String
        init(name: String) { self.name = name }
        class var xmlSchema: XMLTypeSchema { XMLTypeSchema(typeName: XMLQualifiedName("Animal", namespaceURI: Shop.namespace)) }
    }

    final class Dog: Animal, @unchecked Sendable {
        let barks: Bool
        init(name: String, barks: Bool) {
            self.barks = barks
            super.init(name: name)
        }
        override class var xmlSchema: XMLTypeSchema { XMLTypeSchema(typeName: XMLQualifiedName("Dog", namespaceURI: Shop.namespace)) }
        private enum CodingKeys: String, CodingKey { case barks }
        required init(from decoder: any Decoder) throws {
            barks = try decoder.container(keyedBy: CodingKeys.self).decode(Bool.self, forKey: .barks)
            try super.init(from: decoder)
        }
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(barks, forKey: .barks)
        }
    }

    struct Order: Codable, Sendable, XMLSchemaType {
        let id: String
        let customer: String
        let address: Address
        let items: [LineItem]
        let tags: [String]
        let note: String?
        let nickname: String?
        let color: Color
        let placed: XMLDateTime
        let deliveryDate: XMLDate
        let total: Decimal
        let payload: Data
        let payment: Payment
        let pet: Animal

        static let xmlSchema = XMLTypeSchema(
            namespace: Shop.namespace, typeName: XMLQualifiedName("Order", namespaceURI: Shop.namespace),
            fields: ["id": .attribute, "items": .wrapped(item: "LineItem"), "note": .nillableElement])
    }

    /// The wrapper element of `placeOrder` (document/literal wrapped).
    struct PlaceOrderRequest: Encodable, Sendable {
        let order: Order
    }

    struct PlaceOrder: SOAPResourceType {
        typealias Model = String
        let order: Order
        let url: URL
        var soapVersion: SOAPVersion
        var operationNamespace: String? { Shop.namespace }
        var operation: String { "placeOrder" }
        var soapBody: (any Encodable)? { PlaceOrderRequest(order: order) }
        var responsePath: [String] { ["placeOrderResponse", "placeOrderResult"] }
    }

    struct WhoAmI: SOAPResourceType {
        typealias Model = String
        let url: URL
        var soapVersion: SOAPVersion
        var operationNamespace: String? { Shop.namespace }
        var operation: String { "whoAmI" }
        var parameters: SOAPParameters { ["greeting": "hi <there> & all"] }
        var responsePath: [String] { ["whoAmIResponse", "whoAmIResult"] }
    }

    static let password = "Pa55-<&>-word"
}

/// Typed requests and WS-Security against real spyne services, SOAP 1.1 and 1.2
/// (`Fixtures/spyne-typed-service.py`), validated by lxml against the services' own schema.
@Suite("SOAP typed requests against spyne", .enabled(if: SpynePeer.shouldRun, "python3 with spyne and lxml is not installed: pip install spyne lxml"))
struct SpyneTypedRequestTests {
    static func order(payment: Shop.Payment) -> Shop.Order {
        Shop.Order(
            id: "A<&>1", customer: #"Ada "Lovelace" <&> 'x'"#, address: Shop.Address(street: "1 High St", city: "Zürich"),
            items: [
                Shop.LineItem(sku: "A-1", quantity: 2, price: Decimal(string: "9.99")!),
                Shop.LineItem(sku: "B-2", quantity: 1, price: Decimal(string: "12345678901234567890.0001")!),
            ],
            tags: ["new", "gift"], note: nil, nickname: nil, color: .green,
            placed: XMLDateTime(Date(timeIntervalSince1970: 1_767_323_045), utcOffset: 330),
            deliveryDate: XMLDate(year: 2026, month: 2, day: 28), total: Decimal(string: "-0.05")!,
            payload: Data([0x00, 0xFF] + Array("<&>".utf8) + [0x00]), payment: payment, pet: Shop.Dog(name: "Rex", barks: true))
    }

    static func url(_ peer: SpynePeer, _ version: SOAPVersion) -> URL {
        peer.url.appendingPathComponent(version == .v1_1 ? "soap11" : "soap12")
    }

    static func fetch<R: SOAPResourceType>(_ resource: R, pipeline: ResourcePipeline? = nil) async -> Result<R.Model, ResourceError> {
        do {
            let service = pipeline.map { ResourceService<R>(pipeline: $0) } ?? ResourceService<R>()
            return .success(try await service.fetch(resource))
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: SOAPVersion.allCases)
    func aTypedOrderArrivesWithEveryValueAsSent(version: SOAPVersion) async throws {
        let peer = try await SpynePeer.start(script: "spyne-typed-service")
        defer { peer.stop() }
        let payment: Shop.Payment = version == .v1_1 ? .card(Shop.Card(number: "4111 <1111>", holder: "A & L")) : .iban("CH93 0076 2011 6238 5295 7")
        let resource = Shop.PlaceOrder(order: Self.order(payment: payment), url: Self.url(peer, version), soapVersion: version)
        let result = await withTimeLimit { await Self.fetch(resource) }
        let text = try #require(try result?.get())
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(summary["id"] as? String == "A<&>1")
        #expect(summary["customer"] as? String == #"Ada "Lovelace" <&> 'x'"#)
        #expect(summary["address"] as? [String] == ["1 High St", "Zürich"])
        let items = try #require(summary["items"] as? [[Any]])
        #expect(items.map { $0[0] as? String } == ["A-1", "B-2"])
        #expect(items.map { $0[1] as? Int } == [2, 1])
        #expect(items.map { $0[2] as? String } == ["9.99", "12345678901234567890.0001"])
        #expect(summary["tags"] as? [String] == ["new", "gift"])
        #expect(summary["note"] is NSNull)
        #expect(summary["nickname"] is NSNull)
        #expect(summary["color"] as? String == "green")
        #expect(summary["placed"] as? String == "2026-01-02T08:34:05+05:30")
        #expect(summary["placedOffsetMinutes"] as? Int == 330)
        #expect(summary["deliveryDate"] as? String == "2026-02-28")
        #expect(summary["total"] as? String == "-0.05")
        #expect(summary["payload"] as? String == "00ff3c263e00")
        switch payment {
        case .card:
            #expect(summary["choice"] as? String == "card")
            #expect(summary["card"] as? [String] == ["4111 <1111>", "A & L"])
        case .iban(let iban):
            #expect(summary["choice"] as? String == "iban")
            #expect(summary["iban"] as? String == iban)
        }
        #expect(summary["pet"] as? String == "Dog")
        #expect(summary["petName"] as? String == "Rex")
        #expect(summary["barks"] as? Bool == true)
    }

    @Test(arguments: SOAPVersion.allCases, [WSSecurityUsernameToken.PasswordType.digest, .text])
    func aUsernameTokenIsAccepted(version: SOAPVersion, type: WSSecurityUsernameToken.PasswordType) async throws {
        let peer = try await SpynePeer.start(script: "spyne-typed-service")
        defer { peer.stop() }
        let pipeline = ResourcePipeline(adapters: [WSSecurityAdapter(WSSecurityHeader(
            usernameToken: WSSecurityUsernameToken(username: "ada", password: Shop.password, passwordType: type)))])
        let result = await withTimeLimit { await Self.fetch(Shop.WhoAmI(url: Self.url(peer, version), soapVersion: version), pipeline: pipeline) }
        #expect(try result?.get() == "hello ada: hi <there> & all")
    }

    @Test(arguments: SOAPVersion.allCases)
    func aWrongPasswordOrNoTokenIsASenderFault(version: SOAPVersion) async throws {
        let peer = try await SpynePeer.start(script: "spyne-typed-service")
        defer { peer.stop() }
        let wrong = ResourcePipeline(adapters: [WSSecurityAdapter(WSSecurityHeader(
            usernameToken: WSSecurityUsernameToken(username: "ada", password: "not-the-password")))])
        let resource = Shop.WhoAmI(url: Self.url(peer, version), soapVersion: version)
        for pipeline in [wrong, nil] {
            let result = await withTimeLimit { await Self.fetch(resource, pipeline: pipeline) }
            guard case .failure(.soapFault(let fault))? = result else {
                Issue.record("expected a SOAP Fault, got \(String(describing: result))")
                continue
            }
            #expect(fault.standardCode == .sender)
            #expect(fault.reason == "The security token could not be authenticated")
            #expect(!ResourceError.soapFault(fault).description.contains("not-the-password"))
        }
    }
}

/// zeep, a second and independent SOAP client, builds the same call from spyne's WSDL; both
/// envelopes must carry the same information set (`Fixtures/zeep-envelope.py`).
@Suite("SOAP typed requests: the same information set as zeep", .enabled(if: ZeepClient.shouldRun, "python3 with zeep, spyne and lxml is not installed: pip install zeep spyne lxml"))
struct ZeepInformationSetTests {
    @Test(arguments: SOAPVersion.allCases)
    func ourEnvelopeCarriesWhatZeepsDoes(version: SOAPVersion) async throws {
        let peer = try await SpynePeer.start(script: "spyne-typed-service")
        defer { peer.stop() }
        let payment: Shop.Payment = version == .v1_1 ? .card(Shop.Card(number: "4111 <1111>", holder: "A & L")) : .iban("CH93 0076 2011 6238 5295 7")
        let url = SpyneTypedRequestTests.url(peer, version)
        let envelope = try #require(try Shop.PlaceOrder(order: SpyneTypedRequestTests.order(payment: payment), url: url, soapVersion: version).urlRequest().httpBody)
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.query = "wsdl"
        let arguments = [try #require(components.url).absoluteString, version == .v1_1 ? "card" : "iban"]
        let output = try await offTheCooperativePool { try ZeepClient.run(arguments: arguments, input: envelope) }
        #expect(output == "SAME")
    }
}

/// Runs `Fixtures/zeep-envelope.py`.
enum ZeepClient {
    /// Whether the tests should run: zeep is importable, or this is CI, where they must.
    static let shouldRun: Bool = ProcessInfo.processInfo.environment["CI"] == "true" || canImportZeep()

    private static func canImportZeep() -> Bool {
        PythonFixtureServer.pythonRuns("import zeep, spyne, lxml")
    }

    /// The script's output, trimmed; it reads `input` and exits on its own. Blocks: call it off
    /// the cooperative pool.
    static func run(arguments: [String], input: Data) throws -> String {
        let script = try #require(Bundle.module.url(forResource: "zeep-envelope", withExtension: "py", subdirectory: "Fixtures"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
