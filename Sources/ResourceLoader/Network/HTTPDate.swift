import Foundation

/// Reads the three forms of HTTP-date a recipient must accept (RFC 9110, section 5.6.7):
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`;
/// - the obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT` (a two-digit year below 70 is
///   read as 20xx, any other as 19xx);
/// - the obsolete asctime form: `Sun Nov  6 08:49:37 1994`.
///
/// Parsed by hand, byte by byte: no formatter, no locale, no calendar, nothing allocated. A
/// value with anything else in it, or a date that does not exist (31 April), is not a date.
enum HTTPDate {
    /// The date `text` names, or `nil` when it is not an HTTP-date.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return parseIMFFixdate(&reader) ?? parseRFC850(&reader) ?? parseAsctime(&reader)
        }
    }

    private static let shortDayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func parseIMFFixdate(_ reader: inout Reader) -> Date? {
        reader.rewind()
        guard reader.word(in: shortDayNames) != nil, reader.literal(", "),
              let day = reader.digits(2), reader.literal(" "),
              let month = reader.word(in: monthNames), reader.literal(" "),
              let year = reader.digits(4), reader.literal(" "),
              let time = reader.timeOfDay(), reader.literal(" GMT"), reader.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func parseRFC850(_ reader: inout Reader) -> Date? {
        reader.rewind()
        guard reader.word(in: longDayNames) != nil, reader.literal(", "),
              let day = reader.digits(2), reader.literal("-"),
              let month = reader.word(in: monthNames), reader.literal("-"),
              let shortYear = reader.digits(2), reader.literal(" "),
              let time = reader.timeOfDay(), reader.literal(" GMT"), reader.isAtEnd
        else { return nil }
        return date(year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month + 1, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func parseAsctime(_ reader: inout Reader) -> Date? {
        reader.rewind()
        guard reader.word(in: shortDayNames) != nil, reader.literal(" "),
              let month = reader.word(in: monthNames), reader.literal(" ")
        else { return nil }
        let day: Int
        if reader.literal(" "), let digit = reader.digits(1) {
            day = digit
        } else if let digits = reader.digits(2) {
            day = digits
        } else {
            return nil
        }
        guard reader.literal(" "), let time = reader.timeOfDay(), reader.literal(" "),
              let year = reader.digits(4), reader.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// The instant named, or `nil` when no such day or time exists.
    private static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthLengths = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...monthLengths[month - 1]).contains(day),
              (0...23).contains(time.hour), (0...59).contains(time.minute), (0...60).contains(time.second)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to the given day of the proleptic Gregorian calendar.
    ///
    /// Counts in 400-year eras of 146,097 days from 0000-03-01, so that the leap day falls at the
    /// end of each year counted.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        // 719,468 days separate 0000-03-01 from 1970-01-01.
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Walks the bytes of a value.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { index == bytes.count }

        mutating func rewind() {
            index = 0
        }

        /// Consumes `text` if the bytes continue with it.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
                return false
            }
            index += count
            return true
        }

        /// Consumes the first of `words` the bytes continue with (case-sensitive, as the grammar
        /// is) and returns its index.
        mutating func word(in words: [String]) -> Int? {
            for (position, word) in words.enumerated() {
                let utf8 = word.utf8
                guard bytes.count - index >= utf8.count else { continue }
                if zip(bytes[index...], utf8).allSatisfy({ $0 == $1 }) {
                    index += utf8.count
                    return position
                }
            }
            return nil
        }

        /// Consumes exactly `count` ASCII digits and returns their value.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = bytes[index + offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        /// `HH:MM:SS`
        mutating func timeOfDay() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"),
                  let second = digits(2)
            else { return nil }
            return (hour, minute, second)
        }
    }
}
