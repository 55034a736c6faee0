import Foundation

/// A parsed JSON document: a copy of its bytes and its values as ``Node``s, in document order,
/// in one block of memory each.
///
/// ``JSONParser`` builds it in one pass over the bytes and ``JSONValueDecoder`` and
/// ``JSONObjectBuilder`` read it. Values are not converted while parsing: a string is its byte
/// range (unescaped when it is read, and only if it has escapes), a number the text it was written
/// as (converted to the type a model asks for, exactly). A container knows how many values it
/// holds and where its last descendant ends, so a reader skips a value in one step.
///
/// An object's members are stored as a key (a string node) followed by its value. The top-level
/// value is node 0.
///
/// `@unchecked Sendable`: the parser that builds a tree is its only writer, on one thread, and
/// the tree is only read once it is handed out.
final class JSONTree: @unchecked Sendable {
    /// What a node holds.
    enum Kind: UInt8 {
        case null, `false`, `true`, number, string, object, array
    }

    /// A value, in 16 bytes.
    struct Node {
        /// What the value is.
        var kind: Kind
        /// ``Flags``.
        var flags: UInt8
        /// A string's or a number's length in bytes (a string's without its quotes); the number of
        /// elements of an array or members of an object.
        var length: UInt32
        /// A string's or a number's offset in the bytes (a string's after its opening quote); a
        /// container's, of its opening bracket.
        var start: UInt32
        /// The index of the node after this value and all its descendants.
        var end: UInt32

        /// Bits of ``flags``.
        enum Flags {
            /// A string that is plain ASCII, without escapes: its bytes are its text.
            static var plain: UInt8 { 0b01 }
            /// A number with neither a fraction nor an exponent.
            static var integer: UInt8 { 0b10 }
        }

        /// Whether the node is a string whose bytes are its text.
        var isPlain: Bool { flags & Flags.plain != 0 }
        /// Whether the node is a number written as an integer.
        var isInteger: Bool { flags & Flags.integer != 0 }
    }

    /// The body's bytes, with four zero bytes after them (so a reader may look ahead).
    let bytes: UnsafeMutablePointer<UInt8>
    /// The number of bytes of the body.
    let byteCount: Int
    /// The nodes.
    let nodes: UnsafeMutablePointer<Node>
    /// The number of nodes.
    let nodeCount: Int

    init(bytes: UnsafeMutablePointer<UInt8>, byteCount: Int, nodes: UnsafeMutablePointer<Node>, nodeCount: Int) {
        self.bytes = bytes
        self.byteCount = byteCount
        self.nodes = nodes
        self.nodeCount = nodeCount
    }

    /// A tree of one `null`, for a decoder of a member that is not there.
    static let null: JSONTree = {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)
        bytes.initialize(repeating: 0, count: 8)
        for (index, byte) in "null".utf8.enumerated() { bytes[index] = byte }
        guard let block = malloc(MemoryLayout<Node>.stride) else { preconditionFailure("JSONTree: out of memory") }
        let nodes = block.bindMemory(to: Node.self, capacity: 1)
        nodes.initialize(to: Node(kind: .null, flags: 0, length: 0, start: 0, end: 1))
        return JSONTree(bytes: bytes, byteCount: 4, nodes: nodes, nodeCount: 1)
    }()

    deinit {
        bytes.deallocate()
        free(nodes)
    }

    /// The node at `index`, which must be below ``nodeCount``.
    @inline(__always)
    subscript(index: Int) -> Node {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: nodeCount), "JSONTree: index out of range")
        return nodes[index]
    }

    /// The bytes of a string or number node (a string's without its quotes).
    @inline(__always)
    func buffer(of node: Node) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytes + Int(node.start), count: Int(node.length))
    }

    /// The text of a string node, its escapes resolved.
    func string(_ node: Node) -> String {
        let buffer = buffer(of: node)
        guard node.isPlain else { return JSONTree.unescaped(buffer) }
        if buffer.count <= 15 {
            // A text that fits a small string is written into it: the standard library checks
            // only that it is ASCII, where `String(decoding:as:)` validates the UTF-8 first.
            return String(unsafeUninitializedCapacity: buffer.count) { output in
                _ = output.initialize(from: buffer)
                return buffer.count
            }
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Whether the string node's text equals the UTF-8 `key`, as Swift strings compare.
    /// `keyIsASCII` says whether every byte of `key` is ASCII.
    @inline(__always)
    func string(_ node: Node, equals key: UnsafeBufferPointer<UInt8>, keyIsASCII: Bool) -> Bool {
        if node.isPlain, keyIsASCII {
            // Two ASCII texts are equal as strings only if they are byte for byte.
            guard Int(node.length) == key.count else { return false }
            return key.isEmpty || memcmp(bytes + Int(node.start), key.baseAddress!, key.count) == 0
        }
        // A non-ASCII text may equal an ASCII one (U+212A KELVIN SIGN equals "K").
        return string(node) == String(decoding: key, as: UTF8.self)
    }

    /// Resolves the escapes of a string's bytes, which the parser has checked.
    static func unescaped(_ buffer: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: buffer.count) { output in
            var read = 0
            var written = 0
            let count = buffer.count
            while read < count {
                let byte = buffer[read]
                guard byte == UInt8(ascii: "\\") else {
                    output[written] = byte
                    written += 1
                    read += 1
                    continue
                }
                let escaped = buffer[read + 1]
                read += 2
                let replacement: UInt8
                switch escaped {
                case UInt8(ascii: "b"): replacement = 0x08
                case UInt8(ascii: "f"): replacement = 0x0C
                case UInt8(ascii: "n"): replacement = 0x0A
                case UInt8(ascii: "r"): replacement = 0x0D
                case UInt8(ascii: "t"): replacement = 0x09
                case UInt8(ascii: "u"):
                    var scalar = UInt32(hexValue(buffer, at: read))
                    read += 4
                    if scalar >= 0xD800, scalar < 0xDC00 {
                        // The parser has checked that a low surrogate's escape follows.
                        let low = UInt32(hexValue(buffer, at: read + 2))
                        read += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    written += encodeUTF8(scalar, into: output.baseAddress! + written)
                    continue
                default: replacement = escaped  // " \ /
                }
                output[written] = replacement
                written += 1
            }
            return written
        }
    }

    /// The value of the four hexadecimal digits at `index`, which the parser has checked.
    @inline(__always)
    static func hexValue(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 {
            value = value << 4 | UInt16(JSONParser.hexDigit(buffer[index + offset]))
        }
        return value
    }

    /// Writes `scalar` as UTF-8 at `output`; returns the number of bytes written.
    private static func encodeUTF8(_ scalar: UInt32, into output: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case ..<0x80:
            output[0] = UInt8(scalar)
            return 1
        case ..<0x800:
            output[0] = UInt8(0xC0 | scalar >> 6)
            output[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            output[0] = UInt8(0xE0 | scalar >> 12)
            output[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            output[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            output[0] = UInt8(0xF0 | scalar >> 18)
            output[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            output[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            output[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}
