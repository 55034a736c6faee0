import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Every ```swift block of XMLAndSOAPResources.md, verbatim: DocumentationSnippetTests checks
// that each block appears in a file of this folder, and compiling them here keeps the article
// honest. They sit unindented inside a namespace so that their type names cannot clash with
// other tests' types; statements sit in functions. Keep the text identical to the article.
enum XMLAndSOAPArticle {
struct User: Decodable, Sendable {
    let firstName: String
    let lastName: String
    let email: String
    let city: String
}

struct GetUserDetails: SOAPResourceType {
    typealias Model = User
    let userID: String
    var url: URL { URL(string: "https://example.com/services/UserService")! }
    var operationNamespace: String? { "urn:example:users" }
    var operation: String { "getUserDetails" }
    var parameters: SOAPParameters { ["userID": .text(userID)] }
    var responsePath: [String] { ["getUserDetailsResponse", "getUserDetailsResult"] }
}

static func fetchUser() async {
let service = ResourceService<GetUserDetails>()
do {
    let user = try await service.fetch(GetUserDetails(userID: "12345"))
    print("Hello, \(user.firstName)")
} catch .soapFault(let fault) where fault.standardCode == .sender {
    print("The service refused the request: \(fault.reason)")
} catch {
    print("The fetch failed: \(error)")
}
}

struct GetUserDetailsV2: SOAPResourceType {
    typealias Model = User
    let userID: String
    var url: URL { URL(string: "https://example.com/services/v2/UserService")! }
    var soapVersion: SOAPVersion { .v1_2 }
    var operation: String { "getUserDetails" }
    var operationNamespace: String? { "http://example.com/users" }
    var soapAction: String? { "http://example.com/users/getUserDetails" }
    var parameters: SOAPParameters {
        ["userID": .text(userID), "include": ["addresses": "true", "phones": "false"]]
    }
    var responsePath: [String] { ["getUserDetailsResponse", "getUserDetailsResult"] }
}

struct Book: Decodable, Sendable {
    let isbn: String        // an attribute: <book isbn="…">
    let title: String
    let author: [String]    // repeated <author> elements
    let published: Date?    // missing, or xsi:nil="true": nil
}

struct Catalogue: NetworkResourceType, XMLDecodableResourceType {
    struct Root: Decodable { let book: [Book] }
    var url: URL { URL(string: "https://example.com/catalogue.xml")! }
    var elementPath: [String] { ["books"] }
    var xmlDecoder: XMLTreeDecoder { XMLTreeDecoder(dateDecodingStrategy: .iso8601) }
    func model(from root: Root) -> [Book] { root.book }
}

struct Contact: Sendable {
    let name: String
    let email: String
}

struct ContactCard: NetworkResourceType, XMLResourceType {
    var url: URL { URL(string: "https://example.com/contacts/7.xml")! }

    func model(from document: XMLTree) -> Contact? {
        guard let fields = document.root.leafTexts(below: "contact"),
              let name = fields["name"], let email = fields["email"] else { return nil }
        return Contact(name: name, email: email)
    }
}

static func parseYourself() throws -> (greeting: String, language: String?) {
let tree = try XMLTree(data: Data(#"<greeting lang="en">Hello</greeting>"#.utf8))
let greeting = tree.root.text                       // "Hello"
let language = tree.root.attribute(named: "lang")   // "en"
return (greeting, language)
}

struct Export: NetworkResourceType, XMLDecodableResourceType {
    typealias Model = [Book]
    var url: URL { URL(string: "https://example.com/export.xml")! }
    var xmlParsingOptions: XMLParsingOptions {
        XMLParsingOptions(maximumDepth: 64, maximumDocumentSize: 256 * 1024 * 1024)
    }
}

static func stubbedService() -> (session: FakeURLSession, service: ResourceService<GetUserDetails>) {
let session = FakeURLSession()
session.stub(.url("https://example.com/services/UserService"), with: .xml("""
    <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
      <soap:Body>
        <soap:Fault>
          <faultcode>soap:Client</faultcode>
          <faultstring>Unknown user</faultstring>
        </soap:Fault>
      </soap:Body>
    </soap:Envelope>
    """, statusCode: 500))
let service = ResourceService<GetUserDetails>(session: session)
return (session, service)
}

struct OrderLine: Codable, Sendable {
    let sku: String
    let quantity: Int
    let price: Decimal          // written from its own digits, never through Double
}

struct PlaceOrderRequest: Codable, Sendable, XMLSchemaType {
    let channel: String         // an attribute: <placeOrder channel="web">
    let customer: String
    let lines: [OrderLine]      // <lines><line>…</line><line>…</line></lines>
    let note: String?           // <note xsi:nil="true"/> when nil
    let placed: XMLDateTime     // 2026-01-02T08:34:05+05:30, its offset kept

    static let xmlSchema = XMLTypeSchema(
        namespace: "urn:example:orders",
        fields: ["channel": .attribute, "lines": .wrapped(item: "line"), "note": .nillableElement])
}

struct PlaceOrder: SOAPResourceType {
    typealias Model = String
    let request: PlaceOrderRequest
    var url: URL { URL(string: "https://example.com/services/Orders")! }
    var operationNamespace: String? { "urn:example:orders" }
    var operation: String { "placeOrder" }
    var soapBody: (any Encodable)? { request }
    var responsePath: [String] { ["placeOrderResponse", "orderID"] }
}

enum Payment: Codable, Sendable, XMLChoice {
    case card(number: String)   // <card><number>…</number></card>
    case iban(String)           // <iban>CH93…</iban>
}

struct GetQuote: SOAPResourceType {
    typealias Model = Decimal
    let symbol: String
    var url: URL { URL(string: "https://example.com/services/Quotes")! }
    var operationNamespace: String? { "urn:example:quotes" }
    var operation: String { "getQuote" }
    var soapBinding: SOAPBinding { .rpcLiteral }
    var parameters: SOAPParameters { ["symbol": .text(symbol)] }
    var responsePath: [String] { ["getQuoteResponse", "price"] }
}

struct Account: Decodable, Sendable { let id: String }
struct AccountWithSession: Sendable { let account: Account; let renewedSession: String? }

struct SessionHeader: Codable, Sendable {
    let sessionId: String
}

struct GetAccount: SOAPResourceType {
    typealias Model = AccountWithSession
    typealias Root = Account
    let session: String
    var url: URL { URL(string: "https://example.com/services/Accounts")! }
    var operationNamespace: String? { "urn:example:accounts" }
    var operation: String { "getAccount" }
    var responsePath: [String] { ["getAccountResponse", "account"] }

    var soapHeaders: [SOAPHeaderBlock] {
        get throws {
            [try SOAPHeaderBlock(
                SessionHeader(sessionId: session),
                as: XMLQualifiedName("SessionHeader", namespaceURI: "urn:example:accounts"),
                mustUnderstand: true)]
        }
    }

    func model(from root: Account) -> AccountWithSession {
        AccountWithSession(account: root, renewedSession: nil)
    }

    func model(from root: Account, headers: SOAPResponseHeaders) throws -> AccountWithSession {
        let renewed = try headers.decode(SessionHeader.self, named: "SessionHeader")
        return AccountWithSession(account: root, renewedSession: renewed?.sessionId)
    }
}

static func securePipeline(password: String) -> ResourcePipeline {
    ResourcePipeline(adapters: [
        WSSecurityAdapter(WSSecurityHeader(
            usernameToken: WSSecurityUsernameToken(username: "ada", password: password, passwordType: .digest),
            timestampValidity: .seconds(300)))
    ])
}
}

/// The article's resources do what the article says.
@Suite("XML and SOAP article")
struct XMLAndSOAPArticleTests {
    /// A document/literal response as spyne sends it, shared with the library's tests.
    static let documentLiteralResponse = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../ResourceLoaderTests/Fixtures/getUserDetails-document-literal-response.xml").standardized

    @Test func getUserDetailsDecodesADocumentLiteralResponse() throws {
        let user = try XMLAndSOAPArticle.GetUserDetails(userID: "12345").model(from: try Data(contentsOf: Self.documentLiteralResponse))
        #expect(user.firstName == "Fred")
        #expect(user.city == "London")
    }

    @Test func getUserDetailsSendsTheOperationInTheTargetNamespace() throws {
        let request = try XMLAndSOAPArticle.GetUserDetails(userID: "12345").urlRequest()
        let body = try #require(request.httpBody)
        let operation = try #require(try XMLTree(data: body).root.element(atPath: ["Body", "getUserDetails"]))
        #expect(operation.namespaceURI == "urn:example:users")
        #expect(operation.child(named: "userID")?.namespaceURI == "urn:example:users")
        #expect(request.value(forHTTPHeaderField: "SOAPAction") == #""getUserDetails""#)
    }

    @Test func theStubbedServiceAnswersWithAFault() async throws {
        let (session, service) = XMLAndSOAPArticle.stubbedService()
        do {
            _ = try await service.fetch(XMLAndSOAPArticle.GetUserDetails(userID: "12345"))
            Issue.record("expected a Fault")
        } catch .soapFault(let fault) {
            #expect(fault.code == "soap:Client")
            #expect(fault.standardCode == .sender)
            #expect(fault.reason == "Unknown user")
        }
        let request = try #require(session.receivedRequests.first)
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "SOAPAction") == #""getUserDetails""#)
    }

    @Test func theVersion2CallSendsSOAP12WithNestedParameters() throws {
        let request = try XMLAndSOAPArticle.GetUserDetailsV2(userID: "7").urlRequest()
        #expect(request.value(forHTTPHeaderField: "Content-Type")
            == #"application/soap+xml; charset=utf-8; action="http://example.com/users/getUserDetails""#)
        let body = try #require(request.httpBody)
        let operation = try #require(try XMLTree(data: body).root.element(atPath: ["Body", "getUserDetails"]))
        #expect(operation.namespaceURI == "http://example.com/users")
        #expect(operation.children.map(\.name) == ["userID", "include"])
        #expect(operation.element(atPath: ["include", "phones"])?.text == "false")
    }

    static let books = """
        <catalogue xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
          <books>
            <book isbn="111"><title>One</title><author>A</author><author>B</author><published>2020-05-01T00:00:00Z</published></book>
            <book isbn="222"><title>Two</title><published xsi:nil="true"/></book>
          </books>
        </catalogue>
        """

    @Test func theCatalogueDecodesBooks() throws {
        let books = try XMLAndSOAPArticle.Catalogue().model(from: Data(Self.books.utf8))
        #expect(books.map(\.isbn) == ["111", "222"])
        #expect(books.map(\.author) == [["A", "B"], []])
        #expect(books[0].published == Date(timeIntervalSince1970: 1_588_291_200))
        #expect(books[1].published == nil)
    }

    @Test func theExportDecodesTheRootsChildren() throws {
        let export = XMLAndSOAPArticle.Export()
        let books = try export.model(from: Data("<books><book isbn='1'><title>T</title></book></books>".utf8))
        #expect(books.map(\.title) == ["T"])
        #expect(export.xmlParsingOptions.maximumDepth == 64)
    }

    @Test func theContactCardUsesLeafTexts() throws {
        let card = XMLAndSOAPArticle.ContactCard()
        let contact = try card.model(from: Data("<r><contact><name>Ada</name><email>ada@example.com</email></contact></r>".utf8))
        #expect(contact.name == "Ada")
        #expect(contact.email == "ada@example.com")
        guard case .failure(.parsing) = card.result(from: Data("<r><contact><name>Ada</name></contact></r>".utf8)) else {
            Issue.record("expected a parsing error for a contact without an email")
            return
        }
    }

    @Test func parsingYourself() throws {
        let parsed = try XMLAndSOAPArticle.parseYourself()
        #expect(parsed.greeting == "Hello")
        #expect(parsed.language == "en")
    }

    @Test func theTypedOrderIsSentAsTheArticleSays() throws {
        let request = XMLAndSOAPArticle.PlaceOrderRequest(
            channel: "web", customer: "Ada", lines: [.init(sku: "A-1", quantity: 2, price: Decimal(string: "9.99")!)], note: nil,
            placed: XMLDateTime(Date(timeIntervalSince1970: 1_767_323_045), utcOffset: 330))
        let body = try #require(try XMLAndSOAPArticle.PlaceOrder(request: request).urlRequest().httpBody)
        let operation = try #require(try XMLTree(data: body).root.element(atPath: ["Body", "placeOrder"]))
        #expect(operation.namespaceURI == "urn:example:orders")
        #expect(operation.attribute(named: "channel") == "web")
        #expect(operation.element(atPath: ["lines", "line", "price"])?.text == "9.99")
        #expect(operation.child(named: "note")?.attribute(named: "nil", namespaceURI: "http://www.w3.org/2001/XMLSchema-instance") == "true")
        #expect(operation.child(named: "placed")?.text == "2026-01-02T08:34:05+05:30")
    }

    @Test func theChoiceAndTheRPCBindingAreWrittenAsTheArticleSays() throws {
        struct Checkout: Encodable { let payment: XMLAndSOAPArticle.Payment }
        let checkout = try XMLTreeEncoder().encodeElement(Checkout(payment: .card(number: "4111")), as: XMLQualifiedName("checkout"))
        #expect(checkout.children.map(\.name) == ["card"])
        #expect(checkout.element(atPath: ["card", "number"])?.text == "4111")
        let body = try #require(try XMLAndSOAPArticle.GetQuote(symbol: "ACME").urlRequest().httpBody)
        let operation = try #require(try XMLTree(data: body).root.element(atPath: ["Body", "getQuote"]))
        #expect(operation.namespaceURI == "urn:example:quotes")
        #expect(operation.child(named: "symbol")?.namespaceURI == nil)
    }

    @Test func theAccountSendsItsSessionHeaderAndReadsTheRenewedOne() throws {
        let call = XMLAndSOAPArticle.GetAccount(session: "s-1")
        let envelope = try XMLTree(data: try #require(try call.urlRequest().httpBody)).root
        let header = try #require(envelope.element(atPath: ["Header", "SessionHeader"]))
        #expect(header.child(named: "sessionId")?.text == "s-1")
        #expect(header.attribute(named: "mustUnderstand", namespaceURI: SOAPVersion.v1_1.envelopeNamespace) == "1")
        let response = Data("""
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
              <soap:Header><SessionHeader><sessionId>s-2</sessionId></SessionHeader></soap:Header>
              <soap:Body><getAccountResponse><account><id>7</id></account></getAccountResponse></soap:Body>
            </soap:Envelope>
            """.utf8)
        let model = try call.model(from: response)
        #expect(model.account.id == "7")
        #expect(model.renewedSession == "s-2")
    }

    @Test func theSecurePipelineAddsAUsernameToken() async throws {
        let pipeline = XMLAndSOAPArticle.securePipeline(password: "pw")
        let adapted = try await pipeline.adapters[0].adapt(try XMLAndSOAPArticle.GetQuote(symbol: "ACME").urlRequest())
        let envelope = try XMLTree(data: try #require(adapted.httpBody)).root
        #expect(envelope.element(atPath: ["Header", "Security", "UsernameToken", "Username"])?.text == "ada")
        #expect(envelope.element(atPath: ["Header", "Security", "Timestamp", "Expires"]) != nil)
    }
}
