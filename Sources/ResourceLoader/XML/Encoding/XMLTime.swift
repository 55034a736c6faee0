/// An XML Schema `time`: a time of day to the millisecond, with the time zone offset it was
/// written with, if any.
///
/// ```swift
/// let opening = XMLTime(hour: 9, minute: 30, second: 0, utcOffset: 60)   // 09:30:00+01:00
/// ```
///
/// Its `Codable` form is the lexical form (a string), so it works with any coder.
public struct XMLTime: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The hour, 0 to 23.
    public var hour: Int
    /// The minute, 0 to 59.
    public var minute: Int
    /// The second, 0 to 59.
    public var second: Int
    /// The milliseconds, 0 to 999.
    public var millisecond: Int
    /// Minutes east of UTC (`Z` is 0), or `nil` for none.
    public var utcOffset: Int?

    /// Creates a time. Values outside XML Schema's ranges have no lexical form and fail to
    /// encode.
    public init(hour: Int, minute: Int, second: Int, millisecond: Int = 0, utcOffset: Int? = nil) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
        self.utcOffset = utcOffset
    }

    /// Reads `13:20:00`, with an optional fraction and an optional `Z` or `±hh:mm`; `nil` when
    /// the text is not an `xs:time`. Digits of the fraction past milliseconds are dropped.
    /// `24:00:00` (with a fraction of zeros only) is midnight, as XML Schema allows: it reads as
    /// `00:00:00`, and is written that way.
    public init?(lexicalForm text: String) {
        var scanner = XMLLexicalScanner(text)
        guard let (secondOfDay, milliseconds) = scanner.time(), let offset = scanner.offset(), scanner.isAtEnd else { return nil }
        let seconds = secondOfDay % 86_400
        self.init(hour: seconds / 3600, minute: seconds / 60 % 60, second: seconds % 60, millisecond: milliseconds, utcOffset: offset)
    }

    /// The `xs:time` text, or `nil` when a field is out of range.
    public var lexicalForm: String? {
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second),
            (0..<1000).contains(millisecond), XMLLexicalScanner.offsets.contains(utcOffset ?? 0)
        else { return nil }
        return XMLLexicalScanner.timeText(secondOfDay: hour * 3600 + minute * 60 + second, milliseconds: millisecond)
            + XMLLexicalScanner.offsetText(utcOffset)
    }

    /// The lexical form, or a note that there is none.
    public var description: String { lexicalForm ?? "(not a valid xs:time)" }

    /// Reads the lexical form from a single string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let value = Self(lexicalForm: trimmingXMLWhitespace(try container.decode(String.self))) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "The text is not an xs:time")
        }
        self = value
    }

    /// Writes the lexical form as a single string.
    public func encode(to encoder: any Encoder) throws {
        guard let text = lexicalForm else {
            throw EncodingError.invalidValue(description, EncodingError.Context(
                codingPath: encoder.codingPath, debugDescription: "The time has no xs:time form"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
