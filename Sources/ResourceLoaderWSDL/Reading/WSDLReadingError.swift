import ResourceLoader

/// Why a main document could not be read at all. Problems in the documents it imports, and
/// constructs that cannot be generated, are ``WSDLDiagnostic``s instead.
public enum WSDLReadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(file: String, reason: String)
    /// The file is not well-formed XML, or breaks a parsing limit.
    case malformed(file: String, XMLParsingError)
    /// The root element is not a WSDL 1.1 `definitions` (a WSDL 2.0 `description`, say).
    case notWSDL11(file: String, root: QualifiedName)

    /// A sentence that names the file and the reason.
    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(file) cannot be read: \(reason)"
        case .malformed(let file, let error): "\(file) is not well-formed XML: \(error)"
        case .notWSDL11(let file, let root):
            "\(file) is not a WSDL 1.1 document: its root is \(root), not {\(WellKnownSchemas.wsdlNamespace)}definitions"
        }
    }
}
