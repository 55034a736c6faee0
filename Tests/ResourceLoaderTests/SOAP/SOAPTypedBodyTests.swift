import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request of a typed call: a record with an attribute, a nested type and an array.
struct PlaceOrderRequest: Codable, Equatable, Sendable, XMLSchemaType {
    struct Item: Codable, Equatable, Sendable { let sku: String; let quantity: Int }
    let channel: String
    let customer: String
    let items: [Item]
    let note: String?
    static let xmlSchema = XMLTypeSchema(fields: ["channel": .attribute])
}

/// A typed SOAP call, with its binding and version set by the test.
struct PlaceOrder: SOAPResourceType {
    /// The parts of the call in its document/literal bare form: elements only.
    struct Parts: Codable, Equatable, Sendable {
        let customer: String
        let items: [PlaceOrderRequest.Item]
    }
    typealias Model = String
    var request = PlaceOrderRequest(channel: "web", customer: "Ada <&>", items: [.init(sku: "A-1", quantity: 2), .init(sku: "B-2", quantity: 1)], note: nil)
    var soapVersion: SOAPVersion = .v1_1
    var soapBinding: SOAPBinding = .documentLiteralWrapped
    var headers: [SOAPHeaderBlock] = []
    var url: URL { URL(string: "https://example.com/services/Orders")! }
    var operation: String { "placeOrder" }
    var operationNamespace: String? { "urn:example:orders" }
    var soapBody: (any Encodable)? { request }
    var soapHeaders: [SOAPHeaderBlock] { headers }
    var responsePath: [String] { ["placeOrderResponse", "orderID"] }
}

@Suite("SOAP typed bodies")
struct SOAPTypedBodyTests {
    private func body(_ call: PlaceOrder) throws -> String {
        let data = try #require(try call.urlRequest().httpBody)
        return String(decoding: data, as: UTF8.self)
    }

    private let envelopeStart = #"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>"#
    private let envelopeEnd = "</soap:Body></soap:Envelope>"

    @Test func anUnencodableBodyIsDescribedWithoutItsDictionaryKeys() {
        // GIVEN a typed body whose dictionary key, chosen by the data, is not an XML name
        struct Balances: Encodable { let balances: [String: Int] }
        // WHEN the envelope is made
        let error = #expect(throws: ResourceError.self) {
            try SOAPEnvelope(operation: "report", body: Balances(balances: ["acct 4111-1111": 1]))
        }
        // THEN the error names where, with the key as `*`, and never the key
        #expect(error?.description.contains("4111") == false)
        #expect(error?.description.contains("balances.*") == true)
    }

    @Test func anRPCOperationInTheEmptyNamespaceIsInNoNamespace() throws {
        // GIVEN an rpc/literal envelope whose operation namespace is empty
        let data = try SOAPEnvelope(operation: "getQuote", operationNamespace: "", parameters: ["symbol": "X"], binding: .rpcLiteral).data()
        // THEN it is well-formed XML, the operation element in no namespace
        let operation = try #require(try XMLTree(data: data).root.element(atPath: ["Body", "getQuote"]))
        #expect(operation.namespaceURI == nil)
    }

    @Test func documentLiteralWrappedPutsThePartsInTheOperationElement() throws {
        let text = try body(PlaceOrder())
        #expect(text == envelopeStart
            + #"<placeOrder xmlns="urn:example:orders" channel="web"><customer>Ada &lt;&amp;&gt;</customer>"#
            + "<items><sku>A-1</sku><quantity>2</quantity></items>"
            + "<items><sku>B-2</sku><quantity>1</quantity></items></placeOrder>" + envelopeEnd)
        // The service reads back what was sent.
        let operation = try #require(try XMLTree(string: text).root.element(atPath: ["Body", "placeOrder"]))
        #expect(operation.namespaceURI == "urn:example:orders")
        #expect(try XMLTreeDecoder().decode(PlaceOrderRequest.self, from: operation) == PlaceOrder().request)
    }

    @Test func documentLiteralBarePutsEachPartInTheBody() throws {
        let envelope = try SOAPEnvelope(
            operation: "placeOrder", operationNamespace: "urn:example:orders",
            body: PlaceOrder.Parts(customer: "Ada", items: [.init(sku: "A-1", quantity: 2), .init(sku: "B-2", quantity: 1)]),
            binding: .documentLiteralBare)
        let body = try #require(try XMLTree(string: String(decoding: try envelope.data(), as: UTF8.self)).root.child(named: "Body"))
        #expect(body.children.map(\.name) == ["customer", "items", "items"])
        #expect(body.children.allSatisfy { $0.namespaceURI == "urn:example:orders" })
    }

    /// A bare body is written as its properties' elements only: an attribute or text of the body
    /// itself has nowhere to go, and is refused rather than left out of the request.
    @Test func aBareBodyWithAnAttributeOrTextIsRefused() throws {
        var call = PlaceOrder()
        call.soapBinding = .documentLiteralBare
        do {
            _ = try call.urlRequest()
            Issue.record("a bare body with an attribute was sent without it")
        } catch {
            guard case .invalidRequest(let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("channel"))
        }
        #expect(throws: ResourceError.self) { try SOAPEnvelope(operation: "op", body: "hello", binding: .documentLiteralBare) }
    }

    @Test func rpcLiteralQualifiesTheOperationAndNotItsParts() throws {
        var call = PlaceOrder()
        call.soapBinding = .rpcLiteral
        call.soapVersion = .v1_2
        let envelope = try XMLTree(string: try body(call)).root
        #expect(envelope.namespaceURI == SOAPVersion.v1_2.envelopeNamespace)
        let operation = try #require(envelope.element(atPath: ["Body", "placeOrder"]))
        #expect(operation.namespaceURI == "urn:example:orders")
        #expect(operation.children.map(\.name) == ["customer", "items", "items"])
        #expect(operation.children.allSatisfy { $0.namespaceURI == nil })
        #expect(operation.children[1].children.allSatisfy { $0.namespaceURI == nil })
    }

    @Test func rpcLiteralPartsAreUnqualifiedAndTheirContentsAsTheirTypesSay() throws {
        // GIVEN an rpc/literal body whose own schema qualifies its elements, and a part whose type
        // is in a namespace of its own, its elementFormDefault left to the encoder
        struct Address: Encodable, XMLSchemaType {
            let street: String
            static let xmlSchema = XMLTypeSchema(namespace: "urn:types")
        }
        struct Request: Encodable, XMLSchemaType {
            let symbol: String
            let address: Address
            static let xmlSchema = XMLTypeSchema(elementForm: .qualified)
        }
        for encoder in [XMLTreeEncoder(), XMLTreeEncoder(elementFormDefault: .unqualified)] {
            let data = try SOAPEnvelope(
                operation: "getQuote", operationNamespace: "urn:quotes", body: Request(symbol: "X", address: Address(street: "1 High St")),
                binding: .rpcLiteral, encoder: encoder).data()
            let operation = try #require(try XMLTree(data: data).root.element(atPath: ["Body", "getQuote"]))
            // THEN the operation is in its namespace, the parts in none, whatever the schema of
            // the body's type says
            #expect(operation.namespaceURI == "urn:quotes")
            #expect(operation.children.map(\.name) == ["symbol", "address"])
            #expect(operation.children.map(\.namespaceURI) == [nil, nil])
            // AND the part's contents are as its type's schema says, with the encoder's
            // elementFormDefault where the schema says nothing
            let street = try #require(operation.element(atPath: ["address", "street"]))
            #expect(street.namespaceURI == (encoder.elementFormDefault == .qualified ? "urn:types" : nil))
        }
    }

    @Test func soapParametersFollowTheBindingToo() throws {
        let parameters: SOAPParameters = ["userID": "1", "fields": ["name": "x"]]
        let bare = SOAPEnvelope(operation: "get", operationNamespace: "urn:u", parameters: parameters, binding: .documentLiteralBare)
        #expect(String(decoding: try bare.data(), as: UTF8.self) == envelopeStart
            + #"<userID xmlns="urn:u">1</userID><fields xmlns="urn:u"><name>x</name></fields>"# + envelopeEnd)
        let rpc = SOAPEnvelope(operation: "get", operationNamespace: "urn:u", parameters: parameters, binding: .rpcLiteral)
        #expect(String(decoding: try rpc.data(), as: UTF8.self) == envelopeStart
            + #"<m:get xmlns:m="urn:u"><userID>1</userID><fields><name>x</name></fields></m:get>"# + envelopeEnd)
        // The wrapped form is unchanged.
        let wrapped = SOAPEnvelope(operation: "get", operationNamespace: "urn:u", parameters: parameters)
        #expect(String(decoding: try wrapped.data(), as: UTF8.self) == envelopeStart
            + #"<get xmlns="urn:u"><userID>1</userID><fields><name>x</name></fields></get>"# + envelopeEnd)
    }

    @Test func rpcEncodedIsRefusedWithAnErrorThatSaysSo() throws {
        var call = PlaceOrder()
        call.soapBinding = SOAPBinding(style: .rpc, use: .encoded)
        do {
            _ = try call.urlRequest()
            Issue.record("an rpc/encoded request was built")
        } catch {
            guard case .invalidRequest(let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("encoded"))
        }
        let envelope = SOAPEnvelope(operation: "get", binding: SOAPBinding(style: .rpc, use: .encoded))
        #expect(throws: ResourceError.self) { try envelope.data() }
    }

    @Test func aBodyThatCannotBeEncodedIsAnInvalidRequestThatNamesThePathNotTheValue() throws {
        var call = PlaceOrder()
        call.request = PlaceOrderRequest(channel: "web", customer: "secret\u{0}", items: [], note: nil)
        do {
            _ = try call.urlRequest()
            Issue.record("a NUL was sent")
        } catch {
            guard case .invalidRequest(let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("customer"))
            #expect(!reason.contains("secret"))
            #expect(!error.description.contains("secret"))
        }
    }

    @Test func aTypedCallFetchesThroughTheService() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
            <placeOrderResponse xmlns="urn:example:orders"><orderID>O-1</orderID></placeOrderResponse>
            </soap:Body></soap:Envelope>
            """))
        let id = try await ResourceService<PlaceOrder>(session: session).fetch(PlaceOrder())
        #expect(id == "O-1")
        let sent = try #require(session.receivedRequests.first?.httpBody)
        #expect(sent == (try PlaceOrder().envelope.data()))
    }
}
