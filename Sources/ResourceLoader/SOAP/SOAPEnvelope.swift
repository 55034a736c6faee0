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
///
/// A typed body replaces the parameters: any `Encodable` value, written by ``XMLTreeEncoder``
/// as the ``binding`` says (see ``init(version:operation:operationNamespace:body:binding:headers:encoder:)``).
/// ``headers`` are written in the envelope's `Header`.
public struct SOAPEnvelope: Sendable, Hashable {
    /// The SOAP version, which sets the envelope's namespace.
    public var version: SOAPVersion
    /// The operation element's name.
    public var operation: String
    /// The namespace of the operation and its parameters, if any.
    public var operationNamespace: String?
    /// The parameters, in order; not written when the envelope has a typed body.
    public var parameters: SOAPParameters
    /// How the parameters sit in the `Body`. Default: ``SOAPBinding/documentLiteralWrapped``.
    public var binding: SOAPBinding
    /// The blocks of the `Header`, in order; with none, the envelope has no `Header`.
    public var headers: [SOAPHeaderBlock]
    /// The markup of the `Body`'s content when it was encoded from a typed value, written
    /// instead of ``parameters``.
    private(set) var encodedBody: [UInt8]?

    /// Creates an envelope whose body is made of ``SOAPParameters``.
    public init(
        version: SOAPVersion = .v1_1,
        operation: String,
        operationNamespace: String? = nil,
        parameters: SOAPParameters = SOAPParameters(),
        binding: SOAPBinding = .documentLiteralWrapped,
        headers: [SOAPHeaderBlock] = []
    ) {
        self.version = version
        self.operation = operation
        self.operationNamespace = operationNamespace
        self.parameters = parameters
        self.binding = binding
        self.headers = headers
    }

    /// Creates an envelope whose body is `body`, encoded now by `encoder`.
    ///
    /// - ``SOAPBinding/documentLiteralWrapped``: `body` is the operation element, in
    ///   `operationNamespace`; its properties are the parameters.
    /// - ``SOAPBinding/documentLiteralBare``: each of `body`'s properties is a part's element,
    ///   directly in the `Body`, in `operationNamespace`; a body with an attribute or text of its
    ///   own, which would have nowhere to go, is refused.
    /// - ``SOAPBinding/rpcLiteral``: `body` is the operation element, in `operationNamespace` (the
    ///   `soap:body` namespace); its properties are the parts, in no namespace whatever the
    ///   forms of `body`'s schema or `encoder` say (unless a field names a namespace), and their
    ///   own contents qualified as their types' schemas and `encoder` say.
    ///
    /// The body is encoded here, once: changing ``operation``, ``operationNamespace`` or
    /// ``binding`` afterwards does not write it again.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` for an encoded binding, for a bare
    ///   body with an attribute or text of its own, or when the body cannot be encoded (the
    ///   reason names the coding path, never the value).
    public init<Body: Encodable>(
        version: SOAPVersion = .v1_1,
        operation: String,
        operationNamespace: String? = nil,
        body: Body,
        binding: SOAPBinding = .documentLiteralWrapped,
        headers: [SOAPHeaderBlock] = [],
        encoder: XMLTreeEncoder = XMLTreeEncoder()
    ) throws(ResourceError) {
        self.init(version: version, operation: operation, operationNamespace: operationNamespace, binding: binding, headers: headers)
        try binding.check()
        encodedBody = try Self.bodyMarkup(body, operation: XMLQualifiedName(operation, namespaceURI: operationNamespace), binding: binding, encoder: encoder)
    }

    /// The envelope as UTF-8 XML.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when a name is not a valid XML name, a
    ///   value holds a character XML 1.0 does not allow (such as NUL), the
    ///   ``operationNamespace`` is the XML or the `xmlns` namespace (which no element can be in),
    ///   or the binding is encoded.
    public func data() throws(ResourceError) -> Data {
        try binding.check()
        var writer = XMLWriter()
        try writer.start("soap:Envelope", prefixed: true, attributes: [("xmlns:soap", version.envelopeNamespace)])
        if !headers.isEmpty {
            try writer.start("soap:Header", prefixed: true)
            for block in headers {
                writer.append(markup: try block.markup(version: version, envelopePrefix: "soap"))
            }
            writer.end()
        }
        try writer.start("soap:Body", prefixed: true)
        if let encodedBody {
            return Data(writer.finish(inserting: encodedBody))
        }
        try writeParameters(to: &writer)
        writer.end()
        writer.end()
        return Data(writer.text.utf8)
    }

    /// Writes ``parameters`` into the `Body` as the binding says.
    private func writeParameters(to writer: inout XMLWriter) throws(ResourceError) {
        try Self.checkElementNamespace(operationNamespace, of: "the operation")
        switch (binding.style, binding.isWrapped) {
        case (.document, true):
            try writer.start(operation, attributes: operationNamespace.map { [("xmlns", $0)] } ?? [])
            try Self.write(parameters, to: &writer)
            writer.end()
        case (.document, false):
            // Each part's element declares the namespace itself.
            for entry in parameters.entries {
                try writer.start(entry.name, attributes: operationNamespace.map { [("xmlns", $0)] } ?? [])
                try Self.write(SOAPParameters([entry]), to: &writer, openFirst: false)
                writer.end()
            }
        case (.rpc, _):
            // An empty namespace is no namespace, as for a typed body: `xmlns:m=""` is not XML.
            if let operationNamespace, !operationNamespace.isEmpty {
                try writer.start("m:" + operation, prefixed: true, attributes: [("xmlns:m", operationNamespace)])
                try XMLWriter.checkName(operation, allowingPrefix: false)
            } else {
                try writer.start(operation)
            }
            try Self.write(parameters, to: &writer)
            writer.end()
        }
    }

    /// Refuses the namespaces Namespaces in XML binds itself as the namespace of an element
    /// written from ``SOAPParameters`` (declared `xmlns="…"` or `xmlns:m="…"`): no element can be
    /// in either, and a declaration of either makes a document no parser reads.
    static func checkElementNamespace(_ namespace: String?, of what: String) throws(ResourceError) {
        guard let namespace, namespace == XMLNamespaceResolver.xmlNamespace || namespace == XMLNamespaceResolver.xmlnsNamespace else {
            return
        }
        throw .invalidRequest(reason: "\(what)'s namespace is the XML or the xmlns namespace, which no element can be in")
    }

    /// Writes parameters as elements, with an explicit stack rather than recursion. With
    /// `openFirst` `false`, the single entry's element is open already: only its content is
    /// written.
    static func write(_ parameters: SOAPParameters, to writer: inout XMLWriter, openFirst: Bool = true) throws(ResourceError) {
        var stack: [(entries: [SOAPParameters.Entry], next: Int)] = []
        if openFirst {
            stack.append((parameters.entries, 0))
        } else if let entry = parameters.entries.first {
            switch entry.value {
            case .text(let text):
                try writer.characters(text)
                return
            case .elements(let children):
                stack.append((children.entries, 0))
            }
        }
        while let top = stack.last {
            guard top.next < top.entries.count else {
                stack.removeLast()
                // The element the finished entries were in (none for the outermost level).
                if !stack.isEmpty { writer.end() }
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
    }

    /// The markup of a typed body's content in the `Body`.
    static func bodyMarkup<Body: Encodable>(
        _ body: Body,
        operation: XMLQualifiedName,
        binding: SOAPBinding,
        encoder: XMLTreeEncoder
    ) throws(ResourceError) -> [UInt8] {
        do {
            switch (binding.style, binding.isWrapped) {
            case (.document, true):
                return try encoder.markup(of: body, as: operation)
            case (.document, false):
                // The value's own element is dropped: its children are the parts.
                try XMLEncodingNode.checkPreferred(encoder.namespacePrefixes)
                let sink = XMLEncodingSink(options: encoder, mode: .tree)
                try encoder.encode(body, as: operation, into: sink)
                for node in sink.document.children where node.raw == nil {
                    try checkBare(node)
                }
                let parts = sink.document.children.flatMap { $0.raw == nil ? $0.children : [$0] }
                return try XMLEncodingNode.serialize(parts, prefixes: encoder.namespacePrefixes, declaringPreferred: true)
            case (.rpc, _):
                return try encoder.markup(of: body, as: operation, unqualifiedParts: true)
            }
        } catch let error as ResourceError {
            throw error
        } catch {
            throw encodingFailure(error, of: "the body")
        }
    }

    /// Refuses a bare body whose own element, which is not written, holds more than the parts'
    /// elements: an attribute (other than `xsi:type`, which only named the body's type) or text.
    private static func checkBare(_ node: XMLEncodingNode) throws(ResourceError) {
        let attributes = node.attributes.filter { $0.name.namespaceURI != XMLEncodingNode.schemaInstanceNamespace }
        if let attribute = attributes.first {
            throw .invalidRequest(
                reason: "a document/literal bare body is written as its properties' elements: its attribute "
                    + "\(attribute.name.localName) has no place in the Body")
        }
        if !node.escapedText.isEmpty || node.isNil {
            throw .invalidRequest(
                reason: "a document/literal bare body is written as its properties' elements: a body that is text or nil has none")
        }
    }

    /// ``ResourceError/invalidRequest(reason:)`` for an encoder's error: its coding path, with
    /// every key that may come from the body (a dictionary's) as `*`, and its description, never
    /// the value.
    static func encodingFailure(_ error: any Error, of what: String) -> ResourceError {
        guard case let EncodingError.invalidValue(_, context) = error else {
            return .invalidRequest(reason: "\(what) could not be encoded: \(type(of: error))")
        }
        let path = context.codingPath.map { ResourceError.ParsingFailure.isSafeToQuote($0) ? $0.stringValue : "*" }
            .joined(separator: ".")
        return .invalidRequest(reason: "\(what) could not be encoded at \(path.isEmpty ? "its root" : path): \(context.debugDescription)")
    }
}

// MARK: - Reading responses

extension SOAPEnvelope {
    /// The children of a response envelope's `Header`, in order; none when it has no `Header`.
    static func headerBlocks(of document: XMLTree) -> [XMLTree.Element] {
        let envelope = document.root
        guard let namespace = envelope.namespaceURI, let header = envelope.child(named: "Header", namespaceURI: namespace) else {
            return []
        }
        return header.children
    }

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
        // Most error pages are not SOAP: skip parsing unless the bytes could hold a Fault. In an
        // encoding that does not keep ASCII as it is (UTF-16, after its byte order mark), "Fault"
        // is other bytes: such a body is parsed.
        let keepsASCII = data.count >= 2 && data[data.startIndex] != 0 && data[data.startIndex + 1] != 0
            && data[data.startIndex] < 0xFE
        guard !keepsASCII || data.range(of: Data("Fault".utf8)) != nil,
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
