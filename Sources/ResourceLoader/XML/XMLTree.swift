import Foundation

/// An immutable XML document, parsed defensively from bytes.
///
/// ```swift
/// let tree = try XMLTree(data: responseBody)
/// let city = tree.root.element(atPath: ["Body", "getUserDetailsResponse"])?
///     .firstDescendant(named: "city")?.text
/// ```
///
/// Parsing goes through ResourceLoader's own XML 1.0 (fifth edition) and Namespaces 1.0 parser,
/// written in Swift: the same on every platform, with no dependency on Foundation's `XMLParser`
/// or libxml2. A document is refused with an ``XMLParsingError`` when it
/// is empty, too large or too deep (see ``XMLParsingOptions``), in an encoding other than UTF-8,
/// US-ASCII, ISO-8859-1 or UTF-16, has a DOCTYPE, refers to an undeclared entity, is not
/// well-formed, or has anything but exactly one root element. There is never a partial tree.
///
/// Documents in US-ASCII, ISO-8859-1 or UTF-16 are transcoded to UTF-8 before any other check
/// (see ``XMLParsingError/unsupportedEncoding(_:)``); the size limit applies before and after.
///
/// Names are namespace-aware: every element and attribute knows its local name and namespace URI,
/// so look-ups work whatever prefixes the document happens to use. A namespace name is a string,
/// compared as written: it need not be an absolute URI (`xmlns="tempuri"` is fine). Text is
/// delivered with entity and character references decoded and CDATA sections included, whatever
/// their length. Limits on attributes and namespace declarations (``XMLParsingOptions``), on the
/// length of a tag (8 MiB) and of a name (50,000 bytes) keep parsing time linear in the
/// document's size.
///
/// The tree is stored flat, in document order, so building, walking, comparing and releasing it
/// never recurse, however deep the document. It is compact (28 bytes an element, plus the text's
/// UTF-8 bytes and the attributes) and keeps no reference to `data`; each read of an element's
/// ``XMLTree/Element/text`` makes a new string from its bytes. Its offsets are 32-bit: a document,
/// its text or its element count of 2 GiB or more is refused with
/// ``XMLParsingError/tooLarge(limit:)`` (the default size limit is 64 MiB).
public struct XMLTree: Sendable {
    let storage: Storage

    /// The document's root element.
    public var root: Element { Element(storage: storage, index: 0) }

    /// Parses a document.
    ///
    /// - Parameters:
    ///   - data: The document's bytes: UTF-8 (with or without a byte order mark), or US-ASCII,
    ///     ISO-8859-1 or UTF-16 as its byte order mark or XML declaration says.
    ///   - options: The limits to apply. Default: ``XMLParsingOptions/init(maximumDepth:maximumDocumentSize:maximumAttributesPerElement:maximumNamespaceDeclarationsPerElement:maximumNamespaceDeclarationsInScope:)``'s defaults.
    /// - Throws: ``XMLParsingError`` describing why the document was refused.
    public init(data: Data, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) {
        storage = try Self.parsedStorage(data, options: options)
    }

    /// Parses a document given as text.
    ///
    /// The text is decoded already, so it is read as its UTF-8 bytes, never sniffed for another
    /// encoding, and an encoding its XML declaration names is ignored (the declaration must
    /// still be well-formed); the size limit counts the text's UTF-8 bytes.
    ///
    /// - Throws: ``XMLParsingError`` describing why the document was refused.
    public init(string: String, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) {
        let (data, declaration) = try XMLTranscoder.utf8Text(string, options: options)
        storage = try Self.parsedStorage(utf8: data, declaration: declaration, options: options)
    }
}

// MARK: - Parsing

extension XMLTree {
    /// Parses UTF-8 (or transcodable) `data` with ResourceLoader's own tokenizer.
    static func parsedStorage(_ data: Data, options: XMLParsingOptions) throws(XMLParsingError) -> Storage {
        let (data, declaration) = try XMLTranscoder.utf8Document(data, options: options)
        return try parsedStorage(utf8: data, declaration: declaration, options: options)
    }

    /// Parses UTF-8 `data`; `declaration` is its XML declaration when read already.
    static func parsedStorage(
        utf8 data: Data, declaration: XMLDeclaration?, options: XMLParsingOptions
    ) throws(XMLParsingError) -> Storage {
        let result: Result<XMLTreeSink, XMLParsingError> = data.withUnsafeBytes { raw in
            do throws(XMLParsingError) {
                let bytes = raw.bindMemory(to: UInt8.self)
                let sink = try XMLStreamParser.parse(
                    bytes, sink: try XMLTreeSink(document: bytes), options: options, declaration: declaration)
                return .success(sink)
            } catch {
                return .failure(error)
            }
        }
        return try result.get().storage()
    }
}

// MARK: - Storage

extension XMLTree {
    /// The nodes of one document, in document order (each element before its descendants), and
    /// what they refer to: names, attributes, text bytes and prefix/namespace pairs.
    ///
    /// Immutable once built; shared by every ``Element`` of the document. An element's text is
    /// kept as UTF-8 bytes in ``arena``, not as a `String` (which would cost a 16-byte field
    /// per node and an allocation per text over 15 bytes); strings are made when read.
    final class Storage: Sendable {
        let nodes: XMLTreeNodes
        /// The names, by ``Node/name``: the tokenizer's name table as the document ended, so
        /// one per distinct qualified name (`a:x` and `x` have two numbers and the same local
        /// name), and possibly names of earlier documents the pooled table read (see
        /// ``XMLNameTable``), which no node refers to. Shared with the table, not copied.
        let names: [XMLName]
        /// Every element's attributes, element after element in document order: a node's are
        /// `attributes[node.attributeStart ..< next.attributeStart]`.
        let attributes: [Attribute]
        /// Every element's text, element after element in the order they end.
        let arena: XMLByteArena
        /// Each distinct binding elements used: `scopes[0]` is no prefix, no namespace.
        let scopes: [Scope]
        /// The namespace declarations (`xmlns`, `xmlns:p`) of the elements that have some, by node
        /// index, in the order written; a `nil` URI undeclares the default namespace
        /// (`xmlns=""`). Kept for resolving prefixes in text, such as a SOAP fault code.
        let declarations: [Int: [Scope]]

        init(
            nodes: XMLTreeNodes, names: [XMLName], attributes: [Attribute], arena: XMLByteArena, scopes: [Scope],
            declarations: [Int: [Scope]] = [:]
        ) {
            self.nodes = nodes
            self.names = names
            self.attributes = attributes
            self.arena = arena
            self.scopes = scopes
            self.declarations = declarations
        }

        /// The index one past the last descendant of the node at `index`.
        @inline(__always)
        func end(of index: Int) -> Int { Int(nodes[index].end) }

        /// The local name of the node at `index`.
        @inline(__always)
        func name(of index: Int) -> String { names[Int(nodes[index].name)].local }

        /// One of 64 bits, chosen by the hash of the node's local name: nodes with equal local
        /// names (whatever their prefixes) have the same bit.
        @inline(__always)
        func localNameBit(of index: Int) -> UInt64 {
            1 << (names[Int(nodes[index].name)].localHash & 63)
        }

        /// The namespace URI of the node at `index`.
        @inline(__always)
        func namespaceURI(of index: Int) -> String? { scopes[Int(nodes[index].scope)].namespaceURI }

        /// The range of the node's attributes in ``attributes``.
        @inline(__always)
        func attributeRange(of index: Int) -> Range<Int> {
            let next = index + 1 < nodes.count ? Int(nodes[index + 1].attributeStart) : attributes.count
            return Int(nodes[index].attributeStart) ..< next
        }

        /// Whether the node at `index` has attributes.
        @inline(__always)
        func hasAttributes(_ index: Int) -> Bool { !attributeRange(of: index).isEmpty }

        /// The node's attributes, in the order ``XMLTree/Element/attributes`` gives them.
        @inline(__always)
        func attributes(of index: Int) -> ArraySlice<Attribute> { attributes[attributeRange(of: index)] }

        /// The element's own text, made from its bytes.
        ///
        /// The bytes are copied straight into the new string's storage: for a short ASCII text
        /// (15 bytes or fewer) that is the string's inline storage, checked for ASCII a word at a
        /// time, where `String(decoding:as:)` would scan the bytes for ASCII and then copy them
        /// one by one. Longer text, or text beyond ASCII, is copied into allocated storage and
        /// validated as UTF-8.
        func text(of index: Int) -> String {
            let node = nodes[index]
            let count = Int(node.textCount)
            guard count > 0 else { return "" }
            let source = arena.bytes(from: Int(node.textOffset), count: count)
            // The tokenizer checked the bytes: valid UTF-8, so validating repairs nothing.
            return String(unsafeUninitializedCapacity: count) { buffer in
                XMLByteArena.copy(source.baseAddress.unsafelyUnwrapped, to: buffer.baseAddress.unsafelyUnwrapped, count: count)
                return count
            }
        }

        /// Whether the node at `index` has this local name (and namespace, unless `nil`).
        @inline(__always)
        func node(_ index: Int, matches name: String, namespaceURI: String?) -> Bool {
            names[Int(nodes[index].name)].local == name
                && (namespaceURI == nil || XMLCharacters.equalAsWritten(self.namespaceURI(of: index), namespaceURI))
        }

        /// The indices in ``names`` equal to `name`, as a one-entry cache: the last name number
        /// found equal and the last found different, so that walking many elements compares
        /// each distinct name's string at most once or twice.
        struct NameMatcher {
            let name: String
            private var equal: UInt32 = .max
            private var different: UInt32 = .max

            init(_ name: String) { self.name = name }

            /// Whether the node's local name is ``name``.
            @inline(__always)
            mutating func matches(_ index: Int, in storage: Storage) -> Bool {
                let number = storage.nodes[index].name
                if number == equal { return true }
                if number == different { return false }
                // Compared by length first: an inline load for the small strings most names are.
                let candidate = storage.names[Int(number)].local
                if candidate.utf8.count == name.utf8.count && candidate == name {
                    equal = number
                    return true
                }
                different = number
                return false
            }
        }
    }

    /// An element's prefix, as written, and namespace URI.
    struct Scope: Sendable {
        var prefix: String?
        var namespaceURI: String?
    }

    /// One element: 28 bytes, every field a 32-bit number. Its descendants are the nodes at
    /// `index + 1 ..< end`, so its first child, if any, is at `index + 1` and each child's next
    /// sibling starts at that child's `end`.
    ///
    /// A large document has about one node per 30 bytes of input, so nothing here is a string
    /// or an array: the name is a number in ``Storage/names``, the prefix and namespace one in
    /// ``Storage/scopes``, the attributes a range of ``Storage/attributes`` (ending where the
    /// next node's start) and the text a range of bytes.
    struct Node: Sendable {
        /// The local name's index in ``Storage/names``.
        var name: UInt32
        /// The index of the element's prefix and namespace in ``Storage/scopes``.
        var scope: UInt32
        /// The parent's index; -1 for the root.
        var parent: Int32
        /// One past the last descendant's index.
        var end: UInt32
        /// The first attribute's index in ``Storage/attributes``.
        var attributeStart: UInt32
        /// Where the text starts in ``Storage/arena``. While the element is open (see
        /// ``XMLTreeSink``): where its one piece of text so far starts in the document, or where
        /// its gathered text starts in the sink's buffer.
        var textOffset: UInt32
        /// The text's length in bytes. While the element is open: the length of its one piece
        /// in the document, or ``inArena`` alone when its text is gathered in a buffer.
        var textCount: UInt32

        /// ``textCount``'s value while an open element's text is gathered in a buffer.
        static let inArena: UInt32 = 1 << 31
        /// The largest offset or length a node can record: documents, arenas and node counts
        /// stay below it.
        static let limit = Int(Int32.max)
    }
}
