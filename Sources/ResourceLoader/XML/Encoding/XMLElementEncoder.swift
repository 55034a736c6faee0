import Foundation

/// The `Encoder` behind ``XMLTreeEncoder``: one per value placed somewhere in the tree being
/// built (an element, an array's items, an attribute or an element's text).
final class XMLElementEncoder: Encoder {
    /// Where a value goes that has not made its element yet.
    struct Placement {
        /// The element the value goes into.
        var parent: XMLEncodingNode
        /// The value's element (or attribute) name.
        var name: XMLQualifiedName
        /// How the holding type's schema describes the value, if it does.
        var field: XMLTypeSchema.Field?
        /// Whether an array's items are elements named ``name`` in ``parent`` (an unwrapped
        /// array under a key), rather than items inside an element of their own.
        var repeatsInParent: Bool
    }

    /// What the encoder writes into.
    enum Target {
        /// A value not yet written: it makes its element (or attribute) when it is.
        case pending(Placement)
        /// An element made already: keyed containers add to it, a single value is its text.
        case element(XMLEncodingNode)
    }

    let options: XMLTreeEncoder
    let codingPath: [any CodingKey]
    private(set) var target: Target
    /// The `xsi:type` the element gets when it is made: a subclass sent as its base class.
    var schemaType: XMLQualifiedName?
    /// The schema of the type being encoded, set by ``box(_:)`` before `encode(to:)`.
    var schema: XMLTypeSchema?
    /// The element the value's own element was made in, once made from a placement.
    private(set) var madeIn: XMLEncodingNode?

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(options: XMLTreeEncoder, codingPath: [any CodingKey], target: Target) {
        self.options = options
        self.codingPath = codingPath
        self.target = target
    }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, node: element()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch target {
        case .pending(let placement) where placement.repeatsInParent && placement.field?.itemName == nil:
            return UnkeyedContainer(encoder: self, parent: placement.parent, itemName: placement.name, itemField: placement.field)
        case .pending(let placement):
            let wrapper = element()
            let itemName = XMLQualifiedName(placement.field?.itemName ?? "item", namespaceURI: placement.name.namespaceURI)
            return UnkeyedContainer(encoder: self, parent: wrapper, itemName: itemName, itemField: placement.field.map {
                XMLTypeSchema.Field(isNillable: $0.isNillable)
            })
        case .element(let node):
            return UnkeyedContainer(encoder: self, parent: node, itemName: XMLQualifiedName("item", namespaceURI: node.name.namespaceURI), itemField: nil)
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// The value's element, made (in its parent) on first use.
    func element() -> XMLEncodingNode {
        switch target {
        case .element(let node):
            return node
        case .pending(let placement):
            let node = XMLEncodingNode(name: placement.name)
            node.schemaType = schemaType
            if let kind = placement.field?.kind, kind != .element {
                // The containers cannot throw: the writer reports it.
                node.misplacedAt = codingPath
            }
            placement.parent.children.append(node)
            target = .element(node)
            madeIn = placement.parent
            return node
        }
    }

    // MARK: Values

    func context(_ description: String) -> EncodingError.Context {
        EncodingError.Context(codingPath: codingPath, debugDescription: description)
    }

    /// Writes a value's text: as an attribute, the parent's text or an element of its own.
    func write(text: String) throws {
        let escaped: String
        do {
            escaped = try XMLWriter.escape(text, inAttribute: isAttribute, of: "")
        } catch {
            throw EncodingError.invalidValue(text, context("The text holds a character XML 1.0 does not allow"))
        }
        switch target {
        case .pending(let placement):
            switch placement.field?.kind {
            case .attribute?:
                placement.parent.attributes.append((placement.name, escaped))
            case .text?:
                placement.parent.escapedText += escaped
            case .element?, nil:
                element().escapedText += escaped
            }
        case .element(let node):
            node.escapedText += escaped
        }
    }

    private var isAttribute: Bool {
        if case .pending(let placement) = target, placement.field?.kind == .attribute { return true }
        return false
    }

    /// Writes `nil`: `xsi:nil` on an element of its own; nothing for an attribute or text.
    func writeNil() {
        switch target {
        case .pending(let placement):
            guard placement.field?.kind ?? .element == .element else { return }
            element().isNil = true
        case .element(let node):
            node.isNil = true
        }
    }

    /// Encodes any value, handling the types whose own `encode(to:)` would not write text.
    func box<T: Encodable>(_ value: T) throws {
        switch value {
        case let string as String: try write(text: string)
        case let bool as Bool: try write(text: bool ? "true" : "false")
        case let double as Double: try write(text: Self.text(of: double))
        case let float as Float: try write(text: Self.text(of: float))
        case let decimal as Decimal: try write(text: try text(of: decimal))
        case let date as Date: try write(text: try text(of: date))
        case let data as Data: try write(text: text(of: data))
        case let url as URL: try write(text: url.absoluteString)
        case let element as XMLTree.Element: try writeRaw(element)
        case is any XMLScalarEncodable: try write(text: (value as! any XMLScalarEncodable).xmlText)
        default:
            let dynamicType = type(of: value as Any)
            let described = dynamicType as? any XMLSchemaType.Type
            schema = described?.xmlSchema
            if T.self is AnyObject.Type, dynamicType != T.self, let typeName = schema?.typeName {
                schemaType = typeName
            }
            try value.encode(to: self)
        }
    }

    /// Writes a parsed element as it is, in place of the value's own element.
    private func writeRaw(_ element: XMLTree.Element) throws {
        switch target {
        case .pending(let placement):
            guard placement.field?.kind ?? .element == .element else {
                throw EncodingError.invalidValue(element, context("An XMLTree.Element can only be written as an element"))
            }
            let node = XMLEncodingNode(name: placement.name)
            node.raw = element
            placement.parent.children.append(node)
            target = .element(node)
        case .element(let node):
            let child = XMLEncodingNode(name: node.name)
            child.raw = element
            node.children.append(child)
        }
    }

    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-INF" : "INF" }
        return "\(value)"
    }

    static func text(of value: Float) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-INF" : "INF" }
        return "\(value)"
    }

    func text(of value: Decimal) throws -> String {
        guard !value.isNaN else {
            throw EncodingError.invalidValue(value, context("A Decimal NaN has no xs:decimal form"))
        }
        // Decimal's description is its own digits, never an exponent; checked all the same.
        let text = value.description
        guard XMLElementDecoder.isDecimal(text) else {
            throw EncodingError.invalidValue(value, context("The Decimal has no xs:decimal form"))
        }
        return text
    }

    func text(of date: Date) throws -> String {
        switch options.dateEncodingStrategy {
        case .iso8601:
            guard let text = XMLDateTime(date, utcOffset: 0).lexicalForm else {
                throw EncodingError.invalidValue(date, context("The date is outside the years 0001 to 9999"))
            }
            return text
        case .secondsSince1970:
            return Self.text(of: date.timeIntervalSince1970)
        case .millisecondsSince1970:
            return Self.text(of: date.timeIntervalSince1970 * 1000)
        case .custom(let format):
            return try format(date)
        }
    }

    func text(of data: Data) -> String {
        switch options.dataEncodingStrategy {
        case .base64:
            return data.base64EncodedString()
        case .hex:
            let digits = Array("0123456789ABCDEF".utf8)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(data.count * 2)
            for byte in data {
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Throws unless `name` is an XML name without a colon.
    static func checkName(_ name: String, codingPath: [any CodingKey]) throws {
        do {
            try XMLWriter.checkName(name, allowingPrefix: false)
        } catch {
            throw EncodingError.invalidValue(name, EncodingError.Context(
                codingPath: codingPath, debugDescription: "\(name.debugDescription) is not a valid XML name"))
        }
    }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: XMLElementEncoder
    let node: XMLEncodingNode

    var codingPath: [any CodingKey] { encoder.codingPath }

    /// The key of an enum case's single unlabelled value, which Swift names `_0`: the value is the
    /// case's element itself.
    static func isPositional(_ key: Key) -> Bool { key.stringValue == "_0" }

    /// Where the value under `key` goes.
    private func placement(for key: Key) throws -> XMLElementEncoder.Placement {
        let name = key.stringValue
        try XMLElementEncoder.checkName(name, codingPath: codingPath + [key])
        let schema = encoder.schema
        let field = schema?.fields[name]
        let options = encoder.options
        let typeNamespace = schema?.namespace ?? node.name.namespaceURI
        let namespace: String?
        if let explicit = field?.namespace {
            namespace = explicit
        } else if field?.kind == .attribute {
            let form = field?.form ?? schema?.attributeForm ?? options.attributeFormDefault
            namespace = form == .qualified ? typeNamespace : nil
        } else {
            let form = field?.form ?? schema?.elementForm ?? options.elementFormDefault
            namespace = form == .qualified ? typeNamespace : nil
        }
        return XMLElementEncoder.Placement(
            parent: node, name: XMLQualifiedName(name, namespaceURI: namespace), field: field, repeatsInParent: true)
    }

    private func encoder(for key: Key) throws -> XMLElementEncoder {
        XMLElementEncoder(options: encoder.options, codingPath: codingPath + [key], target: .pending(try placement(for: key)))
    }

    mutating func encodeNil(forKey key: Key) throws {
        let child = try encoder(for: key)
        guard case .pending(let placement) = child.target else { return }
        let nillable = placement.field?.isNillable ?? (encoder.options.nilEncodingStrategy == .xsiNil)
        if nillable { child.writeNil() }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if Self.isPositional(key) {
            // The enum case's element is this container's own: write the value into it.
            let inner = XMLElementEncoder(options: encoder.options, codingPath: codingPath + [key], target: .element(node))
            inner.schemaType = encoder.schemaType
            if value is any XMLChoice || value is XMLTree.Element || value is any XMLEncodableArray,
                node.isEmpty, let parent = encoder.madeIn, parent.children.last === node
            {
                // Its own elements replace the case's element.
                parent.children.removeLast()
                try encodeReplacing(value, key: key, parent: parent)
                return
            }
            try inner.box(value)
            return
        }
        if value is any XMLChoice {
            // A choice writes its case's element here, with no element of its own.
            let inner = XMLElementEncoder(options: encoder.options, codingPath: codingPath + [key], target: .element(node))
            try inner.box(value)
            return
        }
        try encoder(for: key).box(value)
    }

    /// Encodes an enum case's value in place of the case's element, in `parent`.
    private func encodeReplacing<T: Encodable>(_ value: T, key: Key, parent: XMLEncodingNode) throws {
        if value is any XMLChoice {
            try XMLElementEncoder(options: encoder.options, codingPath: codingPath + [key], target: .element(parent)).box(value)
            return
        }
        let placement = XMLElementEncoder.Placement(parent: parent, name: node.name, field: nil, repeatsInParent: true)
        try XMLElementEncoder(options: encoder.options, codingPath: codingPath + [key], target: .pending(placement)).box(value)
    }

    /// Writes a scalar's text under `key` directly into the element, without an encoder of its
    /// own: the same output as ``encode(_:forKey:)`` through ``XMLElementEncoder/write(text:)``.
    private func writeScalar(_ text: String, forKey key: Key) throws {
        func escaped(inAttribute: Bool) throws -> String {
            do {
                return try XMLWriter.escape(text, inAttribute: inAttribute, of: "")
            } catch {
                throw EncodingError.invalidValue(text, EncodingError.Context(
                    codingPath: codingPath + [key], debugDescription: "The text holds a character XML 1.0 does not allow"))
            }
        }
        if Self.isPositional(key) {
            node.escapedText += try escaped(inAttribute: false)
            return
        }
        let placement = try placement(for: key)
        switch placement.field?.kind {
        case .attribute?:
            node.attributes.append((placement.name, try escaped(inAttribute: true)))
        case .text?:
            node.escapedText += try escaped(inAttribute: false)
        case .element?, nil:
            let child = XMLEncodingNode(name: placement.name)
            child.escapedText = try escaped(inAttribute: false)
            node.children.append(child)
        }
    }

    mutating func encode(_ value: String, forKey key: Key) throws { try writeScalar(value, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try writeScalar(value ? "true" : "false", forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try writeScalar(XMLElementEncoder.text(of: value), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try writeScalar(XMLElementEncoder.text(of: value), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try writeScalar(String(value), forKey: key) }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return try encodeNil(forKey: key) }
        try encode(value, forKey: key)
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeIfPresentValue(value, forKey: key) }

    private mutating func encodeIfPresentValue<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return try encodeNil(forKey: key) }
        try encode(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        // A name that is not an XML name is reported when the element is written into.
        let child = (try? encoder(for: key)) ?? XMLElementEncoder(
            options: encoder.options, codingPath: codingPath + [key],
            target: .pending(.init(parent: node, name: XMLQualifiedName(key.stringValue), field: nil, repeatsInParent: true)))
        return child.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = (try? encoder(for: key)) ?? XMLElementEncoder(
            options: encoder.options, codingPath: codingPath + [key],
            target: .pending(.init(parent: node, name: XMLQualifiedName(key.stringValue), field: nil, repeatsInParent: true)))
        return child.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let inner = XMLElementEncoder(options: encoder.options, codingPath: codingPath, target: .element(node))
        inner.schema = encoder.schema
        return inner
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        (try? encoder(for: key)) ?? XMLElementEncoder(
            options: encoder.options, codingPath: codingPath + [key],
            target: .pending(.init(parent: node, name: XMLQualifiedName(key.stringValue), field: nil, repeatsInParent: true)))
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: XMLElementEncoder
    let parent: XMLEncodingNode
    let itemName: XMLQualifiedName
    let itemField: XMLTypeSchema.Field?
    private(set) var count = 0

    init(encoder: XMLElementEncoder, parent: XMLEncodingNode, itemName: XMLQualifiedName, itemField: XMLTypeSchema.Field?) {
        self.encoder = encoder
        self.parent = parent
        self.itemName = itemName
        self.itemField = itemField
    }

    var codingPath: [any CodingKey] { encoder.codingPath }

    private mutating func nextEncoder() -> XMLElementEncoder {
        let key = XMLCodingKey(index: count)
        count += 1
        // Items are elements; an attribute or text field's array still writes elements.
        let field = itemField.map { XMLTypeSchema.Field(isNillable: $0.isNillable) }
        return XMLElementEncoder(
            options: encoder.options, codingPath: codingPath + [key],
            target: .pending(.init(parent: parent, name: itemName, field: field, repeatsInParent: false)))
    }

    mutating func encodeNil() throws {
        nextEncoder().writeNil()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try nextEncoder().box(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nextEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nextEncoder()
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: XMLElementEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    func encodeNil() throws { encoder.writeNil() }
    func encode<T: Encodable>(_ value: T) throws { try encoder.box(value) }
    func encode(_ value: Bool) throws { try encoder.write(text: value ? "true" : "false") }
    func encode(_ value: String) throws { try encoder.write(text: value) }
    func encode(_ value: Double) throws { try encoder.write(text: XMLElementEncoder.text(of: value)) }
    func encode(_ value: Float) throws { try encoder.write(text: XMLElementEncoder.text(of: value)) }
    func encode(_ value: Int) throws { try encoder.write(text: String(value)) }
    func encode(_ value: Int8) throws { try encoder.write(text: String(value)) }
    func encode(_ value: Int16) throws { try encoder.write(text: String(value)) }
    func encode(_ value: Int32) throws { try encoder.write(text: String(value)) }
    func encode(_ value: Int64) throws { try encoder.write(text: String(value)) }
    func encode(_ value: UInt) throws { try encoder.write(text: String(value)) }
    func encode(_ value: UInt8) throws { try encoder.write(text: String(value)) }
    func encode(_ value: UInt16) throws { try encoder.write(text: String(value)) }
    func encode(_ value: UInt32) throws { try encoder.write(text: String(value)) }
    func encode(_ value: UInt64) throws { try encoder.write(text: String(value)) }
}

// MARK: - Scalars and arrays

/// The integer types, written in decimal.
protocol XMLScalarEncodable {
    var xmlText: String { get }
}

extension Int: XMLScalarEncodable { var xmlText: String { String(self) } }
extension Int8: XMLScalarEncodable { var xmlText: String { String(self) } }
extension Int16: XMLScalarEncodable { var xmlText: String { String(self) } }
extension Int32: XMLScalarEncodable { var xmlText: String { String(self) } }
extension Int64: XMLScalarEncodable { var xmlText: String { String(self) } }
extension UInt: XMLScalarEncodable { var xmlText: String { String(self) } }
extension UInt8: XMLScalarEncodable { var xmlText: String { String(self) } }
extension UInt16: XMLScalarEncodable { var xmlText: String { String(self) } }
extension UInt32: XMLScalarEncodable { var xmlText: String { String(self) } }
extension UInt64: XMLScalarEncodable { var xmlText: String { String(self) } }

/// Arrays, recognised as such when an enum case holds one.
protocol XMLEncodableArray {}
extension Array: XMLEncodableArray {}
