import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Builds an ``XMLTree`` from `XMLParser`'s callbacks, failing on the first problem.
///
/// `XMLParser` runs libxml2 in recovery mode: `parse()` can return `true` for broken documents,
/// errors arrive only through `parser(_:parseErrorOccurred:)` (sometimes several times), and
/// parsing may carry on afterwards. So any error callback fails the build and stops the parser,
/// and the result must have exactly one root element, closed. The document is read through an
/// `InputStream`, because `XMLParser(data:)` stops at 10,000,000 bytes while still delivering
/// callbacks.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    private static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    private let options: XMLParsingOptions
    /// Whether the bytes hold a start tag at all, as ``XMLPreflight`` found.
    private let hasStartTag: Bool
    private var nodes: [XMLTree.Node] = []
    /// Indices of the elements started and not yet ended, outermost first.
    private var open: [Int] = []
    private var rootClosed = false
    private var error: XMLParsingError?
    /// Prefix mappings reported for the element about to start.
    private var pendingMappings: [(prefix: String, uri: String)] = []
    /// For each prefix in scope, its URIs, innermost last.
    private var namespaces: [String: [String]] = [:]
    /// For each open element, the prefixes it declared.
    private var declaredPrefixes: [[String]] = []
    /// Names and URIs seen so far, so that repeated ones share storage.
    private var interned: Set<String> = []

    private init(options: XMLParsingOptions, hasStartTag: Bool) {
        self.options = options
        self.hasStartTag = hasStartTag
    }

    /// Parses `data` (already checked by ``XMLPreflight``) into tree storage.
    ///
    /// libxml2 reports nothing at all for some short truncated documents (`<a>`), so a document
    /// that has a start tag but produced no element is reported as truncated, and one without
    /// any start tag as having no root.
    static func build(from data: Data, hasStartTag: Bool, options: XMLParsingOptions) throws(XMLParsingError) -> XMLTree.Storage {
        let parser = XMLParser(stream: InputStream(data: data))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        let builder = XMLTreeBuilder(options: options, hasStartTag: hasStartTag)
        parser.delegate = builder
        let succeeded = parser.parse()
        parser.delegate = nil
        if let error = builder.error { throw error }
        guard succeeded else { throw .malformed(line: parser.lineNumber, column: parser.columnNumber) }
        guard !builder.nodes.isEmpty else { throw hasStartTag ? .truncated : .noRoot }
        guard builder.open.isEmpty, builder.rootClosed else { throw .truncated }
        return XMLTree.Storage(nodes: builder.nodes)
    }

    private func fail(_ parser: XMLParser, _ error: XMLParsingError) {
        if self.error == nil { self.error = error }
        parser.abortParsing()
    }

    private func intern(_ string: String) -> String {
        // Up to 15 UTF-8 bytes a String is stored inline: there is no storage to share, and
        // hashing every element name cost more than the rest of the element's bookkeeping.
        guard string.utf8.count > 15 else { return string }
        return interned.insert(string).memberAfterInsert
    }

    /// The prefix of `p:name`, `nil` for `name`.
    private static func prefix(of qualifiedName: String) -> String? {
        let utf8 = qualifiedName.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return String(qualifiedName[..<colon])
    }

    /// Splits `p:name` into `("p", "name")` and `name` into `(nil, "name")`.
    ///
    /// Searches the UTF-8 view: `firstIndex(of: Character)` walks grapheme clusters, and was the
    /// single largest cost of building a tree (see Docs/Performance.md).
    private static func split(_ qualifiedName: String) -> (prefix: String?, name: String) {
        let utf8 = qualifiedName.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return (nil, qualifiedName) }
        return (String(qualifiedName[..<colon]), String(qualifiedName[utf8.index(after: colon)...]))
    }

    // MARK: Elements

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        pendingMappings.append((prefix, namespaceURI))
    }

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String]
    ) {
        guard error == nil else { return }
        guard !rootClosed else {
            return fail(parser, .contentAfterRoot(line: parser.lineNumber, column: parser.columnNumber))
        }
        guard open.count < options.maximumDepth else {
            return fail(parser, .tooDeep(limit: options.maximumDepth))
        }
        for mapping in pendingMappings {
            namespaces[mapping.prefix, default: []].append(mapping.uri)
        }
        declaredPrefixes.append(pendingMappings.map(\.prefix))
        pendingMappings.removeAll()

        let prefix = qualifiedName.flatMap(Self.prefix(of:))
        var elementAttributes: [XMLTree.Attribute] = []
        elementAttributes.reserveCapacity(attributes.count)
        for (qualifiedName, value) in attributes where qualifiedName != "xmlns" && !qualifiedName.hasPrefix("xmlns:") {
            let (attributePrefix, name) = Self.split(qualifiedName)
            var attributeNamespace: String?
            if let attributePrefix {
                attributeNamespace = attributePrefix == "xml" ? Self.xmlNamespace : namespaces[attributePrefix]?.last
            }
            elementAttributes.append(XMLTree.Attribute(
                name: intern(name), prefix: attributePrefix.map(intern),
                namespaceURI: attributeNamespace.map(intern), value: value))
        }
        // XMLParser reports attributes in a dictionary; sort them so a tree's order is stable.
        if elementAttributes.count > 1 {
            elementAttributes.sort { ($0.prefix ?? "", $0.name) < ($1.prefix ?? "", $1.name) }
        }

        let namespace = namespaceURI.flatMap { $0.isEmpty ? nil : intern($0) }
        nodes.append(XMLTree.Node(
            name: intern(elementName), prefix: prefix.map(intern), namespaceURI: namespace,
            attributes: elementAttributes, text: "", parent: open.last, end: -1))
        open.append(nodes.count - 1)
    }

    func parser(
        _ parser: XMLParser,
        didEndElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?
    ) {
        guard error == nil, let index = open.popLast() else { return }
        nodes[index].end = nodes.count
        for prefix in declaredPrefixes.removeLast() {
            namespaces[prefix]?.removeLast()
        }
        if open.isEmpty { rootClosed = true }
    }

    // MARK: Text

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard error == nil, let index = open.last else { return }
        nodes[index].text.append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard error == nil, let index = open.last else { return }
        nodes[index].text.append(String(decoding: CDATABlock, as: UTF8.self))
    }

    // MARK: Errors

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let line = parser.lineNumber
        let column = parser.columnNumber
        if rootClosed {
            fail(parser, .contentAfterRoot(line: line, column: column))
        } else if nodes.isEmpty && !hasStartTag {
            fail(parser, .noRoot)
        } else {
            fail(parser, .malformed(line: line, column: column))
        }
    }

    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) {
        fail(parser, .malformed(line: parser.lineNumber, column: parser.columnNumber))
    }

    // MARK: Declarations (refused; XMLPreflight already refuses any DOCTYPE)

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(parser, .doctypeNotAllowed)
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail(parser, .doctypeNotAllowed)
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        fail(parser, .doctypeNotAllowed)
        return nil
    }
}
