/// What ``WSDLGenerator`` made from a document: the Swift files, and every diagnostic (the
/// reader's, then the generator's).
public struct WSDLGeneratorOutput: Sendable, Hashable {
    /// The files, in the order of ``WSDLGenerator/fileNames``.
    public var files: [GeneratedFile]
    /// The reader's diagnostics, then the generator's, each naming what it left out or changed.
    public var diagnostics: [WSDLDiagnostic]

    /// Makes an output.
    public init(files: [GeneratedFile], diagnostics: [WSDLDiagnostic]) {
        self.files = files
        self.diagnostics = diagnostics
    }

    /// The file named `name`, if there is one.
    public func file(named name: String) -> GeneratedFile? { files.first { $0.name == name } }
}
