import Foundation
import ResourceLoaderWSDL
import Testing

/// Generates code for small WSDLs and for the real-world WSDLs of `../shared/wsdls/` into a
/// temporary SwiftPM package that depends on this one by path, builds it with warnings as errors
/// in Swift 6 mode (one target through the build-tool plugin, one generated into its folder by the
/// command plugin), and runs a program that sends and reads generated values: one package build,
/// so the test is slow.
@Suite("Generated code compiles")
struct GeneratedCodeCompileTests {
    /// The `swift` executable on `PATH`, if there is one.
    static let swift: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The root of this package.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A spyne-like service: wrapped operations with a header, a fault, an enumeration, a choice,
    /// simple content, dates, decimals, binary, an optional recursive element and a list.
    static let service = """
        <?xml version="1.0" encoding="UTF-8"?>
        <wsdl:definitions name="Shop" targetNamespace="urn:shop" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"
            xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:shop">
          <wsdl:types>
            <xsd:schema targetNamespace="urn:shop" elementFormDefault="qualified">
              <xsd:simpleType name="Color">
                <xsd:restriction base="xsd:string"><xsd:enumeration value="red"/><xsd:enumeration value="dark blue"/></xsd:restriction>
              </xsd:simpleType>
              <xsd:simpleType name="Sizes"><xsd:list itemType="xsd:int"/></xsd:simpleType>
              <xsd:complexType name="Money">
                <xsd:simpleContent><xsd:extension base="xsd:decimal"><xsd:attribute name="currency" type="xsd:string" use="required"/></xsd:extension></xsd:simpleContent>
              </xsd:complexType>
              <xsd:complexType name="Item">
                <xsd:sequence>
                  <xsd:element name="Name" type="xsd:string"/>
                  <xsd:element name="Price" type="tns:Money"/>
                  <xsd:element name="Added" type="xsd:dateTime" minOccurs="0"/>
                  <xsd:element name="Note" type="xsd:string" nillable="true"/>
                  <xsd:element name="Color" type="tns:Color" maxOccurs="unbounded"/>
                  <xsd:element name="Sizes" type="tns:Sizes" minOccurs="0"/>
                  <xsd:element name="Picture" type="xsd:base64Binary" minOccurs="0"/>
                  <xsd:element name="Parent" type="tns:Item" minOccurs="0"/>
                  <xsd:choice><xsd:element name="Sku" type="xsd:string"/><xsd:element name="Ean" type="xsd:long"/></xsd:choice>
                  <xsd:choice minOccurs="0" maxOccurs="unbounded"><xsd:element name="Tag" type="xsd:string"/><xsd:element name="Code" type="xsd:int"/></xsd:choice>
                </xsd:sequence>
                <xsd:attribute name="id" type="xsd:int" use="required"/>
              </xsd:complexType>
              <xsd:element name="GetItem">
                <xsd:complexType><xsd:sequence><xsd:element name="id" type="xsd:int"/><xsd:element name="since" type="xsd:date"/></xsd:sequence></xsd:complexType>
              </xsd:element>
              <xsd:element name="GetItemResponse">
                <xsd:complexType><xsd:sequence><xsd:element name="item" type="tns:Item"/></xsd:sequence></xsd:complexType>
              </xsd:element>
              <xsd:element name="Auth"><xsd:complexType><xsd:sequence><xsd:element name="token" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
              <xsd:element name="NoSuchItem"><xsd:complexType><xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
            </xsd:schema>
          </wsdl:types>
          <wsdl:message name="GetItemIn"><wsdl:part name="parameters" element="tns:GetItem"/></wsdl:message>
          <wsdl:message name="GetItemOut"><wsdl:part name="parameters" element="tns:GetItemResponse"/></wsdl:message>
          <wsdl:message name="AuthHeader"><wsdl:part name="auth" element="tns:Auth"/></wsdl:message>
          <wsdl:message name="NoSuchItemFault"><wsdl:part name="fault" element="tns:NoSuchItem"/></wsdl:message>
          <wsdl:portType name="ShopPort">
            <wsdl:operation name="GetItem"><wsdl:documentation>Finds an item.</wsdl:documentation>
              <wsdl:input message="tns:GetItemIn"/><wsdl:output message="tns:GetItemOut"/><wsdl:fault name="NoSuchItem" message="tns:NoSuchItemFault"/>
            </wsdl:operation>
          </wsdl:portType>
          <wsdl:binding name="ShopBinding" type="tns:ShopPort">
            <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
            <wsdl:operation name="GetItem">
              <soap:operation soapAction="urn:shop/GetItem"/>
              <wsdl:input><soap:body use="literal"/><soap:header message="tns:AuthHeader" part="auth" use="literal"/></wsdl:input>
              <wsdl:output><soap:body use="literal"/></wsdl:output>
              <wsdl:fault name="NoSuchItem"><soap:fault name="NoSuchItem" use="literal"/></wsdl:fault>
            </wsdl:operation>
          </wsdl:binding>
          <wsdl:service name="Shop"><wsdl:port name="ShopPort" binding="tns:ShopBinding"><soap:address location="http://127.0.0.1:8080/shop"/></wsdl:port></wsdl:service>
        </wsdl:definitions>
        """

    /// The program that uses the generated code: a value encoded and decoded back, and a request
    /// envelope, each printed.
    static let program = """
        import Animals
        import BaseHoldingDerived
        import Binary
        import BinaryBlocks
        import EmptyResponses
        import Foundation
        import Plugged
        import ResourceLoader
        import Shop
        import UnqualifiedChoice
        import WellKnown

        let item = Item(
            name: "A & B", price: Money(value: Decimal(string: "12.50")!, currency: "EUR"),
            added: XMLDateTime(lexicalForm: "2026-01-02T03:04:05+05:30"), color: [.red, .unknown("green"), .darkBlue],
            sizes: "1 2 3", picture: Data([0, 255]), parent: [Item(name: "P", price: Money(value: 1, currency: "EUR"), choice: .ean(5), id: 2)],
            choice: .sku("S1"), choice2: [.tag("new"), .code(3), .tag("sale")], id: 7)
        let data = try XMLTreeEncoder().encode(GetItemResponse(item: item), as: XMLQualifiedName("GetItemResponse", namespaceURI: "urn:shop"))
        let back = try XMLTreeDecoder().decode(GetItemResponse.self, from: XMLTree(data: data).root)
        print("round trip: \\(back.item == item) \\(back.item.choice2)")
        print("item: \\(String(decoding: data, as: UTF8.self))")
        let call = GetItem(GetItemType(id: 1, since: XMLDate(year: 2026, month: 1, day: 2)), auth: Auth(token: "t"))
        print(String(decoding: try call.envelope.data(), as: UTF8.self))
        print("\\(call.url) \\(call.soapAction ?? "-") \\(call.responsePath)")
        print("plugged: \\(pluggedAction ?? "-")")
        let zoo = Zoo(animals: [Dog(name: "Rex", id: 1, barks: true), Puppy(name: "Bit", barks: false, weeks: 9, toys: ["ball"])], vehicle: .car("van"))
        let zooData = try XMLTreeEncoder().encode(zoo, as: XMLQualifiedName("Call", namespaceURI: "urn:test"))
        let zooBack = try Animals.DerivedTypes.decoder.decode(Zoo.self, from: XMLTree(data: zooData).root)
        print("zoo: \\(zooBack == zoo) \\(zooBack.animals.map { "\\(type(of: $0))" }) \\(String(decoding: zooData, as: UTF8.self))")
        let node = BaseHoldingDerived.Node(name: "root", child: BaseHoldingDerived.Special(name: "leaf", id: 2, flag: true), id: 1)
        let nodeData = try XMLTreeEncoder().encode(node, as: XMLQualifiedName("Call", namespaceURI: "urn:test"))
        let nodeBack = try BaseHoldingDerived.DerivedTypes.decoder.decode(BaseHoldingDerived.Node.self, from: XMLTree(data: nodeData).root)
        print("node: \\(nodeBack == node) \\(String(decoding: nodeData, as: UTF8.self))")
        let blob = Binary.Blob(sum: Data([0xDE, 0xAD]), raw: Data([0xDE, 0xAD]), strings: ArrayOfString(string: ["a", nil]), digest: Data([0x0F]))
        let blobData = try XMLTreeEncoder().encode(blob, as: XMLQualifiedName("Call", namespaceURI: "urn:test"))
        let blobBack = try XMLTreeDecoder().decode(Binary.Blob.self, from: XMLTree(data: blobData).root)
        print("blob: \\(blobBack == blob) \\(String(decoding: blobData, as: UTF8.self))")
        let put = BinaryBlocks.Put(PutBody(body: Data([0xDE, 0xAD])), token: Data([0xAB]), note: Data([0xAB]), url: URL(fileURLWithPath: "/"))
        print("hex blocks: \\(String(decoding: try put.envelope.data(), as: UTF8.self))")
        let reply = #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><Receipt xmlns="urn:test">0f0E</Receipt><Note xmlns="urn:test">qw==</Note></s:Header><s:Body><PutResponse xmlns="urn:test">BEEF</PutResponse></s:Body></s:Envelope>"#
        let replied = try put.model(from: XMLTree(string: reply))
        print("hex reply: \\(replied.map { Array($0.body) } ?? []) \\(replied?.receipt.map { Array($0) } ?? []) \\(replied?.note.map { Array($0) } ?? [])")
        let dotNet = #"<ArrayOfString xmlns="urn:test" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><string>a</string><string xsi:nil="true"/></ArrayOfString>"#
        print("strings: \\(try XMLTreeDecoder().decode(ArrayOfString.self, from: XMLTree(string: dotNet).root).string)")
        let pick = UnqualifiedChoice.Pick(label: "l", choice: .a("x"), choice2: .seal("s"))
        let pickData = try XMLTreeEncoder().encode(pick, as: XMLQualifiedName("Call", namespaceURI: "urn:test"))
        let pickRoot = try XMLTree(data: pickData).root
        let pickBack = try XMLTreeDecoder().decode(UnqualifiedChoice.Pick.self, from: pickRoot)
        print("choice namespaces: \\(pickBack == pick) \\(pickRoot.children.map { "\\($0.name)=\\($0.namespaceURI ?? "-")" })")
        let ping = EmptyResponses.Ping(PingType(id: 1), url: URL(fileURLWithPath: "/"))
        let pinged = try ping.model(from: XMLTree(string: #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#))
        print("empty response: \\(pinged == PingResponseBody()) \\(ping.responsePath)")
        let everything = WellKnown.Everything(
            note: WellKnown.Note(text: "t", lang: "en", space: "preserve"), choice: .inline(Data([1, 2])), digest: Data([0xAB]), lang: "fr")
        let everythingData = try XMLTreeEncoder().encode(everything, as: XMLQualifiedName("Call", namespaceURI: "urn:test"))
        let everythingBack = try XMLTreeDecoder().decode(WellKnown.Everything.self, from: XMLTree(data: everythingData).root)
        print("well-known: \\(everythingBack == everything) \\(String(decoding: everythingData, as: UTF8.self))")
        """

    @Test(.enabled(if: swift != nil, "swift is not on PATH: the generated code is not compiled"))
    func generatedPackageBuildsWithoutWarningsAndRuns() async throws {
        let swift = try #require(Self.swift)
        // GIVEN a package whose libraries are generated from the service and the snippets
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsdl-compile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let libraries: [(name: String, wsdl: String, configuration: WSDLGeneratorConfiguration)] = [
            ("Shop", Self.service, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("Constructs", GeneratorSnippets.constructs, WSDLGeneratorConfiguration()),
            ("Orders", GeneratorSnippets.wrapped, WSDLGeneratorConfiguration(accessModifier: .package, typeNamePrefix: "Shop")),
            ("Calc", GeneratorSnippets.rpc, WSDLGeneratorConfiguration()),
            ("Quotes", GeneratorSnippets.bare, WSDLGeneratorConfiguration()),
            ("Collisions", GeneratorSnippets.collisions, WSDLGeneratorConfiguration()),
            ("Unsupported", GeneratorSnippets.unsupported, WSDLGeneratorConfiguration()),
            ("Headers", GeneratorSnippets.outputHeaders, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("Animals", GeneratorSnippets.polymorphism, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("Drawings", GeneratorSnippets.substitutionGroups, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("Hostile", GeneratorSnippets.hostile, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("RecursiveGroup", GeneratorSnippets.recursiveGroup, WSDLGeneratorConfiguration()),
            ("AnonymousExtension", GeneratorSnippets.anonymousExtensionOfItsHolder, WSDLGeneratorConfiguration()),
            ("BaseHoldingDerived", GeneratorSnippets.baseHoldingItsDerivedType, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("Binary", GeneratorSnippets.hexBinaryAndNilItems, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("BinaryBlocks", GeneratorSnippets.hexBinaryBlocks, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("CyclicDerivations", GeneratorSnippets.cyclicDerivations, WSDLGeneratorConfiguration()),
            ("SyntheticFieldNames", GeneratorSnippets.syntheticFieldNames, WSDLGeneratorConfiguration()),
            ("InheritedChoiceName", GeneratorSnippets.inheritedChoiceName, WSDLGeneratorConfiguration()),
            ("ChoiceKeys", GeneratorSnippets.choiceOfOneLocalName, WSDLGeneratorConfiguration()),
            ("UnqualifiedChoice", GeneratorSnippets.unqualifiedChoice, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("BareKeys", GeneratorSnippets.barePartsOfOneLocalName, WSDLGeneratorConfiguration()),
            ("ReservedNames", GeneratorSnippets.namesGeneratedCodeUses, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("EmptyResponses", GeneratorSnippets.emptyResponses, WSDLGeneratorConfiguration(accessModifier: .public)),
            ("WellKnown", GeneratorSnippets.wellKnownComponents, WSDLGeneratorConfiguration(accessModifier: .public)),
        ]
        for library in libraries where library.name != "Calc" {
            let output = try GeneratorSnippets.generate(library.wsdl, configuration: library.configuration)
            try Self.write(output, to: folder.appendingPathComponent("Sources/\(library.name)"))
        }
        // AND a library for each real-world WSDL of the corpus, generated as the compatibility
        // test generates it
        var corpus: [String] = []
        if WSDLCorpus.shouldRun {
            try #require(WSDLCorpus.isPresent, "CI=true and \(WSDLCorpus.folder.path) is absent")
            for item in WSDLGeneratorCompatibilityTests.cases {
                let document = try WSDLReader().read(contentsOf: WSDLCorpus.folder.appendingPathComponent("\(item.entry)/\(item.main)"))
                let name = "Corpus" + item.entry.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
                try Self.write(WSDLGenerator().generate(document), to: folder.appendingPathComponent("Sources/\(name)"))
                corpus.append(name)
            }
        }
        // AND a target whose code the command plugin generates into its folder
        let calc = folder.appendingPathComponent("Sources/Calc")
        try FileManager.default.createDirectory(at: calc, withIntermediateDirectories: true)
        try Data(GeneratorSnippets.rpc.utf8).write(to: calc.appendingPathComponent("calc.wsdl"))
        // (with a second WSDL, which the configuration's document key sets aside)
        try FileManager.default.createDirectory(at: calc.appendingPathComponent("old"), withIntermediateDirectories: true)
        try Data(GeneratorSnippets.operations.utf8).write(to: calc.appendingPathComponent("old/calc-v1.wsdl"))
        try Data(#"{"document": "calc.wsdl"}"#.utf8).write(to: calc.appendingPathComponent("resourceloader-wsdl.json"))
        try Data("import Foundation\nimport ResourceLoader\n\nlet calcBinding = Add(AddRequest(a: 1, b: 2), url: URL(fileURLWithPath: \"/\")).soapBinding\n".utf8)
            .write(to: calc.appendingPathComponent("Use.swift"))
        // AND a target with two .wsdl files and no configuration to choose between them
        let twin = folder.appendingPathComponent("Sources/Twin")
        try FileManager.default.createDirectory(at: twin, withIntermediateDirectories: true)
        try Data(GeneratorSnippets.rpc.utf8).write(to: twin.appendingPathComponent("a.wsdl"))
        try Data(GeneratorSnippets.operations.utf8).write(to: twin.appendingPathComponent("b.wsdl"))
        try Data("let twin = 1\n".utf8).write(to: twin.appendingPathComponent("Twin.swift"))
        // AND a target whose code the build-tool plugin generates from its .wsdl and configuration
        let plugged = folder.appendingPathComponent("Sources/Plugged")
        try FileManager.default.createDirectory(at: plugged, withIntermediateDirectories: true)
        try Data(Self.service.utf8).write(to: plugged.appendingPathComponent("Shop.wsdl"))
        try Data(Self.service.replacingOccurrences(of: "urn:shop", with: "urn:shop:v1").utf8).write(to: plugged.appendingPathComponent("ShopV1.wsdl"))
        try Data(#"{"accessModifier": "public", "typeNamePrefix": "P", "document": "./Shop.wsdl"}"#.utf8)
            .write(to: plugged.appendingPathComponent("resourceloader-wsdl.json"))
        try Data("import ResourceLoader\n\npublic let pluggedAction = PGetItem(PGetItemType(id: 3, since: XMLDate(year: 2026, month: 5, day: 6))).soapAction\n".utf8)
            .write(to: plugged.appendingPathComponent("Use.swift"))
        let runner = folder.appendingPathComponent("Sources/Runner")
        try FileManager.default.createDirectory(at: runner, withIntermediateDirectories: true)
        try Data(Self.program.utf8).write(to: runner.appendingPathComponent("main.swift"))
        let strict = #"swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]"#
        let resourceLoader = #".product(name: "ResourceLoader", package: "\#(Self.packageRoot.lastPathComponent)")"#
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "Generated",
                platforms: [.macOS(.v13), .iOS(.v16)],
                dependencies: [.package(path: \(SwiftLiteral.quoted(Self.packageRoot.path)))],
                targets: [
            \((libraries.map(\.name) + corpus + ["Twin"]).map { "        .target(name: \"\($0)\", dependencies: [\(resourceLoader)], \(strict))," }.joined(separator: "\n"))
                    .target(
                        name: "Plugged", dependencies: [\(resourceLoader)], \(strict),
                        plugins: [.plugin(name: "ResourceLoaderWSDLPlugin", package: "\(Self.packageRoot.lastPathComponent)")]),
                    .executableTarget(name: "Runner", dependencies: ["Shop", "Plugged", "Animals", "BaseHoldingDerived", "Binary", "BinaryBlocks", "UnqualifiedChoice", "EmptyResponses", "WellKnown", \(resourceLoader)], \(strict)),
                ],
                swiftLanguageModes: [.v6]
            )
            """
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        // WHEN the command plugin runs, and the package is built and run
        let command = try await Self.run(
            swift, ["package", "--package-path", folder.path, "--allow-writing-to-package-directory", "generate-soap-resources", "--target", "Calc"],
            in: folder)
        #expect(command.status == 0, "swift package generate-soap-resources failed:\n\(command.output)")
        let generatedCalc = try String(contentsOf: calc.appendingPathComponent("Generated/Operations.swift"), encoding: .utf8)
        #expect(generatedCalc.contains("struct Add: SOAPResourceType {"))
        let refused = try await Self.run(
            swift, ["package", "--package-path", folder.path, "--allow-writing-to-package-directory", "generate-soap-resources", "--target", "Twin"],
            in: folder)
        #expect(refused.status != 0)
        #expect(
            refused.output.contains(#"the target Twin has 2 .wsdl files (a.wsdl, b.wsdl); name the one to generate from as "document" in resourceloader-wsdl.json"#),
            "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: twin.appendingPathComponent("Generated").path))
        let build = try await Self.run(swift, ["build", "--package-path", folder.path], in: folder)
        #expect(build.status == 0, "swift build failed:\n\(build.output)")
        guard build.status == 0 else { return }
        let binary = try await Self.run(swift, ["build", "--package-path", folder.path, "--show-bin-path"], in: folder).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try await Self.run(URL(fileURLWithPath: binary).appendingPathComponent("Runner"), [], in: folder)
        // THEN the values survive the round trip and the envelope is what the WSDL says
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#"round trip: true [Shop.ItemChoice2.tag("new"), Shop.ItemChoice2.code(3), Shop.ItemChoice2.tag("sale")]"#))
        #expect(result.output.contains("<Sku>S1</Sku><Tag>new</Tag><Code>3</Code><Tag>sale</Tag>"))
        #expect(result.output.contains(#"<soap:Header><Auth xmlns="urn:shop"><token>t</token></Auth></soap:Header>"#))
        #expect(result.output.contains(#"<soap:Body><GetItem xmlns="urn:shop"><id>1</id><since>2026-01-02</since></GetItem></soap:Body>"#))
        #expect(result.output.contains(#"http://127.0.0.1:8080/shop urn:shop/GetItem ["GetItemResponse"]"#))
        #expect(result.output.contains("plugged: urn:shop/GetItem"))
        #expect(result.output.contains(#"zoo: true ["Dog", "Puppy"] "#))
        #expect(result.output.contains(#"xsi:type="ns1:Dog""#) && result.output.contains(#"xsi:type="ns1:Puppy""#))
        #expect(result.output.contains("car>van</"))
        // AND a subclass held by its base comes back equal, with the base's attribute
        let nodeLine = result.output.split(separator: "\n").first { $0.hasPrefix("node: ") }.map(String.init) ?? ""
        #expect(nodeLine.hasPrefix("node: true "), "\(nodeLine)")
        #expect(nodeLine.contains(#"id="2""#) && nodeLine.contains("<name>leaf</name>"), "\(nodeLine)")
        // AND hexBinary is sent as hex beside base64Binary, and a nil item of a repeated nillable
        // element is written and read as xsi:nil
        let blobLine = result.output.split(separator: "\n").first { $0.hasPrefix("blob: ") }.map(String.init) ?? ""
        #expect(blobLine.hasPrefix("blob: true "), "\(blobLine)")
        #expect(blobLine.contains(#"digest="0F""#) && blobLine.contains("<sum>DEAD</sum><raw>3q0=</raw>"), "\(blobLine)")
        #expect(blobLine.contains("<string>a</string><string ") && blobLine.contains(#"xsi:nil="true"></string>"#), "\(blobLine)")
        // AND a choice's elements are in the namespaces the schema gives them: an unqualified
        // local element in none, a reference to another schema's element in that one's
        #expect(result.output.contains(#"choice namespaces: true ["label=-", "a=-", "seal=urn:other"]"#), "\(result.output)")
        #expect(result.output.contains(#"strings: [Optional("a"), nil]"#))
        // AND a document/literal response without parts is read from an empty body
        #expect(result.output.contains("empty response: true []"), "\(result.output)")
        // AND the XML namespace's attributes are written with the prefix xml, xmime's binary
        // types as base64 and hex
        let wellKnownLine = result.output.split(separator: "\n").first { $0.hasPrefix("well-known: ") }.map(String.init) ?? ""
        #expect(wellKnownLine.hasPrefix("well-known: true "), "\(wellKnownLine)")
        #expect(wellKnownLine.contains(#"xml:lang="fr""#) && wellKnownLine.contains(#"xml:lang="en" xml:space="preserve""#), "\(wellKnownLine)")
        #expect(wellKnownLine.contains("<inline>AQI=</inline><digest>AB</digest>"), "\(wellKnownLine)")
        // AND a bare hexBinary header block and response are written and read as hex, a bare
        // base64Binary block beside them as base64
        let hexLine = result.output.split(separator: "\n").first { $0.hasPrefix("hex blocks: ") }.map(String.init) ?? ""
        #expect(hexLine.contains(#"<Token xmlns="urn:test">AB</Token>"#) && hexLine.contains(#"<Note xmlns="urn:test">qw==</Note>"#), "\(hexLine)")
        #expect(hexLine.contains("<Put xmlns=\"urn:test\">DEAD</Put>"), "\(hexLine)")
        #expect(result.output.contains("hex reply: [190, 239] [15, 14] [171]"), "\(result.output)")
        // AND the plugin's diagnostics are in the build log
        #expect(build.output.contains("Generating SOAP resources from Shop.wsdl"))
        #expect(!build.output.contains("ShopV1.wsdl"))
    }

    /// Writes the generated files into `sources`.
    static func write(_ output: WSDLGeneratorOutput, to sources: URL) throws {
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        for file in output.files { try Data(file.contents.utf8).write(to: sources.appendingPathComponent(file.name)) }
    }

    /// Runs `executable`, waiting at most 20 minutes, and returns its exit status and output.
    ///
    /// The wait happens on a thread of its own, never on a thread of Swift's cooperative pool:
    /// with two cores the pool has two threads, and a build of minutes holding one of them would
    /// starve every other test's tasks long enough for their deadlines to pass.
    static func run(_ executable: URL, _ arguments: [String], in folder: URL) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try runWaiting(executable, arguments, in: folder) })
            }
            thread.name = "GeneratedCodeCompileTests.run"
            thread.start()
        }
    }

    /// ``run(_:_:in:)``'s work, blocking the calling thread. The command runs under `nice` at the
    /// lowest priority where `/usr/bin/nice` exists, so that a build of minutes yields the cores
    /// to the tests running alongside whenever they want them.
    private static func runWaiting(_ executable: URL, _ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        let nice = URL(fileURLWithPath: "/usr/bin/nice")
        if FileManager.default.isExecutableFile(atPath: nice.path) {
            process.executableURL = nice
            process.arguments = ["-n", "19", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = folder
        let log = folder.appendingPathComponent("output-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(20 * 60)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            return (-1, "timed out after 20 minutes")
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (process.terminationStatus, output)
    }
}

/// Swift string literals for the generated manifest.
enum SwiftLiteral {
    /// `text` in double quotes, backslashes and quotes escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
