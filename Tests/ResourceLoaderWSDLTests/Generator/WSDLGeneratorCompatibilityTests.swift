import Foundation
import ResourceLoaderWSDL
import Testing

/// What generating from one corpus entry must give.
struct GenerationCase: Sendable, CustomStringConvertible {
    var entry: String
    var main: String
    /// The resources, and the models (structs, classes, enumerations and choices, and the enum
    /// of derived types) generated.
    var resources: Int
    var models: Int
    /// The generator's own diagnostics (after the reader's), as `severity construct file/path`
    /// with the file relative to the entry's folder.
    var diagnostics: [String]

    var description: String { entry }
}

/// Generates from each of the real-world WSDLs of `../shared/wsdls/` and checks the exact
/// diagnostics. GeneratedCodeCompileTests compiles the code generated from each of them.
@Suite("WSDLGenerator compatibility corpus")
struct WSDLGeneratorCompatibilityTests {
    static let cases: [GenerationCase] = [
        GenerationCase(
            entry: "paypal", main: "PayPalSvc.wsdl", resources: 57, models: 472,
            diagnostics: [
                "warning wildcardContent eBLBaseComponents.xsd/schema/complexType[@name='AbstractRequestType']",
                "warning wildcardContent eBLBaseComponents.xsd/schema/complexType[@name='AbstractResponseType']",
                "warning unsupportedContent PayPalSvc.wsdl/wsdl:definitions/wsdl:types/schema/xs:complexType[@name='DoUATPAuthorizationResponseType']",
            ]),
        GenerationCase(
            entry: "eu-vies", main: "checkVatService.wsdl", resources: 2, models: 5,
            diagnostics: []),
        GenerationCase(
            entry: "mnb-exchange", main: "mnb-exchange.wsdl", resources: 6, models: 12,
            diagnostics: []),
        GenerationCase(
            entry: "omniture-admin", main: "OmnitureAdminServices.wsdl", resources: 0, models: 0,
            diagnostics: []),
        GenerationCase(
            entry: "lnp-number-management", main: "NumberManagement.wsdl", resources: 12, models: 48,
            diagnostics: []),
        GenerationCase(
            entry: "gs1-epcis", main: "EPCglobal-epcis-query-1_2.wsdl", resources: 7, models: 88,
            diagnostics: [
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='QueryScheduleExtensionType']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='QueryScheduleExtensionType']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='QuerySchedule']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='SubscriptionControlsExtensionType']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='SubscriptionControlsExtensionType']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='SubscriptionControls']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ErrorDeclarationExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ErrorDeclarationExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ErrorDeclarationType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ErrorDeclarationType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='EPCISEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='EPCISEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='EPCISEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='EPCISEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ReadPointExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ReadPointExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ReadPointType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='BusinessLocationExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='BusinessLocationExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='BusinessLocationType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='AggregationEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='AggregationEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='AggregationEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='AggregationEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='AggregationEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='QuantityEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='QuantityEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='QuantityEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='QuantityEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransactionEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransactionEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransactionEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransactionEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransactionEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ILMDExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ILMDExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ILMDType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ILMDType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransformationEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransformationEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransformationEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='TransformationEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ObjectEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ObjectEventExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ObjectEventExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ObjectEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='ObjectEventType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='EPCISEventListExtension2Type']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='EPCISEventListExtension2Type']",
                "warning unsupportedContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='EventListType']",
                "warning mixedContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='AttributeType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='AttributeType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='IDListType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyElementExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyElementExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyElementType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyElementType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyExtensionType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyType']",
                "warning wildcardContent EPCglobal-epcis-1_2.xsd/xsd:schema/xsd:complexType[@name='VocabularyType']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='QueryResultsExtensionType']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='QueryResultsExtensionType']",
                "warning wildcardContent EPCglobal-epcis-query-1_2.xsd/xsd:schema/xsd:complexType[@name='QueryResults']",
            ]),
        GenerationCase(
            entry: "docdata-payments", main: "1_3.wsdl", resources: 9, models: 129,
            diagnostics: [
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='createErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='paymentResponse']/sequence/element[@name='paymentSuccess']/complexType",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='paymentResponse']/sequence/element[@name='paymentError']/complexType",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='paymentResponse']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='createSuccess']",
                "warning unsupportedContent 1_3.1.xsd/schema/element[@name='refundRequest']/complexType",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='refundErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='refundSuccess']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='cancelErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='cancelSuccess']",
                "warning unsupportedContent 1_3.1.xsd/schema/element[@name='startRequest']/complexType",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='startErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='paymentRedirect']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='startSuccess']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='threeDomainSecureAuthenticationResult']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='proceedErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='proceedSuccess']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='captureErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='captureSuccess']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='statusErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='approximateTotals']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='capture']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='refund']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='chargeback']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='reversal']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='authorization']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='riskCheck']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='amexPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='masterCardPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='visaPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='shopperBankAccount']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='maestroPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='misterCashPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='giftCardPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='iDealPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='openInvoicePaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='elvPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='sepaDirectDebitPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='pointOfSalePaymentReceipt']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='pointOfSalePaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='register']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='offlinePaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='sofortPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='systemPaymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='paymentInfo']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='payment']",
                "warning wildcardContent 1_3.2.xsd/schema/complexType[@name='consideredSafe']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='statusReport']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='statusSuccess']",
                "warning wildcardContent 1_3.1.xsd/schema/element[@name='listPaymentMethodsRequest']/complexType",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='listPaymentMethodsErrors']",
                "warning wildcardContent 1_3.1.xsd/schema/complexType[@name='listPaymentMethodsSuccess']",
            ]),
        GenerationCase(
            entry: "usda-awdb", main: "usda-awdb.wsdl", resources: 35, models: 109,
            diagnostics: [
                "warning recursiveContent usda-awdb.wsdl/wsdl:definitions[@name='AwdbWebService']/wsdl:types/xs:schema/xs:complexType[@name='diagnosticException']",
            ]),
        GenerationCase(
            entry: "country-info", main: "CountryInfoService.wsdl", resources: 21, models: 54,
            diagnostics: []),
        GenerationCase(
            entry: "estes-imageview", main: "ImageViewService.local.wsdl", resources: 3, models: 17,
            diagnostics: []),
    ]

    @Test(
        .enabled(if: WSDLCorpus.shouldRun, "../shared/wsdls is absent: the real-world WSDLs are read from there (required when CI=true)"),
        arguments: cases)
    func generatesFromTheRealWorldWSDL(_ expected: GenerationCase) throws {
        try #require(WSDLCorpus.isPresent, "CI=true and \(WSDLCorpus.folder.path) is absent")
        // GIVEN a published WSDL, read
        let folder = WSDLCorpus.folder.appendingPathComponent(expected.entry)
        let document = try WSDLReader().read(contentsOf: folder.appendingPathComponent(expected.main))
        // WHEN code is generated
        let output = WSDLGenerator().generate(document)
        // THEN the reader's diagnostics come first, then exactly the expected ones
        #expect(Array(output.diagnostics.prefix(document.diagnostics.count)) == document.diagnostics)
        let own = output.diagnostics.dropFirst(document.diagnostics.count).map {
            "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.file.replacingOccurrences(of: folder.path + "/", with: ""))\($0.location.path)"
        }
        #expect(own == expected.diagnostics)
        // AND the expected number of resources and models is generated
        let operations = try #require(output.file(named: "Operations.swift")?.contents)
        let types = output.files.dropLast().map(\.contents).joined()
        #expect(operations.components(separatedBy: ": SOAPResourceType {").count - 1 == expected.resources)
        let kinds = ["struct ", "enum ", "indirect enum ", "class ", "final class "]
        let declarations = types.split(separator: "\n").filter { line in kinds.contains { line.hasPrefix($0) } }
        #expect(declarations.count == expected.models)
    }

    /// GS1 EPCIS's operations never reach its Standard Business Document Header, whose `Scope`
    /// repeats the abstract `ScopeInformation` that `CorrelationInformation` and
    /// `BusinessService` substitute for: an operation of our own whose request is a
    /// `BusinessScope` reaches it through the real `BusinessScope.xsd`.
    @Test(.enabled(if: WSDLCorpus.shouldRun, "../shared/wsdls is absent: the real-world WSDLs are read from there (required when CI=true)"))
    func theSubstitutionGroupOfTheEPCISBusinessScopeIsAnEnumOfItsMembers() throws {
        try #require(WSDLCorpus.isPresent, "CI=true and \(WSDLCorpus.folder.path) is absent")
        // GIVEN a WSDL whose request element is declared as the real schema's BusinessScope
        let schema = try Data(contentsOf: WSDLCorpus.folder.appendingPathComponent("gs1-epcis/BusinessScope.xsd"))
        let sbdh = "http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader"
        let wsdl = GeneratorSnippets.operation(
            requestType: "sbdh:BusinessScope",
            schema: #"<xsd:import namespace="\#(sbdh)" schemaLocation="BusinessScope.xsd"/>"#,
            schemaAttributes: #"elementFormDefault="qualified" xmlns:sbdh="\#(sbdh)""#)
        var files = ["BusinessScope.xsd": schema]
        files["service.wsdl"] = Data(wsdl.utf8)
        let document = try WSDLReader().read(path: "service.wsdl", in: files)
        // WHEN code is generated
        let output = WSDLGenerator().generate(document)
        // THEN nothing is diagnosed, and Scope holds an array of the group's enum, whose cases
        // are the two members in the schema's namespace
        #expect(output.diagnostics.map(\.message) == [])
        let types = try #require(output.file(named: "Types.swift")?.contents)
        #expect(types.contains("    var scopeInformation: [ScopeInformationGroup]\n"))
        #expect(types.contains("""
            indirect enum ScopeInformationGroup: Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {
                /// The element `BusinessService`.
                case businessService(BusinessService)
                /// The element `CorrelationInformation`.
                case correlationInformation(CorrelationInformation)

                enum CodingKeys: String, CodingKey {
                    case businessService = "BusinessService"
                    case correlationInformation = "CorrelationInformation"
                }

                /// The namespaces of the elements.
                static let xmlSchema = XMLTypeSchema(namespace: "\(sbdh)", elementForm: .qualified)
            }
            """))
    }
}
