/// Why ResourceLoader's JSON parser refused a body.
///
/// Resources report these errors as ``ResourceError/parsing(_:)``, with the `JSONParsingError`
/// as the failure's ``ResourceError/ParsingFailure/underlying`` error. A body that parses but
/// does not decode to the model fails with a `DecodingError` there instead.
///
/// The parser follows RFC 8259 strictly: one value, surrounded by nothing but white space (a
/// UTF-8 byte order mark is allowed before it); no comments, trailing commas, single quotes,
/// `NaN` or leading zeros; strings of valid UTF-8 in which every control character is escaped and
/// every `\u` escape of a surrogate is half of a pair. Offsets count bytes from the start of the
/// body, its byte order mark included.
///
/// Descriptions never quote the body: a repeated key's path is kept in the value, for code that
/// wants it, but not shown.
public enum JSONParsingError: Error, Sendable, Hashable {
    /// The body holds more values than ``JSONParsingOptions/maximumValueCount`` (`limit`).
    case tooManyValues(limit: Int)
    /// The body holds more objects and arrays than ``JSONParsingOptions/maximumContainerCount``
    /// (`limit`).
    case tooManyContainers(limit: Int)
    /// Objects and arrays are nested deeper than ``JSONParsingOptions/maximumDepth`` (`limit`).
    case tooDeep(limit: Int)
    /// The body has more bytes than ``JSONParsingOptions/maximumByteCount`` (`limit`).
    case tooLarge(limit: Int)
    /// An object has the same key twice.
    ///
    /// Parsers disagree about which of two equal keys wins (`JSONSerialization` keeps the last,
    /// `JSONDecoder` the first), so the body could mean different things to different readers;
    /// neither reading is trusted. Keys are compared after unescaping, as Swift strings (so up to
    /// canonical equivalence).
    ///
    /// - `path`: where the repeated key is, such as `cities[0].name`, each key cut to 64
    ///   characters. The keys are the server's text, so ``description`` does not show them.
    /// - `offset`: the byte offset of the second occurrence's opening quote.
    case duplicateKey(path: String, offset: Int)
    /// The body is UTF-16 or UTF-32 (`encoding` names which, as told by its byte order mark or
    /// the zero bytes among its first four). RFC 8259 requires UTF-8 of JSON exchanged between
    /// systems.
    case unsupportedEncoding(String)
    /// The body ends inside a value, or holds nothing but white space. `offset` is the body's
    /// length.
    case unexpectedEnd(offset: Int)
    /// A byte that the grammar does not allow where it stands: a trailing comma, a second
    /// top-level value, a key without quotes, a misspelt `true`, and the like.
    case unexpectedCharacter(offset: Int)
    /// A number that does not follow the grammar: a leading zero, a missing digit after `-`, `.`
    /// or `e`, and the like. `offset` is where the number starts.
    case invalidNumber(offset: Int)
    /// A string holds bytes that are not UTF-8: an overlong form, an encoded surrogate, a code
    /// point above U+10FFFF, a stray continuation byte or a truncated sequence.
    case invalidUTF8(offset: Int)
    /// A backslash in a string is not followed by one of `"\/bfnrt` or by `u` and four
    /// hexadecimal digits.
    case invalidEscape(offset: Int)
    /// A `\u` escape of a UTF-16 surrogate that is not half of a high-low pair.
    case loneSurrogate(offset: Int)
    /// A string holds a control character (U+0000 to U+001F) that is not escaped.
    case unescapedControlCharacter(offset: Int)
    /// A number too large for the value it must become: for ``JSONResourceType``, one beyond
    /// `Double`'s range (such as `1e400`), which `JSONSerialization` also refuses.
    case numberOutOfRange(offset: Int)
}

extension JSONParsingError {
    /// The byte offset the error is at, where it has one.
    public var offset: Int? {
        switch self {
        case .tooManyValues, .tooManyContainers, .tooDeep, .tooLarge, .unsupportedEncoding: nil
        case .duplicateKey(_, let offset), .unexpectedEnd(let offset), .unexpectedCharacter(let offset),
            .invalidNumber(let offset), .invalidUTF8(let offset), .invalidEscape(let offset),
            .loneSurrogate(let offset), .unescapedControlCharacter(let offset), .numberOutOfRange(let offset):
            offset
        }
    }
}

extension JSONParsingError: ContentFreeDescription {
    /// A one-line description that never quotes the body, its keys included.
    public var description: String {
        switch self {
        case .tooManyValues(let limit):
            "The JSON text holds more than the limit of \(limit) values"
        case .tooManyContainers(let limit):
            "The JSON text holds more than the limit of \(limit) objects and arrays"
        case .tooDeep(let limit):
            "The JSON text nests objects and arrays deeper than the limit of \(limit) levels"
        case .tooLarge(let limit):
            "The JSON text is larger than the limit of \(limit) bytes"
        case .duplicateKey(_, let offset):
            "The JSON text has an object with the same key twice, the second at byte offset \(offset)"
                + " (the key's path is kept in the error, not shown)"
        case .unsupportedEncoding(let encoding):
            "The JSON text is \(encoding), not UTF-8"
        case .unexpectedEnd(let offset):
            "The JSON text ends unexpectedly at byte offset \(offset)"
        case .unexpectedCharacter(let offset):
            "The JSON text has an unexpected character at byte offset \(offset)"
        case .invalidNumber(let offset):
            "The JSON text has an invalid number at byte offset \(offset)"
        case .invalidUTF8(let offset):
            "The JSON text has bytes that are not UTF-8 at byte offset \(offset)"
        case .invalidEscape(let offset):
            "The JSON text has an invalid escape sequence at byte offset \(offset)"
        case .loneSurrogate(let offset):
            "The JSON text has an escaped UTF-16 surrogate that is not half of a pair at byte offset \(offset)"
        case .unescapedControlCharacter(let offset):
            "The JSON text has an unescaped control character in a string at byte offset \(offset)"
        case .numberOutOfRange(let offset):
            "The JSON text has a number out of range at byte offset \(offset)"
        }
    }
}
