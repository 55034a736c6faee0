import Foundation

/// The `Decoder` behind ``XMLTreeDecoder``: one per value being decoded.
final class XMLElementDecoder: Decoder {
    /// What a decoder reads from.
    enum Value {
        /// One element: the top level, or an item of an array. As an array, its children.
        case element(XMLTree.Element)
        /// The child elements that matched a key (possibly none). As an array, all of them;
        /// as anything else, the first.
        case matches([XMLTree.Element], key: any CodingKey)
        /// An attribute's value, matched by a key.
        case attribute(String)
    }

    static let schemaInstanceNamespace = "http://www.w3.org/2001/XMLSchema-instance"

    let value: Value
    let codingPath: [any CodingKey]
    let options: XMLTreeDecoder

    init(value: Value, codingPath: [any CodingKey], options: XMLTreeDecoder) {
        self.value = value
        self.codingPath = codingPath
        self.options = options
    }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let element = try singleElement() else {
            throw DecodingError.typeMismatch([String: Any].self, context("Expected an element, found an attribute value"))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(element: element, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .element(let element):
            return UnkeyedContainer(items: element.children, decoder: self)
        case .matches(let elements, _):
            return UnkeyedContainer(items: elements, decoder: self)
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
        case .matches(let elements, let key):
            guard let first = elements.first else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: codingPath.dropLast(),
                    debugDescription: "No element or attribute named \(key.stringValue.debugDescription)"))
            }
            return first
        case .attribute:
            return nil
        }
    }

    /// Whether the value is absent or marked `xsi:nil`.
    var isNil: Bool {
        switch value {
        case .element(let element):
            return Self.isNil(element)
        case .matches(let elements, _):
            return elements.first.map(Self.isNil) ?? true
        case .attribute:
            return false
        }
    }

    static func isNil(_ element: XMLTree.Element) -> Bool {
        guard let marker = element.attribute(named: "nil", namespaceURI: schemaInstanceNamespace) else { return false }
        let trimmed = trimmingXMLWhitespace(marker)
        return trimmed == "true" || trimmed == "1"
    }

    /// The text of the value; throws `valueNotFound` for `xsi:nil`.
    func text<T>(for type: T.Type) throws -> String {
        guard let element = try singleElement() else {
            if case .attribute(let value) = value { return value }
            return ""
        }
        if Self.isNil(element) {
            throw DecodingError.valueNotFound(type, context("Expected \(type), found xsi:nil"))
        }
        return element.text
    }

    func scalar<T: XMLScalar>(_ type: T.Type) throws -> T {
        let text = try text(for: type)
        guard let value = T(xmlText: T.trimsWhitespace ? trimmingXMLWhitespace(text) : text) else {
            throw DecodingError.dataCorrupted(context("The text is not a valid \(type)"))
        }
        return value
    }

    /// Decodes any `Decodable`, handling the types whose own `init(from:)` would not read text.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalarType = type as? any XMLScalar.Type {
            return try scalar(scalarType) as! T
        }
        if type == Date.self {
            return try date() as! T
        }
        if type == URL.self {
            let text = trimmingXMLWhitespace(try text(for: URL.self))
            guard !text.isEmpty, let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(context("The text is not a valid URL"))
            }
            return url as! T
        }
        if type == Decimal.self {
            let text = trimmingXMLWhitespace(try text(for: Decimal.self))
            guard Self.isDecimal(text), let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw DecodingError.dataCorrupted(context("The text is not a valid Decimal"))
            }
            return decimal as! T
        }
        return try T(from: self)
    }

    private func date() throws -> Date {
        let text = try text(for: Date.self)
        let trimmed = trimmingXMLWhitespace(text)
        switch options.dateDecodingStrategy {
        case .iso8601:
            if let date = try? Date(trimmed, strategy: .iso8601) { return date }
            if let date = try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            throw DecodingError.dataCorrupted(context("The text is not an ISO 8601 date with a time zone"))
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

    /// `[+-]digits[.digits]` or `[+-].digits`: what `xs:decimal` allows.
    private static func isDecimal(_ text: String) -> Bool {
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

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var seen: Set<String> = []
        var keys: [Key] = []
        let names = element.children.map(\.name) + element.attributes.map(\.name)
        for name in names where seen.insert(name).inserted {
            if let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        element.child(named: key.stringValue) != nil || element.attribute(named: key.stringValue) != nil
    }

    private func decoder(for key: Key) -> XMLElementDecoder {
        let path = codingPath + [key]
        let matches = element.children(named: key.stringValue)
        if matches.isEmpty, let attribute = element.attribute(named: key.stringValue) {
            return XMLElementDecoder(value: .attribute(attribute), codingPath: path, options: decoder.options)
        }
        return XMLElementDecoder(value: .matches(matches, key: key), codingPath: path, options: decoder.options)
    }

    func decodeNil(forKey key: Key) throws -> Bool { decoder(for: key).isNil }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key).unbox(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).scalar(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).scalar(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(for: key).scalar(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder(for: key).scalar(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).scalar(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(for: key).scalar(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(for: key).scalar(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(for: key).scalar(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(for: key).scalar(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(for: key).scalar(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(for: key).scalar(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(for: key).scalar(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(for: key).scalar(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(for: key).scalar(type) }

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
        XMLElementDecoder(value: .element(element), codingPath: codingPath, options: decoder.options)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder(for: key)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [XMLTree.Element]
    let decoder: XMLElementDecoder
    private(set) var currentIndex = 0

    init(items: [XMLTree.Element], decoder: XMLElementDecoder) {
        self.items = items
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func nextDecoder<T>(for type: T.Type) throws -> XMLElementDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [XMLCodingKey(index: currentIndex)],
                debugDescription: "There are only \(items.count) elements"))
        }
        let item = XMLElementDecoder(
            value: .element(items[currentIndex]),
            codingPath: codingPath + [XMLCodingKey(index: currentIndex)],
            options: decoder.options)
        currentIndex += 1
        return item
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, XMLElementDecoder.isNil(items[currentIndex]) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try nextDecoder(for: type).unbox(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try nextDecoder(for: KeyedDecodingContainer<NestedKey>.self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder(for: [Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try nextDecoder(for: Any.self)
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

// MARK: - Keys and scalars

/// A coding key for element names and array positions.
struct XMLCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ name: String) {
        stringValue = name
        intValue = nil
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
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
func trimmingXMLWhitespace(_ text: String) -> String {
    let isWhitespace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    let utf8 = text.utf8
    guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
        let last = utf8.lastIndex(where: { !isWhitespace($0) })
    else { return "" }
    return String(text[first...last])
}
