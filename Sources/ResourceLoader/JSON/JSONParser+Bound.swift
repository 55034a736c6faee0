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
    /// character after it; a comment from `//` to the end of the line, or from `/*` to `*/`. A
    /// text in UTF-16 or UTF-32 (``wideEncoding(_:_:_:_:)``), which Foundation's decoder reads
    /// too, is read as UTF-8 for this.
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
        data.withUnsafeBytes { raw in
            for byte in raw {
                if byte == UInt8(ascii: ",") {
                    commas += 1
                } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    brackets += 1
                }
            }
        }
        let scan = json5Nesting(utf8Text(data))
        var deepest = scan.deepest
        if assumesTopLevelDictionary && scan.first != UInt8(ascii: "{") {
            brackets += 1
            deepest += 1
        }
        if 1 + commas + 2 * brackets > options.maximumValueCount { throw .tooManyValues(limit: options.maximumValueCount) }
        if brackets > options.maximumContainerCount { throw .tooManyContainers(limit: options.maximumContainerCount) }
        if deepest > options.maximumDepth { throw .tooDeep(limit: options.maximumDepth) }
    }

    /// `data` in UTF-8: as it is, or transcoded when it is UTF-16 or UTF-32 (and transcodes).
    private static func utf8Text(_ data: Data) -> Data {
        guard data.count >= 2 else { return data }
        let first = Array(data.prefix(4)) + Array(repeating: 0xAA, count: 4)
        guard let wide = wideEncoding(first[0], first[1], first[2], first[3]),
            let text = String(data: data, encoding: wide.encoding)
        else { return data }
        return Data(text.utf8)
    }

    /// How deeply the brackets of JSON5 text `data` (UTF-8) nest outside its strings and
    /// comments, and its first byte outside white space and comments (0 when there is none).
    private static func json5Nesting(_ data: Data) -> (deepest: Int, first: UInt8) {
        data.withUnsafeBytes { json5Nesting($0.bindMemory(to: UInt8.self)) }
    }

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
