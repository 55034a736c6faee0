import Foundation

extension JSONParser {
    /// Bounds what any parser could build from `data`, without parsing it, for the bodies that go
    /// to Foundation's `JSONDecoder` with JSON5 allowed (which this parser does not read).
    ///
    /// Every value is the first of the text, or follows a comma, or is the first in an object or
    /// array whose opening bracket is counted; an object's member is a key and a value. So
    /// `1 + commas + 2 × opening brackets` bounds the values, and the opening brackets bound the
    /// containers, wherever the bytes stand (in strings and comments too).
    static func checkBound(of data: Data, options: JSONParsingOptions) throws(JSONParsingError) {
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
        if 1 + commas + 2 * brackets > options.maximumValueCount { throw .tooManyValues(limit: options.maximumValueCount) }
        if brackets > options.maximumContainerCount { throw .tooManyContainers(limit: options.maximumContainerCount) }
    }
}
