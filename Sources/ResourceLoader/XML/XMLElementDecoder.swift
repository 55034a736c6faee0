import Foundation

/// The `Decoder` behind ``XMLTreeDecoder``: one per value decoded through the generic path
/// (nested types and array items); scalars under a key are read by the keyed container directly.
///
/// Hot-path economy (see Docs/Performance.md): the coding path is not stored but rebuilt from the
/// chain of parents only when asked for (errors, or a type reading `codingPath`); matches are
/// node indices found by walking siblings, never arrays; and an unkeyed container reuses one
/// decoder for its items while no one else holds it.
final class XMLElementDecoder: Decoder {
    /// What a decoder reads from.
    enum Value {
        /// One element: the top level, or an item of an array. As an array, its children.
        case element(XMLTree.Element)
        /// The children of `parent` named `key` (possibly none), the first at node index `first`.
        /// As an array, all of them; as anything else, the first.
        case matches(parent: XMLTree.Element, key: any CodingKey, first: Int?)
        /// An attribute's value, matched by a key.
        case attribute(String)
    }

    /// How this decoder's coding path extends its parent's.
    enum Step {
        /// The top level: the path is given, as the element names that led there (made into
        /// coding keys only when a coding path is asked for).
        case root([String])
        /// A key of the parent's keyed container.
        case key(any CodingKey)
        /// A position in the parent's unkeyed container.
        case index(Int)
    }

    static let schemaInstanceNamespace = "http://www.w3.org/2001/XMLSchema-instance"

    /// Whether `attribute` is in the XML Schema instance namespace.
    static func isSchemaInstance(_ attribute: XMLTree.Attribute) -> Bool {
        XMLCharacters.equalAsWritten(attribute.namespaceURI, schemaInstanceNamespace)
    }

    // Mutable only so that an unkeyed container can reuse a decoder nobody else holds.
    fileprivate(set) var value: Value
    fileprivate let parent: XMLElementDecoder?
    fileprivate(set) var step: Step
    /// The schema of the type being decoded, set by ``unbox(_:as:)`` before `init(from:)`.
    fileprivate var schema: XMLTypeSchema?
    /// For a wrapped array under a key: the name of the items inside the wrapper element.
    fileprivate var itemName: String?
    /// Whether the holding type's schema says the value (or an array's items) is
    /// `xs:hexBinary` (``XMLTypeSchema/Field/isHexBinary``).
    fileprivate var isHexBinary = false
    /// For an optional ``XMLChoice``: whether its keyed container found one of its elements.
    fileprivate var choiceProbe: ChoiceProbe?
    /// Whether the decoder reads an ``XMLChoice`` from the element that holds it.
    fileprivate var readsChoice = false
    /// For an item of an array of ``XMLChoice``s: where in the holder its element is looked
    /// for, and the element found.
    fileprivate var choiceItem: ChoiceItem?
    let options: XMLTreeDecoder
    /// Where the keyed container's look-ups in this decoder's element stand (see
    /// ``XMLTree/Element/firstChildIndex(named:cursor:)``); reset with each new keyed
    /// container. Touched only by this decoder's containers, one call at a time.
    @exclusivity(unchecked) fileprivate var cursor = ChildCursor()

    init(value: Value, parent: XMLElementDecoder?, step: Step, options: XMLTreeDecoder) {
        self.value = value
        self.parent = parent
        self.step = step
        self.options = options
    }

    convenience init(value: Value, path: [String], options: XMLTreeDecoder) {
        self.init(value: value, parent: nil, step: .root(path), options: options)
    }

    /// Built on demand from the chain of parents.
    var codingPath: [any CodingKey] {
        var steps: [any CodingKey] = []
        var decoder: XMLElementDecoder? = self
        while let current = decoder {
            switch current.step {
            case .root(let path):
                return path.map { XMLCodingKey($0) } + steps.reversed()
            case .key(let key):
                steps.append(key)
            case .index(let index):
                steps.append(XMLCodingKey(index: index))
            }
            decoder = current.parent
        }
        return steps.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let element = try singleElement() else {
            throw DecodingError.typeMismatch([String: Any].self, context("Expected an element, found an attribute value"))
        }
        cursor = ChildCursor()
        if let from = choiceItem?.from {
            // An item of an array of choices: the first of the choice's elements from `from` on.
            let end = element.storage.end(of: element.index)
            var child = from
            while child < end, Key(stringValue: XMLTree.Element(storage: element.storage, index: child).name) == nil {
                child = element.storage.end(of: child)
            }
            let found = child < end ? child : nil
            choiceItem?.found = found
            if let found { cursor = ChildCursor(next: found) }
            return KeyedDecodingContainer(
                KeyedContainer<Key>(element: element, decoder: self, schema: schema, readsChoice: true, choiceChild: found ?? -1))
        }
        if choiceProbe != nil {
            // Whether any of the choice's elements is there.
            choiceProbe?.matched = element.children.contains { Key(stringValue: $0.name) != nil }
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(element: element, decoder: self, schema: schema, readsChoice: readsChoice))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .element(let element):
            return UnkeyedContainer(
                storage: element.storage, first: element.index + 1, end: element.storage.end(of: element.index),
                name: nil, decoder: self)
        case .matches(let parent, _, let first) where itemName != nil:
            // A wrapped array: the items inside the first element named after the key.
            guard let wrapper = first else {
                return UnkeyedContainer(storage: parent.storage, first: 0, end: 0, name: itemName, decoder: self)
            }
            return UnkeyedContainer(
                storage: parent.storage, first: wrapper + 1, end: parent.storage.end(of: wrapper), name: itemName, decoder: self)
        case .matches(let parent, let key, let first):
            let end = parent.storage.end(of: parent.index)
            return UnkeyedContainer(storage: parent.storage, first: first ?? end, end: end, name: key.stringValue, decoder: self)
        case .attribute:
            throw DecodingError.typeMismatch([Any].self, context("Expected elements, found an attribute value"))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    // MARK: Reading values

    func context(_ description: String, underlying: (any Error)? = nil) -> DecodingError.Context {
        DecodingError.Context(codingPath: codingPath, debugDescription: description, underlyingError: underlying)
    }

    /// The element this decoder reads as a single value, `nil` for an attribute; throws
    /// `keyNotFound` when a key matched nothing.
    func singleElement() throws -> XMLTree.Element? {
        switch value {
        case .element(let element):
            return element
        case .matches(let parent, let key, let first):
            guard let first else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: codingPath.dropLast(),
                    debugDescription: "No element or attribute named \(key.stringValue.debugDescription)"))
            }
            return XMLTree.Element(storage: parent.storage, index: first)
        case .attribute:
            return nil
        }
    }

    /// Whether the value is absent or marked `xsi:nil`.
    var isNil: Bool {
        switch value {
        case .element(let element):
            return Self.isNil(element.storage, element.index)
        case .matches(let parent, _, let first):
            return first.map { Self.isNil(parent.storage, $0) } ?? true
        case .attribute:
            return false
        }
    }

    static func isNil(_ element: XMLTree.Element) -> Bool {
        isNil(element.storage, element.index)
    }

    @inline(__always)
    static func isNil(_ storage: XMLTree.Storage, _ index: Int) -> Bool {
        let range = storage.attributeRange(of: index)
        guard !range.isEmpty,
            let marker = storage.attributes[range].first(where: { $0.matches(name: "nil", namespaceURI: schemaInstanceNamespace) })?.value
        else { return false }
        let trimmed = trimmingXMLWhitespace(marker)
        return trimmed == "true" || trimmed == "1"
    }

    /// The text of the value; throws `valueNotFound` for `xsi:nil`.
    func text<T>(for type: T.Type) throws -> String {
        guard let element = try singleElement() else {
            if case .attribute(let value) = value { return value }
            return ""
        }
        if Self.isNil(element.storage, element.index) {
            throw DecodingError.valueNotFound(type, context("Expected \(type), found xsi:nil"))
        }
        return element.storage.text(of: element.index)
    }

    func scalar<T: XMLScalar>(_ type: T.Type) throws -> T {
        let text = try text(for: type)
        guard let value = T(xmlText: T.trimsWhitespace ? trimmingXMLWhitespace(text) : text) else {
            throw DecodingError.dataCorrupted(context("The text is not a valid \(type)"))
        }
        return value
    }

    /// How ``unbox(_:)`` reads a type: found once per type by ``kind(of:)``, because the two
    /// protocol casts it takes are expensive when they fail: each costs more than decoding a
    /// small record's field.
    enum Kind {
        /// Read from text by ``XMLScalar``.
        case scalar(any XMLScalar.Type)
        case date
        case url
        case decimal
        /// Hex text for an `xs:hexBinary` field, else base64 or hex by
        /// ``XMLTreeDecoder/dataDecodingStrategy``.
        case data
        /// An ``XMLChoice``: read from the element that holds the property, with its schema if
        /// it has one (which fields are `xs:hexBinary`).
        case choice(XMLTypeSchema?)
        /// A type that describes itself: its own `init(from:)`, with its schema.
        case described(XMLTypeSchema)
        /// An array, decoded into reserved storage (``XMLDecodableArray``).
        case array(any XMLDecodableArray.Type)
        /// An array of ``XMLChoice``s: under a key, read from the holder's children that are
        /// the choice's elements; anywhere else, as any array.
        case choiceArray(any XMLChoiceArray.Type)
        /// Any other type: its own `init(from:)`.
        case decodable
    }

    /// Every type's ``Kind`` found so far in the process (one entry per type ever decoded). A
    /// look-up under the lock costs a fraction of the casts, which a one-record document would
    /// otherwise pay for its root, its array and its record type on every parse.
    private static let kinds = Locked<[ObjectIdentifier: Kind]>([:])

    /// What kind of value `type` is to ``unbox(_:)``.
    static func kind<T: Decodable>(of type: T.Type) -> Kind {
        let id = ObjectIdentifier(type)
        if let known = kinds.withLock({ $0[id] }) { return known }
        let kind = findKind(of: type)
        kinds.withLock { $0[id] = kind }
        return kind
    }

    private static func findKind<T: Decodable>(of type: T.Type) -> Kind {
        if let scalarType = type as? any XMLScalar.Type { return .scalar(scalarType) }
        if type == Date.self { return .date }
        if type == URL.self { return .url }
        if type == Decimal.self { return .decimal }
        if type == Data.self { return .data }
        if let choiceArrayType = type as? any XMLChoiceArray.Type { return .choiceArray(choiceArrayType) }
        if let arrayType = type as? any XMLDecodableArray.Type { return .array(arrayType) }
        if type is any XMLChoice.Type {
            let schema = (type as? any XMLSchemaType.Type)?.xmlSchema
            return .choice(schema?.fields.isEmpty == false ? schema : nil)
        }
        if let described = type as? any XMLSchemaType.Type {
            // Only a schema's fields change how a value is read (attributes, text, item names):
            // a schema without any reads as no schema, with nothing to look up per property.
            let schema = described.xmlSchema
            return schema.fields.isEmpty ? .decodable : .described(schema)
        }
        return .decodable
    }

    /// Decodes any `Decodable`, handling the types whose own `init(from:)` would not read text.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        try unbox(type, as: Self.kind(of: type))
    }

    /// ``unbox(_:)`` with the type's ``Kind`` known already.
    func unbox<T: Decodable>(_ type: T.Type, as kind: Kind) throws -> T {
        switch kind {
        case .decodable:
            if !options.derivedTypes.isEmpty, let derived = try derived(type) { return derived }
            schema = nil
            return try T(from: self)
        case .choice(let described):
            // Read from the holder's element, whose `xsi:type` is the holder's, not the choice's.
            schema = described
            return try T(from: self)
        case .described(let described):
            if !options.derivedTypes.isEmpty, let derived = try derived(type) { return derived }
            schema = described
            return try T(from: self)
        case .data:
            return try data() as! T
        case .scalar(let scalarType):
            return try scalar(scalarType) as! T
        case .date:
            return try date() as! T
        case .url:
            let text = trimmingXMLWhitespace(try text(for: URL.self))
            guard !text.isEmpty, let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(context("The text is not a valid URL"))
            }
            return url as! T
        case .decimal:
            let text = trimmingXMLWhitespace(try text(for: Decimal.self))
            guard Self.isDecimal(text), let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw DecodingError.dataCorrupted(context("The text is not a valid Decimal"))
            }
            return decimal as! T
        case .array(let arrayType):
            return try arrayType.init(xmlArrayFrom: self) as! T
        case .choiceArray(let arrayType):
            return try arrayType.init(xmlArrayFrom: self) as! T
        }
    }

    /// The value of the registered type the element's `xsi:type` names, when it is not `T`
    /// itself; `nil` when there is no `xsi:type` or it names `T`.
    private func derived<T: Decodable>(_ type: T.Type) throws -> T? {
        guard let element = try? singleElement(),
            let text = element.attribute(named: "type", namespaceURI: Self.schemaInstanceNamespace)
        else { return nil }
        let trimmed = trimmingXMLWhitespace(text)
        let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let prefix = parts.count == 2 ? String(parts[0]) : nil
        let name = XMLQualifiedName(String(parts.last ?? ""), namespaceURI: element.namespaceURI(forPrefix: prefix))
        guard let derivedType = options.derivedTypes[name], derivedType.id != ObjectIdentifier(type) else {
            return nil
        }
        guard let value = try derivedType.decode(self) as? T else {
            throw DecodingError.typeMismatch(type, context("The element's xsi:type names a registered type that is not a \(type)"))
        }
        return value
    }

    /// Decodes a type that describes itself, with its schema.
    func decodeDescribed<D: Decodable & XMLSchemaType>(_ type: D.Type) throws -> D {
        schema = D.xmlSchema
        return try D(from: self)
    }

    private func data() throws -> Data {
        let text = try text(for: Data.self)
        switch isHexBinary ? .hex : options.dataDecodingStrategy {
        case .base64:
            var compact = text
            compact.removeAll { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard let data = Data(base64Encoded: compact) else {
                throw DecodingError.dataCorrupted(context("The text is not base64"))
            }
            return data
        case .hex:
            let digits = Array(trimmingXMLWhitespace(text).utf8)
            guard digits.count % 2 == 0 else { throw DecodingError.dataCorrupted(context("The text is not hex")) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            func value(_ digit: UInt8) -> UInt8? {
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
                default: nil
                }
            }
            var index = 0
            while index < digits.count {
                guard let high = value(digits[index]), let low = value(digits[index + 1]) else {
                    throw DecodingError.dataCorrupted(context("The text is not hex"))
                }
                bytes.append(high << 4 | low)
                index += 2
            }
            return Data(bytes)
        }
    }

    private func date() throws -> Date {
        let text = try text(for: Date.self)
        let trimmed = trimmingXMLWhitespace(text)
        switch options.dateDecodingStrategy {
        case .iso8601:
            guard let date = Self.iso8601Date(trimmed) else {
                throw DecodingError.dataCorrupted(context("The text is not an ISO 8601 date with a time zone"))
            }
            return date
        case .secondsSince1970:
            guard let seconds = Double(trimmed), seconds.isFinite else {
                throw DecodingError.dataCorrupted(context("The text is not a number of seconds"))
            }
            return Date(timeIntervalSince1970: seconds)
        case .millisecondsSince1970:
            guard let milliseconds = Double(trimmed), milliseconds.isFinite else {
                throw DecodingError.dataCorrupted(context("The text is not a number of milliseconds"))
            }
            return Date(timeIntervalSince1970: milliseconds / 1000)
        case .custom(let parse):
            do {
                return try parse(text)
            } catch {
                throw DecodingError.dataCorrupted(context("The date could not be read", underlying: error))
            }
        }
    }

    /// The instant `text` names for ``XMLTreeDecoder/DateDecodingStrategy/iso8601``: an
    /// `xs:dateTime` with a time zone, read by ``XMLDateTime``, whose offset may also be written
    /// `±hhmm` or `±hh` as ISO 8601 allows; `nil` for any other text, among them a day or a time
    /// that does not exist (`2026-02-30`, `25:00`), which is never moved to another.
    static func iso8601Date(_ text: String) -> Date? {
        if let dateTime = XMLDateTime(lexicalForm: text), dateTime.utcOffset != nil { return dateTime.date }
        // `…+0100` or `…+01`: read as `…+01:00`.
        let bytes = Array(text.utf8)
        guard let time = bytes.firstIndex(of: UInt8(ascii: "T")),
            let sign = bytes.lastIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }), sign > time
        else { return nil }
        let digits = bytes[(sign + 1)...]
        guard digits.count == 4 || digits.count == 2, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        let minutes = digits.count == 4 ? String(decoding: digits.suffix(2), as: UTF8.self) : "00"
        let rewritten = String(decoding: bytes[...(sign + 2)], as: UTF8.self) + ":" + minutes
        guard let dateTime = XMLDateTime(lexicalForm: rewritten), dateTime.utcOffset != nil else { return nil }
        return dateTime.date
    }

    /// `[+-]digits[.digits]` or `[+-].digits`: what `xs:decimal` allows.
    static func isDecimal(_ text: String) -> Bool {
        var digits = 0
        var sawPoint = false
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): if sawPoint { return false } else { sawPoint = true }
            case UInt8(ascii: "+"), UInt8(ascii: "-"): if offset != 0 { return false }
            default: return false
            }
        }
        return digits > 0
    }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let element: XMLTree.Element
    let decoder: XMLElementDecoder
    /// The schema of the type being decoded, if it has one.
    let schema: XMLTypeSchema?
    /// Whether the container reads an ``XMLChoice`` among its holder's children: then only the
    /// first child that is one of the choice's elements is a key, so that the holder's other
    /// children do not count as a second case.
    let readsChoice: Bool
    /// For an item of an array of choices: the node index of its element, -1 when there is
    /// none; `nil` otherwise.
    var choiceChild: Int? = nil

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        if let choiceChild {
            guard choiceChild >= 0 else { return [] }
            return Key(stringValue: XMLTree.Element(storage: element.storage, index: choiceChild).name).map { [$0] } ?? []
        }
        if readsChoice {
            return element.children.lazy.compactMap { Key(stringValue: $0.name) }.first.map { [$0] } ?? []
        }
        var seen: Set<String> = []
        var keys: [Key] = []
        let names = element.children.map(\.name) + element.attributes.lazy.filter { !XMLElementDecoder.isSchemaInstance($0) }.map(\.name)
        for name in names where seen.insert(name).inserted {
            if let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    /// The key of an enum case's single unlabelled value, which Swift names `_0`: the value is the
    /// case's element itself.
    private static func isPositional(_ key: Key) -> Bool { key.stringValue == "_0" }

    /// The value of the element's first attribute with this local name that holds data: an
    /// attribute in the XML Schema instance namespace (`xsi:type`, `xsi:nil`) says how the element
    /// is read and is never a property's value.
    private func dataAttribute(named name: String) -> String? {
        let range = element.storage.attributeRange(of: element.index)
        guard !range.isEmpty else { return nil }
        return element.storage.attributes[range].first {
            $0.name == name && !XMLElementDecoder.isSchemaInstance($0)
        }?.value
    }

    /// How the schema describes the property, when it says it is an attribute or text.
    @inline(__always)
    private func fieldKind(_ key: Key) -> XMLTypeSchema.Field.Kind? {
        guard let schema, let field = schema.fields[key.stringValue], field.kind != .element else { return nil }
        return field.kind
    }

    func contains(_ key: Key) -> Bool {
        let name = key.stringValue
        switch fieldKind(key) {
        case .attribute?: return dataAttribute(named: name) != nil
        case .text?: return true
        default: break
        }
        if Self.isPositional(key) { return true }
        return element.firstChildIndex(named: name) != nil || dataAttribute(named: name) != nil
    }

    /// The path of a value under `key`, for errors only.
    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    /// The first child named `key`, found from where the last look-up stopped.
    @inline(__always)
    private func firstChild(named name: String) -> Int? {
        element.firstChildIndex(named: name, cursor: &decoder.cursor)
    }

    private func keyNotFound(_ key: Key) -> DecodingError {
        DecodingError.keyNotFound(key, DecodingError.Context(
            codingPath: codingPath, debugDescription: "No element or attribute named \(key.stringValue.debugDescription)"))
    }

    private func decoder(for key: Key) throws -> XMLElementDecoder {
        let name = key.stringValue
        let field = schema?.fields[name]
        let child: XMLElementDecoder
        switch field?.kind {
        case .attribute?:
            guard let attribute = dataAttribute(named: name) else { throw keyNotFound(key) }
            child = XMLElementDecoder(value: .attribute(attribute), parent: decoder, step: .key(key), options: decoder.options)
        case .text?:
            child = XMLElementDecoder(value: .attribute(element.text), parent: decoder, step: .key(key), options: decoder.options)
        case .element?, nil:
            if Self.isPositional(key) {
                // An enum case's value: an xs:hexBinary case's element is hex.
                let value = XMLElementDecoder(value: .element(element), parent: decoder, step: .key(key), options: decoder.options)
                value.isHexBinary = decoder.isHexBinary
                return value
            }
            let first = firstChild(named: name)
            if first == nil, let attribute = dataAttribute(named: name) {
                child = XMLElementDecoder(value: .attribute(attribute), parent: decoder, step: .key(key), options: decoder.options)
            } else {
                child = XMLElementDecoder(
                    value: .matches(parent: element, key: key, first: first), parent: decoder, step: .key(key),
                    options: decoder.options)
                child.itemName = field?.itemName
            }
        }
        if let field, field.isHexBinary { child.isHexBinary = true }
        return child
    }

    /// A decoder for an ``XMLChoice`` under `key`: the choice's elements are this element's
    /// children.
    private func choiceDecoder(for key: Key) -> XMLElementDecoder {
        let choice = XMLElementDecoder(value: .element(element), parent: decoder, step: .key(key), options: decoder.options)
        choice.readsChoice = true
        return choice
    }

    /// Reads a scalar under `key` without a decoder of its own; the same rules and errors as
    /// ``XMLElementDecoder/scalar(_:)`` on ``decoder(for:)``.
    @inline(__always)
    private func scalar<T: XMLScalar>(_ type: T.Type, forKey key: Key) throws -> T {
        if schema != nil && fieldKind(key) != nil || Self.isPositional(key) {
            return try decoder(for: key).scalar(type)
        }
        let name = key.stringValue
        let text: String
        if let child = firstChild(named: name) {
            if XMLElementDecoder.isNil(element.storage, child) {
                throw DecodingError.valueNotFound(type, DecodingError.Context(
                    codingPath: path(key), debugDescription: "Expected \(type), found xsi:nil"))
            }
            text = element.storage.text(of: child)
        } else if let attribute = dataAttribute(named: name) {
            text = attribute
        } else {
            throw keyNotFound(key)
        }
        guard let value = T(xmlText: T.trimsWhitespace ? trimmingXMLWhitespace(text) : text) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(key), debugDescription: "The text is not a valid \(type)"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let name = key.stringValue
        switch fieldKind(key) {
        case .attribute?: return dataAttribute(named: name) == nil
        // The encoder writes nothing for a `nil` text: no text reads back as `nil`.
        case .text?: return element.text.isEmpty
        default: break
        }
        if Self.isPositional(key) { return XMLElementDecoder.isNil(element) }
        if let child = firstChild(named: name) {
            return XMLElementDecoder.isNil(element.storage, child)
        }
        return dataAttribute(named: name) == nil
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let kind = XMLElementDecoder.kind(of: type)
        if case .choice = kind { return try choiceDecoder(for: key).unbox(type, as: kind) }
        if case .choiceArray(let arrayType) = kind { return try arrayType.init(xmlChoicesIn: element, key: key, holder: decoder) as! T }
        return try decoder(for: key).unbox(type, as: kind)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let kind = XMLElementDecoder.kind(of: type)
        if case .choice = kind {
            // Absent when none of the choice's elements is there.
            let choice = choiceDecoder(for: key)
            choice.choiceProbe = ChoiceProbe()
            do {
                return try choice.unbox(type, as: kind)
            } catch {
                if choice.choiceProbe?.matched == false { return nil }
                throw error
            }
        }
        if case .choiceArray(let arrayType) = kind { return try arrayType.init(xmlChoicesIn: element, key: key, holder: decoder) as? T }
        guard contains(key), !(try decodeNil(forKey: key)) else { return nil }
        return try decoder(for: key).unbox(type, as: kind)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        // The same coding path as this container's decoder.
        XMLElementDecoder(value: .element(element), parent: decoder.parent, step: decoder.step, options: decoder.options)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder(for: key)
    }
}

/// The children of an element (all, or those with one name), walked sibling by sibling.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let storage: XMLTree.Storage
    /// The node index of the next item, `end` when there is none.
    private var next: Int
    private let end: Int
    /// The local name items must have, `nil` for every child.
    private let name: String?
    /// Compares item names with ``name``.
    private var matcher: XMLTree.Storage.NameMatcher?
    let decoder: XMLElementDecoder
    private(set) var currentIndex = 0
    /// The last item's decoder, reused for the next item when nothing else holds it.
    private var spare: XMLElementDecoder?
    /// The type last decoded through ``decode(_:)``, and its kind.
    private var kindType: ObjectIdentifier?
    private var kind = XMLElementDecoder.Kind.decodable

    init(storage: XMLTree.Storage, first: Int, end: Int, name: String?, decoder: XMLElementDecoder) {
        self.storage = storage
        self.end = end
        self.name = name
        matcher = name.map { XMLTree.Storage.NameMatcher($0) }
        self.decoder = decoder
        next = first
        skipToMatch()
    }

    /// Moves `next` to the first sibling, from `next` on, that has the name.
    private mutating func skipToMatch() {
        guard matcher != nil else { return }
        while next < end, !matcher!.matches(next, in: storage) {
            next = storage.end(of: next)
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var count: Int? {
        var count = 0
        var index = next
        while index < end {
            if name == nil || storage.name(of: index) == name { count += 1 }
            index = storage.end(of: index)
        }
        return currentIndex + count
    }

    var isAtEnd: Bool { next >= end }

    private mutating func advance() {
        next = storage.end(of: next)
        currentIndex += 1
        skipToMatch()
    }

    private mutating func nextDecoder<T>(for type: T.Type) throws -> XMLElementDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [XMLCodingKey(index: currentIndex)],
                debugDescription: "There are only \(count ?? currentIndex) elements"))
        }
        let element = XMLTree.Element(storage: storage, index: next)
        let item: XMLElementDecoder
        if spare != nil, isKnownUniquelyReferenced(&spare!) {
            item = spare!
            item.value = .element(element)
            item.step = .index(currentIndex)
        } else {
            item = XMLElementDecoder(value: .element(element), parent: decoder, step: .index(currentIndex), options: decoder.options)
            // The items of an xs:hexBinary field's array are hex.
            item.isHexBinary = decoder.isHexBinary
            spare = item
        }
        advance()
        return item
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, XMLElementDecoder.isNil(storage, next) else { return false }
        advance()
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // The items of an array are usually all of one type: its kind is found once.
        let id = ObjectIdentifier(type)
        if id != kindType {
            kind = XMLElementDecoder.kind(of: type)
            kindType = id
        }
        return try nextDecoder(for: type).unbox(type, as: kind)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try nextDecoder(for: KeyedDecodingContainer<NestedKey>.self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder(for: [Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let item = try nextDecoder(for: Any.self)
        // Handed out: never reuse it.
        spare = nil
        return item
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: XMLElementDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNil }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.unbox(type) }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.scalar(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.scalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.scalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.scalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.scalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.scalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.scalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.scalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.scalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.scalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.scalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.scalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.scalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.scalar(type) }
}

/// Whether the keyed container of an optional choice found one of the choice's elements.
struct ChoiceProbe {
    var matched = false
}

/// Where an item of an array of choices is looked for in its holder, and what was found.
struct ChoiceItem {
    /// The node index from which the item's element is looked for.
    var from: Int
    /// The node index of the item's element: `nil` when no element from ``from`` on is one of
    /// the choice's.
    var found: Int?
}

// MARK: - Arrays

/// An array decoded into storage reserved for all its items at once.
///
/// `Array.init(from:)` appends item by item, so a large array is copied each time it doubles and
/// its final storage is up to twice the items' size; the container knows the count up front (a
/// walk over sibling indices), so the array is allocated once, at its final size. Otherwise the
/// same as `Array.init(from:)`: items decoded in order through the same unkeyed container.
protocol XMLDecodableArray {
    init(xmlArrayFrom decoder: XMLElementDecoder) throws
}

extension Array: XMLDecodableArray where Element: Decodable {
    init(xmlArrayFrom decoder: XMLElementDecoder) throws {
        var container = try decoder.unkeyedContainer()
        self.init()
        if let count = container.count { reserveCapacity(count) }
        while !container.isAtEnd {
            append(try container.decode(Element.self))
        }
    }
}

/// An array of ``XMLChoice``s under a key: the items are the holder's children that are one of
/// the choice's elements, in document order, with no element of the key's name (an XML Schema
/// choice or substitution group with `maxOccurs` above 1).
protocol XMLChoiceArray: XMLDecodableArray {
    init(xmlChoicesIn holder: XMLTree.Element, key: any CodingKey, holder decoder: XMLElementDecoder) throws
}

extension Array: XMLChoiceArray where Element: XMLChoice & Decodable {
    init(xmlChoicesIn holder: XMLTree.Element, key: any CodingKey, holder decoder: XMLElementDecoder) throws {
        self.init()
        // The choice's schema, if it has one: which of its elements are xs:hexBinary.
        var schema: XMLTypeSchema?
        if case .choice(let described) = XMLElementDecoder.kind(of: Element.self) { schema = described }
        let end = holder.storage.end(of: holder.index)
        var from = holder.index + 1
        while from < end {
            let item = XMLElementDecoder(value: .element(holder), parent: decoder, step: .key(key), options: decoder.options)
            item.readsChoice = true
            item.schema = schema
            item.choiceItem = ChoiceItem(from: from)
            let value: Element
            do {
                value = try Element(from: item)
            } catch {
                // No element of the choice's is left: the array ends.
                if let choiceItem = item.choiceItem, choiceItem.found == nil { return }
                throw error
            }
            guard let found = item.choiceItem?.found else { return }
            append(value)
            from = holder.storage.end(of: found)
        }
    }
}

// MARK: - Keys and scalars

/// A coding key for element names and array positions.
///
/// 24 bytes (a string and an integer, `Int.min` standing for no integer), so that it fits an
/// existential's inline buffer: a coding path of these allocates no box per key.
struct XMLCodingKey: CodingKey {
    let stringValue: String
    private let integer: Int

    var intValue: Int? { integer == .min ? nil : integer }

    init(_ name: String) {
        stringValue = name
        integer = .min
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        integer = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    /// `nil` for `Int.min`, which stands for no integer.
    init?(intValue: Int) {
        guard intValue != .min else { return nil }
        self.init(index: intValue)
    }
}

/// A type read directly from an element's text.
protocol XMLScalar {
    /// Whether surrounding XML whitespace is trimmed before reading.
    static var trimsWhitespace: Bool { get }
    init?(xmlText: String)
}

extension XMLScalar {
    static var trimsWhitespace: Bool { true }
}

extension String: XMLScalar {
    static var trimsWhitespace: Bool { false }
    init?(xmlText: String) { self = xmlText }
}

extension Bool: XMLScalar {
    init?(xmlText: String) {
        switch xmlText {
        case "true", "1": self = true
        case "false", "0": self = false
        default: return nil
        }
    }
}

extension Double: XMLScalar {
    init?(xmlText: String) { self.init(xmlText) }
}

extension Float: XMLScalar {
    init?(xmlText: String) { self.init(xmlText) }
}

extension Int: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension Int8: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension Int16: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension Int32: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension Int64: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension UInt: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension UInt8: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension UInt16: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension UInt32: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }
extension UInt64: XMLScalar { init?(xmlText: String) { self.init(xmlText) } }

/// `text` without leading and trailing XML whitespace (space, tab, CR, LF).
///
/// `text` itself, not a copy, when there is nothing to trim: the usual case for numbers and
/// dates, which are read from trimmed text.
func trimmingXMLWhitespace(_ text: String) -> String {
    let isWhitespace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    let utf8 = text.utf8
    guard let firstByte = utf8.first, let lastByte = utf8.last else { return text }
    if !isWhitespace(firstByte) && !isWhitespace(lastByte) { return text }
    guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
        let last = utf8.lastIndex(where: { !isWhitespace($0) })
    else { return "" }
    return String(text[first...last])
}
