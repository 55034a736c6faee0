import Foundation

/// The members of an object in a ``JSONTree``, for a `Decodable` type's `init(from:)`.
///
/// The container's coding path is the decoder's first `base` keys and then the decoder's
/// ``JSONValueDecoder/extraKeys(_:)`` (the keys of nested containers, which the decoder's stack
/// does not hold); see ``JSONValueDecoder``.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder and where the container points; the decoder repoints it when it hands the
    /// container out again (``JSONValueDecoder/keyedContainer(_:object:base:extra:)``). One
    /// reference and nothing else, so that the copy `KeyedDecodingContainer` makes of the
    /// container for each call is one retain.
    let position: JSONContainerPosition

    @inline(__always) var decoder: JSONValueDecoder { position.decoder }
    /// The object's node.
    @inline(__always) var object: Int { position.object }
    @inline(__always) var base: Int { position.base }
    @inline(__always) var extra: Int { position.extra }

    var codingPath: [any CodingKey] { decoder.path(prefix: base) + decoder.extraKeys(extra) }

    var allKeys: [Key] {
        decoder.members(of: object, path: codingPath).compactMap { Key(stringValue: $0.key) }
    }

    func contains(_ key: Key) -> Bool {
        decoder.member(key, of: object, path: codingPath) != nil
    }

    /// The path of a member's value, for errors.
    private func path(_ key: Key) -> [any CodingKey] {
        codingPath + [key]
    }

    /// The index of the value of the member `key`, or `keyNotFound`.
    @inline(__always)
    private func value(_ key: Key) throws -> Int {
        guard let index = decoder.member(key, of: object, path: codingPath) else {
            throw DecodingError.keyNotFound(key, .init(
                codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return index
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.tree[try value(key)].kind == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.bool(at: value(key), path: path(key))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.string(at: value(key), path: path(key))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.double(at: value(key), path: path(key))
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.float(at: value(key), path: path(key))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decoder.integer(type, at: value(key), path: path(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(type, at: value(key), extra: extra, key: key)
    }

    // One look-up each, where the default implementations make three.

    /// The index of the member's value, or `nil` if there is none or it is `null`.
    @inline(__always)
    private func presentValue(_ key: Key) -> Int? {
        guard let index = decoder.member(key, of: object, path: codingPath), decoder.tree[index].kind != .null else { return nil }
        return index
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = presentValue(key) else { return nil }
        return try decoder.string(at: index, path: path(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let index = presentValue(key) else { return nil }
        return try decoder.bool(at: index, path: path(key))
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let index = presentValue(key) else { return nil }
        return try decoder.double(at: index, path: path(key))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let index = presentValue(key) else { return nil }
        return try decoder.integer(type, at: index, path: path(key))
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let index = presentValue(key) else { return nil }
        return try decoder.integer(type, at: index, path: path(key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = presentValue(key) else { return nil }
        return try decoder.unbox(type, at: index, extra: extra, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let index = try value(key)
        guard decoder.tree[index].kind == .object else {
            throw decoder.mismatch([String: Any].self, at: index, path: path(key), container: "keyed decoding container")
        }
        return decoder.keyedContainer(
            NestedKey.self, object: index, base: base, extra: decoder.extraNumber(decoder.extraKeys(extra) + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let index = try value(key)
        guard decoder.tree[index].kind == .array else {
            throw decoder.mismatch([Any].self, at: index, path: path(key), container: "unkeyed decoding container")
        }
        return JSONUnkeyedDecodingContainer(decoder: decoder, array: index, base: base, extra: decoder.extraNumber(decoder.extraKeys(extra) + [key]))
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(key: JSONKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(key: key)
    }

    /// A decoder of the member `key`, or of `null` when there is none, as `JSONDecoder` gives.
    private func superDecoder(key: any CodingKey) throws -> any Decoder {
        let index = decoder.member(key, of: object, path: codingPath)
        return JSONValueDecoder(
            tree: index == nil ? JSONTree.null : decoder.tree, options: decoder.options, node: index ?? 0,
            path: codingPath + [key])
    }
}

/// The object a ``JSONKeyedDecodingContainer`` reads and where its coding path starts.
final class JSONContainerPosition {
    let decoder: JSONValueDecoder
    // `@exclusivity(unchecked)`: a position belongs to one decoder, used by one decode on one
    // thread, and is changed only while no container points through it.
    /// The object's node.
    @exclusivity(unchecked) var object: Int
    /// The number of the decoder's path steps the container's coding path starts with.
    @exclusivity(unchecked) var base: Int
    /// The nested containers' keys that follow (``JSONValueDecoder/extraKeys(_:)``).
    @exclusivity(unchecked) var extra: Int

    init(decoder: JSONValueDecoder, object: Int, base: Int, extra: Int) {
        self.decoder = decoder
        self.object = object
        self.base = base
        self.extra = extra
    }
}
