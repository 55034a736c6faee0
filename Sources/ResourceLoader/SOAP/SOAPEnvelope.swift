import Foundation

/// A SOAP request envelope: an operation and its parameters, written as XML.
///
/// ``SOAPResourceType`` builds one from the resource's properties; make one yourself to send a
/// SOAP request some other way.
///
/// ```swift
/// let envelope = SOAPEnvelope(operation: "getUserDetails", parameters: ["userID": "12345"])
/// let body = try envelope.data()
/// ```
///
/// writes (without the line breaks):
///
/// ```xml
/// <?xml version="1.0" encoding="utf-8"?>
/// <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
///   <soap:Body><getUserDetails><userID>12345</userID></getUserDetails></soap:Body>
/// </soap:Envelope>
/// ```
///
/// With an ``operationNamespace``, the operation element declares it as the default namespace
/// (`<getUserDetails xmlns="urn:users">`), so the parameters are in it too: the
/// document/literal wrapped style most services expect.
public struct SOAPEnvelope: Sendable, Hashable {
    /// The SOAP version, which sets the envelope's namespace.
    public var version: SOAPVersion
    /// The operation element's name.
    public var operation: String
    /// The namespace of the operation and its parameters, if any.
    public var operationNamespace: String?
    /// The parameters, in order.
    public var parameters: SOAPParameters

    /// Creates an envelope.
    public init(
        version: SOAPVersion = .v1_1,
        operation: String,
        operationNamespace: String? = nil,
        parameters: SOAPParameters = SOAPParameters()
    ) {
        self.version = version
        self.operation = operation
        self.operationNamespace = operationNamespace
        self.parameters = parameters
    }

    /// The envelope as UTF-8 XML.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when a name is not a valid XML name or
    ///   a value holds a character XML 1.0 does not allow (such as NUL).
    public func data() throws(ResourceError) -> Data {
        var writer = XMLWriter()
        try writer.start("soap:Envelope", prefixed: true, attributes: [("xmlns:soap", version.envelopeNamespace)])
        try writer.start("soap:Body", prefixed: true)
        try writer.start(operation, attributes: operationNamespace.map { [("xmlns", $0)] } ?? [])
        // Nested values are written with an explicit stack, not recursion.
        var stack: [(entries: [SOAPParameters.Entry], next: Int)] = [(parameters.entries, 0)]
        while let top = stack.last {
            guard top.next < top.entries.count else {
                stack.removeLast()
                writer.end()
                continue
            }
            stack[stack.count - 1].next += 1
            let entry = top.entries[top.next]
            try writer.start(entry.name)
            switch entry.value {
            case .text(let text):
                try writer.characters(text)
                writer.end()
            case .elements(let children):
                stack.append((children.entries, 0))
            }
        }
        writer.end()
        writer.end()
        return Data(writer.text.utf8)
    }
}

// MARK: - Reading responses

extension SOAPEnvelope {
    /// Returns the `Body` of a response envelope, or throws ``ResourceError/soapFault(_:)`` when
    /// the body holds a Fault.
    ///
    /// The envelope is recognised by its namespace, whatever prefix the server gives it.
    static func body(of document: XMLTree) throws(ResourceError) -> XMLTree.Element {
        let envelope = document.root
        guard envelope.name == "Envelope", let namespace = envelope.namespaceURI,
            SOAPVersion(envelopeNamespace: namespace) != nil
        else {
            throw .parsing(.init(context: "reading a SOAP response: the root element is not a SOAP Envelope"))
        }
        guard let body = envelope.child(named: "Body", namespaceURI: namespace) else {
            throw .parsing(.init(context: "reading a SOAP response: the Envelope has no Body"))
        }
        if let fault = body.child(named: "Fault", namespaceURI: namespace) {
            throw .soapFault(SOAPFault(element: fault))
        }
        return body
    }

    /// The Fault a response body carries, or `nil` when it is not a SOAP envelope with a Fault.
    static func fault(in data: Data, options: XMLParsingOptions) -> SOAPFault? {
        // Most error pages are not SOAP: skip parsing unless the bytes could hold a Fault.
        guard data.range(of: Data("Fault".utf8)) != nil,
            let document = try? XMLTree(data: data, options: options)
        else { return nil }
        do {
            _ = try body(of: document)
            return nil
        } catch {
            if case .soapFault(let fault) = error { return fault }
            return nil
        }
    }
}
