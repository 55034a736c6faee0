extension XMLTree {
    /// One element of an ``XMLTree``: its name, attributes, text and children.
    ///
    /// Look-ups by name match an element's local name and, when you pass one, its namespace URI.
    /// Prefixes never matter, so `<soap:Body>` and `<env:Body>` are both found by
    /// `child(named: "Body")`. Namespace URIs, and prefixes passed to
    /// ``namespaceURI(forPrefix:)``, are compared as written, code point by code point: `é` as
    /// one code point and `e` followed by a combining accent are different namespace names.
    ///
    /// An element is a cheap view into its document. Two elements are equal when their names,
    /// namespaces, attributes, text and children are equal, wherever they come from.
    public struct Element: Sendable {
        let storage: Storage
        let index: Int

        init(storage: Storage, index: Int) {
            self.storage = storage
            self.index = index
        }

        /// The element itself, rather than its content (``==`` compares content): two elements
        /// have the same identity when they are the same node of the same parsed document. It
        /// holds the document, so an identity stays unique while it is kept.
        package var identity: ElementIdentity { ElementIdentity(storage: storage, index: index) }

        /// The local name, without any prefix: `Envelope` for `<soap:Envelope>`.
        public var name: String { storage.name(of: index) }

        /// The prefix the document used, if any: `soap` for `<soap:Envelope>`.
        public var prefix: String? { storage.scopes[Int(storage.nodes[index].scope)].prefix }

        /// The name as written in the document: `soap:Envelope`.
        public var qualifiedName: String { prefix.map { "\($0):\(name)" } ?? name }

        /// The namespace URI the element is in, or `nil` when it is in no namespace.
        public var namespaceURI: String? { storage.namespaceURI(of: index) }

        /// The namespace URI that `prefix` is bound to where this element is: by a declaration on
        /// the element itself or the nearest ancestor that declares the prefix.
        ///
        /// Use it to resolve names that a document writes in text or attribute values, such as a
        /// SOAP fault code (`soap:Client`) or an `xsi:type`. Pass `nil` (or `""`) for the default
        /// namespace. The `xml` and `xmlns` prefixes are always bound. Returns `nil` when the prefix is not bound, or for the
        /// default namespace when none is declared (or `xmlns=""` undeclares it).
        public func namespaceURI(forPrefix prefix: String?) -> String? {
            // `""` is the default namespace too.
            let prefix = prefix?.isEmpty == true ? nil : prefix
            if prefix == "xml" { return "http://www.w3.org/XML/1998/namespace" }
            if prefix == "xmlns" { return "http://www.w3.org/2000/xmlns/" }
            let declarations = storage.declarations
            var current = index
            while current >= 0 {
                if !declarations.isEmpty, let declared = declarations[current],
                    let binding = declared.last(where: { XMLCharacters.equalAsWritten($0.prefix, prefix) })
                {
                    return binding.namespaceURI
                }
                current = Int(storage.nodes[current].parent)
            }
            return nil
        }

        /// The attributes, sorted by prefix then local name. Namespace declarations (`xmlns`,
        /// `xmlns:p`) are not attributes.
        public var attributes: [Attribute] {
            let range = storage.attributeRange(of: index)
            return range.isEmpty ? [] : Array(storage.attributes[range])
        }

        /// The element's own character data, in document order: text and CDATA sections, with
        /// entity and character references decoded. Text inside child elements is not included,
        /// and whitespace is kept exactly as in the document.
        public var text: String { storage.text(of: index) }

        /// The element that contains this one, or `nil` for the root element.
        public var parent: Element? {
            let parent = Int(storage.nodes[index].parent)
            return parent < 0 ? nil : Element(storage: storage, index: parent)
        }

        /// Whether the element has child elements.
        public var hasChildren: Bool { storage.end(of: index) > index + 1 }

        /// The child elements, in document order.
        public var children: [Element] {
            let end = storage.end(of: index)
            var count = 0
            var child = index + 1
            while child < end {
                count += 1
                child = storage.end(of: child)
            }
            // Counted first: one allocation instead of a growing array's four or five.
            var result: [Element] = []
            result.reserveCapacity(count)
            child = index + 1
            while child < end {
                result.append(Element(storage: storage, index: child))
                child = storage.end(of: child)
            }
            return result
        }

        /// Returns the value of the first attribute with this local name (and namespace, when
        /// `namespaceURI` is not `nil`).
        public func attribute(named name: String, namespaceURI: String? = nil) -> String? {
            let range = storage.attributeRange(of: index)
            guard !range.isEmpty else { return nil }
            return storage.attributes[range].first { $0.matches(name: name, namespaceURI: namespaceURI) }?.value
        }

        /// Returns the first child element with this local name (and namespace, when
        /// `namespaceURI` is not `nil`).
        public func child(named name: String, namespaceURI: String? = nil) -> Element? {
            var matcher = Storage.NameMatcher(name)
            var child = index + 1
            let end = storage.end(of: index)
            while child < end {
                if matcher.matches(child, in: storage)
                    && (namespaceURI == nil || XMLCharacters.equalAsWritten(storage.namespaceURI(of: child), namespaceURI))
                {
                    return Element(storage: storage, index: child)
                }
                child = storage.end(of: child)
            }
            return nil
        }

        /// The node index of the first child element with this local name, walking siblings.
        func firstChildIndex(named name: String) -> Int? {
            var matcher = Storage.NameMatcher(name)
            var child = index + 1
            let end = storage.end(of: index)
            while child < end {
                if matcher.matches(child, in: storage) { return child }
                child = storage.end(of: child)
            }
            return nil
        }

        /// ``firstChildIndex(named:)`` for a run of look-ups in this element's children, such as
        /// a record's fields decoded one key after another: each search starts at the sibling
        /// after the last match, so fields looked up in document order cost one comparison each.
        ///
        /// The answer is the same as ``firstChildIndex(named:)``'s. A match found after the
        /// cursor is taken only when no sibling before the cursor can have its local name: the
        /// cursor keeps a 64-bit filter of those siblings' local-name hashes, and a match whose
        /// bit is set there (the same name, or a hash that shares its bit) sends the search back
        /// to the first child, as does finding no match after the cursor.
        ///
        /// Past a few hundred distinct names the filter is full, and every search would go back
        /// to the first child. So the cursor counts the nodes its searches pass
        /// (``ChildCursor/passed``); once an element of ``ChildCursor/tableThreshold`` nodes or
        /// more has had that many passed, one walk over its children makes a table of the first
        /// child of each local name (``ChildCursor/firstChildren``), and every later look-up is
        /// one table look-up. The searches before the table pass fewer than three times the
        /// element's nodes, and the walk once more, so a run of look-ups costs time linear in the
        /// element's size, in whatever order they come.
        func firstChildIndex(named name: String, cursor: inout ChildCursor) -> Int? {
            if let table = cursor.firstChildren { return table[name] }
            var matcher = Storage.NameMatcher(name)
            let first = index + 1
            let end = storage.end(of: index)
            if end - first >= ChildCursor.tableThreshold && cursor.passed >= end - first {
                cursor.firstChildren = firstChildTable()
                cursor.passed &+= end - first
                return cursor.firstChildren?[name]
            }
            if cursor.next > first {
                let start = cursor.next
                var child = start
                var passed: UInt64 = 0
                while child < end {
                    let bit = storage.localNameBit(of: child)
                    if matcher.matches(child, in: storage) {
                        guard cursor.before & bit == 0 else { break }
                        cursor.passed &+= child - start
                        cursor.next = storage.end(of: child)
                        cursor.before |= passed | bit
                        return child
                    }
                    passed |= bit
                    child = storage.end(of: child)
                }
                cursor.passed &+= child - start
            }
            // From the first child, recording every local name passed.
            var before: UInt64 = 0
            var child = first
            while child < end {
                before |= storage.localNameBit(of: child)
                if matcher.matches(child, in: storage) {
                    cursor.passed &+= child - first
                    cursor.next = storage.end(of: child)
                    cursor.before = before
                    return child
                }
                child = storage.end(of: child)
            }
            cursor.passed &+= end - first
            return nil
        }

        /// The node index of the first child of each local name, as ``firstChildIndex(named:)``
        /// finds it.
        private func firstChildTable() -> [String: Int] {
            var table: [String: Int] = [:]
            var child = index + 1
            let end = storage.end(of: index)
            // Runs of one name (an array's items) are entered once.
            var previous = UInt32.max
            while child < end {
                let number = storage.nodes[child].name
                if number != previous {
                    previous = number
                    let name = storage.name(of: child)
                    if table[name] == nil { table[name] = child }
                }
                child = storage.end(of: child)
            }
            return table
        }

        /// Returns every child element with this local name (and namespace, when `namespaceURI`
        /// is not `nil`), in document order.
        public func children(named name: String, namespaceURI: String? = nil) -> [Element] {
            var matcher = Storage.NameMatcher(name)
            var result: [Element] = []
            var child = index + 1
            let end = storage.end(of: index)
            while child < end {
                if matcher.matches(child, in: storage)
                    && (namespaceURI == nil || XMLCharacters.equalAsWritten(storage.namespaceURI(of: child), namespaceURI))
                {
                    result.append(Element(storage: storage, index: child))
                }
                child = storage.end(of: child)
            }
            return result
        }

        /// Follows a path of child names from this element: `["Body", "getUserDetailsResponse"]`
        /// is the first `getUserDetailsResponse` child of the first `Body` child. An empty path
        /// returns this element.
        public func element(atPath path: [String]) -> Element? {
            var current = self
            for name in path {
                guard let next = current.child(named: name) else { return nil }
                current = next
            }
            return current
        }

        /// Returns the first element with this local name (and namespace, when `namespaceURI` is
        /// not `nil`) among this element's descendants, in document order.
        public func firstDescendant(named name: String, namespaceURI: String? = nil) -> Element? {
            var matcher = Storage.NameMatcher(name)
            for descendant in index + 1 ..< storage.end(of: index)
            where matcher.matches(descendant, in: storage)
                && (namespaceURI == nil || XMLCharacters.equalAsWritten(storage.namespaceURI(of: descendant), namespaceURI))
            {
                return Element(storage: storage, index: descendant)
            }
            return nil
        }

        /// Finds the first element named `name`, this one or a descendant, and returns the text
        /// of every element below it that has no children, keyed by local name.
        ///
        /// This is the quick route from a flat record to a dictionary:
        ///
        /// ```swift
        /// let fields = tree.root.leafTexts(below: "userModel")
        /// let city = fields?["city"]  // "London"
        /// ```
        ///
        /// When a name occurs more than once, the first in document order wins. Returns `nil` if
        /// there is no element named `name`.
        public func leafTexts(below name: String, namespaceURI: String? = nil) -> [String: String]? {
            let start: Element
            if storage.node(index, matches: name, namespaceURI: namespaceURI) {
                start = self
            } else if let found = firstDescendant(named: name, namespaceURI: namespaceURI) {
                start = found
            } else {
                return nil
            }
            var result: [String: String] = [:]
            for descendant in start.index + 1 ..< storage.end(of: start.index)
            where storage.end(of: descendant) == descendant + 1 {
                let name = storage.name(of: descendant)
                if result[name] == nil { result[name] = storage.text(of: descendant) }
            }
            return result
        }
    }

    /// An attribute of an ``Element``.
    public struct Attribute: Sendable, Hashable {
        /// The local name, without any prefix: `nil` for `xsi:nil`.
        public var name: String
        /// The prefix the document used, if any: `xsi` for `xsi:nil`.
        public var prefix: String?
        /// The namespace URI of a prefixed attribute; `nil` for an unprefixed one, which is in no
        /// namespace.
        public var namespaceURI: String?
        /// The value, with references decoded and whitespace normalised as XML requires.
        public var value: String

        /// Creates an attribute.
        public init(name: String, prefix: String? = nil, namespaceURI: String? = nil, value: String) {
            self.name = name
            self.prefix = prefix
            self.namespaceURI = namespaceURI
            self.value = value
        }

        func matches(name: String, namespaceURI: String?) -> Bool {
            self.name == name && (namespaceURI == nil || XMLCharacters.equalAsWritten(self.namespaceURI, namespaceURI))
        }
    }
}

extension XMLTree.Storage {
    /// Equal name, namespace, attributes (in any order) and text; prefixes do not count.
    func node(_ index: Int, hasSameContentAs otherIndex: Int, in otherStorage: XMLTree.Storage) -> Bool {
        let attributes = attributes(of: index)
        let otherAttributes = otherStorage.attributes(of: otherIndex)
        return name(of: index) == otherStorage.name(of: otherIndex)
            && namespaceURI(of: index) == otherStorage.namespaceURI(of: otherIndex)
            && text(of: index) == otherStorage.text(of: otherIndex)
            && attributes.count == otherAttributes.count
            && (attributes.isEmpty || Set(attributes.map(\.identity)) == Set(otherAttributes.map(\.identity)))
    }
}

extension XMLTree.Attribute {
    fileprivate struct Identity: Hashable {
        let name: String
        let namespaceURI: String?
        let value: String
    }

    fileprivate var identity: Identity { Identity(name: name, namespaceURI: namespaceURI, value: value) }
}

// MARK: - Equality

/// Which node of which parsed document an element is (``XMLTree/Element/identity``).
package struct ElementIdentity: Hashable, Sendable {
    let storage: XMLTree.Storage
    let index: Int

    package static func == (lhs: ElementIdentity, rhs: ElementIdentity) -> Bool {
        lhs.storage === rhs.storage && lhs.index == rhs.index
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(storage))
        hasher.combine(index)
    }
}

extension XMLTree.Element: Hashable {
    /// Whether two elements have the same names, namespaces, attributes, text and children,
    /// prefixes aside. Compared without recursion, however deep the elements are.
    public static func == (lhs: XMLTree.Element, rhs: XMLTree.Element) -> Bool {
        if lhs.storage === rhs.storage && lhs.index == rhs.index { return true }
        let count = lhs.storage.end(of: lhs.index) - lhs.index
        guard rhs.storage.end(of: rhs.index) - rhs.index == count else { return false }
        // Both subtrees are laid out in document order: equal shape means equal relative
        // `end` offsets at every position.
        for offset in 0..<count {
            guard lhs.storage.end(of: lhs.index + offset) - lhs.index == rhs.storage.end(of: rhs.index + offset) - rhs.index,
                lhs.storage.node(lhs.index + offset, hasSameContentAs: rhs.index + offset, in: rhs.storage)
            else {
                return false
            }
        }
        return true
    }

    /// Hashes the element's name, namespace, text and number of descendants.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(namespaceURI)
        hasher.combine(text)
        hasher.combine(storage.end(of: index) - index)
    }
}

extension XMLTree.Element: CustomStringConvertible {
    /// The qualified name and number of children, for example `<soap:Body> (1 child)`; never the
    /// text, which may be sensitive.
    public var description: String {
        let count = children.count
        return "<\(qualifiedName)> (\(count) \(count == 1 ? "child" : "children"))"
    }
}

// MARK: - Decodable

extension XMLTree.Element: Decodable {
    /// Receives the element being decoded, when decoded by ``XMLTreeDecoder``: declare a property
    /// of this type to keep part of a document to read by hand.
    ///
    /// - Throws: `DecodingError.typeMismatch` from any other decoder, or for an attribute value.
    public init(from decoder: any Decoder) throws {
        guard let decoder = decoder as? XMLElementDecoder else {
            throw DecodingError.typeMismatch(XMLTree.Element.self, DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "An XMLTree.Element can only be decoded by XMLTreeDecoder"))
        }
        guard let element = try decoder.singleElement() else {
            throw DecodingError.typeMismatch(XMLTree.Element.self, decoder.context("Expected an element, found an attribute value"))
        }
        self = element
    }
}

/// Where a run of child look-ups in one element stands: the sibling to start the next search at,
/// and which local names the siblings before it have (see
/// ``XMLTree/Element/firstChildIndex(named:cursor:)``).
struct ChildCursor {
    /// The fewest nodes an element has for its look-ups to build ``firstChildren``: a smaller
    /// one is searched however many look-ups it gets, each search a bounded cost.
    static let tableThreshold = 256

    /// The node index after the last match; 0 before any look-up.
    var next = 0
    /// The local-name hashes of the siblings before ``next``, one bit each
    /// (``XMLTree/Storage/localNameBit(of:)``).
    var before: UInt64 = 0
    /// How many nodes the look-ups have passed so far, counted as the distance from where each
    /// search started to where it stopped, and the element's size for building
    /// ``firstChildren``.
    var passed = 0
    /// Once built, the node index of the element's first child of each local name: the answer
    /// to every later look-up.
    var firstChildren: [String: Int]?
}

extension XMLTree.Element: Encodable {
    /// Writes the element with its own name and prefix, the namespace declarations in scope
    /// where it was, its attributes, its text and its children, when encoded by
    /// ``XMLTreeEncoder``: the content of an `xsd:any`.
    ///
    /// The tree keeps an element's text as one string (``text``), so all of it is written
    /// before the children: the text of `<a>x<b/>y</a>` is written as `xy`, ahead of `<b>`.
    /// Comments and processing instructions, which the tree does not keep, are not written;
    /// CDATA sections and references are written as escaped text.
    ///
    /// - Throws: `EncodingError.invalidValue` from any other encoder.
    public func encode(to encoder: any Encoder) throws {
        // XMLTreeEncoder writes elements itself and never calls this.
        throw EncodingError.invalidValue(self, EncodingError.Context(
            codingPath: encoder.codingPath, debugDescription: "An XMLTree.Element can only be encoded by XMLTreeEncoder"))
    }
}
