/// Generates Swift source from a read ``WSDLDocument``: one `SOAPResourceType` per operation,
/// and `Codable`, `Sendable`, `Hashable` models for the schema types the operations use.
///
/// ```swift
/// let configuration = try WSDLGeneratorConfiguration(json: Data(contentsOf: configURL))
/// let document = try WSDLReader(options: configuration.readerOptions).read(contentsOf: wsdlURL)
/// let output = WSDLGenerator(configuration: configuration).generate(document)
/// for file in output.files {
///     try Data(file.contents.utf8).write(to: outputFolder.appendingPathComponent(file.name))
/// }
/// ```
///
/// The output is a function of the document and the configuration: the same input always gives
/// the same bytes, in files with fixed names (``fileNames``). What cannot be generated gets one
/// ``WSDLDiagnostic`` each in ``WSDLGeneratorOutput/diagnostics``, and generation goes on with
/// the rest.
public struct WSDLGenerator: Sendable {
    /// The names of the files ``generate(_:)`` writes, whatever the document: the models, then
    /// the resources.
    public static let fileNames = ["Types.swift", "Operations.swift"]

    /// What to generate and how to name it.
    public var configuration: WSDLGeneratorConfiguration

    /// Makes a generator.
    public init(configuration: WSDLGeneratorConfiguration = WSDLGeneratorConfiguration()) {
        self.configuration = configuration
    }

    /// Generates the files for `document`.
    public func generate(_ document: WSDLDocument) -> WSDLGeneratorOutput {
        var session = GenerationSession(document: document, configuration: configuration)
        return session.run()
    }
}
