import Foundation

/// The `Encoder` behind ``XMLTreeEncoder``: one per value placed somewhere in the document
/// being written (an element, an array's items, an attribute or an element's text).
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

    /// The last step of an encoder's coding path, kept as it came until the path is asked for.
    enum PathStep {
        case none
        case key(any CodingKey)
        case index(Int)
    }

    let sink: XMLEncodingSink
    /// The encoder whose coding path this one's extends, and the step it adds.
    private let parent: XMLElementEncoder?
    private let step: PathStep
    private(set) var target: Target
    /// The `xsi:type` the element gets when it is made: a subclass sent as its base class.
    var schemaType: XMLQualifiedName?
    /// The schema of the type being encoded, set by ``box(_:)`` before `encode(to:)`.
    var schema: XMLTypeSchema?
    /// The element the value's own element was made in, once made from a placement.
    private(set) var madeIn: XMLEncodingNode?
    /// Whether the holding type's schema says the value is `xs:hexBinary`: kept once the
    /// value's element is made, for an enum case's value written into it.
    var isHexBinary: Bool

    var options: XMLTreeEncoder { sink.options }
    var userInfo: [CodingUserInfoKey: Any] { sink.options.userInfo }

    /// The coding path, made only when asked for (by `encode(to:)` or for an error).
    var codingPath: [any CodingKey] {
        var steps: [PathStep] = []
        var encoder: XMLElementEncoder? = self
        while let current = encoder {
            steps.append(current.step)
            encoder = current.parent
        }
        return steps.reversed().compactMap { step in
            switch step {
            case .none: nil
            case .key(let key): key
            case .index(let index): XMLCodingKey(index: index)
            }
        }
    }

    init(sink: XMLEncodingSink, parent: XMLElementEncoder?, step: PathStep, target: Target) {
        self.sink = sink
        self.parent = parent
        self.step = step
        self.target = target
        if case .pending(let placement) = target {
            isHexBinary = placement.field?.isHexBinary == true
        } else {
            isHexBinary = false
        }
    }

    /// An encoder with the same coding path as `other`, writing into `target`.
    convenience init(samePathAs other: XMLElementEncoder, target: Target) {
        self.init(sink: other.sink, parent: other.parent, step: other.step, target: target)
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
                XMLTypeSchema.Field(isNillable: $0.isNillable, isHexBinary: $0.isHexBinary)
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
            if !sink.isName(placement.name.localName) {
                // A key of a non-throwing container method, or an array's item name.
                node.invalidNameAt = codingPath
            }
            if let kind = placement.field?.kind, kind != .element {
                // The containers cannot throw: the writer reports it.
                node.misplacedAt = codingPath
            }
            sink.append(node, to: placement.parent)
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
        try write(.text(text))
    }

    /// Writes a value's text: as an attribute, the parent's text or an element of its own.
    func write(_ scalar: XMLScalarText) throws {
        let written: Bool
        switch target {
        case .pending(let placement):
            switch placement.field?.kind {
            case .attribute?:
                var escaped: [UInt8] = []
                written = scalar.write(inAttribute: true, into: &escaped)
                if written { try sink.addAttribute(placement.name, escapedValue: escaped, to: placement.parent) }
            case .text?:
                written = try sink.appendText(scalar, to: placement.parent)
            case .element?, nil:
                written = try sink.appendText(scalar, to: element())
            }
        case .element(let node):
            written = try sink.appendText(scalar, to: node)
        }
        guard written else {
            // The value is not quoted, in the error nor in its description.
            throw EncodingError.invalidValue("", context("The text holds a character XML 1.0 does not allow"))
        }
    }

    /// Writes `nil`: `xsi:nil` on an element of its own; nothing for an attribute or text.
    func writeNil() {
        switch target {
        case .pending(let placement):
            guard placement.field?.kind ?? .element == .element else { return }
            sink.setNil(element())
        case .element(let node):
            sink.setNil(node)
        }
    }

    /// Encodes any value, handling the types whose own `encode(to:)` would not write text.
    func box<T: Encodable>(_ value: T) throws {
        if let scalar = try scalarText(of: value, at: codingPath) {
            try write(scalar)
            return
        }
        // Told apart by their static type, as the scalars are: all are structs.
        switch ObjectIdentifier(T.self) {
        case ObjectIdentifier(Date.self): try write(text: try text(of: value as! Date))
        case ObjectIdentifier(Data.self): try write(text: text(of: value as! Data, hex: isHexBinary))
        case ObjectIdentifier(URL.self): try write(text: (value as! URL).absoluteString)
        case ObjectIdentifier(XMLTree.Element.self): try writeRaw(value as! XMLTree.Element)
        default:
            let dynamicType = type(of: value)
            schema = sink.schema(of: dynamicType)
            if dynamicType != T.self, T.self is AnyObject.Type, let typeName = schema?.typeName {
                try sink.checkName(typeName.localName, codingPath: codingPath)
                schemaType = typeName
                // A value written into an element made already (an enum case's) types that element.
                if case .element(let node) = target, node.schemaType == nil, node !== sink.document {
                    try sink.setSchemaType(typeName, of: node)
                }
            }
            try value.encode(to: self)
        }
    }

    /// The text of the value types with a text of their own, told apart by their static type
    /// (no dynamic cast for the others); `nil` for any other type.
    func scalarText<T>(of value: T, at path: @autoclosure () -> [any CodingKey]) throws -> XMLScalarText? {
        switch ObjectIdentifier(T.self) {
        case ObjectIdentifier(String.self): .text(value as! String)
        case ObjectIdentifier(Int.self): .signed(Int64(value as! Int))
        case ObjectIdentifier(Bool.self): .ascii((value as! Bool) ? "true" : "false")
        case ObjectIdentifier(Double.self): .ascii(Self.text(of: value as! Double))
        case ObjectIdentifier(Decimal.self): try Self.scalar(of: value as! Decimal, at: path())
        case ObjectIdentifier(Float.self): .ascii(Self.text(of: value as! Float))
        case ObjectIdentifier(Int64.self): .signed(value as! Int64)
        case ObjectIdentifier(Int32.self): .signed(Int64(value as! Int32))
        case ObjectIdentifier(Int16.self): .signed(Int64(value as! Int16))
        case ObjectIdentifier(Int8.self): .signed(Int64(value as! Int8))
        case ObjectIdentifier(UInt.self): .unsigned(UInt64(value as! UInt))
        case ObjectIdentifier(UInt64.self): .unsigned(value as! UInt64)
        case ObjectIdentifier(UInt32.self): .unsigned(UInt64(value as! UInt32))
        case ObjectIdentifier(UInt16.self): .unsigned(UInt64(value as! UInt16))
        case ObjectIdentifier(UInt8.self): .unsigned(UInt64(value as! UInt8))
        default: nil
        }
    }

    /// Writes a parsed element (see ``XMLEncodingNode/writeRaw(_:to:extraDeclarations:extraAttributes:omittingRootAttributes:)``)
    /// in place of the value's own element.
    private func writeRaw(_ element: XMLTree.Element) throws {
        switch target {
        case .pending(let placement):
            guard placement.field?.kind ?? .element == .element else {
                throw EncodingError.invalidValue(element, context("An XMLTree.Element can only be written as an element"))
            }
            target = .element(try sink.appendRaw(element, named: placement.name, to: placement.parent))
        case .element(let node):
            _ = try sink.appendRaw(element, named: node.name, to: node)
        }
    }

    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-INF" : "INF" }
        return value.description
    }

    static func text(of value: Float) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-INF" : "INF" }
        return value.description
    }

    /// A `Decimal`'s text, refused when it is NaN.
    static func scalar(of value: Decimal, at path: @autoclosure () -> [any CodingKey]) throws -> XMLScalarText {
        guard !value.isNaN else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: path(), debugDescription: "A Decimal NaN has no xs:decimal form"))
        }
        if XMLEscaping.decimalLayout != nil { return .decimal(value) }
        return .ascii(try text(of: value, at: path()))
    }

    static func text(of value: Decimal, at path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard !value.isNaN else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: path(), debugDescription: "A Decimal NaN has no xs:decimal form"))
        }
        // Decimal's description is its own digits, never an exponent; checked all the same.
        let text = value.description
        guard XMLElementDecoder.isDecimal(text) else {
            throw EncodingError.invalidValue("", EncodingError.Context(codingPath: path(), debugDescription: "The Decimal has no xs:decimal form"))
        }
        return text
    }

    func text(of date: Date) throws -> String {
        switch options.dateEncodingStrategy {
        case .iso8601:
            guard let text = XMLDateTime(date, utcOffset: 0).lexicalForm else {
                // The date is not quoted, in the error nor in its description.
                throw EncodingError.invalidValue("", context("The date is outside the years 0001 to 9999"))
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

    /// The text of `data`: hex when `hex` (an `xs:hexBinary` field), else by the
    /// ``XMLTreeEncoder/dataEncodingStrategy``.
    func text(of data: Data, hex: Bool) -> String {
        switch hex ? .hex : options.dataEncodingStrategy {
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
        try encoder.sink.checkName(name, codingPath: codingPath + [key])
        let schema = encoder.schema
        let field = schema?.fields[name]
        let typeNamespace = schema?.namespace ?? node.name.namespaceURI
        let namespace: String?
        if let explicit = field?.namespace {
            namespace = explicit
        } else if field?.kind == .attribute {
            let form = field?.form ?? schema?.attributeForm ?? encoder.options.attributeFormDefault
            namespace = form == .qualified ? typeNamespace : nil
        } else if encoder.sink.unqualifiedParts, node === encoder.sink.root {
            // An rpc/literal part accessor.
            namespace = nil
        } else {
            let form = field?.form ?? schema?.elementForm ?? encoder.options.elementFormDefault
            namespace = form == .qualified ? typeNamespace : nil
        }
        try XMLEncodingNode.checkReserved(name, namespace: namespace, isAttribute: field?.kind == .attribute, codingPath: codingPath + [key])
        return XMLElementEncoder.Placement(
            parent: node, name: XMLQualifiedName(name, namespaceURI: namespace), field: field, repeatsInParent: true)
    }

    private func encoder(for key: Key, target: XMLElementEncoder.Target) -> XMLElementEncoder {
        XMLElementEncoder(sink: encoder.sink, parent: encoder, step: .key(key), target: target)
    }

    private func encoder(for key: Key) throws -> XMLElementEncoder {
        encoder(for: key, target: .pending(try placement(for: key)))
    }

    /// An encoder for `key` from the non-throwing methods: a name that is not an XML name is
    /// reported when the element is written into.
    private func uncheckedEncoder(for key: Key) -> XMLElementEncoder {
        (try? encoder(for: key)) ?? encoder(for: key, target: .pending(
            .init(parent: node, name: XMLQualifiedName(key.stringValue), field: nil, repeatsInParent: true)))
    }

    mutating func encodeNil(forKey key: Key) throws {
        let child = try encoder(for: key)
        guard case .pending(let placement) = child.target else { return }
        let nillable = placement.field?.isNillable ?? (encoder.options.nilEncodingStrategy == .xsiNil)
        if nillable { child.writeNil() }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let scalar = try encoder.scalarText(of: value, at: codingPath + [key]) {
            return try writeScalar(scalar, forKey: key)
        }
        if Self.isPositional(key) {
            // The enum case's element is this container's own: write the value into it.
            let inner = encoder(for: key, target: .element(node))
            inner.schemaType = encoder.schemaType
            inner.isHexBinary = encoder.isHexBinary
            if value is any XMLChoice || value is XMLTree.Element || value is any XMLEncodableArray,
                let parent = encoder.madeIn, encoder.sink.isEmptyLastElement(node, of: parent)
            {
                // Its own elements replace the case's element.
                encoder.sink.removeEmptyLastElement(node, of: parent)
                try encodeReplacing(value, key: key, parent: parent)
                return
            }
            try inner.box(value)
            return
        }
        if value is any XMLChoice {
            // A choice writes its case's element here, with no element of its own.
            try encoder(for: key, target: .element(node)).box(value)
            return
        }
        if let choices = value as? any XMLEncodableChoiceArray {
            // So does each item of an array of choices, in order.
            for item in choices.xmlChoiceItems { try encoder(for: key, target: .element(node)).box(item) }
            return
        }
        try encoder(for: key).box(value)
    }

    /// Encodes an enum case's value in place of the case's element, in `parent`.
    private func encodeReplacing<T: Encodable>(_ value: T, key: Key, parent: XMLEncodingNode) throws {
        if value is any XMLChoice {
            try encoder(for: key, target: .element(parent)).box(value)
            return
        }
        let placement = XMLElementEncoder.Placement(parent: parent, name: node.name, field: nil, repeatsInParent: true)
        try encoder(for: key, target: .pending(placement)).box(value)
    }

    /// Writes a scalar's text under `key` directly into the element, without an encoder of its
    /// own: the same output as ``encode(_:forKey:)`` through ``XMLElementEncoder/write(_:)``.
    private func writeScalar(_ text: XMLScalarText, forKey key: Key) throws {
        let sink = encoder.sink
        let written: Bool
        if Self.isPositional(key) {
            written = try sink.appendText(text, to: node)
        } else {
            let placement = try placement(for: key)
            switch placement.field?.kind {
            case .attribute?:
                var escaped: [UInt8] = []
                written = text.write(inAttribute: true, into: &escaped)
                if written { try sink.addAttribute(placement.name, escapedValue: escaped, to: node) }
            case .text?:
                written = try sink.appendText(text, to: node)
            case .element?, nil:
                written = try sink.appendTextElement(named: placement.name, in: node, text: text)
            }
        }
        guard written else {
            throw EncodingError.invalidValue("", EncodingError.Context(
                codingPath: codingPath + [key], debugDescription: "The text holds a character XML 1.0 does not allow"))
        }
    }

    mutating func encode(_ value: String, forKey key: Key) throws { try writeScalar(.text(value), forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try writeScalar(.ascii(value ? "true" : "false"), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try writeScalar(.ascii(XMLElementEncoder.text(of: value)), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try writeScalar(.ascii(XMLElementEncoder.text(of: value)), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try writeScalar(.signed(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try writeScalar(.signed(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try writeScalar(.signed(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try writeScalar(.signed(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try writeScalar(.signed(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try writeScalar(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try writeScalar(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try writeScalar(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try writeScalar(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try writeScalar(.unsigned(value), forKey: key) }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else {
            // A choice, or an array of them, has no element of its own to mark `xsi:nil`.
            if T.self is any XMLChoice.Type || T.self is any XMLEncodableChoiceArray.Type { return }
            return try encodeNil(forKey: key)
        }
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
        uncheckedEncoder(for: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        uncheckedEncoder(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let inner = XMLElementEncoder(samePathAs: encoder, target: .element(node))
        inner.schema = encoder.schema
        return inner
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        uncheckedEncoder(for: key)
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
        let index = count
        count += 1
        // Items are elements; an attribute or text field's array still writes elements.
        let field = itemField.map { XMLTypeSchema.Field(isNillable: $0.isNillable, isHexBinary: $0.isHexBinary) }
        return XMLElementEncoder(
            sink: encoder.sink, parent: encoder, step: .index(index),
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
    func encode(_ value: Bool) throws { try encoder.write(.ascii(value ? "true" : "false")) }
    func encode(_ value: String) throws { try encoder.write(.text(value)) }
    func encode(_ value: Double) throws { try encoder.write(.ascii(XMLElementEncoder.text(of: value))) }
    func encode(_ value: Float) throws { try encoder.write(.ascii(XMLElementEncoder.text(of: value))) }
    func encode(_ value: Int) throws { try encoder.write(.signed(Int64(value))) }
    func encode(_ value: Int8) throws { try encoder.write(.signed(Int64(value))) }
    func encode(_ value: Int16) throws { try encoder.write(.signed(Int64(value))) }
    func encode(_ value: Int32) throws { try encoder.write(.signed(Int64(value))) }
    func encode(_ value: Int64) throws { try encoder.write(.signed(value)) }
    func encode(_ value: UInt) throws { try encoder.write(.unsigned(UInt64(value))) }
    func encode(_ value: UInt8) throws { try encoder.write(.unsigned(UInt64(value))) }
    func encode(_ value: UInt16) throws { try encoder.write(.unsigned(UInt64(value))) }
    func encode(_ value: UInt32) throws { try encoder.write(.unsigned(UInt64(value))) }
    func encode(_ value: UInt64) throws { try encoder.write(.unsigned(value)) }
}

// MARK: - Arrays

/// Arrays, recognised as such when an enum case holds one.
protocol XMLEncodableArray {}
extension Array: XMLEncodableArray {}

/// Arrays of ``XMLChoice``s, whose items are written in place of the property that holds them,
/// each as its case's element.
protocol XMLEncodableChoiceArray {
    /// The items, to encode one by one.
    var xmlChoiceItems: [any Encodable] { get }
}

extension Array: XMLEncodableChoiceArray where Element: XMLChoice & Encodable {
    var xmlChoiceItems: [any Encodable] { map { $0 } }
}
