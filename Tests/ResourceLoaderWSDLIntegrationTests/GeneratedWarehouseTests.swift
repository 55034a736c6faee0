import Foundation
import ResourceLoader
import ResourceLoaderWSDL
import Testing

/// The reference tier: the Swift in `Generated/` is what the generator makes from the WSDL the
/// spyne service publishes, byte for byte, so the code the other suites call is the generator's
/// current output and not a hand-edited copy.
@Suite("Generated code: reference output for a spyne WSDL", .enabled(if: SpyneWarehouse.shouldRun, "python3 with spyne and lxml is not installed: pip install spyne lxml"))
struct GeneratedReferenceTests {
    /// The folder of the checked-in generated files.
    static let generatedFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Generated")

    @Test func theCheckedInFilesAreWhatTheGeneratorMakesFromThePublishedWSDL() async throws {
        // GIVEN the WSDL the live service publishes
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let wsdl = try await peer.wsdl()
        // WHEN it is read and generated with the default configuration
        let document = try WSDLReader().read(path: "Warehouse.wsdl", in: ["Warehouse.wsdl": wsdl])
        let output = WSDLGenerator().generate(document)
        // THEN there is nothing to diagnose, and each file is the checked-in one
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        #expect(output.files.map(\.name) == WSDLGenerator.fileNames)
        // Set RESOURCELOADER_REGENERATE=1 to write the files again.
        let regenerate = ProcessInfo.processInfo.environment["RESOURCELOADER_REGENERATE"] == "1"
        for file in output.files {
            if regenerate {
                try Data(file.contents.utf8).write(to: Self.generatedFolder.appendingPathComponent(file.name))
                continue
            }
            let checkedIn = try String(contentsOf: Self.generatedFolder.appendingPathComponent(file.name), encoding: .utf8)
            let firstDifference = zip(checkedIn.split(separator: "\n", omittingEmptySubsequences: false), file.contents.split(separator: "\n", omittingEmptySubsequences: false))
                .enumerated().first { $0.element.0 != $0.element.1 }
            #expect(
                checkedIn == file.contents,
                """
                Generated/\(file.name) differs from the generator's output\(firstDifference.map { " at line \($0.offset + 1):\n- \($0.element.0)\n+ \($0.element.1)" } ?? ""); \
                run this test with RESOURCELOADER_REGENERATE=1 to write it again
                """)
        }
    }
}

/// Every operation of the spyne service, called through the generated resources in
/// `Generated/` with each value checked: a typed order both ways, derived types with `xsi:type`
/// both ways, a typed fault detail, a list,
/// an input and an output header block, and WS-Security.
@Suite("Generated code against spyne", .enabled(if: SpyneWarehouse.shouldRun, "python3 with spyne and lxml is not installed: pip install spyne lxml"))
struct GeneratedWarehouseCallTests {
    static let password = "Pa55-<&>-word"

    /// An order with a value of every kind: escaped text, non-ASCII, nested types, an array
    /// type, a repeated element, `xsi:nil`, an absent element, an enumeration, a date-time with
    /// its offset, a date, decimals beyond `Double`'s precision, bytes and an attribute.
    static let order = Order(
        customer: #"Ada "Lovelace" <&> 'x'"#, address: Address(street: "1 High St", city: "Zürich"),
        items: LineItemArray(lineItem: [
            LineItem(sku: "A-1", quantity: 2, price: Decimal(string: "9.99")!),
            LineItem(sku: "B-2", quantity: 1, price: Decimal(string: "12345678901234567890.0001")!),
        ]),
        tags: ["new", "gift"], note: nil, nickname: nil, color: .green,
        placed: XMLDateTime(lexicalForm: "2026-01-02T08:34:05+05:30"), deliveryDate: XMLDate(year: 2026, month: 2, day: 28),
        total: Decimal(string: "-0.05")!, payload: Data([0x00, 0xFF] + Array("<&>".utf8) + [0x00]), gift: true, id: "A<&>1")

    static func fetch<R: SOAPResourceType>(_ resource: R, pipeline: ResourcePipeline? = nil) async -> Result<R.Model, ResourceError> {
        do {
            let service = pipeline.map { ResourceService<R>(pipeline: $0) } ?? ResourceService<R>()
            return .success(try await service.fetch(resource))
        } catch {
            return .failure(error)
        }
    }

    @Test func theDefaultAddressIsTheWSDLs() {
        #expect(EchoOrder.defaultURL.absoluteString == SpyneWarehouse.generatedAddress)
        #expect(Stock(StockType(sku: "A-1")).url.absoluteString == SpyneWarehouse.generatedAddress)
    }

    @Test func anOrderComesBackWithEveryValueAsSent() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let response = try await Self.fetch(EchoOrder(EchoOrderType(order: Self.order), url: peer.url)).get()
        let echoed = try #require(response.echoOrderResult)
        #expect(echoed == Self.order)
        #expect(echoed.placed?.lexicalForm == "2026-01-02T08:34:05+05:30")
        #expect(echoed.items?.lineItem.map { $0?.price } == [Decimal(string: "9.99")!, Decimal(string: "12345678901234567890.0001")!])
        #expect(echoed.note == nil && echoed.nickname == nil)
    }

    @Test func anItemIsFound() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let response = try await Self.fetch(FindItem(FindItemType(sku: "B-2"), url: peer.url)).get()
        #expect(response.findItemResult == LineItem(sku: "B-2", quantity: 1, price: Decimal(string: "12345678901234567890.0001")!))
    }

    @Test func anUnknownItemIsAFaultWhoseDetailDecodesAsTheDeclaredType() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let result = await Self.fetch(FindItem(FindItemType(sku: "Z-9"), url: peer.url))
        guard case .failure(.soapFault(let fault)) = result else {
            Issue.record("expected a SOAP Fault, got \(result)")
            return
        }
        #expect(fault.standardCode == .sender)
        #expect(fault.resolvedCode.localName == "Client.NotFound")
        #expect(fault.reason == "no item Z-9")
        let element = try #require(fault.detail?.child(named: "ItemNotFound", namespaceURI: "urn:example:warehouse"))
        let detail = try XMLTreeDecoder().decode(ItemNotFound.self, from: element)
        #expect(detail == ItemNotFound(sku: "Z-9", known: ["A-1", "B-2"]))
    }

    /// Animals of three classes of one hierarchy where the base is declared.
    static let pen = Pen(animals: [
        Animal(name: "Tom", tag: "t1"), Dog(name: "Rex", tag: "d<&>", barks: true), Puppy(name: "Bit", tag: "p3", barks: false, ageInWeeks: 9),
    ])

    @Test func derivedTypesAreSentWithXSIType() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let response = try await Self.fetch(DescribePen(DescribePenType(pen: Self.pen), url: peer.url)).get()
        #expect(response.describePenResult == "Animal Tom #t1, Dog Rex #d<&> barks=True, Puppy Bit #p3 barks=False weeks=9")
    }

    @Test func derivedTypesAreReadBackAsTheirClasses() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let response = try await Self.fetch(ReversePen(ReversePenType(pen: Self.pen), url: peer.url)).get()
        let animals = try #require(response.reversePenResult?.animals)
        #expect(animals.map { $0.map { String(describing: type(of: $0)) } } == ["Puppy", "Dog", "Animal"])
        #expect(animals == Self.pen.animals.reversed())
        let puppy = try #require(animals.first as? Puppy)
        #expect(puppy.tag == "p3" && puppy.name == "Bit" && puppy.barks == false && puppy.ageInWeeks == 9)
        #expect(animals[0] != Puppy(name: "Bit", tag: "p3", barks: false, ageInWeeks: 10))
        #expect(animals[1] != Animal(name: "Rex", tag: "d<&>"))
    }

    @Test func aRepeatedElementIsSummed() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let prices = ["0.1", "0.2", "-12345678901234567890.0001"].map { Decimal(string: $0)! }
        let response = try await Self.fetch(Total(TotalType(prices: prices), url: peer.url)).get()
        #expect(response.totalResult == Decimal(string: "-12345678901234567889.7001"))
    }

    @Test func theHeaderBlockIsSentWhenSetAndTheResponsesBlockIsRead() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let response = try await Self.fetch(Stock(StockType(sku: "A-1"), tenant: Tenant(name: "acme & co"), url: peer.url)).get()
        #expect(response.body.stockResult == "acme & co/A-1")
        #expect(response.quota == Quota(remaining: 41, resets: XMLDate(year: 2026, month: 12, day: 1)))
        let missing = await Self.fetch(Stock(StockType(sku: "A-1"), url: peer.url))
        guard case .failure(.soapFault(let fault)) = missing else {
            Issue.record("expected a SOAP Fault without the header, got \(missing)")
            return
        }
        #expect(fault.resolvedCode.localName == "Client.NoTenant")
    }

    @Test(arguments: [WSSecurityUsernameToken.PasswordType.digest, .text])
    func aUsernameTokenIsAccepted(type: WSSecurityUsernameToken.PasswordType) async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let pipeline = ResourcePipeline(adapters: [WSSecurityAdapter(WSSecurityHeader(
            usernameToken: WSSecurityUsernameToken(username: "ada", password: Self.password, passwordType: type)))])
        let response = try await Self.fetch(WhoAmI(WhoAmIType(greeting: "hi <there> & all"), url: peer.url), pipeline: pipeline).get()
        #expect(response.whoAmIResult == "hello ada: hi <there> & all")
    }

    @Test func aWrongPasswordOrNoTokenIsASenderFault() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        let wrong = ResourcePipeline(adapters: [WSSecurityAdapter(WSSecurityHeader(
            usernameToken: WSSecurityUsernameToken(username: "ada", password: "not-the-password")))])
        for pipeline in [wrong, nil] {
            let result = await Self.fetch(WhoAmI(WhoAmIType(greeting: "hi"), url: peer.url), pipeline: pipeline)
            guard case .failure(.soapFault(let fault)) = result else {
                Issue.record("expected a SOAP Fault, got \(result)")
                continue
            }
            #expect(fault.standardCode == .sender)
            #expect(fault.resolvedCode.localName == "Client.FailedAuthentication")
            #expect(fault.reason == "The security token could not be authenticated")
        }
    }
}

/// zeep, an independent SOAP client, makes the same calls with the same values
/// (`Fixtures/zeep-generated-client.py`); what it got back must be what the generated resources
/// got back.
@Suite("Generated code: the same answers as zeep", .enabled(if: SpyneWarehouse.zeepShouldRun, "python3 with zeep, spyne and lxml is not installed: pip install zeep spyne lxml"))
struct GeneratedWarehouseZeepTests {
    @Test func zeepGetsTheAnswersTheGeneratedResourcesGet() async throws {
        let peer = try await SpyneWarehouse.start()
        defer { peer.stop() }
        // GIVEN zeep's answers
        let zeep = try await peer.zeepResults()
        // WHEN the generated resources make the same calls
        let url = peer.url
        let echoed = try #require(try await GeneratedWarehouseCallTests.fetch(EchoOrder(EchoOrderType(order: GeneratedWarehouseCallTests.order), url: url)).get().echoOrderResult)
        let item = try #require(try await GeneratedWarehouseCallTests.fetch(FindItem(FindItemType(sku: "B-2"), url: url)).get().findItemResult)
        guard case .failure(.soapFault(let fault)) = await GeneratedWarehouseCallTests.fetch(FindItem(FindItemType(sku: "Z-9"), url: url)) else {
            Issue.record("expected a SOAP Fault for an unknown item")
            return
        }
        let notFound = try XMLTreeDecoder().decode(
            ItemNotFound.self, from: try #require(fault.detail?.child(named: "ItemNotFound", namespaceURI: "urn:example:warehouse")))
        let prices = ["0.1", "0.2", "-12345678901234567890.0001"].map { Decimal(string: $0)! }
        let total = try await GeneratedWarehouseCallTests.fetch(Total(TotalType(prices: prices), url: url)).get().totalResult
        let pipeline = ResourcePipeline(adapters: [WSSecurityAdapter(WSSecurityHeader(
            usernameToken: WSSecurityUsernameToken(username: "ada", password: GeneratedWarehouseCallTests.password)))])
        let whoAmI = try await GeneratedWarehouseCallTests.fetch(WhoAmI(WhoAmIType(greeting: "hi <there> & all"), url: url), pipeline: pipeline).get().whoAmIResult
        let stock = try await GeneratedWarehouseCallTests.fetch(Stock(StockType(sku: "A-1"), tenant: Tenant(name: "acme & co"), url: url)).get()
        // THEN both clients got the same values
        let order = try #require(zeep["echoOrder"] as? [String: Any])
        #expect(order["id"] as? String == echoed.id)
        #expect(order["customer"] as? String == echoed.customer)
        #expect(order["address"] as? [String] == [echoed.address?.street, echoed.address?.city].compactMap { $0 })
        let items = try #require(order["items"] as? [[String]])
        #expect(items == echoed.items?.lineItem.compactMap { $0 }.map(Self.texts))
        #expect(order["tags"] as? [String] == echoed.tags)
        #expect(order["note"] is NSNull && echoed.note == nil)
        #expect(order["nickname"] is NSNull && echoed.nickname == nil)
        #expect(order["color"] as? String == echoed.color?.rawValue)
        #expect(order["placed"] as? String == echoed.placed?.lexicalForm)
        #expect(order["deliveryDate"] as? String == echoed.deliveryDate.map { "\($0)" })
        #expect(order["total"] as? String == echoed.total.map { "\($0)" })
        #expect(order["payload"] as? String == echoed.payload?.map { String(format: "%02x", $0) }.joined())
        #expect(order["gift"] as? String == echoed.gift.map { $0 ? "true" : "false" })
        #expect(zeep["findItem"] as? [String] == Self.texts(item))
        let zeepFault = try #require(zeep["findItemFault"] as? [String: Any])
        #expect(zeepFault["message"] as? String == fault.reason)
        #expect(zeepFault["sku"] as? String == notFound.sku)
        #expect(zeepFault["known"] as? [String] == notFound.known)
        #expect(zeep["total"] as? String == total.map { "\($0)" })
        #expect(zeep["whoAmI"] as? String == whoAmI)
        #expect(zeep["stock"] as? String == stock.body.stockResult)
        #expect(zeep["stockQuota"] as? [String] == [stock.quota?.remaining.map { String($0) } ?? "", stock.quota?.resets.map { "\($0)" } ?? ""])
    }

    /// An item's values as zeep's script prints them.
    static func texts(_ item: LineItem) -> [String] {
        [item.sku ?? "", item.quantity.map { String($0) } ?? "", item.price.map { "\($0)" } ?? ""]
    }
}
