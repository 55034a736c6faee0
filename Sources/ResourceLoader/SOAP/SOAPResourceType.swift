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
/// ``operationNamespace`` and ``parameters``, with every value escaped. SOAP 1.1 requests carry
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

    /// The operation's parameters, in order. Default: none.
    var parameters: SOAPParameters { get }

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
    /// Fault, and decodes ``XMLDecodableResourceType/Root`` from the element at ``elementPath``.
    public func model(from document: XMLTree) throws -> Model? {
        _ = try SOAPEnvelope.body(of: document)
        return try decodedModel(from: document)
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
    /// The request envelope built from ``soapVersion``, ``operation``, ``operationNamespace`` and
    /// ``parameters``.
    public var envelope: SOAPEnvelope {
        SOAPEnvelope(version: soapVersion, operation: operation, operationNamespace: operationNamespace, parameters: parameters)
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
