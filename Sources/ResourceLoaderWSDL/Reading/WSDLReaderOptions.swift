import ResourceLoader

/// What a ``WSDLReader`` may read besides the documents it is given, and the limits it applies.
public struct WSDLReaderOptions: Sendable, Hashable {
    /// Local files for remote `schemaLocation`s and `wsdl:import` `location`s, by URL as written:
    /// `["https://example.com/types.xsd": "schemas/types.xsd"]`.
    ///
    /// A relative path is resolved against the main document's folder. A remote location that
    /// this map does not name is refused with a ``WSDLDiagnostic/Construct/remoteLocation``
    /// diagnostic that names the URL: nothing is ever fetched.
    public var schemaLocations: [String: String]
    /// The limits for parsing each document.
    public var parsingOptions: XMLParsingOptions
    /// The most files read for one document, the main document included; more are refused with
    /// a diagnostic. Default: 1,000.
    public var maximumFileCount: Int

    /// Makes options.
    public init(schemaLocations: [String: String] = [:], parsingOptions: XMLParsingOptions = XMLParsingOptions(), maximumFileCount: Int = 1000) {
        self.schemaLocations = schemaLocations
        self.parsingOptions = parsingOptions
        self.maximumFileCount = maximumFileCount
    }
}
