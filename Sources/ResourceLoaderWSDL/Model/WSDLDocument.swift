import ResourceLoader

/// Everything read from a WSDL 1.1 document, the WSDL documents it imports and the schemas they
/// hold or import: an immutable model to generate code from, with the diagnostics found on the
/// way.
///
/// Every list is in document order (files in the order they were reached), so reading the same
/// documents always gives an equal model.
public struct WSDLDocument: Sendable, Hashable {
    /// The main document's `targetNamespace`.
    public var targetNamespace: String?
    /// The main document's `name` attribute, if it has one.
    public var name: String?
    /// The main document's `wsdl:documentation`.
    public var documentation: String?
    /// The services, with their ports.
    public var services: [WSDLService]
    /// The SOAP 1.1 and 1.2 bindings, with their operations resolved against port types and
    /// messages. Bindings of other kinds (HTTP) are left out with a diagnostic.
    public var bindings: [WSDLBinding]
    /// The port types: the abstract operations.
    public var portTypes: [WSDLPortType]
    /// The messages.
    public var messages: [WSDLMessage]
    /// The schemas of `wsdl:types` and everything they import or include.
    public var schemas: XSDSchemaSet
    /// The files read, main document first, as the reader named them.
    public var files: [String]
    /// What could not be read as written, in the order found.
    public var diagnostics: [WSDLDiagnostic]

    /// Makes a document model.
    public init(
        targetNamespace: String?, name: String?, documentation: String?, services: [WSDLService],
        bindings: [WSDLBinding], portTypes: [WSDLPortType], messages: [WSDLMessage], schemas: XSDSchemaSet,
        files: [String], diagnostics: [WSDLDiagnostic]
    ) {
        self.targetNamespace = targetNamespace
        self.name = name
        self.documentation = documentation
        self.services = services
        self.bindings = bindings
        self.portTypes = portTypes
        self.messages = messages
        self.schemas = schemas
        self.files = files
        self.diagnostics = diagnostics
    }

    /// The binding named `name`, if there is one.
    public func binding(named name: QualifiedName) -> WSDLBinding? { bindings.first { $0.name == name } }

    /// The message named `name`, if there is one.
    public func message(named name: QualifiedName) -> WSDLMessage? { messages.first { $0.name == name } }

    /// The port type named `name`, if there is one.
    public func portType(named name: QualifiedName) -> WSDLPortType? { portTypes.first { $0.name == name } }
}
