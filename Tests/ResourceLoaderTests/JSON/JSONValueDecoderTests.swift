import Foundation
@testable import ResourceLoader
import Testing

/// The decoder against Foundation's `JSONDecoder`: the same models, values, strategies and
/// errors (with their coding paths) from the same bodies.
@Suite("JSONValueDecoder")
struct JSONValueDecoderTests {
    /// Decodes with ours, configured from `decoder` as the resource types do.
    static func decode<T: Decodable>(_ type: T.Type, _ text: String, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try JSONValueDecoder.decode(type, from: Data(text.utf8), using: decoder, options: .decoding)
    }

    /// Ours and Foundation's outcomes for `text`: equal values, or errors of the same kind at
    /// the same coding path.
    static func expectSame<T: Decodable & Equatable>(
        _ type: T.Type, _ text: String, decoder: JSONDecoder = JSONDecoder(), sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ours = Result { try decode(type, text, decoder: decoder) }
        let foundation = Result { try decoder.decode(type, from: Data(text.utf8)) }
        switch (ours, foundation) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(text)", sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            // Foundation on Linux reports a number that does not fit, or a date it cannot read, as
            // `dataCorrupted` with no coding path; ours says where the value is.
            if case .dataCorrupted(let context) = b as? DecodingError, context.codingPath.isEmpty,
                ErrorShape(a).kind == "dataCorrupted"
            {
                return
            }
            #expect(ErrorShape(a) == ErrorShape(b), "\(text): \(a) vs \(b)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(text): ours \(ours), Foundation \(foundation)", sourceLocation: sourceLocation)
        }
    }

    /// A `DecodingError`'s kind and coding path.
    struct ErrorShape: Equatable, CustomStringConvertible {
        let kind: String
        let path: [String]

        init(_ error: any Error) {
            guard let error = error as? DecodingError else {
                kind = "\(type(of: error))"
                path = []
                return
            }
            let context: DecodingError.Context
            switch error {
            case .typeMismatch(_, let c): (kind, context) = ("typeMismatch", c)
            case .valueNotFound(_, let c): (kind, context) = ("valueNotFound", c)
            case .keyNotFound(let key, let c): (kind, context) = ("keyNotFound \(key.stringValue)", c)
            case .dataCorrupted(let c): (kind, context) = ("dataCorrupted", c)
            @unknown default: (kind, context) = ("unknown", .init(codingPath: [], debugDescription: ""))
            }
            path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        }

        var description: String { "\(kind) at \(path)" }
    }

    // MARK: Models

    struct Item: Codable, Equatable {
        var id: Int64
        var title: String
        var price: Double
        var tags: [String]
        var owner: Owner?
        var ratio: Float
        var active: Bool
        var counts: [String: Int]
        var grid: [[UInt8]]
        var note: String?
    }

    struct Owner: Codable, Equatable {
        var name: String
        var score: Int
        var rank: UInt64?
    }

    /// Random items, written as JSON text with `JSONEncoder`.
    static func items(count: Int, seed: UInt64) throws -> String {
        var generator = SeededGenerator(seed: seed)
        let items = (0..<count).map { index in
            Item(
                id: Int64.random(in: .min ... .max, using: &generator), title: "Item \(index) é \u{1D11E} \"q\"",
                price: Double.random(in: -1e9...1e9, using: &generator), tags: ["a", "b\n", ""].shuffled(using: &generator),
                owner: Bool.random(using: &generator) ? nil : Owner(name: "O\(index)", score: Int.random(in: -99...99, using: &generator),
                                                                 rank: Bool.random(using: &generator) ? UInt64.max : nil),
                ratio: Float.random(in: 0...1, using: &generator), active: Bool.random(using: &generator),
                counts: ["x": index, "snake_key": -index], grid: [[1, 2], [], [255]], note: nil)
        }
        return String(decoding: try JSONEncoder().encode(items), as: UTF8.self)
    }

    @Test func randomModelsDecodeAsFoundationDecodesThem() throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            let text = try Self.items(count: 50, seed: seed)
            let ours = try Self.decode([Item].self, text)
            #expect(ours == (try JSONDecoder().decode([Item].self, from: Data(text.utf8))))
        }
    }

    // MARK: Numbers

    struct Number<T: Decodable & Equatable>: Decodable, Equatable {
        let value: T
    }

    @Test(arguments: [
        "0", "-0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "-9223372036854775809", "18446744073709551615", "18446744073709551616", "1e2", "1E2", "100.0", "1.5",
        "1e19", "1e20", "12345678901234567890123", "-0.0", "5e-1",
        "123456789e-9", "1e400", "-1e400", "1.7976931348623157e308",
        "0.1", "0.30000000000000004", "3.141592653589793238462643383279", "9007199254740993", "\"1\"", "true", "null",
        "[]", "{}",
    ])
    func numbersDecodeAsFoundationDecodesThem(number: String) {
        let text = #"{"value":\#(number)}"#
        Self.expectSame(Number<Int>.self, text)
        Self.expectSame(Number<Int8>.self, text)
        Self.expectSame(Number<Int64>.self, text)
        Self.expectSame(Number<UInt64>.self, text)
        Self.expectSame(Number<UInt8>.self, text)
        Self.expectSame(Number<Double>.self, text)
        Self.expectSame(Number<Float>.self, text)
        Self.expectSame(Number<Decimal>.self, text)
    }

    /// Where Foundation rounds or refuses what ours reads exactly.
    @Test func numbersFoundationRoundsOrRefusesAreExact() throws {
        // Not an integer, though Foundation rounds it to one through a `Double`.
        #expect(throws: DecodingError.self) { try Self.decode(Int.self, "1.000000000000000000001e3") }
        #expect(try Self.decode(Double.self, "1.000000000000000000001e3") == 1000)
        // Zero with an exponent, and values that round to zero or a subnormal.
        #expect(try Self.decode(Double.self, "0e5") == 0)
        #expect(try Self.decode(Float.self, "4.9e-324") == 0)
        #expect(try Self.decode(Double.self, "2.2250738585072014e-308") == .leastNormalMagnitude)
    }

    @Test func integersAreExactAndOutOfRangeIsAnError() throws {
        #expect(try Self.decode(Int64.self, "-9223372036854775808") == .min)
        #expect(try Self.decode(UInt64.self, "18446744073709551615") == .max)
        #expect(try Self.decode(Int.self, "1e2") == 100)
        #expect(try Self.decode(Int.self, "12300e-2") == 123)
        for (text, type) in [("9223372036854775808", Int64.self as any Decodable.Type), ("-1", UInt.self), ("256", UInt8.self),
                             ("1.5", Int.self), ("1e20", Int64.self), ("18446744073709551616", UInt64.self)] {
            #expect(throws: DecodingError.self, "\(text)") { try JSONValueDecoder.decode(type, from: Data(text.utf8), using: JSONDecoder(), options: .decoding) }
        }
    }

    @Test func doublesAreCorrectlyRounded() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let digits = String(UInt64.random(in: 0...UInt64.max, using: &generator))
            let text = "\(digits.prefix(Int.random(in: 1...digits.count, using: &generator))).\(Int.random(in: 0...99_999, using: &generator))e\(Int.random(in: -320...300, using: &generator))"
            // Beyond `Double`'s range is an error, not infinity.
            #expect((try? Self.decode(Double.self, text)) == Double(text).flatMap { $0.isFinite ? $0 : nil }, "\(text)")
        }
        // Too small for a `Double` is the nearest one, zero (which Foundation refuses).
        #expect(try Self.decode(Double.self, "1e-400") == 0)
        #expect(try Self.decode(Double.self, "-2e-324").sign == .minus)
        #expect(try Self.decode(Double.self, "4.9e-324") == .leastNonzeroMagnitude)
        #expect(try Self.decode(Decimal.self, "3.141592653589793238462643383279") == Decimal(string: "3.141592653589793238462643383279"))
    }

    // MARK: Errors and paths

    struct Root: Codable, Equatable {
        struct Entry: Codable, Equatable {
            let name: String
            let size: Int
            let flags: [Bool]?
        }
        let entries: [Entry]
        let meta: [String: String]
    }

    @Test(arguments: [
        #"{"entries":[{"name":"a","size":1}],"meta":{}}"#,
        #"{"entries":[{"name":"a","size":1},{"name":"b"}],"meta":{}}"#,
        #"{"entries":[{"name":"a","size":"1"}],"meta":{}}"#,
        #"{"entries":[{"name":null,"size":1}],"meta":{}}"#,
        #"{"entries":[{"name":"a","size":1,"flags":[true,1]}],"meta":{}}"#,
        #"{"entries":[{"name":"a","size":1,"flags":[true,null]}],"meta":{}}"#,
        #"{"entries":[{"name":"a","size":1,"flags":null}],"meta":{}}"#,
        #"{"entries":{},"meta":{}}"#,
        #"{"entries":null,"meta":{}}"#,
        #"{"entries":[],"meta":{"k":1}}"#,
        #"{"entries":[],"meta":[]}"#,
        #"{"entries":[3],"meta":{}}"#,
        #"{"entries":[{"name":"a","size":1e300}],"meta":{}}"#,
        #"{"meta":{}}"#,
        "[]",
        "null",
        "7",
    ])
    func errorsAreFoundationsWithTheSamePath(text: String) {
        Self.expectSame(Root.self, text)
    }

    struct Manual: Decodable, Equatable {
        let values: [Int]
        let inner: String
        let paths: [String]

        enum Keys: String, CodingKey { case outer, list, inner, extra }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            let outer = try container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
            var list = try outer.nestedUnkeyedContainer(forKey: .list)
            var values: [Int] = []
            var paths: [String] = []
            while !list.isAtEnd {
                if try list.decodeNil() { continue }
                paths.append(list.codingPath.map(\.stringValue).joined(separator: "/"))
                values.append(try list.decode(Int.self))
            }
            self.values = values
            inner = try outer.decode(String.self, forKey: .inner)
            paths.append(outer.codingPath.map(\.stringValue).joined(separator: "/"))
            let superDecoder = try outer.superDecoder(forKey: .extra)
            paths.append(superDecoder.codingPath.map(\.stringValue).joined(separator: "/"))
            paths.append(String(describing: try? superDecoder.singleValueContainer().decodeNil()))
            self.paths = paths
        }
    }

    @Test(arguments: [
        #"{"outer":{"list":[1,null,2],"inner":"x"}}"#,
        #"{"outer":{"list":[1,"2"],"inner":"x"}}"#,
        #"{"outer":{"list":[1],"inner":5}}"#,
        #"{"outer":{"list":{},"inner":"x"}}"#,
        #"{"outer":[]}"#,
        #"{"outer":{"list":[1],"inner":"x","extra":3}}"#,
    ])
    func nestedContainersAndSuperDecodersBehaveAsFoundations(text: String) {
        Self.expectSame(Manual.self, text)
    }

    // MARK: Strategies

    struct Event: Codable, Equatable {
        let startDate: Date
        let payloadData: Data
        let aURL: URL
        let ratio: Double
        let extraInfo: [String: Int]
    }

    static let eventText = #"{"start_date":"2026-01-02T03:04:05Z","payload_data":"aGVsbG8=","a_u_r_l":"https://example.com/x","ratio":"+inf","extra_info":{"snake_case":1}}"#

    @Test func keyDateDataAndFloatStrategiesAreFoundations() {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        Self.expectSame(Event.self, Self.eventText, decoder: decoder)
        Self.expectSame(Event.self, Self.eventText.replacingOccurrences(of: "aGVsbG8=", with: "not base64!"), decoder: decoder)
        Self.expectSame(Event.self, Self.eventText.replacingOccurrences(of: "+inf", with: "inf"), decoder: decoder)
        Self.expectSame(Event.self, Self.eventText.replacingOccurrences(of: "\"+inf\"", with: "1.5"), decoder: decoder)
        Self.expectSame(Event.self, Self.eventText.replacingOccurrences(of: "T03", with: "X03"), decoder: decoder)
        // Without the key strategy, no key matches.
        Self.expectSame(Event.self, Self.eventText)
    }

    @Test(arguments: [
        "2026-01-02T03:04:05Z", "2026-01-02T03:04:05+05:30", "2026-01-02T03:04:05-00:45", "1970-01-01T00:00:00Z",
        "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-02T24:00:00Z", "0001-01-01T00:00:00Z",
        "2026-01-02T03:04:05.123Z", "2026-01-02 03:04:05Z", "2026-01-02T03:04:05", "2026-01-02T03:04:05z", "9999-12-31T23:59:59Z",
        "1600-03-01T12:00:00+01:00", "2026-01-02T03:04:60Z", "not a date",
    ])
    func iso8601DatesAreReadAsFoundationReadsThem(date: String) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        Self.expectSame(Number<Date>.self, #"{"value":"\#(date)"}"#, decoder: decoder)
    }

    @Test func everyDateAndDataStrategyIsFoundations() {
        let strategies: [JSONDecoder.DateDecodingStrategy] = [
            .deferredToDate, .secondsSince1970, .millisecondsSince1970,
            .custom { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                guard let seconds = Double(text.dropFirst()) else {
                    throw DecodingError.dataCorruptedError(in: try decoder.singleValueContainer(), debugDescription: "bad")
                }
                return Date(timeIntervalSince1970: seconds)
            },
        ]
        for strategy in strategies {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = strategy
            for value in ["1700000000.5", #""@1700000000""#, #""@x""#, "null"] {
                Self.expectSame(Number<Date>.self, #"{"value":\#(value)}"#, decoder: decoder)
                Self.expectSame(Number<[Date]>.self, #"{"value":[\#(value)]}"#, decoder: decoder)
            }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy/MM/dd"
        let formatted = JSONDecoder()
        formatted.dateDecodingStrategy = .formatted(formatter)
        Self.expectSame(Number<Date>.self, #"{"value":"2026/01/02"}"#, decoder: formatted)
        Self.expectSame(Number<Date>.self, #"{"value":"2026-01-02"}"#, decoder: formatted)

        for strategy in [JSONDecoder.DataDecodingStrategy.base64, .deferredToData, .custom { decoder in
            Data(try decoder.singleValueContainer().decode(String.self).utf8.reversed())
        }] {
            let decoder = JSONDecoder()
            decoder.dataDecodingStrategy = strategy
            for value in [#""aGVsbG8=""#, "[104,105]", "[300]", "7"] {
                Self.expectSame(Number<Data>.self, #"{"value":\#(value)}"#, decoder: decoder)
            }
        }
    }

    struct Keyed: Decodable, Equatable {
        let firstName: String
        let id: Int
    }

    @Test func aCustomKeyStrategySeesThePathAndConvertsEveryKey() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let last = path.last!.stringValue
            return JSONKey(last == "ID" ? "id" : last.replacingOccurrences(of: "-", with: ""))
        }
        Self.expectSame(Keyed.self, #"{"first-Name":"A","ID":3}"#, decoder: decoder)
        Self.expectSame([Keyed].self, #"[{"first-Name":"A","ID":3},{"firstName":"B"}]"#, decoder: decoder)
    }

    @Test func snakeCaseConvertsAsFoundationDoes() throws {
        struct Keys: Decodable, Equatable {
            let aB: Int?
            let _leading: Int?
            let trailing_: Int?
            let oneTwoThree: Int?
            let already: Int?
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        Self.expectSame(Keys.self, #"{"a_b":1,"_leading":2,"trailing_":3,"one__two_three":4,"already":5}"#, decoder: decoder)
        for key in ["a_b", "_a_b_", "__", "", "ALL_CAPS", "mixed_Case_key", "a", "x__y", "日本_語"] {
            #expect(JSONDecodingOptions.convertedFromSnakeCase(key) == Self.foundationSnakeCase(key), "\(key)")
        }
    }

    /// How Foundation converts `key`, read back through a dictionary's coding key.
    static func foundationSnakeCase(_ key: String) -> String {
        struct AllKeys: Decodable {
            let keys: [String]
            init(from decoder: any Decoder) throws {
                keys = try decoder.container(keyedBy: JSONKey.self).allKeys.map(\.stringValue)
            }
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let text = String(decoding: try! JSONEncoder().encode([key: 1]), as: UTF8.self)
        return (try? decoder.decode(AllKeys.self, from: Data(text.utf8)).keys.first) ?? "?"
    }

    @Test func userInfoReachesTheModel() throws {
        struct Reader: Decodable {
            let seen: String?
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[CodingUserInfoKey(rawValue: "tag")!] as? String
            }
        }
        let decoder = JSONDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "tag")!] = "hello"
        #expect(try Self.decode(Reader.self, "{}", decoder: decoder).seen == "hello")
    }

    // MARK: Falling back to Foundation

    final class CountingDecoder: JSONDecoder, @unchecked Sendable {
        let calls = Counter()
        override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
            calls.increment()
            return try super.decode(type, from: data)
        }
    }

    @Test func aSubclassOrJSON5DecodesItselfAfterTheChecks() throws {
        let subclass = CountingDecoder()
        #expect(try Self.decode(Keyed.self, #"{"firstName":"A","id":1}"#, decoder: subclass) == Keyed(firstName: "A", id: 1))
        #expect(subclass.calls.value == 1)
        // The parser still checks the body first: a repeated key never reaches the subclass.
        #expect(throws: JSONParsingError.self) { try Self.decode(Keyed.self, #"{"id":1,"id":2}"#, decoder: subclass) }
        #expect(subclass.calls.value == 1)

        let json5 = JSONDecoder()
        json5.allowsJSON5 = true
        #expect(try Self.decode(Keyed.self, "{firstName: 'A', id: 1,}", decoder: json5) == Keyed(firstName: "A", id: 1))
        #expect(JSONDecodingOptions(json5) == nil && JSONDecodingOptions(subclass) == nil)
        let topLevel = JSONDecoder()
        topLevel.assumesTopLevelDictionary = true
        #expect(JSONDecodingOptions(topLevel) == nil && JSONDecodingOptions(JSONDecoder()) != nil)
    }

    @Test func aDecoderKeptPastItsDecodeStaysSafe() throws {
        final class Keeper: @unchecked Sendable {
            var decoder: (any Decoder)?
        }
        struct Keeping: Decodable {
            static let keeper = Keeper()
            init(from decoder: any Decoder) throws {
                Self.keeper.decoder = decoder
            }
        }
        _ = try Self.decode(Keeping.self, #"{"a":"b"}"#)
        // The tree lives as long as the decoder: reading it later is safe.
        let container = try Keeping.keeper.decoder?.container(keyedBy: JSONKey.self)
        #expect(try container?.decode(String.self, forKey: JSONKey("a")) == "b")
    }

    /// An element that counts the instances alive, so that a test can see each destroyed once.
    final class Tracked: Decodable {
        let counter: LiveCounter
        let n: Int

        enum CodingKeys: String, CodingKey { case n }

        init(from decoder: any Decoder) throws {
            counter = decoder.userInfo[LiveCounter.key] as! LiveCounter
            n = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .n)
            counter.change(by: 1)
        }

        deinit { counter.change(by: -1) }
    }

    final class LiveCounter: @unchecked Sendable {
        static let key = CodingUserInfoKey(rawValue: "live")!
        private let lock = NSLock()
        private var value = 0
        var live: Int { lock.withLock { value } }
        func change(by delta: Int) { lock.withLock { value += delta } }
    }

    /// Catches a failing array and goes on decoding the members after it.
    struct Recovering: Decodable, Equatable {
        let first: [Int]?
        let failurePath: String
        let second: [String]

        enum CodingKeys: String, CodingKey { case first, second }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                first = try container.decode([Tracked].self, forKey: .first).map(\.n)
                failurePath = ""
            } catch let error as DecodingError {
                first = nil
                failurePath = ErrorShape(error).description
            }
            second = try container.decode([String].self, forKey: .second)
        }
    }

    @Test(arguments: [
        #"{"first":[{"n":1},{"n":2},{"n":"x"}],"second":["a","b"]}"#,
        #"{"first":[{"n":1},{"m":2}],"second":["a"]}"#,
        #"{"first":[{"n":1},null],"second":[]}"#,
        #"{"first":[{"n":1},{"n":2}],"second":["a",null]}"#,
        #"{"first":[{"n":1},{"n":2}],"second":["a","b"]}"#,
    ])
    func anArrayThatFailsPartWayDestroysItsElementsAndTheDecodeGoesOn(text: String) {
        let counter = LiveCounter()
        let ours = JSONDecoder()
        ours.userInfo[LiveCounter.key] = counter
        let foundation = JSONDecoder()
        foundation.userInfo[LiveCounter.key] = counter
        Self.expectSame(Recovering.self, text, decoder: ours)
        // Every element decoded before the failure, by either decoder, is gone.
        #expect(counter.live == 0)
    }

    /// A `null` element in an array of each scalar type, at the top level and under a key.
    @Test(arguments: ["true", "1", "-1", "1.5", #""a""#])
    func aNullElementIsTheErrorFoundationReports(element: String) {
        struct Wrapped<Element: Decodable & Equatable>: Decodable, Equatable { let a: [Element] }
        func expectBoth<Element: Decodable & Equatable>(_ type: Element.Type) {
            Self.expectSame([Element].self, "[\(element),null]")
            Self.expectSame(Wrapped<Element>.self, #"{"a":[\#(element),null]}"#)
        }
        switch element {
        case "true": expectBoth(Bool.self)
        case "1": expectBoth(Int.self); expectBoth(UInt64.self); expectBoth(Int8.self)
        case "-1": expectBoth(Int32.self)
        case "1.5": expectBoth(Double.self); expectBoth(Float.self)
        default: expectBoth(String.self)
        }
    }

    /// Texts short enough for a small string are made differently from longer ones: each length
    /// either side of the bound, ASCII and not, escaped and not.
    @Test func stringsOfEveryLengthAroundTheSmallStringBound() {
        for length in 0...18 {
            for text in [String(repeating: "a", count: length), String(repeating: "é", count: length / 2),
                         String(repeating: "a", count: max(0, length - 2)) + "\\n"] {
                Self.expectSame([String].self, #"["\#(text)"]"#)
            }
        }
    }
}

// MARK: - Containers at their edges

extension JSONValueDecoderTests {
    /// Reads past the end of an array with every `decodeIfPresent`.
    struct PastTheEnd: Decodable, Equatable {
        let first: Int
        let list: [Int]?
        let int: Int?
        let string: String?
        let bool: Bool?
        let double: Double?

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            first = try container.decode(Int.self)
            list = try container.decodeIfPresent([Int].self)
            int = try container.decodeIfPresent(Int.self)
            string = try container.decodeIfPresent(String.self)
            bool = try container.decodeIfPresent(Bool.self)
            double = try container.decodeIfPresent(Double.self)
        }
    }

    @Test func decodeIfPresentAtTheEndOfAnArrayIsNil() throws {
        // GIVEN an array with one element
        // WHEN a type reads it and then asks for optional values past its end
        // THEN each is nil, as with JSONDecoder
        Self.expectSame(PastTheEnd.self, "[1]")
        #expect(try Self.decode(PastTheEnd.self, "[1]").list == nil)
        Self.expectSame(PastTheEnd.self, "[1,null,null,null,null,null]")
        Self.expectSame(PastTheEnd.self, #"[1,[2],3,"a",true,1.5]"#)
    }

    /// Decodes a member of a nested object through containers, by the names a key strategy
    /// gives: `inner/x` for `{"inner":{"x":…}}` when the strategy spells out the whole path.
    struct ByPath: Decodable, Equatable {
        let keyed: Int
        let unkeyed: Int

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: JSONKey.self)
            let inner = try container.nestedContainer(keyedBy: JSONKey.self, forKey: JSONKey("inner"))
            keyed = try inner.decode(Int.self, forKey: JSONKey("inner/x"))
            var list = try container.nestedUnkeyedContainer(forKey: JSONKey("list"))
            let element = try list.nestedContainer(keyedBy: JSONKey.self)
            unkeyed = try element.decode(Int.self, forKey: JSONKey("list/Index 0/y"))
        }
    }

    @Test func aCustomKeyStrategySeesTheNestedContainersPath() throws {
        // GIVEN a custom key strategy whose key is the whole coding path it is handed
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in JSONKey(path.map(\.stringValue).joined(separator: "/")) }
        // WHEN members are read through nested containers
        // THEN the strategy sees each container's path and the key, as with JSONDecoder
        Self.expectSame(ByPath.self, #"{"inner":{"x":1},"list":[{"y":2}]}"#, decoder: decoder)
        let decoded = try Self.decode(ByPath.self, #"{"inner":{"x":1},"list":[{"y":2}]}"#, decoder: decoder)
        #expect(decoded.keyed == 1 && decoded.unkeyed == 2)
    }

    @Test(arguments: [#""+inf""#, #""\u002binf""#, #""+\u0069nf""#, #""nan""#, #""\u006ean""#, #""-∞""#, #""-\u221e""#])
    func aNonConformingFloatIsReadAsFoundationReadsIt(value: String) {
        // GIVEN the strings that stand for infinities and NaN
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-∞", nan: "nan")
        // WHEN one is written with escapes, or as it is
        // THEN it is read, or refused, as JSONDecoder reads it (NaN compared by its description)
        struct Text<T: Decodable & LosslessStringConvertible>: Decodable, Equatable {
            let value: String
            init(from decoder: any Decoder) throws {
                value = try decoder.container(keyedBy: JSONKey.self).decode(T.self, forKey: JSONKey("value")).description
            }
        }
        Self.expectSame(Text<Double>.self, #"{"value":\#(value)}"#, decoder: decoder)
        Self.expectSame(Text<Float>.self, #"{"value":\#(value)}"#, decoder: decoder)
    }
}

// MARK: - Null where a value should be

extension JSONValueDecoderTests {
    /// A `T` read by each container's own overload for it, not the generic `decode`: `way` is
    /// `keyed` (member `v`), `unkeyed` (the first element) or `single`.
    struct ByOverload<T: Decodable & Equatable>: Decodable, Equatable {
        static var wayKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "way")! }
        let value: T

        init(from decoder: any Decoder) throws {
            switch decoder.userInfo[Self.wayKey] as? String {
            case "keyed":
                let container = try decoder.container(keyedBy: JSONKey.self)
                let key = JSONKey("v")
                value = try Self.read(
                    bool: { try container.decode(Bool.self, forKey: key) }, string: { try container.decode(String.self, forKey: key) },
                    int: { try container.decode(Int.self, forKey: key) }, double: { try container.decode(Double.self, forKey: key) })
            case "unkeyed":
                var container = try decoder.unkeyedContainer()
                value = try Self.read(
                    bool: { try container.decode(Bool.self) }, string: { try container.decode(String.self) },
                    int: { try container.decode(Int.self) }, double: { try container.decode(Double.self) })
            default:
                let container = try decoder.singleValueContainer()
                value = try Self.read(
                    bool: { try container.decode(Bool.self) }, string: { try container.decode(String.self) },
                    int: { try container.decode(Int.self) }, double: { try container.decode(Double.self) })
            }
        }

        static func read(
            bool: () throws -> Bool, string: () throws -> String, int: () throws -> Int, double: () throws -> Double
        ) throws -> T {
            switch T.self {
            case is Bool.Type: try bool() as! T
            case is String.Type: try string() as! T
            case is Int.Type: try int() as! T
            default: try double() as! T
            }
        }
    }

    /// Reads a `T` with the generic `decode` of each container, as `ByOverload` does.
    struct Generic<T: Decodable & Equatable>: Decodable, Equatable {
        let value: T

        init(from decoder: any Decoder) throws {
            switch decoder.userInfo[ByOverload<T>.wayKey] as? String {
            case "keyed": value = try decoder.container(keyedBy: JSONKey.self).decode(T.self, forKey: JSONKey("v"))
            case "unkeyed":
                var container = try decoder.unkeyedContainer()
                value = try container.decode(T.self)
            default: value = try decoder.singleValueContainer().decode(T.self)
            }
        }
    }

    @Test(arguments: ["keyed", "unkeyed", "single"])
    func aNullScalarIsTheErrorFoundationReports(way: String) {
        // GIVEN a null where each scalar type should be, in each kind of container
        let decoder = JSONDecoder()
        decoder.userInfo[ByOverload<Bool>.wayKey] = way
        let text = switch way {
        case "keyed": #"{"v":null}"#
        case "unkeyed": "[null]"
        default: "null"
        }
        // WHEN it is decoded by the container's own overload and by its generic decode
        // THEN the error is JSONDecoder's, of the same kind at the same path
        func expectBoth<T: Decodable & Equatable>(_ type: T.Type) {
            Self.expectSame(ByOverload<T>.self, text, decoder: decoder)
            Self.expectSame(Generic<T>.self, text, decoder: decoder)
        }
        expectBoth(Bool.self)
        expectBoth(String.self)
        expectBoth(Int.self)
        expectBoth(Double.self)
    }
}
