import Foundation
import ResourceLoader

/// Reads a WSDL 1.1 document, with the WSDL documents and schemas it imports, into a
/// ``WSDLDocument``.
///
/// ```swift
/// let document = try WSDLReader().read(contentsOf: URL(fileURLWithPath: "OrderService.wsdl"))
/// for binding in document.bindings {
///     for operation in binding.operations {
///         print(binding.soapVersion, operation.name, operation.style)
///     }
/// }
/// ```
///
/// Reading is local: files come from the file system or from memory, and a remote
/// `schemaLocation` is read only from the local file ``WSDLReaderOptions/schemaLocations`` maps it
/// to. The well-known schemas (``WellKnownSchemas``) are built in. Each file is read once, so
/// imports and includes may form cycles; a schema without a `targetNamespace` that is included
/// takes its includer's namespace (a chameleon include).
///
/// Only a main document that cannot be read, is not well-formed or is not WSDL 1.1 throws.
/// Everything else that cannot be read as written becomes a ``WSDLDiagnostic`` in
/// ``WSDLDocument/diagnostics``, and reading goes on with the rest. A type derived from itself,
/// directly or through other types, is read without its derivation, so that a walk along a
/// type's bases always ends.
public struct WSDLReader: Sendable {
    /// The options: location map and limits.
    public var options: WSDLReaderOptions

    /// Makes a reader.
    public init(options: WSDLReaderOptions = WSDLReaderOptions()) {
        self.options = options
    }

    /// Reads the WSDL document at a file URL, and the local files it imports and includes.
    ///
    /// Diagnostics name files by their paths, as resolved from `url`'s path.
    /// - Throws: ``WSDLReadingError`` when the main document cannot be read, is not well-formed
    ///   or is not WSDL 1.1.
    public func read(contentsOf url: URL) throws(WSDLReadingError) -> WSDLDocument {
        try ReadingSession(source: .fileSystem, options: options, mainPath: DocumentSource.normalized(url.path)).run()
    }

    /// Reads a WSDL document from files in memory.
    ///
    /// - Parameters:
    ///   - path: The main document's path among `files`.
    ///   - files: The documents by path, such as `"service.wsdl"` and `"types/common.xsd"`;
    ///     `schemaLocation`s and `location`s are resolved against the path of the file they are in.
    /// - Throws: ``WSDLReadingError`` when the main document is not in `files`, is not
    ///   well-formed or is not WSDL 1.1.
    public func read(path: String, in files: [String: Data]) throws(WSDLReadingError) -> WSDLDocument {
        var normalizedFiles: [String: Data] = [:]
        for (key, value) in files { normalizedFiles[DocumentSource.normalized(key)] = value }
        return try ReadingSession(source: .memory(normalizedFiles), options: options, mainPath: DocumentSource.normalized(path)).run()
    }
}
