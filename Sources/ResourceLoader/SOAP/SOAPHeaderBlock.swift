import Foundation

/// A block of a SOAP request's `Header`: an element, with the `mustUnderstand` and `role`
/// (SOAP 1.2) or `actor` (SOAP 1.1) attributes SOAP defines.
///
/// Make one from a typed value, from ``SOAPParameters``, or from an element you have:
///
/// ```swift
/// struct SessionHeader: Encodable { let sessionId: String }
///
/// let session = try SOAPHeaderBlock(
///     SessionHeader(sessionId: token),
///     as: XMLQualifiedName("SessionHeader", namespaceURI: "urn:partner.soap.sforce.com"),
///     mustUnderstand: true)
/// ```
///
/// The block is encoded when it is made, so it can be kept and sent many times.
public struct SOAPHeaderBlock: Sendable, Hashable {
    /// The block's element, with its content.
    public var element: XMLTree.Element
    /// Whether the service must process the block or fail with a `MustUnderstand` Fault
    /// (`mustUnderstand="1"` in SOAP 1.1, `"true"` in 1.2). Default: `false`, not written. When
    /// `true`, it replaces a `mustUnderstand` attribute the element carries.
    public var mustUnderstand: Bool
    /// The node the block is meant for: the `role` attribute in SOAP 1.2, `actor` in SOAP 1.1.
    /// Default: `nil`, not written (the ultimate receiver). When set, it replaces the attribute of
    /// that name the element carries.
    public var role: String?

    /// Creates a block from an element, written into the `Header` as
    /// ``XMLTree/Element/encode(to:)`` describes (its text before its children).
    public init(element: XMLTree.Element, mustUnderstand: Bool = false, role: String? = nil) {
        self.element = element
        self.mustUnderstand = mustUnderstand
        self.role = role
    }

    /// Creates a block by encoding `value` as the element `name`.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when the value cannot be encoded
    ///   (see ``XMLTreeEncoder``); the reason names the coding path, never the value.
    public init<Value: Encodable>(
        _ value: Value,
        as name: XMLQualifiedName,
        mustUnderstand: Bool = false,
        role: String? = nil,
        encoder: XMLTreeEncoder = XMLTreeEncoder()
    ) throws(ResourceError) {
        let data: Data
        do {
            data = try encoder.encode(value, as: name)
        } catch {
            throw SOAPEnvelope.encodingFailure(error, of: "the header block <\(name.localName)>")
        }
        self.init(element: try Self.parse(data), mustUnderstand: mustUnderstand, role: role)
    }

    /// Creates a block named `name` whose children are `parameters`, in `namespace` (declared as
    /// the block's default namespace, as ``SOAPEnvelope`` writes an operation).
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when a name is not an XML name, a
    ///   value holds a character XML 1.0 does not allow, or `namespace` is the XML or the `xmlns`
    ///   namespace, which no element can be in.
    public init(
        name: String,
        namespace: String?,
        parameters: SOAPParameters,
        mustUnderstand: Bool = false,
        role: String? = nil
    ) throws(ResourceError) {
        try SOAPEnvelope.checkElementNamespace(namespace, of: "the header block")
        var writer = XMLWriter()
        try writer.start(name, attributes: namespace.map { [("xmlns", $0)] } ?? [])
        try SOAPEnvelope.write(parameters, to: &writer)
        writer.end()
        self.init(element: try Self.parse(Data(writer.text.utf8)), mustUnderstand: mustUnderstand, role: role)
    }

    private static func parse(_ data: Data) throws(ResourceError) -> XMLTree.Element {
        do {
            return try XMLTree(data: data).root
        } catch {
            throw .invalidRequest(reason: "a SOAP header block could not be read back: \(error)")
        }
    }

    /// The block's markup inside an envelope of `version` whose prefix `envelopePrefix` is bound
    /// to the envelope namespace where the block goes (`nil` when none is).
    func markup(version: SOAPVersion, envelopePrefix: String?) throws(ResourceError) -> String {
        var attributes: [(name: String, value: String)] = []
        var declarations: [(prefix: String, uri: String)] = []
        // The envelope's own prefix, unless the block binds it to something else.
        var prefix = envelopePrefix ?? "soapenv"
        if envelopePrefix == nil || element.namespaceURI(forPrefix: prefix) != nil {
            if envelopePrefix != nil { prefix = "soapenv" }
            var counter = 0
            while element.namespaceURI(forPrefix: prefix) != nil {
                counter += 1
                prefix = "soapenv\(counter)"
            }
        }
        if prefix != envelopePrefix, mustUnderstand || role != nil {
            declarations.append((prefix, version.envelopeNamespace))
        }
        if mustUnderstand {
            attributes.append((prefix + ":mustUnderstand", version == .v1_1 ? "1" : "true"))
        }
        if let role {
            attributes.append((prefix + (version == .v1_1 ? ":actor" : ":role"), role))
        }
        // The block's own attributes of the names written here give way, so that none appears twice.
        let roleName = version == .v1_1 ? "actor" : "role"
        let replaced = { (attribute: XMLTree.Attribute) -> Bool in
            attribute.namespaceURI == version.envelopeNamespace
                && ((mustUnderstand && attribute.name == "mustUnderstand") || (role != nil && attribute.name == roleName))
        }
        do {
            return try XMLEncodingNode.rawMarkup(
                element, extraDeclarations: declarations, extraAttributes: attributes, omittingRootAttributes: replaced)
        } catch {
            throw .invalidRequest(reason: "a SOAP header block's role holds a character XML 1.0 does not allow")
        }
    }
}
