import Foundation
import ResourceLoader

#if canImport(FoundationXML)
import FoundationXML
#endif

// The `xml-diff` harness: ResourceLoader's parser against libxml2, through Foundation's
// `XMLParser`. Like FuzzEntryPoints.swift (whose `run(_:_:)` calls `checkXMLDiff(_:)`), this file
// is compiled into the test target (FuzzCorpusReplayTests) and into the libFuzzer harnesses
// (Fuzz/run.sh); libxml2 is used here only, as the reference, never under Sources/.

extension FuzzEntryPoints {
    /// Parses `data` with `XMLTree(data:)` (default options) and with libxml2, and reports every
    /// disagreement that is not a ``XMLDifferential/KnownDifference``: one accepts what the
    /// other refuses, or both accept and the trees differ (names, namespaces, attributes, text).
    ///
    /// Inputs libxml2 must not see (``XMLDifferential/notFed(_:ours:)``) are only parsed by us.
    /// On platforms without FoundationXML (Apple's `XMLParser` is another parser) only the tree
    /// checks of `xml-tree` run.
    static func checkXMLDiff(_ data: Data) -> [String] {
        let input = XMLDifferential.spacingInstructionsWithoutData(data)
        let ours: Result<XMLTree, XMLParsingError>
        do {
            ours = .success(try XMLTree(data: input))
        } catch {
            ours = .failure(error)
        }
        var problems: [String] = []
        if case .success(let tree) = ours { problems += checkTreeShape(tree) }
        #if canImport(FoundationXML)
        if XMLDifferential.notFed(input, ours: ours) != nil { return problems }
        let theirs = XMLDifferential.libxml2(input)
        switch (ours, theirs) {
        case (.success(let tree), .accepted(let nodes)):
            let mine = XMLDifferential.nodes(of: tree)
            if let difference = XMLDifferential.firstDifference(mine, nodes) {
                problems.append("both accept, but the trees differ: \(difference)")
            }
        case (.failure, .rejected):
            break
        case (.success(let tree), .rejected(let codes)):
            if XMLDifferential.knownDifference(accepted: tree, libxml2Codes: codes) == nil {
                problems.append("we accept what libxml2 refuses (libxml2 error codes \(codes))")
            }
        case (.failure(let error), .accepted):
            if XMLDifferential.knownDifference(refused: error, input) == nil {
                problems.append("we refuse what libxml2 accepts: \(error)")
            }
        }
        #endif
        return problems
    }
}

/// What the `xml-diff` harness knows about libxml2 (as FoundationXML drives it on Linux) and how
/// our parser deliberately differs from it.
enum XMLDifferential {
    /// A document's bytes with a space before the `?>` of every `<?target?>`: FoundationXML on
    /// Linux crashes (SIGSEGV, `strlen` of the null data pointer libxml2 passes) on a processing
    /// instruction without data, wherever it is. The space means the same thing to both parsers
    /// where the bytes are a processing instruction, and is the same text to both elsewhere (in
    /// a comment, CDATA or an attribute value), so both parse the spaced bytes.
    static func spacingInstructionsWithoutData(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var output: [UInt8] = []
        var copied = 0
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "?")].contains(bytes[end]) { end += 1 }
            if end > index + 2, end + 1 < bytes.count, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") {
                output += bytes[copied..<end]
                output.append(0x20)
                copied = end
            }
            // On by two, not to `end`: `<?<?pi?>` holds an instruction without data at 2.
            index += 2
        }
        guard copied > 0 else { return data }
        return Data(output + bytes[copied...])
    }

    /// Why libxml2 must not see `input`, or `nil` when it may. Each reason is a crash in
    /// FoundationXML or a difference by design that would say nothing about correctness.
    enum NotFed: String {
        /// Not valid UTF-8 (after a UTF-8 byte order mark): FoundationXML crashes (SIGILL) on
        /// invalid UTF-8 in a name, and UTF-16 input is bytes libxml2 decodes by other rules.
        /// Our parser's UTF-8 and encoding checks are fuzzed by `xml-tree`.
        case notUTF8
        /// We refuse an encoding that libxml2 reads through iconv (windows-1252, UTF-7, …), or
        /// one that the bytes contradict: by design (see `XMLParsingError.unsupportedEncoding`).
        case unsupportedEncoding
        /// A `<!DOCTYPE` (any case) that we refused or could have stopped at: DTDs are refused by
        /// default, by design; and FoundationXML drops internal entities' text and crashes on
        /// some notation and unparsed-entity declarations, so it is no reference for DTDs.
        case documentType
        /// Past libxml2's own fixed limits for `XMLParser(data:)` (10,000,000 bytes).
        case tooLargeForLibXML2
    }

    /// Why `input` is not fed to libxml2, given what our parser made of it.
    static func notFed(_ input: Data, ours: Result<XMLTree, XMLParsingError>) -> NotFed? {
        if input.count >= 10_000_000 { return .tooLargeForLibXML2 }
        let body = input.starts(with: [0xEF, 0xBB, 0xBF]) ? input.dropFirst(3) : input[...]
        if !isValidUTF8(body) { return .notUTF8 }
        if case .failure(.unsupportedEncoding) = ours { return .unsupportedEncoding }
        if case .failure = ours, containsDoctypeKeyword(body) { return .documentType }
        return nil
    }

    static func isValidUTF8(_ bytes: Data.SubSequence) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Whether `<!DOCTYPE` appears anywhere, in any case.
    static func containsDoctypeKeyword(_ bytes: Data.SubSequence) -> Bool {
        let keyword = Array("<!DOCTYPE".utf8)
        let array = [UInt8](bytes)
        guard array.count >= keyword.count else { return false }
        for start in 0...(array.count - keyword.count) where array[start] == keyword[0] {
            if (0..<keyword.count).allSatisfy({ array[start + $0] & (($0 >= 2) ? 0xDF : 0xFF) == keyword[$0] }) {
                return true
            }
        }
        return false
    }

    /// A deliberate difference between our parser and libxml2 that explains a disagreement.
    enum KnownDifference: String {
        /// libxml2 refuses elements nested deeper than 256 levels (without `XML_PARSE_HUGE`,
        /// which Foundation does not set); our default limit is 512.
        case libxml2DepthLimit
        /// libxml2 warns (code 64, `XML_ERR_RESERVED_XML_NAME`) about a processing instruction
        /// whose target starts with `xml` but is not `xml` (`<?xmlfoo data?>`, reserved for
        /// standardisation yet allowed by the grammar), and FoundationXML reports that warning as
        /// an error. The same code is a fatal error for a target that is exactly `xml` after
        /// the start, which we refuse too.
        case libxml2ReservedTargetWarning
        /// We stop at one of `XMLParsingOptions`' limits (attributes, namespace declarations,
        /// depth, size, names, tags), which are not well-formedness rules.
        case ourLimit
    }

    /// Explains why libxml2 refused a document we accepted, if it is a known difference.
    static func knownDifference(accepted tree: XMLTree, libxml2Codes codes: [Int]) -> KnownDifference? {
        if depth(of: tree) > 256 { return .libxml2DepthLimit }
        if !codes.isEmpty, codes.allSatisfy({ $0 == 64 }) { return .libxml2ReservedTargetWarning }
        return nil
    }

    /// Explains why we refused a document libxml2 accepted, if it is a known difference.
    static func knownDifference(refused error: XMLParsingError, _ input: Data) -> KnownDifference? {
        switch error {
        case .tooDeep, .tooLarge, .tooManyAttributes, .tooManyNamespaceDeclarations, .tooManyNamespacesInScope,
            .nameTooLong, .tagTooLong:
            return .ourLimit
        default:
            return nil
        }
    }

    // MARK: - The trees compared

    /// One element, as both parsers can report it: local name, namespace (`nil` for none),
    /// attributes by qualified name (namespace declarations excluded), the element's own text
    /// (its character data and CDATA, references replaced, in order), and its depth (1 for the
    /// root), in document order.
    struct Node: Equatable, CustomStringConvertible {
        var name: String
        var namespaceURI: String?
        var attributes: [String: String]
        var text: String
        var depth: Int

        var description: String {
            "<\(name) ns=\(namespaceURI ?? "-") depth=\(depth) attributes=\(attributes.sorted { $0.key < $1.key }) text=\(text.debugDescription)>"
        }
    }

    /// Our tree's elements in document order.
    static func nodes(of tree: XMLTree) -> [Node] {
        var nodes: [Node] = []
        var stack = [(tree.root, 1)]
        while let (element, depth) = stack.popLast() {
            var attributes: [String: String] = [:]
            for attribute in element.attributes {
                attributes[attribute.prefix.map { "\($0):\(attribute.name)" } ?? attribute.name] = attribute.value
            }
            nodes.append(Node(name: element.name, namespaceURI: element.namespaceURI, attributes: attributes, text: element.text, depth: depth))
            stack.append(contentsOf: element.children.reversed().map { ($0, depth + 1) })
        }
        return nodes
    }

    static func depth(of tree: XMLTree) -> Int {
        nodes(of: tree).map(\.depth).max() ?? 0
    }

    /// The first element where the two lists differ, described; `nil` when they are equal.
    static func firstDifference(_ ours: [Node], _ theirs: [Node]) -> String? {
        for (index, (mine, other)) in zip(ours, theirs).enumerated() where mine != other {
            return "element \(index): ours \(mine), libxml2 \(other)"
        }
        if ours.count != theirs.count { return "ours has \(ours.count) elements, libxml2 \(theirs.count)" }
        return nil
    }

    // MARK: - libxml2

    /// What libxml2 made of a document.
    enum LibXML2Outcome {
        /// Well-formed and namespace-well-formed: no error reported (warnings aside).
        case accepted([Node])
        /// Refused: the libxml2 error codes (`xmlParserErrors`) it reported.
        case rejected([Int])
    }

    /// libxml2's warnings, which FoundationXML reports like errors: an unknown XML version
    /// (97), an `xml:lang` or `xml:space` value it does not like (98, 102), a namespace name
    /// that is not an absolute URI (99, 100), and the like (27, 93, 106, 107). None is a
    /// well-formedness error, and we accept all of these documents.
    static let libxml2Warnings: Set<Int> = [27, 93, 97, 98, 99, 100, 102, 106, 107]

    #if canImport(FoundationXML)
    /// Parses `data` with `XMLParser` (namespaces on, external entities off).
    static func libxml2(_ data: Data) -> LibXML2Outcome {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let builder = LibXML2TreeBuilder()
        parser.delegate = builder
        let succeeded = parser.parse()
        let errors = builder.errorCodes.filter { !libxml2Warnings.contains($0) }
        if !succeeded || !errors.isEmpty || !builder.open.isEmpty || builder.nodes.isEmpty {
            return .rejected(errors.isEmpty ? [parser.parserError.map { ($0 as NSError).code } ?? -1] : errors)
        }
        return .accepted(builder.nodes)
    }
    #endif
}

#if canImport(FoundationXML)
/// Builds ``XMLDifferential/Node``s from `XMLParser`'s events.
private final class LibXML2TreeBuilder: NSObject, XMLParserDelegate {
    var nodes: [XMLDifferential.Node] = []
    /// The open elements' indices in `nodes`.
    var open: [Int] = []
    var errorCodes: [Int] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        nodes.append(XMLDifferential.Node(
            name: elementName, namespaceURI: namespaceURI.flatMap { $0.isEmpty ? nil : $0 }, attributes: attributes,
            text: "", depth: open.count + 1))
        open.append(nodes.count - 1)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        _ = open.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = open.last { nodes[index].text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if let index = open.last { nodes[index].text += String(decoding: CDATABlock, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        errorCodes.append((parseError as NSError).code)
    }

    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) {
        errorCodes.append((validationError as NSError).code)
    }
}
#endif
