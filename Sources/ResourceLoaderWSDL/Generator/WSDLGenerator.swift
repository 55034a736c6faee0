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
    ///
    /// The models of a large service are spread over the `Types` files, in name order and in
    /// parts of about equal size, so that the compiler can work on them in parallel; those of a
    /// small one (under ``splitThreshold`` bytes of Swift) are all in `Types.swift`, and the
    /// other `Types` files hold only their imports.
    public static let fileNames = ["Types.swift", "Types2.swift", "Types3.swift", "Types4.swift", "Operations.swift"]

    /// The size of the models' source, in bytes, from which they are spread over several files.
    public static let splitThreshold = 65_536

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
