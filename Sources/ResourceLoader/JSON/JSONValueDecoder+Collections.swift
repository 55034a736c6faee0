import Foundation

/// `[String: Value]`, whose keys a key strategy leaves as they are.
protocol JSONStringKeyedDictionary {
    /// Decodes the dictionary from the object at the decoder's ``JSONValueDecoder/node``.
    static func decodeMembers(_ decoder: JSONValueDecoder) throws -> Self
}

extension Dictionary: JSONStringKeyedDictionary where Key == String, Value: Decodable {
    static func decodeMembers(_ decoder: JSONValueDecoder) throws -> Self {
        let object = decoder.node
        let tree = decoder.tree
        guard tree[object].kind == .object else {
            throw decoder.mismatch(Self.self, at: object, path: decoder.path)
        }
        let count = Int(tree[object].length)
        var result: [String: Value] = [:]
        result.reserveCapacity(count)
        var index = object + 1
        for _ in 0..<count {
            let key = tree.string(tree[index])
            result[key] = try decoder.unbox(Value.self, at: index + 1, extra: 0, key: JSONKey(key))
            index = Int(tree[index + 1].end)
        }
        return result
    }
}

/// `[Element]`, decoded element by element straight from the tree.
protocol JSONDecodableArray {
    /// Decodes the array from the array at the decoder's ``JSONValueDecoder/node``.
    static func decodeElements(_ decoder: JSONValueDecoder) throws -> Self
}

extension Array: JSONDecodableArray where Element: Decodable {
    static func decodeElements(_ decoder: JSONValueDecoder) throws -> Self {
        let array = decoder.node
        guard decoder.tree[array].kind == .array else {
            throw decoder.mismatch([Any].self, at: array, path: decoder.path, container: "unkeyed decoding container")
        }
        let count = Int(decoder.tree[array].length)
        // With no capacity, `Array(unsafeUninitializedCapacity:)` writes the count into the
        // standard library's shared empty-array storage, a race between threads.
        guard count > 0 else { return [] }
        // Each element is decoded into its place; should one throw, the array destroys the
        // `initialized` ones before it.
        return try Array(unsafeUninitializedCapacity: count) { elements, initialized in
            try decoder.decodeElements(Element.self, into: elements, initialized: &initialized)
        }
    }
}
