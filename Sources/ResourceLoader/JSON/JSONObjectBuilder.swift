import Foundation

/// Builds the values `JSONSerialization` would from a ``JSONTree``, for
/// ``JSONResourceType/modelFrom(jsonDictionary:)`` and ``JSONResourceType/modelFrom(jsonArray:)``.
///
/// The types are those `JSONSerialization` produces on Linux: `[String: Any]`, `[Any]`, `String`,
/// `NSNull`, `NSNumber` for `true` and `false` (a Boolean one) and for numbers, chosen by
/// `JSONSerialization`'s rules (see `number(_:in:)`): `Int64`, `UInt64`, `NSDecimalNumber` or
/// `Double`. A number beyond `Double`'s range (such as `1e400`) is refused with
/// ``JSONParsingError/numberOutOfRange(offset:)``, as `JSONSerialization` refuses it.
///
/// The walk is iterative, in document order: no recursion, however deep the document.
enum JSONObjectBuilder {
    /// A container being built.
    private struct Frame {
        /// The index of the node after the container's last descendant.
        let end: Int
        let isObject: Bool
        var array: [Any] = []
        var dictionary: [String: Any] = [:]
        /// The key of the member whose value comes next.
        var key = ""
        /// Whether the next node is a key.
        var expectsKey: Bool

        init(end: Int, isObject: Bool, capacity: Int) {
            self.end = end
            self.isObject = isObject
            expectsKey = isObject
            if isObject { dictionary.reserveCapacity(capacity) } else { array.reserveCapacity(capacity) }
        }

        var value: Any { isObject ? dictionary : array }

        mutating func add(_ value: Any) {
            if isObject {
                dictionary[key] = value
                expectsKey = true
            } else {
                array.append(value)
            }
        }
    }

    /// The top-level value of `tree`.
    static func object(from tree: JSONTree) throws(JSONParsingError) -> Any {
        var stack: [Frame] = []
        var result: Any = NSNull()
        var index = 0
        while index < tree.nodeCount {
            let node = tree[index]
            if let last = stack.indices.last, stack[last].expectsKey {
                stack[last].key = tree.string(node)
                stack[last].expectsKey = false
                index += 1
                continue
            }
            let value: Any
            switch node.kind {
            case .object, .array:
                stack.append(Frame(end: Int(node.end), isObject: node.kind == .object, capacity: Int(node.length)))
                index += 1
                value = NSNull()  // Not delivered: the frame is.
            case .string:
                value = tree.string(node)
                index += 1
            case .number:
                value = try number(node, in: tree)
                index += 1
            case .true:
                value = NSNumber(value: true)
                index += 1
            case .false:
                value = NSNumber(value: false)
                index += 1
            case .null:
                value = NSNull()
                index += 1
            }
            if node.kind != .object && node.kind != .array {
                if let last = stack.indices.last { stack[last].add(value) } else { result = value }
            }
            // Close every container that ends here.
            while let last = stack.indices.last, stack[last].end == index {
                let finished = stack.removeLast().value
                if let outer = stack.indices.last { stack[outer].add(finished) } else { result = finished }
            }
        }
        return result
    }

    /// The `NSNumber` `JSONSerialization` makes of a number, by its rules: an integer of at most
    /// 19 characters (with its minus sign) that fits `Int64`, or a non-negative one of at most 20
    /// that fits `UInt64`, holds that integer; other numbers of more than 17 characters before a
    /// lowercase `e` (sign and point included), whose exponent is within ±127 and whose value a
    /// `Decimal` holds, are `NSDecimalNumber`s; the rest hold the nearest `Double`.
    private static func number(_ node: JSONTree.Node, in tree: JSONTree) throws(JSONParsingError) -> NSNumber {
        let text = tree.buffer(of: node)
        let negative = text[0] == UInt8(ascii: "-")
        let exponentMarker = text.firstIndex(of: UInt8(ascii: "e"))
        let digitCount = exponentMarker ?? text.count
        if node.isInteger {
            if negative, digitCount <= 19, let value = tree.integer(node, as: Int64.self) { return NSNumber(value: value) }
            if !negative, digitCount <= 20, let value = tree.integer(node, as: UInt64.self) { return NSNumber(value: value) }
        }
        if digitCount > 17 {
            var exponent = 0
            if let exponentMarker {
                exponent = Int(String(decoding: UnsafeBufferPointer(rebasing: text[(exponentMarker + 1)...]), as: UTF8.self)) ?? 0
            }
            if exponent >= -128, exponent <= 127, let decimal = Decimal(string: tree.numberText(node)), decimal.isFinite {
                return NSDecimalNumber(decimal: decimal)
            }
        }
        guard let value = tree.double(node) else { throw .numberOutOfRange(offset: Int(node.start)) }
        return NSNumber(value: value)
    }
}
