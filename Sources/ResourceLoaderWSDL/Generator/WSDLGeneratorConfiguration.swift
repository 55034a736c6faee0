import Foundation

/// What ``WSDLGenerator`` generates and how it names it: read from a JSON file, such as
/// `resourceloader-wsdl.json` beside the WSDL.
///
/// ```json
/// {
///   "accessModifier": "public",
///   "typeNamePrefix": "Shop",
///   "filter": ["GetOrder", "PlaceOrder"],
///   "nameOverrides": { "{urn:example:shop}order_line": "OrderLine", "getOrder": "FetchOrder" },
///   "schemaLocations": { "https://example.com/common.xsd": "schemas/common.xsd" },
///   "additionalImports": ["Shared"],
///   "document": "OrderService.wsdl"
/// }
/// ```
///
/// Every key may be left out.
public struct WSDLGeneratorConfiguration: Codable, Sendable, Hashable {
    /// The access level of the generated declarations.
    public enum AccessModifier: String, Codable, Sendable, Hashable, CaseIterable {
        /// `public`: for a library that offers the generated resources.
        case `public`
        /// `package`: visible to the other modules of the package.
        case package
        /// `internal` (written as no modifier): for the module that calls the service.
        case `internal`
    }

    /// The access level of the generated declarations. Default: ``AccessModifier/internal``.
    public var accessModifier: AccessModifier?
    /// A prefix for every generated type name, such as `Shop` for `ShopOrder`. Default: none.
    public var typeNamePrefix: String?
    /// The names of the operations to generate, as the WSDL spells them. Default: `nil`, every
    /// operation. A name that matches no operation gets a diagnostic.
    public var filter: [String]?
    /// Swift names for WSDL and schema names: the key is an operation's name, or a type's or
    /// element's name in James Clark's notation (`{urn:example}order_line`) or as its local name;
    /// the value is the Swift type name to use. The prefix is not added to an overridden name.
    public var nameOverrides: [String: String]?
    /// Local files for remote `schemaLocation`s and `wsdl:import` `location`s, by URL as written;
    /// relative paths are resolved against the WSDL's folder. See
    /// ``WSDLReaderOptions/schemaLocations``.
    public var schemaLocations: [String: String]?
    /// Modules the generated files import besides `Foundation` and `ResourceLoader`.
    public var additionalImports: [String]?
    /// The WSDL the build and command plugins generate from, relative to the configuration's
    /// folder, when the target holds several `.wsdl` files (a WSDL and the WSDLs it imports).
    /// Default: the target's one `.wsdl` file. `resourceloader-wsdl generate` and
    /// ``WSDLGenerator`` are given their document and do not read it.
    public var document: String?

    /// Makes a configuration.
    public init(
        accessModifier: AccessModifier? = nil, typeNamePrefix: String? = nil, filter: [String]? = nil,
        nameOverrides: [String: String]? = nil, schemaLocations: [String: String]? = nil, additionalImports: [String]? = nil,
        document: String? = nil
    ) {
        self.accessModifier = accessModifier
        self.typeNamePrefix = typeNamePrefix
        self.filter = filter
        self.nameOverrides = nameOverrides
        self.schemaLocations = schemaLocations
        self.additionalImports = additionalImports
        self.document = document
    }

    /// Reads a configuration from JSON.
    ///
    /// - Throws: `DecodingError` when the JSON is not a configuration, naming the key at fault.
    public init(json: Data) throws {
        self = try JSONDecoder().decode(Self.self, from: json)
    }

    /// The reader options the configuration implies: its schema-location map.
    public var readerOptions: WSDLReaderOptions { WSDLReaderOptions(schemaLocations: schemaLocations ?? [:]) }
}
