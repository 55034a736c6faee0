import Foundation
import ResourceLoader

/// The state of one reading: the files read so far, the components found, the references still
/// to check and the diagnostics. Made and used by one ``WSDLReader`` call, on one thread, then
/// dropped; what it gives back is immutable.
final class ReadingSession {
    /// How a schema document is reached: the file, and for a chameleon include the namespace
    /// its components take.
    struct PendingSchema {
        let path: String
        let chameleonNamespace: String?
        let origin: WSDLSourceLocation
    }

    /// A name a component refers to, checked once every file is read. The element it is written
    /// on is kept, and its path made only for a diagnostic.
    struct PendingReference {
        let kind: WellKnownSchemas.Kind
        let name: QualifiedName
        let element: XMLTree.Element
        let file: String
    }

    /// Why a file has no root: the diagnostic to give at each reference to it.
    struct ParseFailure: Error {
        let construct: WSDLDiagnostic.Construct
        let message: String
    }

    /// A binding or service, read once every message, port type and schema is known.
    struct Deferred {
        let element: XMLTree.Element
        let file: String
        let targetNamespace: String?
    }

    let source: DocumentSource
    let options: WSDLReaderOptions
    /// The main document's path, against which mapped locations are resolved.
    let mainPath: String

    var diagnostics: [WSDLDiagnostic] = []
    /// The location paths made so far, by element.
    private var locationPaths: [ElementIdentity: String] = [:]
    var files: [String] = []
    /// Each file read, by path: its root, or why it has none.
    var parsed: [String: Result<XMLTree.Element, ParseFailure>] = [:]

    // Schema components.
    var schemas: [XSDSchema] = []
    var elements: [QualifiedName: XSDElement] = [:]
    var types: [QualifiedName: XSDType] = [:]
    var attributes: [QualifiedName: XSDAttribute] = [:]
    var groups: [QualifiedName: XSDGroup] = [:]
    var attributeGroups: [QualifiedName: XSDAttributeGroup] = [:]
    var references: [PendingReference] = []
    /// Whether a complex type derived from `soapenc:Array` was read: only then are the types
    /// literal operations reach walked for them.
    var readsEncodedArrays = false
    /// The schema documents read, by `path|namespace`.
    var schemaKeys: Set<String> = []
    var pendingSchemas: [PendingSchema] = []

    // WSDL components.
    var messages: [WSDLMessage] = []
    var messageIndex: [QualifiedName: Int] = [:]
    var portTypes: [WSDLPortType] = []
    var portTypeIndex: [QualifiedName: Int] = [:]
    /// Port type operations that are solicit-response or notification, diagnosed once.
    var outboundOperations: Set<String> = []
    var deferredBindings: [Deferred] = []
    var deferredServices: [Deferred] = []
    var pendingDefinitions: [(path: String, origin: WSDLSourceLocation)] = []
    var definitionPaths: Set<String> = []

    init(source: DocumentSource, options: WSDLReaderOptions, mainPath: String) {
        self.source = source
        self.options = options
        self.mainPath = mainPath
    }

    /// Reads the main document and everything it reaches.
    func run() throws(WSDLReadingError) -> WSDLDocument {
        let data: Data
        switch source.data(atPath: mainPath) {
        case .success(let bytes): data = bytes
        case .failure(let failure): throw .unreadable(file: mainPath, reason: failure.reason)
        }
        let tree: XMLTree
        do {
            tree = try XMLTree(data: data, options: options.parsingOptions)
        } catch {
            throw .malformed(file: mainPath, error)
        }
        let root = tree.root
        guard root.isNamed("definitions", in: WellKnownSchemas.wsdlNamespace) else {
            throw .notWSDL11(file: mainPath, root: QualifiedName(namespace: root.namespaceURI, name: root.name))
        }
        files.append(mainPath)
        parsed[mainPath] = .success(root)
        definitionPaths.insert(mainPath)
        readDefinitions(root, file: mainPath)
        drainQueues()

        let bindings = deferredBindings.compactMap(readBinding)
        let services = deferredServices.map(readService)
        checkReferences()
        checkEncodedArrays(reachableFrom: bindings)
        diagnostics += DerivationCycles.remove(from: &types)

        return WSDLDocument(
            targetNamespace: root.attribute(named: "targetNamespace"), name: root.attribute(named: "name"),
            documentation: root.documentation, services: services, bindings: bindings, portTypes: portTypes,
            messages: messages,
            schemas: XSDSchemaSet(
                schemas: schemas, elements: elements, types: types, attributes: attributes, groups: groups,
                attributeGroups: attributeGroups),
            files: files, diagnostics: diagnostics)
    }

    /// Reads queued WSDL and schema files until none is left. Each file is read once.
    func drainQueues() {
        while !pendingDefinitions.isEmpty || !pendingSchemas.isEmpty {
            if !pendingDefinitions.isEmpty {
                let next = pendingDefinitions.removeFirst()
                guard let root = parsedRoot(next.path, origin: next.origin) else { continue }
                if root.isNamed("definitions", in: WellKnownSchemas.wsdlNamespace) {
                    readDefinitions(root, file: next.path)
                } else if root.isNamed("schema", in: XSDBuiltInType.namespace) {
                    readSchemaDocument(root, file: next.path, chameleonNamespace: nil)
                } else {
                    diagnose(.error, .malformedDocument, next.origin, "\(next.path) is neither a WSDL 1.1 document nor a schema: its root is \(root.qualifiedName)")
                }
                continue
            }
            let next = pendingSchemas.removeFirst()
            guard let root = parsedRoot(next.path, origin: next.origin) else { continue }
            if root.isNamed("schema", in: XSDBuiltInType.namespace) {
                readSchemaDocument(root, file: next.path, chameleonNamespace: next.chameleonNamespace)
            } else if root.isNamed("definitions", in: WellKnownSchemas.wsdlNamespace) {
                // A schemaLocation that names a WSDL document means the schemas in its types,
                // read once.
                guard schemaKeys.insert("\(next.path)|wsdl:types").inserted else { continue }
                for types in root.children(named: "types", namespaceURI: WellKnownSchemas.wsdlNamespace) {
                    readTypes(types, file: next.path)
                }
            } else {
                diagnose(.error, .malformedDocument, next.origin, "\(next.path) is not a schema: its root is \(root.qualifiedName)")
            }
        }
    }

    /// The root of the file at `path`, or `nil` with a diagnostic at `origin` when it cannot be
    /// read or parsed, or when the file limit is reached. Each file is read and parsed once,
    /// however many documents refer to it.
    func parsedRoot(_ path: String, origin: WSDLSourceLocation) -> XMLTree.Element? {
        if let outcome = parsed[path] {
            switch outcome {
            case .success(let root): return root
            case .failure(let failure):
                diagnose(.error, failure.construct, origin, failure.message)
                return nil
            }
        }
        guard files.count < options.maximumFileCount else {
            diagnose(.error, .missingFile, origin, "\(path) is not read: the limit of \(options.maximumFileCount) files is reached")
            return nil
        }
        let outcome: Result<XMLTree.Element, ParseFailure>
        switch source.data(atPath: path) {
        case .success(let data):
            do {
                outcome = .success(try XMLTree(data: data, options: options.parsingOptions).root)
                files.append(path)
            } catch {
                outcome = .failure(ParseFailure(construct: .malformedDocument, message: "\(path) is not well-formed XML: \(error)"))
            }
        case .failure(let failure):
            outcome = .failure(ParseFailure(construct: .missingFile, message: "\(path) cannot be read: \(failure.reason)"))
        }
        parsed[path] = outcome
        return parsedRoot(path, origin: origin)
    }

    /// The local path a `schemaLocation` or `location` names, read from `file`; `nil` with a
    /// diagnostic for a remote URL the options map to no file.
    func localPath(for location: String, from file: String, at origin: WSDLSourceLocation) -> String? {
        if let mapped = options.schemaLocations[location] {
            return DocumentSource.resolve(mapped, relativeTo: mainPath)
        }
        let lowercased = location.lowercased()
        if lowercased.hasPrefix("file:") {
            guard let url = URL(string: location), url.isFileURL else {
                diagnose(.error, .invalidAttribute, origin, "the location \(location) is not a valid file URL")
                return nil
            }
            return DocumentSource.normalized(url.path)
        }
        if let colon = location.firstIndex(of: ":"), location[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
            location.distance(from: location.startIndex, to: colon) > 1
        {
            diagnose(.error, .remoteLocation, origin, "the remote location \(location) is not fetched; map it to a local file in the configuration's schema locations")
            return nil
        }
        return DocumentSource.resolve(location, relativeTo: file)
    }

    /// Records a diagnostic.
    func diagnose(_ severity: WSDLDiagnostic.Severity, _ construct: WSDLDiagnostic.Construct, _ location: WSDLSourceLocation, _ message: String) {
        diagnostics.append(WSDLDiagnostic(severity: severity, construct: construct, location: location, message: message))
    }

    /// The `name` attribute of a declaration, as the `NCName` that XML Schema and WSDL 1.1 declare
    /// components with: XML white space around it is removed (an `NCName`'s white space is
    /// collapsed). `nil` with an error diagnostic when there is none (`missing` says so) or when it
    /// is not an `NCName`, so that nothing is declared under a name that cannot be written as XML.
    func declaredLocalName(of element: XMLTree.Element, file: String, missing: @autoclosure () -> String) -> String? {
        guard let value = element.attribute(named: "name") else {
            diagnose(.error, .invalidAttribute, location(of: element, in: file), missing())
            return nil
        }
        let name = value.trimmingXMLWhitespace()
        guard name.isXMLNCName else {
            let kind = (element.prefix.map { $0 + ":" } ?? "") + element.name
            diagnose(
                .error, .invalidAttribute, location(of: element, in: file),
                "the name \(value.debugDescription) of \(kind) is not an XML name (an NCName); the declaration is left out")
            return nil
        }
        return name
    }

    /// The location of `element` in `file`.
    func location(of element: XMLTree.Element, in file: String) -> WSDLSourceLocation {
        WSDLSourceLocation(file: file, path: locationPath(of: element))
    }

    /// The path of elements from the root to `element`, each step as
    /// ``XMLTree/Element/appendLocationStep(to:)`` writes it:
    /// `/wsdl:definitions/wsdl:binding[@name='B']`. Each element's is made once, from its parent's.
    private func locationPath(of element: XMLTree.Element) -> String {
        let identity = element.identity
        if let path = locationPaths[identity] { return path }
        let parentPath = element.parent.map { locationPath(of: $0) } ?? ""
        var path = ""
        path.reserveCapacity(parentPath.utf8.count + 64)
        path += parentPath
        path += "/"
        element.appendLocationStep(to: &path)
        locationPaths[identity] = path
        return path
    }

    /// The qualified name a QName-valued attribute value means where `element` is, or `nil`
    /// with a diagnostic when its prefix is not declared. An unprefixed name in no namespace
    /// takes `chameleonNamespace` (a chameleon include's).
    func qualifiedName(_ value: String, at element: XMLTree.Element, file: String, chameleonNamespace: String? = nil) -> QualifiedName? {
        let trimmed = value.trimmingXMLWhitespace()
        if let colon = trimmed.firstIndex(of: ":") {
            let prefix = String(trimmed[..<colon])
            let local = String(trimmed[trimmed.index(after: colon)...])
            guard let namespace = element.namespaceURI(forPrefix: prefix) else {
                diagnose(.error, .undeclaredPrefix, location(of: element, in: file), "the prefix \(prefix) of \(trimmed) is not declared")
                return nil
            }
            return QualifiedName(namespace: namespace, name: local)
        }
        return QualifiedName(namespace: element.namespaceURI(forPrefix: nil) ?? chameleonNamespace, name: trimmed)
    }
}
