import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A resource fetched from a SOAP service: an operation call whose response is decoded into the
/// model.
///
/// Say where the service is, which operation to call in which namespace with which parameters,
/// and where the model sits in the response; the envelope, the headers, the `POST` and the Fault
/// handling come for free. For a document/literal service, as most WSDLs describe:
///
/// ```swift
/// struct GetUserDetails: SOAPResourceType {
///     typealias Model = User
///     let userID: String
///     var url: URL { URL(string: "https://example.com/services/UserService")! }
///     var operationNamespace: String? { "urn:example:users" }
///     var operation: String { "getUserDetails" }
///     var parameters: SOAPParameters { ["userID": .text(userID)] }
///     var responsePath: [String] { ["getUserDetailsResponse", "getUserDetailsResult"] }
/// }
/// ```
///
/// Read the values off the WSDL: ``operationNamespace`` is the `targetNamespace` of the schema
/// that declares the operation's element, ``operation`` is the input message part's element,
/// and ``responsePath`` is the output message part's element followed by the child that holds
/// the result (see <doc:XMLAndSOAPResources>).
///
/// **Requests.** The body is a ``SOAPEnvelope`` built from ``soapVersion``, ``operation``,
/// ``operationNamespace`` and ``parameters`` (or a typed ``soapBody``, written as
/// ``soapBinding`` says by ``xmlEncoder``), with ``soapHeaders`` in its `Header` and every value
/// escaped. A typed body, for a service whose WSDL declares types:
///
/// ```swift
/// struct CreateOrder: SOAPResourceType {
///     typealias Model = OrderConfirmation
///     let order: OrderRequest                 // Encodable
///     let session: String
///     var url: URL { URL(string: "https://example.com/services/Orders")! }
///     var operationNamespace: String? { "urn:example:orders" }
///     var operation: String { "createOrder" }
///     var soapBody: (any Encodable)? { order }
///     var soapHeaders: [SOAPHeaderBlock] {
///         get throws {
///             [try SOAPHeaderBlock(name: "SessionHeader", namespace: "urn:example:orders",
///                                  parameters: ["sessionId": .text(session)], mustUnderstand: true)]
///         }
///     }
/// }
/// ``` SOAP 1.1 requests carry
/// `Content-Type: text/xml; charset=utf-8` and a quoted `SOAPAction` header; SOAP 1.2 requests
/// carry `Content-Type: application/soap+xml; charset=utf-8; action="…"`.
///
/// **Responses.** The model is decoded (see ``XMLTreeDecoder``) from the element at
/// ``responsePath`` inside the envelope's `Body`, whatever prefix the server gives the envelope.
///
/// **Faults.** A response whose `Body` holds a `Fault` fails with ``ResourceError/soapFault(_:)``
/// whatever its HTTP status: with an unacceptable status, ``NetworkResourceType/validate(_:data:)`` finds it; with a
/// `200`, the model step does, so successful responses are parsed once. A non-SOAP error page
/// stays ``ResourceError/httpStatus(_:)``.
public protocol SOAPResourceType: NetworkResourceType, XMLDecodableResourceType {
    // `Model` is deliberately not restated here: no requirement of this protocol mentions it, and
    // restating it stops Swift inferring it from `model(from root:)` in conforming types.

    /// The SOAP version. Default: ``SOAPVersion/v1_1``.
    var soapVersion: SOAPVersion { get }

    /// The name of the operation element inside the request's `Body`.
    var operation: String { get }

    /// The namespace of the operation and its parameters: the `targetNamespace` of the WSDL schema
    /// that declares the operation's element. Document/literal services need it, or they cannot
    /// match the request to their schema. Default: `nil`, no namespace.
    var operationNamespace: String? { get }

    /// The operation's parameters, in order. Default: none. Not sent when ``soapBody`` is set.
    var parameters: SOAPParameters { get }

    /// A typed body, sent instead of ``parameters``: encoded by ``xmlEncoder`` as ``soapBinding``
    /// says (see ``SOAPEnvelope/init(version:operation:operationNamespace:body:binding:headers:encoder:)``).
    /// Default: `nil`, the parameters are sent.
    var soapBody: (any Encodable)? { get }

    /// How the body sits in the envelope. Default: ``SOAPBinding/documentLiteralWrapped``.
    var soapBinding: SOAPBinding { get }

    /// The blocks of the request's `Header`. Default: none. Headers every request of a service
    /// needs (WS-Security) are better added by a ``ResourcePipeline`` adapter, such as
    /// ``WSSecurityAdapter``.
    var soapHeaders: [SOAPHeaderBlock] { get throws }

    /// The encoder of a typed ``soapBody``. Default: `XMLTreeEncoder()`.
    var xmlEncoder: XMLTreeEncoder { get }

    /// Makes the model from the decoded root and the response's header blocks. Default:
    /// ``XMLDecodableResourceType/model(from:)-(Root)``, which ignores the headers; implement it
    /// to read a header block into the model.
    func model(from root: Root, headers: SOAPResponseHeaders) throws -> Model

    /// The action sent in the `SOAPAction` header (1.1) or the content type (1.2); `nil` sends
    /// an empty `SOAPAction` (1.1) or none (1.2). Default: ``operation``.
    var soapAction: String? { get }

    /// The names of the elements leading from the response's `Body` to the element the model is
    /// decoded from: in a WSDL, the output message part's element, then the child of its type
    /// that holds the result (`getUserDetailsResult`, `return`…). Default:
    /// `["\(operation)Response"]`.
    var responsePath: [String] { get }
}

// MARK: - Default implementations

extension SOAPResourceType {
    /// ``SOAPVersion/v1_1``.
    public var soapVersion: SOAPVersion { .v1_1 }

    /// `nil`: the operation is in no namespace.
    public var operationNamespace: String? { nil }

    /// No parameters.
    public var parameters: SOAPParameters { SOAPParameters() }

    /// `nil`: the ``parameters`` are sent.
    public var soapBody: (any Encodable)? { nil }

    /// ``SOAPBinding/documentLiteralWrapped``.
    public var soapBinding: SOAPBinding { .documentLiteralWrapped }

    /// No header blocks.
    public var soapHeaders: [SOAPHeaderBlock] { [] }

    /// `XMLTreeEncoder()`.
    public var xmlEncoder: XMLTreeEncoder { XMLTreeEncoder() }

    /// ``XMLDecodableResourceType/model(from:)-(Root)``: the headers are ignored.
    public func model(from root: Root, headers: SOAPResponseHeaders) throws -> Model {
        try model(from: root)
    }

    /// The ``operation`` name.
    public var soapAction: String? { operation }

    /// The operation's name followed by `Response`, as most services name their answer.
    public var responsePath: [String] { ["\(operation)Response"] }

    /// `Body` followed by ``responsePath``.
    public var elementPath: [String] { ["Body"] + responsePath }

    /// ``HTTPMethod/post``.
    public var httpMethod: HTTPMethod { .post }

    /// ``soapHeaderFields``: the `SOAPAction` header for SOAP 1.1, nothing for 1.2.
    public var headerFields: [String: String] { soapHeaderFields }

    /// The ``envelope``, with the version's content type.
    public var body: RequestBody? {
        get throws {
            RequestBody(data: try envelope.data(), contentType: soapVersion.contentType(action: soapAction))
        }
    }

    /// Checks the envelope, fails with ``ResourceError/soapFault(_:)`` if its `Body` holds a
    /// Fault, decodes ``XMLDecodableResourceType/Root`` from the element at ``elementPath`` and
    /// makes the model with ``model(from:headers:)``.
    public func model(from document: XMLTree) throws -> Model? {
        _ = try SOAPEnvelope.body(of: document)
        let root = try decodedRoot(from: document)
        return try model(from: root, headers: SOAPResponseHeaders(blocks: SOAPEnvelope.headerBlocks(of: document)))
    }
}

extension SOAPResourceType where ValidatedResponse == ResponseHead {
    /// Fails with ``ResourceError/soapFault(_:)`` when the response's status is not acceptable
    /// and its body is a SOAP Fault; otherwise checks the status like
    /// ``NetworkResourceType/validate(_:data:)``.
    ///
    /// A Fault with an acceptable status is found when the model is made, so that a successful
    /// response is parsed only once.
    public func validate(_ response: ResponseHead, data: Data) throws(ResourceError) {
        guard acceptableStatusCodes.contains(response.statusCode) else {
            if let fault = SOAPEnvelope.fault(in: data, options: xmlParsingOptions) {
                throw .soapFault(fault)
            }
            throw .httpStatus(.init(head: response, body: data))
        }
    }
}

// MARK: - Conveniences

extension SOAPResourceType {
    /// The request envelope built from ``soapVersion``, ``operation``, ``operationNamespace``,
    /// ``parameters`` or ``soapBody``, ``soapBinding`` and ``soapHeaders``.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when the typed body or a header
    ///   cannot be encoded, or the binding is encoded; any error ``soapHeaders`` throws.
    public var envelope: SOAPEnvelope {
        get throws {
            let headers = try soapHeaders
            guard let body = soapBody else {
                return SOAPEnvelope(
                    version: soapVersion, operation: operation, operationNamespace: operationNamespace,
                    parameters: parameters, binding: soapBinding, headers: headers)
            }
            return try Self.envelope(
                body, version: soapVersion, operation: operation, operationNamespace: operationNamespace,
                binding: soapBinding, headers: headers, encoder: xmlEncoder)
        }
    }

    /// Opens the existential body for the envelope's generic initializer.
    private static func envelope<Body: Encodable>(
        _ body: Body, version: SOAPVersion, operation: String, operationNamespace: String?, binding: SOAPBinding,
        headers: [SOAPHeaderBlock], encoder: XMLTreeEncoder
    ) throws(ResourceError) -> SOAPEnvelope {
        try SOAPEnvelope(
            version: version, operation: operation, operationNamespace: operationNamespace, body: body, binding: binding,
            headers: headers, encoder: encoder)
    }

    /// The header fields SOAP needs besides `Content-Type`. Merge them into your own when you
    /// override ``NetworkResourceType/headerFields``:
    ///
    /// ```swift
    /// var headerFields: [String: String] {
    ///     soapHeaderFields.merging(["Authorization": "Bearer \(token)"]) { $1 }
    /// }
    /// ```
    public var soapHeaderFields: [String: String] { soapVersion.headerFields(action: soapAction) }
}
