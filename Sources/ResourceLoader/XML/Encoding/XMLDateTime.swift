import Foundation

/// An XML Schema `dateTime` that keeps the time zone offset it was written with.
///
/// A `Date` is an instant with no offset: written, it becomes UTC, and read, any offset is
/// folded into the instant. `XMLDateTime` keeps both, so a `2026-01-02T03:04:05+05:30` read from
/// a service is written back the same way:
///
/// ```swift
/// let meeting = XMLDateTime(date, utcOffset: 330)   // 2026-01-02T03:04:05+05:30
/// ```
///
/// Its `Codable` form is the lexical form (a string), so it works with any coder. Fractions of a
/// second are kept to the millisecond. Years 0001 to 9999 only.
public struct XMLDateTime: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The instant.
    public var date: Date
    /// Minutes east of UTC written after the time (`+05:30` is 330, `Z` is 0); `nil` for a
    /// time with no time zone, whose fields are then read as UTC's.
    public var utcOffset: Int?

    /// Creates a value for `date`, written with `utcOffset` minutes east of UTC.
    public init(_ date: Date, utcOffset: Int? = 0) {
        self.date = date
        self.utcOffset = utcOffset
    }

    /// Reads `2026-01-02T03:04:05`, with an optional fraction and an optional `Z` or `±hh:mm`;
    /// `nil` when the text is not an `xs:dateTime` in the years 0001 to 9999.
    ///
    /// `T24:00:00` (with a fraction of zeros only) is the first instant of the next day, as XML
    /// Schema allows: `2026-12-31T24:00:00Z` is `2027-01-01T00:00:00Z`, and is written that way.
    /// `9999-12-31T24:00:00` falls in the year 10000, so it is `nil`.
    public init?(lexicalForm text: String) {
        var scanner = XMLLexicalScanner(text)
        guard let (year, month, day) = scanner.date(), scanner.take("T"),
            let (seconds, milliseconds) = scanner.time(), let offset = scanner.offset(), scanner.isAtEnd,
            seconds < 86_400 || (year, month, day) != (9999, 12, 31)
        else { return nil }
        let days = XMLLexicalScanner.days(year: year, month: month, day: day)
        let local = Int64(days) * 86_400 + Int64(seconds)
        let utc = local - Int64((offset ?? 0) * 60)
        self.init(Date(timeIntervalSince1970: Double(utc * 1000 + Int64(milliseconds)) / 1000), utcOffset: offset)
    }

    /// The `xs:dateTime` text, or `nil` when the date, at its offset, falls outside the years
    /// 0001 to 9999 or the offset is beyond ±14:00.
    public var lexicalForm: String? {
        guard XMLLexicalScanner.offsets.contains(utcOffset ?? 0) else { return nil }
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard totalMilliseconds.magnitude < 1e15 else { return nil }
        let milliseconds = Int64(totalMilliseconds) + Int64((utcOffset ?? 0) * 60_000)
        let (seconds, fraction) = milliseconds.quotientAndFlooredRemainder(dividingBy: 1000)
        let (days, secondOfDay) = seconds.quotientAndFlooredRemainder(dividingBy: 86_400)
        let (year, month, day) = XMLLexicalScanner.civil(days: Int(days))
        guard (1...9999).contains(year) else { return nil }
        return XMLLexicalScanner.dateText(year: year, month: month, day: day) + "T"
            + XMLLexicalScanner.timeText(secondOfDay: Int(secondOfDay), milliseconds: Int(fraction))
            + XMLLexicalScanner.offsetText(utcOffset)
    }

    /// The lexical form, or a note that there is none.
    public var description: String { lexicalForm ?? "(a date outside xs:dateTime's range)" }

    /// Reads the lexical form from a single string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(lexicalForm: trimmingXMLWhitespace(text)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "The text is not an xs:dateTime")
        }
        self = value
    }

    /// Writes the lexical form as a single string.
    ///
    /// - Throws: `EncodingError.invalidValue` when there is no lexical form; neither the error
    ///   nor its description quotes the date.
    public func encode(to encoder: any Encoder) throws {
        guard let text = lexicalForm else {
            // The note `description` gives for a date with no lexical form, never the date.
            throw EncodingError.invalidValue(description, EncodingError.Context(
                codingPath: encoder.codingPath, debugDescription: "The date has no xs:dateTime form"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

extension BinaryInteger {
    /// The quotient rounded down and a remainder in `0 ..< divisor`.
    fileprivate func quotientAndFlooredRemainder(dividingBy divisor: Self) -> (Self, Self) {
        var (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}

/// Reads and writes the pieces of XML Schema's date and time forms, in the proleptic Gregorian
/// calendar, without `Calendar` or `DateFormatter` (whose results depend on the platform).
struct XMLLexicalScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var isAtEnd: Bool { position == bytes.count }

    mutating func take(_ character: Character) -> Bool {
        guard position < bytes.count, bytes[position] == character.asciiValue else { return false }
        position += 1
        return true
    }

    /// Exactly `count` digits.
    mutating func digits(_ count: Int) -> Int? {
        guard position + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[position ..< position + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        position += count
        return value
    }

    /// `YYYY-MM-DD`, a valid day of a year 0001 to 9999.
    mutating func date() -> (Int, Int, Int)? {
        guard let year = digits(4), year >= 1, take("-"), let month = digits(2), take("-"), let day = digits(2),
            (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year)
        else { return nil }
        return (year, month, day)
    }

    /// `hh:mm:ss` with an optional fraction: the second of the day and the milliseconds
    /// (further digits are dropped). `24:00:00`, with a fraction of zeros only, is the first
    /// instant of the next day (XML Schema 1.0 Part 2, 3.2.7): second 86 400.
    mutating func time() -> (Int, Int)? {
        guard let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2),
            hour <= 24, minute < 60, second < 60
        else { return nil }
        var milliseconds = 0
        var fractionIsZero = true
        if take(".") {
            var count = 0
            while let digit = digits(1) {
                if count < 3 { milliseconds = milliseconds * 10 + digit }
                if digit != 0 { fractionIsZero = false }
                count += 1
            }
            guard count > 0 else { return nil }
            for _ in count ..< max(count, 3) { milliseconds *= 10 }
        }
        guard hour < 24 || (minute == 0 && second == 0 && fractionIsZero) else { return nil }
        return (hour * 3600 + minute * 60 + second, milliseconds)
    }

    /// The time zone offsets XML Schema allows, in minutes east of UTC: -14:00 to +14:00. Checked
    /// before the offset's magnitude is taken, which for `Int.min` does not exist.
    static let offsets = -14 * 60 ... 14 * 60

    /// `Z`, `±hh:mm` (up to 14:00) or nothing: minutes east of UTC, `.some(nil)` for none, `nil`
    /// when malformed.
    mutating func offset() -> Int?? {
        if isAtEnd { return .some(nil) }
        if take("Z") { return 0 }
        let sign: Int
        if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
        guard let hours = digits(2), take(":"), let minutes = digits(2), minutes < 60, hours * 60 + minutes <= Self.offsets.upperBound
        else { return nil }
        return .some(sign * (hours * 60 + minutes))
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func dateText(year: Int, month: Int, day: Int) -> String {
        padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
    }

    /// `hh:mm:ss`, then `.` and the milliseconds without trailing zeros when there are any.
    static func timeText(secondOfDay: Int, milliseconds: Int) -> String {
        var text = padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay / 60 % 60, 2) + ":" + padded(secondOfDay % 60, 2)
        if milliseconds > 0 {
            var fraction = padded(milliseconds, 3)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text
    }

    static func offsetText(_ offset: Int?) -> String {
        guard let offset else { return "" }
        if offset == 0 { return "Z" }
        return (offset < 0 ? "-" : "+") + padded(abs(offset) / 60, 2) + ":" + padded(abs(offset) % 60, 2)
    }
}
