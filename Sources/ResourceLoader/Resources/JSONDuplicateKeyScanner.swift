import Foundation

/// Finds an object that has the same key twice in a JSON text.
///
/// `JSONSerialization` keeps the last of two equal keys and `JSONDecoder` (on Linux) the first,
/// so the same body could mean two different things depending on how a resource reads it. The
/// JSON resource types refuse such bodies instead, with a parsing error naming the key's path.
///
/// The scan is iterative (no recursion, however deep the text) and runs after a parser has
/// accepted the text. It never traps: on anything it does not understand it stops and reports
/// no duplicate. Keys are equal when they are equal as Swift strings, as both parsers compare
/// them — after unescaping, and up to canonical equivalence (`"K"` and `"\u212A"`, KELVIN SIGN,
/// are the same key).
///
/// It runs on every JSON body, so the common case allocates nothing: key ranges live in one
/// reused array, plain ASCII keys are compared byte for byte, and only keys with escapes or
/// non-ASCII bytes are turned into strings. Objects with more than ``pairwiseLimit`` keys are
/// checked with a hash set, so no object makes the scan quadratic.
enum JSONDuplicateKeyScanner {
    /// Objects with at most this many keys are checked pair by pair; larger ones with a set.
    static let pairwiseLimit = 16

    /// The path of the first repeated key, such as `cities[0].name`, or `nil` if there is none.
    static func firstDuplicateKeyPath(in data: Data) -> String? {
        data.withUnsafeBytes { raw in
            var scan = Scan(bytes: raw.bindMemory(to: UInt8.self))
            return scan.firstDuplicateKeyPath()
        }
    }

    /// A key: the bytes between its quotes.
    private struct Key {
        let range: Range<Int>
        /// ASCII without escapes: equal to another such key exactly when the bytes are equal.
        let isPlain: Bool
    }

    /// An open object or array.
    private struct Frame {
        let isObject: Bool
        /// Where this object's keys start in `Scan.keys`.
        let keysStart: Int
        var expectsKey: Bool
        /// The index of the current element, for arrays.
        var index = 0
        /// The index in `Scan.keys` of the key whose value is being read, for objects.
        var currentKey: Int?
        /// Every key so far, once the object has more than `pairwiseLimit` keys.
        var keySet: Set<String>?
    }

    private struct Scan {
        let bytes: UnsafeBufferPointer<UInt8>
        var stack: [Frame] = []
        /// The keys of every open object, innermost last.
        var keys: [Key] = []

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func firstDuplicateKeyPath() -> String? {
            var position = 0
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "{"):
                    stack.append(Frame(isObject: true, keysStart: keys.count, expectsKey: true))
                case UInt8(ascii: "["):
                    stack.append(Frame(isObject: false, keysStart: keys.count, expectsKey: false))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard let frame = stack.popLast() else { return nil }
                    keys.removeSubrange(frame.keysStart...)
                case UInt8(ascii: ","):
                    guard let last = stack.indices.last else { return nil }
                    if stack[last].isObject {
                        stack[last].expectsKey = true
                    } else {
                        stack[last].index += 1
                    }
                case UInt8(ascii: "\""):
                    guard let end = endOfString(openingQuoteAt: position) else { return nil }
                    if let last = stack.indices.last, stack[last].isObject, stack[last].expectsKey {
                        let key = makeKey(position + 1..<end)
                        if isRepeated(key, inFrame: last) { return path(to: key) }
                        keys.append(key)
                        stack[last].currentKey = keys.count - 1
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
        private func endOfString(openingQuoteAt start: Int) -> Int? {
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

        private func makeKey(_ range: Range<Int>) -> Key {
            var isPlain = true
            for index in range where bytes[index] >= 0x80 || bytes[index] == UInt8(ascii: "\\") {
                isPlain = false
                break
            }
            return Key(range: range, isPlain: isPlain)
        }

        /// Whether the object at `frameIndex` already has `key`; remembers it in the object's
        /// set once the object is large.
        private mutating func isRepeated(_ key: Key, inFrame frameIndex: Int) -> Bool {
            let start = stack[frameIndex].keysStart
            if stack[frameIndex].keySet == nil {
                guard keys.count - start >= pairwiseLimit else {
                    return keys[start...].contains { equal($0, key) }
                }
                stack[frameIndex].keySet = Set(keys[start...].map(string))
            }
            return !stack[frameIndex].keySet!.insert(string(key)).inserted
        }

        private func equal(_ a: Key, _ b: Key) -> Bool {
            if a.isPlain, b.isPlain {
                return a.range.count == b.range.count
                    && memcmp(bytes.baseAddress! + a.range.lowerBound, bytes.baseAddress! + b.range.lowerBound, a.range.count) == 0
            }
            return string(a) == string(b)
        }

        /// The key as a Swift string, escapes resolved.
        private func string(_ key: Key) -> String {
            let inner = UnsafeBufferPointer(rebasing: bytes[key.range])
            guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
            let quoted = Data(UnsafeBufferPointer(rebasing: bytes[(key.range.lowerBound - 1)...key.range.upperBound]))
            let fragment = try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])
            return fragment as? String ?? String(decoding: inner, as: UTF8.self)
        }

        /// A dotted path like `ParsingFailure/codingPath`'s, each key cut to 64 characters.
        private func path(to key: Key) -> String {
            var text = ""
            for frame in stack.dropLast() {
                if !frame.isObject {
                    text += "[\(frame.index)]"
                } else if let current = frame.currentKey {
                    text += (text.isEmpty ? "" : ".") + shortened(string(keys[current]))
                }
            }
            return text + (text.isEmpty ? "" : ".") + shortened(string(key))
        }

        private func shortened(_ key: String) -> String {
            key.count <= 64 ? key : key.prefix(64) + "…"
        }
    }
}
