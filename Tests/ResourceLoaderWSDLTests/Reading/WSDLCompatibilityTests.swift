import Foundation
import ResourceLoader
import ResourceLoaderWSDL
import Testing

/// The real-world WSDLs of `../shared/wsdls/` (relative to the repository's root), which are
/// never copied into the repository.
enum WSDLCorpus {
    /// `../shared/wsdls`, from this file's place in the repository.
    static let folder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/wsdls")

    /// Whether the folder is there.
    static let isPresent = FileManager.default.fileExists(atPath: folder.appendingPathComponent("README.md").path)

    /// Whether the folder must be there: on CI, where its absence fails the tests instead of
    /// skipping them.
    static let isRequired = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Whether the corpus tests run: when the folder is there, or when it must be.
    static let shouldRun = isPresent || isRequired
}

/// What reading one corpus entry must give.
struct CompatibilityCase: Sendable, CustomStringConvertible {
    /// The entry's folder and main document.
    var entry: String
    var main: String
    /// Files read (main included), services, ports.
    var files: Int
    var services: Int
    var ports: Int
    /// Each SOAP binding as `name version operations`.
    var bindings: [String]
    /// Global types and elements of the schemas read.
    var types: Int
    var elements: Int
    /// The styles of the bound operations.
    var styles: Set<WSDLOperationStyle>
    /// Header blocks declared on inputs and outputs, and faults, over every bound operation.
    var inputHeaders = 0
    var outputHeaders = 0
    var faults = 0
    /// Every diagnostic, as `severity construct path`, in order.
    var diagnostics: [String] = []

    var description: String { entry }
}

@Suite("WSDL compatibility corpus")
struct WSDLCompatibilityTests {
    // Operation counts are those of the corpus README (as zeep reads each binding); type and
    // element counts are the xsd:complexType/simpleType and xsd:element children of every
    // xsd:schema in the files each WSDL reaches (comments excluded).
    static let cases: [CompatibilityCase] = [
        // Needs: schema imports of three local files, complexContent extension, abstract types,
        // soap:header on every operation in and out, enumerations.
        CompatibilityCase(
            entry: "paypal", main: "PayPalSvc.wsdl", files: 4, services: 1, ports: 2,
            bindings: ["PayPalAPISoapBinding v1_1 25", "PayPalAPIAASoapBinding v1_1 32"], types: 461, elements: 299,
            styles: [.documentBare], inputHeaders: 57, outputHeaders: 57),
        // Needs: document/literal wrapped, enumerations, nillable.
        CompatibilityCase(
            entry: "eu-vies", main: "checkVatService.wsdl", files: 1, services: 1, ports: 1,
            bindings: ["checkVatBinding v1_1 2"], types: 2, elements: 4, styles: [.documentWrapped]),
        // Needs: a SOAP 1.1 and a SOAP 1.2 binding of one port type.
        CompatibilityCase(
            entry: "mnb-exchange", main: "mnb-exchange.wsdl", files: 1, services: 1, ports: 2,
            bindings: ["MNBArfolyamServiceSoap v1_1 6", "MNBArfolyamServiceSoap12 v1_2 6"], types: 0, elements: 12,
            styles: [.documentWrapped]),
        // Needs: rpc/encoded diagnosed once for the binding; soapenc:Array types read, the SOAP
        // encoding and WSDL namespaces imported without a file.
        CompatibilityCase(
            entry: "omniture-admin", main: "OmnitureAdminServices.wsdl", files: 1, services: 1, ports: 1,
            bindings: ["OmnitureWebServiceBinding v1_1 197"], types: 387, elements: 0, styles: [.rpcEncoded],
            diagnostics: ["error encodedUse /definitions/binding[@name='OmnitureWebServiceBinding']"]),
        // Needs: rpc/literal with type parts, xsd:import directly in wsdl:types (a warning), and a
        // binding that binds one operation twice (a warning; the port type has 12).
        CompatibilityCase(
            entry: "lnp-number-management", main: "NumberManagement.wsdl", files: 3, services: 1, ports: 1,
            bindings: ["NumberManagement v1_1 12"], types: 24, elements: 1, styles: [.rpcLiteral], faults: 12,
            diagnostics: [
                "warning importOutsideSchema /wsdl:definitions[@name='NumberManagement']/wsdl:types/xsd:import",
                "warning duplicateDefinition /wsdl:definitions[@name='NumberManagement']/wsdl:binding[@name='NumberManagement']/wsdl:operation[@name='listAvailablePublicNumberGroups']",
            ]),
        // Needs: imports and includes across nine schema files (one more in the folder is not
        // reached), any/anyAttribute, substitution groups, abstract types, groups, simpleContent.
        CompatibilityCase(
            entry: "gs1-epcis", main: "EPCglobal-epcis-query-1_2.wsdl", files: 10, services: 1, ports: 1,
            bindings: ["EPCISServiceBinding v1_1 7"], types: 120, elements: 36, styles: [.documentBare], faults: 34),
        // Needs: choice, any, groups, simpleContent, an import and an include of local files.
        CompatibilityCase(
            entry: "docdata-payments", main: "1_3.wsdl", files: 3, services: 1, ports: 1,
            bindings: ["PaymentServiceBinding v1_1 9"], types: 117, elements: 18, styles: [.documentBare]),
        // Needs: complexContent extension, enumerations, nillable, unbounded sequences.
        CompatibilityCase(
            entry: "usda-awdb", main: "usda-awdb.wsdl", files: 1, services: 1, ports: 1,
            bindings: ["AwdbWebServiceSoapBinding v1_1 35"], types: 108, elements: 70, styles: [.documentWrapped]),
        // Needs: SOAP 1.1 and 1.2 bindings, nillable, unbounded sequences.
        CompatibilityCase(
            entry: "country-info", main: "CountryInfoService.wsdl", files: 1, services: 1, ports: 2,
            bindings: ["CountryInfoServiceSoapBinding v1_1 21", "CountryInfoServiceSoapBinding12 v1_2 21"], types: 12,
            elements: 42, styles: [.documentWrapped]),
        // Needs: includes of five local files (one included by four others), choice, a
        // soap:header, faults, soap:body parts.
        CompatibilityCase(
            entry: "estes-imageview", main: "ImageViewService.local.wsdl", files: 6, services: 1, ports: 1,
            bindings: ["imageViewBinding v1_1 3"], types: 13, elements: 10, styles: [.documentBare], inputHeaders: 2, faults: 4),
    ]

    @Test(
        .enabled(if: WSDLCorpus.shouldRun, "../shared/wsdls is absent: the real-world WSDLs are read from there (required when CI=true)"),
        arguments: cases)
    func readsTheRealWorldWSDL(_ expected: CompatibilityCase) throws {
        try #require(WSDLCorpus.isPresent, "CI=true and \(WSDLCorpus.folder.path) is absent")
        // GIVEN a published WSDL with the local files it reaches
        let url = WSDLCorpus.folder.appendingPathComponent(expected.entry).appendingPathComponent(expected.main)
        // WHEN it is read
        let document = try WSDLReader().read(contentsOf: url)
        // THEN it has the expected shape and exactly the expected diagnostics
        #expect(document.diagnosticSummary == expected.diagnostics)
        #expect(document.files.count == expected.files)
        #expect(document.services.count == expected.services)
        #expect(document.services.flatMap(\.ports).count == expected.ports)
        #expect(document.bindings.map { "\($0.name.name) \($0.soapVersion) \($0.operations.count)" } == expected.bindings)
        #expect(document.schemas.types.count == expected.types)
        #expect(document.schemas.elements.count == expected.elements)
        let operations = document.bindings.flatMap(\.operations)
        #expect(Set(operations.map(\.style)) == expected.styles)
        #expect(operations.reduce(0) { $0 + ($1.input?.headers.count ?? 0) } == expected.inputHeaders)
        #expect(operations.reduce(0) { $0 + ($1.output?.headers.count ?? 0) } == expected.outputHeaders)
        #expect(operations.reduce(0) { $0 + $1.faults.count } == expected.faults)
        // AND every file named is in the entry's folder: nothing came from anywhere else
        #expect(document.files.allSatisfy { $0.hasPrefix(WSDLCorpus.folder.appendingPathComponent(expected.entry).path + "/") })
    }

    @Test(.enabled(if: WSDLCorpus.shouldRun, "../shared/wsdls is absent: the real-world WSDLs are read from there (required when CI=true)"))
    func readsPayPalsHeadersAndAbstractTypes() throws {
        try #require(WSDLCorpus.isPresent, "CI=true and \(WSDLCorpus.folder.path) is absent")
        let document = try WSDLReader().read(contentsOf: WSDLCorpus.folder.appendingPathComponent("paypal/PayPalSvc.wsdl"))
        // Every operation sends the RequesterCredentials header.
        let operations = document.bindings.flatMap(\.operations)
        #expect(!operations.isEmpty)
        #expect(operations.allSatisfy { $0.input?.headers.map(\.part.element?.name) == ["RequesterCredentials"] })
        // The eBL schema's abstract types have derived types for xsi:type.
        let abstract = document.schemas.types.values.compactMap { type -> XSDComplexType? in
            if case .complex(let complex) = type, complex.isAbstract { return complex }
            return nil
        }
        #expect(abstract.count == 2)
        for type in abstract {
            let name = try #require(type.name)
            #expect(!document.schemas.typesDerived(from: name).isEmpty, "\(name) has no derived type")
        }
    }

    @Test(.enabled(if: WSDLCorpus.shouldRun, "../shared/wsdls is absent: the real-world WSDLs are read from there (required when CI=true)"))
    func readsTheEPCISSubstitutionGroupsAndWildcards() throws {
        try #require(WSDLCorpus.isPresent, "CI=true and \(WSDLCorpus.folder.path) is absent")
        let document = try WSDLReader().read(contentsOf: WSDLCorpus.folder.appendingPathComponent("gs1-epcis/EPCglobal-epcis-query-1_2.wsdl"))
        let heads = Set(document.schemas.elements.values.compactMap(\.substitutionGroup))
        #expect(!heads.isEmpty)
        for head in heads { #expect(!document.schemas.substitutionGroupMembers(of: head).isEmpty) }
        let wildcards = document.schemas.types.values.filter { type in
            guard case .complex(let complex) = type else { return false }
            return complex.anyAttribute != nil
        }
        #expect(wildcards.count > 10)
    }
}
