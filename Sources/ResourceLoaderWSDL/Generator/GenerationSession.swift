import ResourceLoader

/// One run of ``WSDLGenerator``: the names handed out, the models made so far, and the
/// diagnostics found.
struct GenerationSession {
    /// Names the generated code uses from Swift, Foundation and ResourceLoader, and the
    /// associated types a resource has (`Model`, `Root`, `ValidatedResponse`), which its
    /// members name: a schema type with one of these names gets a suffix instead of shadowing it.
    static let reservedTypeNames: Set<String> = [
        "Any", "Array", "Bool", "Character", "Codable", "CodingKey", "CodingKeys", "Data", "Date", "Decimal",
        "Decodable", "Decoder", "Dictionary", "Double", "Encodable", "Encoder", "Equatable", "Error", "Float",
        "Foundation", "Hashable", "Hasher", "HTTPMethod", "Int", "Int8", "Int16", "Int32", "Int64", "Model", "Never",
        "ObjectIdentifier", "Optional", "Protocol", "RawRepresentable", "RequestBody", "ResourceError", "ResourceLoader",
        "Result", "Root", "Self", "Sendable", "Set", "SOAPBinding", "SOAPHeaderBlock", "SOAPParameters", "SOAPResourceType",
        "SOAPResponseHeaders", "SOAPVersion", "String", "Substring", "Type", "UInt", "UInt8", "UInt16", "UInt32",
        "UInt64", "URL", "URLRequest", "UUID", "ValidatedResponse", "Void", "XMLChoice", "XMLDate", "XMLDateTime",
        "XMLQualifiedName", "Swift", "XMLSchemaType", "XMLTime", "XMLTree", "XMLTreeDecoder", "XMLTreeEncoder",
        "XMLTypeSchema",
    ]

    /// Names a model's fields cannot take: members every model has (`hashValue` is
    /// `Hashable`'s), and `self`, which a property would shadow in every `self.…` of the type.
    static let reservedMemberNames: Set<String> = ["init", "xmlSchema", "CodingKeys", "hashValue", "self"]

    let document: WSDLDocument
    let configuration: WSDLGeneratorConfiguration
    var typeNames = NameRegistry(reserved: reservedTypeNames)
    var diagnostics: [WSDLDiagnostic] = []
    /// The models, in the order they were made.
    var models: [GeneratedModel] = []
    /// Each class's superclass, by name: made from ``models`` once they are all generated.
    var superclasses: [String: String] = [:]
    /// The Swift names of the named complex types generated so far.
    var complexTypeNames: [QualifiedName: String] = [:]
    /// The Swift names of the enumerations of named simple types.
    var enumerationNames: [QualifiedName: String] = [:]
    /// The Swift names of the global elements with anonymous types.
    var elementTypeNames: [QualifiedName: String] = [:]
    /// The anonymous complex types whose structs are being made, innermost last, with the
    /// namespace their children are qualified by.
    var anonymousTypesInProgress: [(complex: XSDComplexType, namespace: String?, name: String)] = []
    /// The structs made for anonymous complex types so far: at most
    /// ``maximumAnonymousTypes``.
    var anonymousTypeCount = 0
    /// The rendered resources, in order.
    var resources: [String] = []
    /// The named types some other type derives from.
    let baseTypes: Set<QualifiedName>
    /// The named types already diagnosed as polymorphic.
    var polymorphismReported: Set<QualifiedName> = []
    /// The named complex types that extend each named complex type (`complexContent`
    /// extension), in name order: the types generated as subclasses of its class.
    let derivedTypes: [QualifiedName: [QualifiedName]]
    /// The classes generated for derived types, in the order they were made: the types an
    /// `xsi:type` may name, which the generated resources' decoder registers.
    var derivedClasses: [String] = []
    /// The classes whose models are being made or wait for their base's: a subclass of one of
    /// them waits in ``waitingSubclasses``.
    var unfinishedClasses: Set<String> = []
    /// The subclasses that wait for their superclass's model, by the superclass's name: made
    /// once it is, with all of its fields.
    var waitingSubclasses: [String: [(complex: XSDComplexType, typeName: QualifiedName, swiftName: String)]] = [:]
    /// The name of the enum that holds the decoder knowing ``derivedClasses``, once claimed.
    var derivedTypesName: String?
    /// The global elements that name each element as their substitution group head, in name
    /// order.
    let substitutionMembers: [QualifiedName: [XSDElement]]
    /// The Swift names of the enums generated for substitution groups, by their heads.
    var substitutionGroupNames: [QualifiedName: String] = [:]
    /// The type names ``claimTypeName(for:hint:)`` put the configuration's prefix before, each
    /// without it: what the names of the anonymous types they hold are made from, so that those
    /// get the prefix once.
    var unprefixedTypeNames: [String: String] = [:]

    init(document: WSDLDocument, configuration: WSDLGeneratorConfiguration) {
        // A type derived from itself is an error of the schema. The reader leaves out the
        // derivations of such types; a document made by hand gets the same here, so that nothing
        // follows a cycle.
        var document = document
        let found = DerivationCycles.remove(from: &document.schemas.types)
        self.document = document
        self.configuration = configuration
        diagnostics = found
        var bases: Set<QualifiedName> = []
        var derived: [QualifiedName: [QualifiedName]] = [:]
        for (name, type) in document.schemas.types {
            guard case .complex(let complex) = type, let derivation = complex.derivation else { continue }
            bases.insert(derivation.base)
            if derivation.method == .extension, derivation.content == .complex,
                case .complex = document.schemas.type(named: derivation.base)
            {
                derived[derivation.base, default: []].append(name)
            }
        }
        baseTypes = bases
        derivedTypes = derived.mapValues { $0.sorted() }
        var members: [QualifiedName: [XSDElement]] = [:]
        for element in document.schemas.elements.values {
            guard let head = element.substitutionGroup else { continue }
            members[head, default: []].append(element)
        }
        substitutionMembers = members.mapValues { $0.sorted { $0.name < $1.name } }
    }

    /// The access modifier and a space, or nothing for `internal`.
    var access: String {
        switch configuration.accessModifier ?? .internal {
        case .public: "public "
        case .package: "package "
        case .internal: ""
        }
    }

    /// Generates the files.
    mutating func run() -> WSDLGeneratorOutput {
        generateOperations()
        breakRecursion()
        let header = fileHeader()
        superclasses = Dictionary(
            models.compactMap { model -> (String, String)? in
                guard case .structure(let structure) = model, let superclass = structure.inheritance?.superclass else { return nil }
                return (structure.name, superclass)
            },
            uniquingKeysWith: { first, _ in first })
        // In name order (names are unique), compared once each rather than taken out of the
        // models at every comparison.
        let names = models.map(\.name)
        var declarations = models.indices.sorted { names[$0] < names[$1] }.map { render(models[$0]) }
        if let derivedTypesName { declarations.append(renderDerivedTypes(derivedTypesName)) }
        let typeFiles = WSDLGenerator.fileNames.dropLast()
        let parts = Self.split(declarations, into: typeFiles.count, threshold: WSDLGenerator.splitThreshold)
        var files = zip(typeFiles, parts).map { GeneratedFile(name: $0.0, contents: header + $0.1.joined(separator: "\n")) }
        files.append(GeneratedFile(name: WSDLGenerator.fileNames[WSDLGenerator.fileNames.count - 1], contents: header + resources.joined(separator: "\n")))
        return WSDLGeneratorOutput(
            files: files,
            diagnostics: document.diagnostics + diagnostics)
    }

    /// `declarations` in `count` consecutive parts of about equal size: all in the first when
    /// they come to less than `threshold` bytes.
    static func split(_ declarations: [String], into count: Int, threshold: Int) -> [[String]] {
        var parts = Array(repeating: [String](), count: count)
        let total = declarations.reduce(0) { $0 + $1.utf8.count }
        guard total >= threshold, count > 1 else {
            parts[0] = declarations
            return parts
        }
        var written = 0
        var part = 0
        for declaration in declarations {
            // Move on once this part has its share of the whole.
            while part < count - 1, written >= total * (part + 1) / count { part += 1 }
            parts[part].append(declaration)
            written += declaration.utf8.count
        }
        return parts
    }

    /// The comment and imports every file starts with.
    func fileHeader() -> String {
        let source = document.files.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "a WSDL"
        var text = "// Generated by resourceloader-wsdl from \(SwiftNaming.commentText(source)). Do not edit: generate again.\n\n"
        text += "import Foundation\nimport ResourceLoader\n"
        for module in (configuration.additionalImports ?? []) { text += "import \(module)\n" }
        return text + "\n"
    }

    /// Records a diagnostic of the generator.
    /// A construct reached from several types (through a base type or a group) is diagnosed once.
    mutating func diagnose(_ construct: WSDLDiagnostic.Construct, at location: WSDLSourceLocation, _ message: String, severity: WSDLDiagnostic.Severity = .warning) {
        guard !diagnostics.contains(where: { $0.construct == construct && $0.location == location && $0.message == message }) else { return }
        diagnostics.append(WSDLDiagnostic(severity: severity, construct: construct, location: location, message: message))
    }

    /// Claims a type name for a schema component: its override, or the prefix and the name in
    /// upper camel case.
    mutating func claimTypeName(for name: QualifiedName?, hint: String) -> String {
        if let name, let override = configuration.nameOverrides?[name.description] ?? configuration.nameOverrides?[name.name] {
            return typeNames.claim(override, suffix: "Type")
        }
        let prefix = configuration.typeNamePrefix ?? ""
        let name = typeNames.claim(prefix + SwiftNaming.typeName(hint), suffix: "Type")
        if !prefix.isEmpty { unprefixedTypeNames[name] = String(name.dropFirst(prefix.count)) }
        return name
    }

    /// What the hint of a type named after the type `name` (one it holds) starts with: `name`
    /// without the prefix ``claimTypeName(for:hint:)`` put before it, which puts it there again.
    func hintBase(of name: String) -> String {
        unprefixedTypeNames[name] ?? name
    }
}
