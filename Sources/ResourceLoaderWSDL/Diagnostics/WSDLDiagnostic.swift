/// Something the reader found in a WSDL or schema that generated code cannot carry as written:
/// what it is, how serious, where, and a sentence that says so.
///
/// Reading never stops at a diagnostic: the construct is left out (or read as far as it can be)
/// and the rest of the documents are read. An ``Severity-swift.enum/error`` means the construct
/// it names cannot be generated; a ``Severity-swift.enum/warning`` means it was read, leniently or
/// in part, and what is generated may differ from what the author meant.
///
/// ```swift
/// let document = try WSDLReader().read(contentsOf: wsdlURL)
/// for diagnostic in document.diagnostics where diagnostic.severity == .error {
///     print(diagnostic)   // error: OrderService.wsdl:/wsdl:definitions/…: rpc/encoded …
/// }
/// ```
public struct WSDLDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// The construct was read leniently or in part.
        case warning
        /// The construct cannot be generated; the rest can.
        case error

        /// Warnings before errors.
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .warning && rhs == .error }
    }

    /// The kind of construct a diagnostic is about.
    public enum Construct: String, Sendable, Hashable, CaseIterable {
        /// A binding whose operations use `use="encoded"` (rpc/encoded or document/encoded):
        /// one diagnostic per binding.
        case encodedUse
        /// A type derived from `soapenc:Array`, reached from an operation of a literal binding.
        case soapEncodedArray
        /// A `schemaLocation` or `location` that is a remote URL the configuration maps to no
        /// local file. Nothing is ever fetched.
        case remoteLocation
        /// A local file named by a `schemaLocation` or `location` that cannot be read.
        case missingFile
        /// A file that is not well-formed XML, or whose root is not what the reference expects.
        case malformedDocument
        /// A name that refers to no component of the documents read nor of the well-known schemas.
        case unresolvedReference
        /// A prefix in a qualified name that no namespace declaration binds.
        case undeclaredPrefix
        /// A binding that is neither SOAP 1.1 nor SOAP 1.2 (such as an HTTP binding): left out.
        case nonSOAPBinding
        /// A binding operation with MIME parts (`mime:multipartRelated` and friends): left out.
        case mimeContent
        /// A solicit-response or notification operation (output first, or output alone): left out.
        case outboundOperation
        /// A binding operation that its port type does not declare, or a message part that its
        /// message does not have.
        case inconsistentBinding
        /// An `xsd:import` or `xsd:include` directly in `wsdl:types`, outside any `xsd:schema`:
        /// read as if it were wrapped in one.
        case importOutsideSchema
        /// `xsd:redefine` or `xsd:override`: the components it changes are left as first declared.
        case schemaRedefinition
        /// A `soap:headerfault`: the header is read, its fault is left out.
        case headerFault
        /// A message part written with `type` in a document-style operation, or with `element` in
        /// an rpc-style one: read, but outside WS-I Basic Profile.
        case partStyleMismatch
        /// A component declared twice with the same name: the first declaration is kept.
        case duplicateDefinition
        /// A required attribute that is missing, or an attribute whose value is not valid.
        case invalidAttribute
        /// `xsd:any` or `xsd:anyAttribute`: generated code neither writes nor reads the content.
        case wildcardContent
        /// A complex type with `mixed="true"` (or `"1"`): the text between its elements is not kept.
        case mixedContent
        /// An abstract type, a type with derived types, or a substitution group: generated as the
        /// declared type only, without `xsi:type` or substitution.
        case polymorphism
        /// A content model generated code cannot carry: a repeated sequence, a choice branch
        /// that is not a single element, or an attribute of a built-in schema it does not hold.
        /// Left out of the generated type.
        case unsupportedContent
        /// A type that holds itself through single elements: the element is generated as an array
        /// of at most one item, which reads and writes the same XML.
        case recursiveContent
        /// An operation that cannot be generated as a resource (one-way, or a response that is not
        /// one element): left out.
        case unsupportedOperation
        /// An operation name in the configuration's `filter` that no operation has.
        case unmatchedFilter
    }

    /// How serious the diagnostic is.
    public var severity: Severity
    /// What kind of construct it is about.
    public var construct: Construct
    /// Where the construct is.
    public var location: WSDLSourceLocation
    /// A sentence for a person: what the construct is and what the reader did with it.
    public var message: String

    /// Makes a diagnostic.
    public init(severity: Severity, construct: Construct, location: WSDLSourceLocation, message: String) {
        self.severity = severity
        self.construct = construct
        self.location = location
        self.message = message
    }

    /// `severity: file:path: message`, as a compiler writes it, on one line: a line break or
    /// another control character of the location or message (from the WSDL, where a name may
    /// hold `&#10;`) is written as a space, so that no diagnostic reads as more lines, such as a
    /// forged `error:` or `warning:` line of a build log.
    public var description: String { SwiftNaming.commentText("\(severity.rawValue): \(location): \(message)") }
}
