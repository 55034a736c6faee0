import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hostile and malformed JSON, through both JSON paths: `JSONSerialization`
/// (``JSONResourceType``) and `JSONDecoder` (``JSONDecodableResourceType``). Every body must end
/// in a model or a typed error, never a crash or a silently wrong model.
@Suite("Bad JSON input")
struct JSONBadInputTests {
    // MARK: Depth

    static let deepArrays = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    static let deepObjects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)

    @Test(arguments: [deepArrays, deepObjects])
    func tenThousandLevelsAreAParsingErrorOnBothPaths(json: String) async throws {
        // Off the main thread, on a task's smaller stack, as a service would parse it.
        let errors = await Task.detached {
            [
                Nested().result(from: Data(json.utf8)).failure,
                NestedNames().result(from: Data(json.utf8)).failure,
            ]
        }.value
        #expect(errors.map { $0?.caseName } == ["parsing", "parsing"])
    }

    @Test func tenThousandLevelsThroughTheServiceAreAParsingError() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .json(Self.deepObjects))
        let error = await ResourceService<CitiesResource>(session: session).fetchError(CitiesResource())
        #expect(error?.caseName == "parsing")
        let names = await ResourceService<CityNamesResource>(session: session).fetchError(CityNamesResource())
        #expect(names?.caseName == "parsing")
    }

    // MARK: Duplicate keys

    @Test(arguments: [
        (#"{"cities":[{"name":"Lisbon","name":"Oslo"}]}"#, "cities[0].name"),
        (#"{"cities":[{"name":"Lisbon"}],"cities":[]}"#, "cities"),
        (#"{"cities":[{"name":"Lisbon"},{"name":"Oslo","n\u0061me":"Rome"}]}"#, "cities[1].name"),
        // A value ending in an escaped backslash: its closing quote is real.
        (#"{"cities":[{"name":"a\\","name":"b"}]}"#, "cities[0].name"),
        (#"{"cities":[{"name":"a\\\\\"\\\\","name":"b"}]}"#, "cities[0].name"),
        (#"{"cities":[{"name":"\"","name":"b"}]}"#, "cities[0].name"),
    ])
    func anObjectWithARepeatedKeyIsAParsingErrorOnBothPaths(json: String, path: String) throws {
        try expectRepeatedKey(in: json, at: path)
    }

    /// Keys equal as Swift strings but not byte for byte: both parsers key dictionaries by
    /// `String`, whose equality is canonical equivalence.
    @Test(arguments: [
        (#"{"cities":[{"name":"A","K":1,"\u212A":2}]}"#, "cities[0].\u{212A}"),
        (#"{"cities":[{"name":"A","caf\u00e9":1,"cafe\u0301":2}]}"#, "cities[0].cafe\u{301}"),
    ])
    func canonicallyEqualKeysAreRepeatedKeys(json: String, path: String) throws {
        try expectRepeatedKey(in: json, at: path)
    }

    @Test func aRepeatedKeyInALargeObjectIsFound() throws {
        let fillers = (0..<40).map { #""key\#($0)":\#($0)"# }.joined(separator: ",")
        try expectRepeatedKey(in: #"{"cities":[{"name":"A",\#(fillers),"name":"B"}]}"#, at: "cities[0].name")
        let distinct = #"{"cities":[{"name":"A",\#(fillers)}]}"#
        #expect(try CitiesResource().result(from: Data(distinct.utf8)).get() == [City(name: "A")])
    }

    /// A UTF-8 byte order mark is skipped; UTF-16, which RFC 8259 does not allow between
    /// systems, is refused on both paths before anything else is looked at.
    @Test func aRepeatedKeyAfterAByteOrderMarkIsFoundAndUTF16IsRefused() throws {
        let json = #"{"cities":[{"name":"Lisbon"},{"name":"Oslo","name":"Rome"}]}"#
        for (encoding, name) in [(String.Encoding.utf16LittleEndian, "UTF-16LE"), (.utf16BigEndian, "UTF-16BE"), (.utf16, "UTF-16LE")] {
            let body = try #require(json.data(using: encoding))
            for error in [CitiesResource().result(from: body).failure, CityNamesResource().result(from: body).failure] {
                #expect(error?.parsingUnderlying == .unsupportedEncoding(name))
            }
        }
        try expectRepeatedKey(in: Data([0xEF, 0xBB, 0xBF]) + Data(json.utf8), at: "cities[1].name")
    }

    private func expectRepeatedKey(in json: String, at path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectRepeatedKey(in: Data(json.utf8), at: path, sourceLocation: sourceLocation)
    }

    private func expectRepeatedKey(in body: Data, at path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // JSONSerialization would keep the last value and JSONDecoder the first: neither is
        // trusted.
        for error in [CitiesResource().result(from: body).failure, CityNamesResource().result(from: body).failure] {
            guard case .parsing(let failure) = error, case .duplicateKey(let found, _) = failure.underlying as? JSONParsingError else {
                Issue.record("expected a duplicateKey parsing error, got \(String(describing: error))", sourceLocation: sourceLocation)
                continue
            }
            #expect(found == path, sourceLocation: sourceLocation)
        }
    }

    /// The error says where, as a byte offset, and keeps the path for code; its description
    /// shows neither the key nor anything else from the body.
    @Test func aRepeatedKeysErrorHasItsPathAndOffsetButItsDescriptionQuotesNoKey() throws {
        let json = #"{"cities":[{"name":"Lisbon","secret-key":1,"secret-key":2}]}"#
        let offset = try #require(json.utf8.ranges(of: #""secret-key""#.utf8).last?.lowerBound)
        for error in [CitiesResource().result(from: Data(json.utf8)).failure, CityNamesResource().result(from: Data(json.utf8)).failure] {
            guard case .parsing(let failure) = error else {
                Issue.record("expected parsing, got \(String(describing: error))")
                continue
            }
            let expected = JSONParsingError.duplicateKey(path: "cities[0].secret-key", offset: json.utf8.distance(from: json.utf8.startIndex, to: offset))
            #expect(failure.underlying as? JSONParsingError == expected)
            let texts = [String(describing: error), String(reflecting: error), error?.localizedDescription ?? "", "\(expected)"]
            for text in texts {
                #expect(text.contains("byte offset \(json.utf8.distance(from: json.utf8.startIndex, to: offset))"), "\(text)")
                #expect(!text.contains("secret") && !text.contains("cities") && !text.contains("Lisbon"), "\(text)")
            }
        }
    }

    @Test(arguments: [
        (#"{"cities":[{"name":"Lisbon"},{"name":"Oslo"}]}"#, ["Lisbon", "Oslo"]),
        (#"{"cities":[{"name":"{\"name\":1,\"name\":2}"}]}"#, [#"{"name":1,"name":2}"#]),
        (#"{"cities":[{"name":"a\"b","n\"ame":"x","name\\":"y"}]}"#, [#"a"b"#]),
        (#"{"cities":[{"name":"Lisbon","Name":"Oslo"}]}"#, ["Lisbon"]),
        // Escaped quotes inside a value hide what looks like a second key.
        (#"{"cities":[{"name":"a\\\",\"name\":\"b"}]}"#, [#"a\","name":"b"#]),
        (#"{"cities":[{"name":"\\\"\\\""},{"name":"x"}]}"#, [#"\"\""#, "x"]),
    ])
    func equalKeysInDifferentObjectsOrInsideStringsAreFine(json: String, names: [String]) throws {
        #expect(try CitiesResource().result(from: Data(json.utf8)).get().map(\.name) == names)
        #expect(try CityNamesResource().result(from: Data(json.utf8)).get() == names)
    }

    @Test func aDecoderThatAllowsJSON5DecodesTheBodyItself() throws {
        // JSON5 is not JSON: our parser does not read it, so Foundation's decoder decodes the
        // body, repeated keys and all, after the value and container counts are checked.
        var resource = LenientCities()
        resource.allowsJSON5 = true
        #expect(try resource.result(from: Data(#"{"cities":[{name:"A", "name":"A"}]}"#.utf8)).get() == [City(name: "A")])
    }

    // MARK: Memory

    /// 1,000,001 values: under the default limit's worth of bytes (2 MB), but each would be built
    /// by the parser. With a test limit of 1,000 the parser stops at the 1,001st value: no model.
    static let millionZeros = "[" + String(repeating: "0,", count: 1_000_000) + "0]"

    @Test func aBodyWithMoreValuesThanTheLimitStopsTheParserOnBothPaths() {
        let built = Counter()
        let limits = JSONParsingOptions(maximumValueCount: 1_000)
        let errors = [
            CountedArray(options: limits, built: built).result(from: Data(Self.millionZeros.utf8)).failure,
            CountedDecodableArray(options: limits, built: built).result(from: Data(Self.millionZeros.utf8)).failure,
        ]
        for error in errors {
            guard case .parsing(let failure) = error else {
                Issue.record("expected parsing, got \(String(describing: error))")
                continue
            }
            #expect(failure.underlying as? JSONParsingError == .tooManyValues(limit: 1_000))
            #expect(error?.description.contains("limit of 1000 values") == true)
        }
        #expect(built.value == 0)
    }

    @Test func aBodyWithExactlyTheLimitsPassesAndOneMoreIsRefused() throws {
        // 1 array + 999 numbers = 1,000 values; 1 + 99 arrays = 100 containers.
        let values = "[" + Array(repeating: "0", count: 999).joined(separator: ",") + "]"
        let containers = "[" + Array(repeating: "[]", count: 99).joined(separator: ",") + "]"
        let built = Counter()
        let limits = JSONParsingOptions(maximumValueCount: 1_000, maximumContainerCount: 100)
        let serialization = CountedArray(options: limits, built: built)
        let decodable = CountedDecodableArray(options: limits, built: built)
        #expect(try serialization.result(from: Data(values.utf8)).get() == 999)
        #expect(try decodable.result(from: Data(values.utf8)).get() == 999)
        #expect(try serialization.result(from: Data(containers.utf8)).get() == 99)
        #expect(try decodable.result(from: Data(containers.utf8)).get() == 99)
        #expect(built.value == 4)

        let oneValueMore = Data(values.replacingOccurrences(of: "[0,", with: "[0,0,").utf8)
        let oneContainerMore = Data(containers.replacingOccurrences(of: "[[],", with: "[[],[],").utf8)
        for error in [serialization.result(from: oneValueMore).failure, decodable.result(from: oneValueMore).failure] {
            #expect(error?.parsingUnderlying == .tooManyValues(limit: 1_000))
        }
        for error in [serialization.result(from: oneContainerMore).failure, decodable.result(from: oneContainerMore).failure] {
            #expect(error?.parsingUnderlying == .tooManyContainers(limit: 100))
        }
        #expect(built.value == 4)
    }

    /// The defaults apply without a resource saying anything: 1,000,001 numbers (2 MB) or 125,001
    /// empty arrays (375 KB) would cost `JSONSerialization` about 75 MB and 10 MB, but the
    /// ten-fold of either, well under the response size limit, would cost ten times that.
    /// `JSONSerialization`'s path has the lower defaults; `JSONDecoder`'s allows four times the
    /// values and any number of them containers.
    @Test func eachPathHasItsOwnDefaultLimits() {
        let arrays = Data(("[" + Array(repeating: "[]", count: 125_000).joined(separator: ",") + "]").utf8)
        let serializing = JSONParsingOptions()
        #expect(NestedNames().result(from: Data(Self.millionZeros.utf8)).failure?.parsingUnderlying
            == .tooManyValues(limit: serializing.maximumValueCount))
        #expect(NestedNames().result(from: arrays).failure?.parsingUnderlying
            == .tooManyContainers(limit: serializing.maximumContainerCount))

        // The same bodies reach JSONDecoder; four million and one values do not.
        #expect((try? Unread().result(from: Data(Self.millionZeros.utf8)).get()) != nil)
        #expect((try? Unread().result(from: arrays).get()) != nil)
        let fourMillionZeros = Data(("[" + String(repeating: "0,", count: 3_999_999) + "0]").utf8)
        #expect(Unread().result(from: fourMillionZeros).failure?.parsingUnderlying
            == .tooManyValues(limit: JSONParsingOptions.decoding.maximumValueCount))
        #expect(JSONParsingOptions.decoding.maximumValueCount == 4_000_000)
    }

    /// Past what the scan understands (here JSON5, which such a decoder reads), commas and opening
    /// brackets bound the values left, so the limit still holds.
    @Test func aJSON5BodyForADecoderThatAllowsItIsCountedToo() throws {
        // 1 + 1 + 601 × 2 = 1,204 values.
        let tail = String(repeating: "{name: 'B'}, ", count: 600)
        let body = Data("{cities: [// a comment\n\(tail) {name: 'A'}]}".utf8)
        var resource = LenientCities()
        resource.allowsJSON5 = true
        resource.options = JSONParsingOptions(maximumValueCount: 1_000)
        #expect(resource.result(from: body).failure?.parsingUnderlying == .tooManyValues(limit: 1_000))
        resource.options = JSONParsingOptions(maximumValueCount: 10_000)
        #expect(try resource.result(from: body).get().count == 601)
    }

    /// The JSON5 scan counts the depth of brackets outside strings and comments, so the depth
    /// limit holds for a decoder that allows JSON5 too.
    @Test func aJSON5BodyForADecoderThatAllowsItIsHeldToTheDepthLimit() throws {
        var resource = JSON5Nesting()
        resource.options = JSONParsingOptions(maximumDepth: 4)
        // GIVEN bodies six levels deep, some with brackets and quotes in strings and comments
        for body in [
            "[[[[[[1]]]]]]", #"["]]]]]", [[[[[1]]]]]]"#, "// it's\n[[[[[[1]]]]]]", "/* \" */ [[[[[[1]]]]]]",
            #"['\'', {a: [[[[1]]]]}]"#, "{a: /* ] */ [[[[{}]]]]}",
        ] {
            // THEN each is too deep
            #expect(resource.result(from: Data(body.utf8)).failure?.parsingUnderlying == .tooDeep(limit: 4), "\(body)")
        }
        // AND bodies four levels deep pass, whatever brackets their strings and comments hold
        for body in [
            "[[[[1]]]]", #"['[[[[[', "]]]]", '"[[[[', "\"[[[[", [[['\\', "\\"]]]]"#,
            "// [[[[[\n[[[[1]]]]", "/* [[[[[ */ [{a: [{b: '[[['}]}] // ]]]]", "[[[[1]]]] // [[[[[",
        ] {
            #expect(throws: Never.self, "\(body)") { try resource.result(from: Data(body.utf8)).get() }
            #expect((try? resource.result(from: Data(body.utf8)).get()) == 4, "\(body)")
        }
    }

    /// Foundation's decoder reads UTF-16 and UTF-32 as text, so the scan does too: read as
    /// bytes, the escaped quote of `'\''` would end the string, and the rest would hide the
    /// brackets after it in a string that never closes.
    @Test func aJSON5BodyInUTF16OrUTF32IsHeldToTheDepthLimitToo() throws {
        var resource = JSON5Nesting()
        resource.options = JSONParsingOptions(maximumDepth: 4)
        let deep = #"['\'', [[[[[1]]]]]]"#
        let shallow = #"['\'', [[[1]]]]"#
        for encoding: String.Encoding in [.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32BigEndian] {
            let deepBody = try #require(deep.data(using: encoding))
            let shallowBody = try #require(shallow.data(using: encoding))
            #expect(resource.result(from: deepBody).failure?.parsingUnderlying == .tooDeep(limit: 4), "\(encoding)")
            #expect((try? resource.result(from: shallowBody).get()) == 4, "\(encoding)")
        }
    }

    /// A decoder that allows JSON5 and assumes a top-level dictionary reads an object without
    /// braces at the top: one level more than its brackets.
    @Test func aJSON5BodyWithoutTopLevelBracesCountsTheObjectItMakes() throws {
        var resource = JSON5Nesting()
        resource.assumesTopLevelDictionary = true
        resource.options = JSONParsingOptions(maximumDepth: 3)
        #expect(resource.result(from: Data("a: [[[1]]]".utf8)).failure?.parsingUnderlying == .tooDeep(limit: 3))
        #expect(resource.result(from: Data("/* { */ a: [[[1]]]".utf8)).failure?.parsingUnderlying == .tooDeep(limit: 3))
        #expect((try? resource.result(from: Data("a: [[1]]".utf8)).get()) == 3)
        // With the braces written, the object is counted once.
        #expect((try? resource.result(from: Data(" // x\n{a: [[1]]}".utf8)).get()) == 3)
    }

    @Test func aBodyPastTheLimitThroughTheServiceIsAParsingError() async throws {
        let session = FakeURLSession()
        session.stub(.any, with: .json(Self.millionZeros))
        let error = await ResourceService<CountedArray>(session: session)
            .fetchError(CountedArray(options: JSONParsingOptions(maximumValueCount: 10), built: Counter()))
        #expect(error?.parsingUnderlying == .tooManyValues(limit: 10))
    }

    // MARK: Numbers

    @Test func aNumberBeyondDoubleIsAParsingErrorOnBothPaths() {
        let json = Data(#"{"value": 1e400}"#.utf8)
        #expect(Reading().result(from: json).failure?.caseName == "parsing")
        #expect(ReadingValue().result(from: json).failure?.caseName == "parsing")
    }

    @Test func anIntegerBeyondIntIsAParsingErrorOnBothPaths() throws {
        let json = Data(#"{"count": 18446744073709551616}"#.utf8)
        #expect(Count().result(from: json).failure?.caseName == "parsing")
        #expect(CountValue().result(from: json).failure?.caseName == "parsing")
        // The largest Int still fits.
        let largest = Data(#"{"count": 9223372036854775807}"#.utf8)
        #expect(try Count().result(from: largest).get() == Int.max)
        #expect(try CountValue().result(from: largest).get() == Int.max)
    }

    // MARK: Null

    @Test func nullForANonOptionalIsAParsingErrorWithTheCodingPath() {
        let error = CitiesResource().result(from: Data(#"{"cities":[{"name":"Lisbon"},{"name":null}]}"#.utf8)).failure
        guard case .parsing(let failure) = error else {
            Issue.record("expected parsing, got \(String(describing: error))")
            return
        }
        #expect(failure.codingPath == "cities[1].name")
        #expect(error?.description.contains("cities[1].name") == true)
    }
}

// MARK: - Resources

extension ResourceError {
    /// The ``JSONParsingError`` of a parsing failure, if it has one.
    fileprivate var parsingUnderlying: JSONParsingError? {
        guard case .parsing(let failure) = self else { return nil }
        return failure.underlying as? JSONParsingError
    }
}

/// Any top-level array, through `JSONSerialization`, counting the models it builds.
private struct CountedArray: NetworkResourceType, JSONResourceType {
    let options: JSONParsingOptions
    let built: Counter
    var url: URL { URL(string: "https://api.example.com/numbers")! }
    var jsonParsingOptions: JSONParsingOptions { options }

    func modelFrom(jsonArray: [Any]) -> Int? {
        built.increment()
        return jsonArray.count
    }
}

/// Any top-level array, through `JSONDecoder`, counting the roots it decodes.
private struct CountedDecodableArray: JSONDecodableResourceType {
    struct Root: Decodable {
        let count: Int
        init(from decoder: any Decoder) throws {
            (decoder.userInfo[CountedDecodableArray.builtKey] as? Counter)?.increment()
            var container = try decoder.unkeyedContainer()
            var count = 0
            while !container.isAtEnd {
                _ = try container.decode(Skipped.self)
                count += 1
            }
            self.count = count
        }
    }

    struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    static let builtKey = CodingUserInfoKey(rawValue: "built")!
    let options: JSONParsingOptions
    let built: Counter
    var jsonParsingOptions: JSONParsingOptions { options }

    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[Self.builtKey] = built
        return decoder
    }

    func model(from root: Root) -> Int { root.count }
}

/// Any JSON array or object, through `JSONSerialization`.
private struct NestedNames: JSONResourceType {
    func modelFrom(jsonDictionary: [String: Any]) -> Int? { jsonDictionary.count }
    func modelFrom(jsonArray: [Any]) -> Int? { jsonArray.count }
}

/// Any JSON text, through `JSONDecoder`, into a model that reads none of it: what the decoder
/// parses, without the cost of building a model.
private struct Unread: JSONDecodableResourceType {
    struct Model: Decodable, Sendable {
        init(from decoder: any Decoder) throws {}
    }
}

/// Nested arrays or objects of any depth, through `JSONDecoder`.
private struct Nested: JSONDecodableResourceType {
    indirect enum Model: Decodable, Sendable {
        case array([Model])
        case object([String: Model])
        case number(Int)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let array = try? container.decode([Model].self) {
                self = .array(array)
            } else if let object = try? container.decode([String: Model].self) {
                self = .object(object)
            } else {
                self = .number(try container.decode(Int.self))
            }
        }
    }
}

private struct LenientCities: JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    var allowsJSON5 = false
    var options = JSONParsingOptions()
    var jsonParsingOptions: JSONParsingOptions { options }

    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = allowsJSON5
        return decoder
    }

    func model(from root: Root) -> [City] { root.cities }
}

/// Any JSON5 body, decoded by Foundation's `JSONDecoder`, read for how deeply its objects and
/// arrays nest.
private struct JSON5Nesting: JSONDecodableResourceType {
    var assumesTopLevelDictionary = false
    var options = JSONParsingOptions()
    var jsonParsingOptions: JSONParsingOptions { options }

    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        decoder.assumesTopLevelDictionary = assumesTopLevelDictionary
        return decoder
    }

    struct Root: Decodable {
        let depth: Int

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: Key.self) {
                depth = 1 + (try object.allKeys.map { try object.decode(Root.self, forKey: $0).depth }.max() ?? 0)
            } else if var array = try? decoder.unkeyedContainer() {
                var deepest = 0
                while !array.isAtEnd { deepest = max(deepest, try array.decode(Root.self).depth) }
                depth = 1 + deepest
            } else {
                depth = 0
            }
        }
    }

    func model(from root: Root) -> Int { root.depth }
}

private struct Reading: JSONDecodableResourceType {
    struct Root: Decodable { let value: Double }
    func model(from root: Root) -> Double { root.value }
}

private struct ReadingValue: JSONResourceType {
    func modelFrom(jsonDictionary: [String: Any]) -> Double? { jsonDictionary["value"] as? Double }
}

private struct Count: JSONDecodableResourceType {
    struct Root: Decodable { let count: Int }
    func model(from root: Root) -> Int { root.count }
}

private struct CountValue: JSONResourceType {
    func modelFrom(jsonDictionary: [String: Any]) -> Int? { jsonDictionary["count"] as? Int }
}
