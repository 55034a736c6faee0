import Foundation

extension JSONValueDecoder {
    /// Decodes a `T` from a JSON body as `decoder` would, within `options`' limits.
    ///
    /// The body is parsed by ``JSONParser`` and decoded by a ``JSONValueDecoder`` with
    /// `decoder`'s strategies and `userInfo`. A `decoder` that this one does not stand in for
    /// (see ``JSONDecodingOptions/init(_:)``) decodes the body itself, once ``JSONParser`` has
    /// checked it (so repeated keys and the limits are refused all the same); with JSON5 allowed,
    /// which ``JSONParser`` does not read, only the limits are checked, by
    /// ``JSONParser/checkBound(of:options:assumesTopLevelDictionary:)``.
    ///
    /// - Throws: ``JSONParsingError`` for a body refused before decoding; `DecodingError` (or what
    ///   a custom strategy throws) for one that does not decode.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, using decoder: JSONDecoder, options: JSONParsingOptions
    ) throws -> T {
        guard let decodingOptions = JSONDecodingOptions(decoder) else {
            if decoder.allowsJSON5 {
                try JSONParser.checkBound(
                    of: data, options: options, assumesTopLevelDictionary: decoder.assumesTopLevelDictionary)
            } else {
                _ = try JSONParser.parse(data, options: options)
            }
            return try decoder.decode(type, from: data)
        }
        let tree = try JSONParser.parse(data, options: options)
        return try decode(type, from: tree, options: decodingOptions)
    }
}
