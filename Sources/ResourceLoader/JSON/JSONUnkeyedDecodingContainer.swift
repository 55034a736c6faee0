import Foundation

/// The elements of an array in a ``JSONTree``, for a `Decodable` type's `init(from:)`.
///
/// The container's coding path is the decoder's first `base` keys and then the decoder's
/// ``JSONValueDecoder/extraKeys(_:)``; see ``JSONKeyedDecodingContainer``.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: JSONValueDecoder
    let base: Int
    let extra: Int
    /// The number of elements.
    private let elementCount: Int
    private(set) var currentIndex = 0
    /// The node of the element at ``currentIndex``.
    private var next: Int

    init(decoder: JSONValueDecoder, array: Int, base: Int, extra: Int) {
        self.decoder = decoder
        self.base = base
        self.extra = extra
        elementCount = Int(decoder.tree[array].length)
        next = array + 1
    }

    var codingPath: [any CodingKey] { decoder.path(prefix: base) + decoder.extraKeys(extra) }

    var count: Int? { elementCount }

    var isAtEnd: Bool { currentIndex >= elementCount }

    /// The path of the current element, for errors.
    private var elementPath: [any CodingKey] { codingPath + [JSONKey(index: currentIndex)] }

    /// The current element's node, or `valueNotFound` at the end.
    @inline(__always)
    private func current<T>(_ type: T.Type) throws -> Int {
        guard currentIndex < elementCount else {
            throw DecodingError.valueNotFound(type, .init(codingPath: elementPath, debugDescription: "Unkeyed container is at end."))
        }
        return next
    }

    @inline(__always)
    private mutating func advance(past index: Int) {
        next = Int(decoder.tree[index].end)
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        let index = try current(Never.self)
        guard decoder.tree[index].kind == .null else { return false }
        advance(past: index)
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let index = try current(type)
        let value = try decoder.bool(at: index, path: elementPath)
        advance(past: index)
        return value
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let index = try current(type)
        let value = try decoder.string(at: index, path: elementPath)
        advance(past: index)
        return value
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let index = try current(type)
        let value = try decoder.double(at: index, path: elementPath)
        advance(past: index)
        return value
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let index = try current(type)
        let value = try decoder.float(at: index, path: elementPath)
        advance(past: index)
        return value
    }

    @inline(__always)
    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let index = try current(type)
        let value = try decoder.integer(type, at: index, path: elementPath)
        advance(past: index)
        return value
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let index = try current(type)
        let value = try decoder.unbox(type, at: index, extra: extra, element: currentIndex)
        advance(past: index)
        return value
    }

    /// `nil` for a `null` element, and at the end of the array, as `JSONDecoder` gives.
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard !isAtEnd else { return nil }
        let index = next
        if decoder.tree[index].kind == .null {
            advance(past: index)
            return nil
        }
        return try decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let index = try current(KeyedDecodingContainer<NestedKey>.self)
        guard decoder.tree[index].kind == .object else {
            throw decoder.mismatch([String: Any].self, at: index, path: elementPath, container: "keyed decoding container")
        }
        let container = decoder.keyedContainer(
            NestedKey.self, object: index, base: base, extra: decoder.extraNumber(decoder.extraKeys(extra) + [JSONKey(index: currentIndex)]))
        advance(past: index)
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = try current((any UnkeyedDecodingContainer).self)
        guard decoder.tree[index].kind == .array else {
            throw decoder.mismatch([Any].self, at: index, path: elementPath, container: "unkeyed decoding container")
        }
        let container = JSONUnkeyedDecodingContainer(
            decoder: decoder, array: index, base: base, extra: decoder.extraNumber(decoder.extraKeys(extra) + [JSONKey(index: currentIndex)]))
        advance(past: index)
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let index = try current((any Decoder).self)
        let superDecoder = JSONValueDecoder(tree: decoder.tree, options: decoder.options, node: index, path: elementPath)
        advance(past: index)
        return superDecoder
    }
}
