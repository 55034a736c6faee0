/// An XML Schema `date`: a day, with the time zone offset it was written with, if any.
///
/// ```swift
/// let birthday = XMLDate(year: 1990, month: 2, day: 28)                // 1990-02-28
/// let deadline = XMLDate(year: 2026, month: 3, day: 1, utcOffset: -300) // 2026-03-01-05:00
/// ```
///
/// Its `Codable` form is the lexical form (a string), so it works with any coder.
public struct XMLDate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The year, 1 to 9999.
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, from 1.
    public var day: Int
    /// Minutes east of UTC (`Z` is 0), or `nil` for none.
    public var utcOffset: Int?

    /// Creates a date. Values outside XML Schema's ranges have no lexical form and fail to
    /// encode.
    public init(year: Int, month: Int, day: Int, utcOffset: Int? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.utcOffset = utcOffset
    }

    /// Reads `2026-01-02`, optionally followed by `Z` or `±hh:mm`; `nil` when the text is not an
    /// `xs:date` in the years 0001 to 9999.
    public init?(lexicalForm text: String) {
        var scanner = XMLLexicalScanner(text)
        guard let (year, month, day) = scanner.date(), let offset = scanner.offset(), scanner.isAtEnd else { return nil }
        self.init(year: year, month: month, day: day, utcOffset: offset)
    }

    /// The `xs:date` text, or `nil` when a field is out of range.
    public var lexicalForm: String? {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= XMLLexicalScanner.daysIn(month: month, year: year), XMLLexicalScanner.offsets.contains(utcOffset ?? 0)
        else { return nil }
        return XMLLexicalScanner.dateText(year: year, month: month, day: day) + XMLLexicalScanner.offsetText(utcOffset)
    }

    /// The lexical form, or a note that there is none.
    public var description: String { lexicalForm ?? "(not a valid xs:date)" }

    /// Reads the lexical form from a single string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let value = Self(lexicalForm: trimmingXMLWhitespace(try container.decode(String.self))) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "The text is not an xs:date")
        }
        self = value
    }

    /// Writes the lexical form as a single string.
    public func encode(to encoder: any Encoder) throws {
        guard let text = lexicalForm else {
            throw EncodingError.invalidValue(description, EncodingError.Context(
                codingPath: encoder.codingPath, debugDescription: "The date has no xs:date form"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
