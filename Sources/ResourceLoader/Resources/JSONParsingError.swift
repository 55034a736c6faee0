/// Why the JSON resource types refused a body before, or after, handing it to the parser.
///
/// Resources report these errors as ``ResourceError/parsing(_:)``, with the `JSONParsingError`
/// as the failure's ``ResourceError/ParsingFailure/underlying`` error. Syntax errors keep the
/// parser's own error there instead (`JSONSerialization`'s or a `DecodingError`).
///
/// Descriptions never quote the body: a repeated key's path is kept in the value, for code that
/// wants it, but not shown.
public enum JSONParsingError: Error, Sendable, Hashable {
    /// The body holds more values than ``JSONParsingOptions/maximumValueCount`` (`limit`).
    case tooManyValues(limit: Int)
    /// The body holds more objects and arrays than ``JSONParsingOptions/maximumContainerCount``
    /// (`limit`).
    case tooManyContainers(limit: Int)
    /// An object has the same key twice.
    ///
    /// `JSONSerialization` keeps the last of two equal keys and `JSONDecoder` the first, so the
    /// body could mean different things to different readers; neither reading is trusted. Keys
    /// are compared after unescaping, as Swift strings.
    ///
    /// - `path`: where the repeated key is, such as `cities[0].name`, each key cut to 64
    ///   characters. The keys are the server's text, so ``description`` does not show them.
    /// - `offset`: the byte offset of the second occurrence's opening quote, counted from the
    ///   start of the body (of its UTF-8 form if the body is UTF-16 or UTF-32).
    case duplicateKey(path: String, offset: Int)
}

extension JSONParsingError: ContentFreeDescription {
    /// A one-line description that never quotes the body, its keys included.
    public var description: String {
        switch self {
        case .tooManyValues(let limit):
            "The JSON text holds more than the limit of \(limit) values"
        case .tooManyContainers(let limit):
            "The JSON text holds more than the limit of \(limit) objects and arrays"
        case .duplicateKey(_, let offset):
            "The JSON text has an object with the same key twice, the second at byte offset \(offset)"
                + " (the key's path is kept in the error, not shown)"
        }
    }
}
