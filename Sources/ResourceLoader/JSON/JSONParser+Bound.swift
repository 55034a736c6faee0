import Foundation

extension JSONParser {
    /// Bounds what any parser could build from `data`, without parsing it, for the bodies that go
    /// to Foundation's `JSONDecoder` with JSON5 allowed (which this parser does not read).
    ///
    /// Every value is the first of the text, or follows a comma, or is the first in an object or
    /// array whose opening bracket is counted; an object's member is a key and a value. So
    /// `1 + commas + 2 × opening brackets` bounds the values, and the opening brackets bound the
    /// containers, wherever the bytes stand (in strings and comments too).
    ///
    /// The depth is the nesting of the brackets outside strings and comments, read as JSON5
    /// reads them: a string runs from a `"` or `'` to the same quote, a backslash escaping the
    /// byte after it; a comment from `//` to the end of the line, or from `/*` to `*/`.
    ///
    /// With `assumesTopLevelDictionary` (`JSONDecoder`'s option), a text that does not start
    /// with `{` (white space and comments aside) is an object without its braces, counted as if
    /// it had them: one more container, two more values and one more level.
    static func checkBound(
        of data: Data, options: JSONParsingOptions, assumesTopLevelDictionary: Bool = false
    ) throws(JSONParsingError) {
        let byteLimit = min(options.maximumByteCount, JSONParsingOptions.defaultMaximumByteCount)
        guard data.count <= byteLimit else { throw .tooLarge(limit: byteLimit) }
        var commas = 0
        var brackets = 0
        var bracedTop = true
        var deepest = 0
        data.withUnsafeBytes { raw in
            for byte in raw {
                if byte == UInt8(ascii: ",") {
                    commas += 1
                } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    brackets += 1
                }
            }
            let scan = json5Nesting(raw.bindMemory(to: UInt8.self))
            deepest = scan.deepest
            bracedTop = scan.first == UInt8(ascii: "{")
        }
        if assumesTopLevelDictionary && !bracedTop {
            brackets += 1
            deepest += 1
        }
        if 1 + commas + 2 * brackets > options.maximumValueCount { throw .tooManyValues(limit: options.maximumValueCount) }
        if brackets > options.maximumContainerCount { throw .tooManyContainers(limit: options.maximumContainerCount) }
        if deepest > options.maximumDepth { throw .tooDeep(limit: options.maximumDepth) }
    }

    /// How deeply the brackets of JSON5 text `bytes` nest outside its strings and comments, and
    /// its first byte outside white space and comments (0 when there is none).
    private static func json5Nesting(_ bytes: UnsafeBufferPointer<UInt8>) -> (deepest: Int, first: UInt8) {
        let count = bytes.count
        var depth = 0
        var deepest = 0
        var first: UInt8 = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "/") && index < count && (bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "*")) {
                if bytes[index] == UInt8(ascii: "/") {
                    // To the end of the line.
                    while index < count && bytes[index] != UInt8(ascii: "\n") && bytes[index] != UInt8(ascii: "\r") { index += 1 }
                } else {
                    // Past the `*/` that follows the `/*`.
                    index += 1
                    while index < count && !(bytes[index] == UInt8(ascii: "*") && index + 1 < count && bytes[index + 1] == UInt8(ascii: "/")) {
                        index += 1
                    }
                    index += 2
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C, 0xA0:
                continue
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                // To the same quote; a backslash escapes the byte after it.
                while index < count && bytes[index] != byte {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            default:
                break
            }
            if first == 0 { first = byte }
        }
        return (deepest, first)
    }
}
