import Foundation
import ResourceLoaderWSDL
import Testing

@Suite("WSDLGenerator configuration")
struct WSDLGeneratorConfigurationTests {
    @Test func decodesEveryKeyAndAllowsNone() throws {
        let json = """
            {"accessModifier": "package", "typeNamePrefix": "Shop", "filter": ["GetOrder"],
             "nameOverrides": {"GetOrder": "FetchOrder"}, "schemaLocations": {"https://x/a.xsd": "a.xsd"},
             "additionalImports": ["Shared"], "document": "Orders.wsdl"}
            """
        let configuration = try WSDLGeneratorConfiguration(json: Data(json.utf8))
        #expect(
            configuration
                == WSDLGeneratorConfiguration(
                    accessModifier: .package, typeNamePrefix: "Shop", filter: ["GetOrder"], nameOverrides: ["GetOrder": "FetchOrder"],
                    schemaLocations: ["https://x/a.xsd": "a.xsd"], additionalImports: ["Shared"], document: "Orders.wsdl"))
        #expect(configuration.readerOptions.schemaLocations == ["https://x/a.xsd": "a.xsd"])
        #expect(try WSDLGeneratorConfiguration(json: Data("{}".utf8)) == WSDLGeneratorConfiguration())
    }

    @Test func refusesAnUnknownAccessModifier() {
        #expect(throws: DecodingError.self) { try WSDLGeneratorConfiguration(json: Data(#"{"accessModifier": "open"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try WSDLGeneratorConfiguration(json: Data("[]".utf8)) }
    }

    @Test func appliesAccessPrefixOverridesAndImports() throws {
        let configuration = WSDLGeneratorConfiguration(
            accessModifier: .public, typeNamePrefix: "Shop", nameOverrides: ["GetOrder": "FetchOrder", "{urn:test}Session": "Login"],
            additionalImports: ["Shared"])
        let output = try GeneratorSnippets.generate(GeneratorSnippets.wrapped, configuration: configuration)
        let operations = try #require(output.file(named: "Operations.swift")?.contents)
        let types = try #require(output.file(named: "Types.swift")?.contents)
        #expect(operations.contains("import Shared\n"))
        #expect(operations.contains("public struct FetchOrder: SOAPResourceType {"))
        // The element GetOrder is overridden by its local name too; the operation claimed the name first.
        #expect(operations.contains("    public init(_ request: FetchOrderType, session: Login? = nil, url: URL = FetchOrder.defaultURL) {"))
        #expect(operations.contains("    public var soapBody: (any Encodable)? { request }"))
        #expect(types.contains("public struct ShopGetOrderResponse: Codable, Sendable, Hashable, XMLSchemaType {"))
        #expect(types.contains("public struct Login: Codable, Sendable, Hashable, XMLSchemaType {"))
        #expect(types.contains("    public static let xmlSchema = "))
        #expect(!types.contains("\nstruct "))
    }

    @Test func thePrefixIsPutBeforeTheNamesOfAnonymousTypesOnce() throws {
        // GIVEN a type with an anonymous complex element, an anonymous enumerated attribute and a
        // choice of an anonymous element, and a type whose name is overridden, with an anonymous
        // element
        let wsdl = GeneratorSnippets.operation(
            requestType: "tns:Order",
            schema: """
                <xsd:complexType name="Order">
                  <xsd:sequence>
                    <xsd:element name="line"><xsd:complexType><xsd:sequence><xsd:element name="sku" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
                    <xsd:choice>
                      <xsd:element name="gift"><xsd:complexType><xsd:sequence><xsd:element name="to" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
                      <xsd:element name="plain" type="xsd:boolean"/>
                    </xsd:choice>
                    <xsd:element name="basket" type="tns:Basket"/>
                  </xsd:sequence>
                  <xsd:attribute name="status">
                    <xsd:simpleType><xsd:restriction base="xsd:string"><xsd:enumeration value="open"/></xsd:restriction></xsd:simpleType>
                  </xsd:attribute>
                </xsd:complexType>
                <xsd:complexType name="Basket">
                  <xsd:sequence>
                    <xsd:element name="item"><xsd:complexType><xsd:sequence><xsd:element name="n" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
                  </xsd:sequence>
                </xsd:complexType>
                """)
        let configuration = WSDLGeneratorConfiguration(typeNamePrefix: "Shop", nameOverrides: ["Basket": "Cart"])
        // WHEN it is generated with a prefix
        let output = try GeneratorSnippets.generate(wsdl, configuration: configuration)
        let types = output.files.map(\.contents).joined(separator: "\n")
        // THEN each anonymous type is named after its holder, with the prefix once
        for name in ["ShopOrder", "ShopOrderLine", "ShopOrderChoice", "ShopOrderChoiceGift", "ShopOrderStatus", "Cart", "ShopCartItem"] {
            #expect(GeneratorSnippets.declaration(name, in: types) != nil, "\(name) is not declared")
        }
        #expect(!types.contains("ShopShop"))
        let order = try #require(GeneratorSnippets.declaration("ShopOrder", in: types))
        #expect(order.contains("    var line: ShopOrderLine\n    var choice: ShopOrderChoice\n    var basket: Cart\n    var status: ShopOrderStatus?\n"), "\(order)")
    }

    @Test func filtersOperationsAndDiagnosesNamesThatMatchNone() throws {
        let output = try GeneratorSnippets.generate(GeneratorSnippets.operations, configuration: WSDLGeneratorConfiguration(filter: ["Notify", "Missing"]))
        #expect(output.diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.message)" }.dropFirst() == [
            "error unmatchedFilter the filter names Missing, which no SOAP binding operation has",
            "warning unsupportedOperation the operation Notify has no response: it is not generated",
        ])
        #expect(output.file(named: "Operations.swift")?.contents.contains("SOAPResourceType") == false)
        #expect(output.file(named: "Types.swift")?.contents.contains("struct") == false)
    }
}
