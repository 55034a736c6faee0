import Foundation

/// Finds an object that has the same key twice in a JSON text.
///
/// `JSONSerialization` keeps the last of two equal keys and `JSONDecoder` (on Linux) the first,
/// so the same body could mean two different things depending on how a resource reads it. The
/// JSON resource types refuse such bodies instead, with a parsing error naming the key's path.
///
/// The scan is iterative (no recursion, however deep the text) and runs after a parser has
/// accepted the text. It never traps: on anything it does not understand it stops and reports
/// no duplicate. Keys are compared after unescaping, as Swift strings.
enum JSONDuplicateKeyScanner {
    /// The path of the first repeated key, such as `cities[0].name`, or `nil` if there is none.
    static func firstDuplicateKeyPath(in data: Data) -> String? {
        data.withUnsafeBytes { buffer in
            firstDuplicateKeyPath(in: buffer.bindMemory(to: UInt8.self))
        }
    }

    /// An open object or array. A struct, so that its key set is updated in place.
    private struct Frame {
        /// `nil` for an array.
        var keys: Set<String>?
        var currentKey: String?
        var expectsKey = false
        var index = 0
    }

    private static func firstDuplicateKeyPath(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var stack: [Frame] = []
        var position = 0
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "{"):
                stack.append(Frame(keys: [], expectsKey: true))
            case UInt8(ascii: "["):
                stack.append(Frame(keys: nil))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard stack.popLast() != nil else { return nil }
            case UInt8(ascii: ","):
                guard !stack.isEmpty else { return nil }
                if stack[stack.count - 1].keys == nil {
                    stack[stack.count - 1].index += 1
                } else {
                    stack[stack.count - 1].expectsKey = true
                }
            case UInt8(ascii: "\""):
                guard let end = endOfString(in: bytes, openingQuoteAt: position) else { return nil }
                if let last = stack.indices.last, stack[last].keys != nil, stack[last].expectsKey {
                    let key = decodeKey(UnsafeBufferPointer(rebasing: bytes[position...end]))
                    guard stack[last].keys!.insert(key).inserted else {
                        return path(of: stack.dropLast(), then: key)
                    }
                    stack[last].currentKey = key
                    stack[last].expectsKey = false
                }
                position = end
            default:
                break  // whitespace, ':', numbers, true, false, null
            }
            position += 1
        }
        return nil
    }

    /// The index of the quote that closes the string opened at `start`.
    private static func endOfString(in bytes: UnsafeBufferPointer<UInt8>, openingQuoteAt start: Int) -> Int? {
        var position = start + 1
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\\"): position += 2
            case UInt8(ascii: "\""): return position
            default: position += 1
            }
        }
        return nil
    }

    /// The key a quoted JSON string stands for, escapes resolved.
    private static func decodeKey(_ quoted: UnsafeBufferPointer<UInt8>) -> String {
        let inner = UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast())
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        let fragment = try? JSONSerialization.jsonObject(with: Data(quoted), options: [.fragmentsAllowed])
        return fragment as? String ?? String(decoding: inner, as: UTF8.self)
    }

    /// A dotted path like `ParsingFailure/codingPath`'s, each key cut to 64 characters.
    private static func path(of frames: ArraySlice<Frame>, then key: String) -> String {
        var text = ""
        for frame in frames {
            if frame.keys == nil {
                text += "[\(frame.index)]"
            } else if let currentKey = frame.currentKey {
                text += (text.isEmpty ? "" : ".") + shortened(currentKey)
            }
        }
        return text + (text.isEmpty ? "" : ".") + shortened(key)
    }

    private static func shortened(_ key: String) -> String {
        key.count <= 64 ? key : key.prefix(64) + "…"
    }
}
