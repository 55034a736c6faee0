import Foundation
import Testing

@testable import ResourceLoader

/// The duplicate-key scan against a plain recursive reading of the same texts, which is slow and
/// obviously right: random texts in every shape the grammar allows, in each encoding the parsers
/// accept, and damaged texts, which must never trap.
@Suite("JSON duplicate-key scan")
struct JSONDuplicateKeyScannerTests {
    @Test func findsWhatAPlainReadingFinds() {
        var texts = RandomJSONTexts(generator: SplitMix64(seed: 0xD0_0B1E))
        var repeated = 0
        for _ in 0..<4_000 {
            let text = texts.value(depth: 0)
            let data = Data(text.utf8)
            guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
                Issue.record("the generator wrote invalid JSON: \(text)")
                return
            }
            let expected = PlainDuplicateKeyReading.firstDuplicateKeyPath(in: data)
            if expected != nil { repeated += 1 }
            #expect(JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: data) == expected, "\(text)")
        }
        // Enough texts with a repeated key, at every depth, for the comparison to mean something.
        #expect(repeated > 20)
    }

    @Test(arguments: [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32BigEndian, .utf32])
    func readsUTF16AndUTF32AsTheirCharacters(encoding: String.Encoding) throws {
        var texts = RandomJSONTexts(generator: SplitMix64(seed: 0x16_32))
        for _ in 0..<300 {
            let text = texts.value(depth: 0)
            let expected = PlainDuplicateKeyReading.firstDuplicateKeyPath(in: Data(text.utf8))
            let encoded = try #require(text.data(using: encoding))
            #expect(JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: encoded) == expected, "\(text)")
        }
    }

    /// On valid texts the counts are exact: a limit equal to the count passes, one less fails.
    @Test func countsWhatTheParsedValueHolds() {
        var texts = RandomJSONTexts(generator: SplitMix64(seed: 0xC0_0A7))
        var checked = 0
        for _ in 0..<2_000 {
            let data = Data(texts.value(depth: 0).utf8)
            // A repeated key would make the parsed value smaller than the text.
            guard PlainDuplicateKeyReading.firstDuplicateKeyPath(in: data) == nil,
                let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            else { continue }
            let (values, containers) = Self.counts(in: object)
            func scan(_ values: Int, _ containers: Int) -> JSONDuplicateKeyScanner.Outcome {
                JSONDuplicateKeyScanner.scan(
                    data, options: JSONParsingOptions(maximumValueCount: values, maximumContainerCount: containers),
                    checksDuplicateKeys: true)
            }
            #expect(scan(values, containers) == .end)
            #expect(scan(values - 1, containers) == .tooManyValues)
            if containers > 0 { #expect(scan(values, containers - 1) == .tooManyContainers) }
            checked += 1
        }
        #expect(checked > 1_000)
    }

    /// Where the scan stops understanding a text, what is left is bounded by its commas and
    /// opening brackets, strings included: never less than a parser could find there.
    @Test(arguments: [
        // Stops at 3, with 3 values counted; then 3 itself, 2 commas and 2 for a bracket.
        ("[1, 2 3, 4, [5]]", 3 + 1 + 2 + 2, 2),
        // Stops at the unquoted key, with 1 value counted; the string's comma and bracket count too.
        (#"{a: [1, 2], "b,[": 3}"#, 1 + 1 + 3 + 2 * 2, 3),
        ("[1, 2] x", 3 + 1, 1),
    ])
    func whatTheScanDoesNotUnderstandIsBoundedByItsCommasAndBrackets(text: String, values: Int, containers: Int) {
        let data = Data(text.utf8)
        func scan(_ values: Int, _ containers: Int, duplicates: Bool) -> JSONDuplicateKeyScanner.Outcome {
            JSONDuplicateKeyScanner.scan(
                data, options: JSONParsingOptions(maximumValueCount: values, maximumContainerCount: containers),
                checksDuplicateKeys: duplicates)
        }
        for duplicates in [true, false] {
            #expect(scan(values, containers, duplicates: duplicates) == .notUnderstood)
            #expect(scan(values - 1, containers, duplicates: duplicates) == .tooManyValues)
            #expect(scan(values, containers - 1, duplicates: duplicates) == .tooManyContainers)
        }
    }

    @Test func theRepeatedKeysOffsetIsItsOpeningQuote() {
        let text = #"{"a":[{"b":1,"b":2}]}"#
        let outcome = JSONDuplicateKeyScanner.scan(
            Data(text.utf8), options: JSONParsingOptions(), checksDuplicateKeys: true)
        #expect(outcome == .repeated(path: "a[0].b", offset: 13))
    }

    /// The scan keeps a large object's keys as it reads them, so it stops keeping them at the
    /// value limit, rather than at the object's end: a key repeated after that is not reached.
    @Test func aLargeObjectsKeysAreKeptOnlyUpToTheValueLimit() {
        let members = (0..<2_000).map { #""k\#($0)":0"# }.joined(separator: ",")
        let text = Data(#"{\#(members),"k0":1}"#.utf8)
        func scan(_ values: Int) -> JSONDuplicateKeyScanner.Outcome {
            JSONDuplicateKeyScanner.scan(text, options: JSONParsingOptions(maximumValueCount: values), checksDuplicateKeys: true)
        }
        #expect(scan(1_000) == .tooManyValues)
        #expect(scan(2_002) == .repeated(path: "k0", offset: text.count - 7))
    }

    /// Without the duplicate check (JSON5), a repeated key ends the exact count, so the whole
    /// text is bounded by its commas and brackets instead: 1 + 1 comma + 2 × 3 brackets.
    @Test func withoutTheDuplicateCheckARepeatedKeyLeavesTheWholeTextBounded() {
        let text = Data(#"{"a":[{"b":1,"b":2}]}"#.utf8)
        func scan(_ values: Int) -> JSONDuplicateKeyScanner.Outcome {
            JSONDuplicateKeyScanner.scan(text, options: JSONParsingOptions(maximumValueCount: values), checksDuplicateKeys: false)
        }
        #expect(scan(8) == .notUnderstood)
        #expect(scan(7) == .tooManyValues)
    }

    /// Values (every object, array and scalar) and containers (objects and arrays) in a parsed
    /// value.
    private static func counts(in object: Any) -> (values: Int, containers: Int) {
        let children: [Any]
        if let array = object as? [Any] {
            children = array
        } else if let dictionary = object as? [String: Any] {
            children = Array(dictionary.values)
        } else {
            return (1, 0)
        }
        return children.map { counts(in: $0) }.reduce((1, 1)) { ($0.0 + $1.0, $0.1 + $1.1) }
    }

    @Test func aUTF8ByteOrderMarkIsSkipped() {
        let text = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"a":{"b":1,"b":2}}"#.utf8)
        #expect(JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: text) == "a.b")
    }

    @Test(arguments: [
        (#" { "a" : [ 1 , { "k" : true , "k" : null } ] } "#, "a[1].k"),
        ("{\n\t\"a\":\r\n[\"x\",\n\"y\"],\n\"a\"\t:\n0\n}\n", "a"),
        (#"[[], {}, [{}], {"a": {}, "b": [], "a": 1}]"#, "[3].a"),
        (#"{"a":-1.5e+3,"b":false,"c":"}","a":0}"#, "a"),
    ])
    func followsWhitespaceEmptyContainersAndScalars(json: String, path: String) {
        #expect(JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: Data(json.utf8)) == path)
    }

    @Test(arguments: ["", " ", "1", #""a""#, "{}", "[]", #"{"a":1,"b":{"a":2}}"#, "[1,2,3]"])
    func textsWithoutARepeatedKeyHaveNone(json: String) {
        #expect(JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: Data(json.utf8)) == nil)
    }

    @Test func damagedTextsNeverTrap() {
        var generator = SplitMix64(seed: 0xBAD_7E47)
        var texts = RandomJSONTexts(generator: SplitMix64(seed: 0xC0FFEE))
        for _ in 0..<2_000 {
            var bytes = Array(texts.value(depth: 0).utf8)
            for _ in 0..<4 where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                _ = JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: Data(bytes))
                bytes.removeLast(Int.random(in: 0...min(3, bytes.count), using: &generator))
                _ = JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: Data(bytes))
            }
        }
    }
}

/// A plain recursive reading of a valid JSON text that reports the first repeated key's path.
private struct PlainDuplicateKeyReading {
    let bytes: [UInt8]
    var position = 0

    static func firstDuplicateKeyPath(in data: Data) -> String? {
        var reading = PlainDuplicateKeyReading(bytes: Array(data))
        return reading.value(path: "")
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, " \t\n\r".utf8.contains(bytes[position]) { position += 1 }
    }

    /// Reads a value; returns the path of a repeated key inside it.
    private mutating func value(path: String) -> String? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var seen: [String] = []
            skipWhitespace()
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return nil
            }
            while true {
                skipWhitespace()
                let key = string()
                let keyPath = (path.isEmpty ? "" : path + ".") + (key.count <= 64 ? key : key.prefix(64) + "…")
                if seen.contains(key) { return keyPath }
                seen.append(key)
                skipWhitespace()
                position += 1  // the colon
                if let found = value(path: keyPath) { return found }
                skipWhitespace()
                position += 1  // a comma or the closing brace
                if bytes[position - 1] == UInt8(ascii: "}") { return nil }
            }
        case UInt8(ascii: "["):
            position += 1
            skipWhitespace()
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return nil
            }
            for index in 0... {
                if let found = value(path: path + "[\(index)]") { return found }
                skipWhitespace()
                position += 1  // a comma or the closing bracket
                if bytes[position - 1] == UInt8(ascii: "]") { return nil }
            }
            return nil
        case UInt8(ascii: "\""):
            _ = string()
            return nil
        default:
            while position < bytes.count, !",]} \t\n\r".utf8.contains(bytes[position]) { position += 1 }
            return nil
        }
    }

    /// Reads a string and returns it unescaped, by JSONSerialization.
    private mutating func string() -> String {
        let start = position
        position += 1
        while bytes[position] != UInt8(ascii: "\"") {
            position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
        }
        position += 1
        let quoted = Data(bytes[start..<position])
        return (try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])) as? String ?? ""
    }
}

/// Random valid JSON texts: nested objects and arrays, keys from a small pool (so that repeats
/// happen at every depth), escapes, non-ASCII and canonically equivalent keys, long keys, strings
/// holding brackets and quotes, numbers, literals and random whitespace.
private struct RandomJSONTexts {
    var generator: SplitMix64
    let keys = [
        "a", "b", "name", #"n\u0061me"#, "K", #"\u212A"#, #"caf\u00e9"#, #"cafe\u0301"#, "é", #"\""#, #"\\"#, #"x\/y"#,
        "long_" + String(repeating: "z", count: 70),
    ]
    let strings = ["", "plain", #"with \"quotes\""#, #"back\\slash\\"#, #"{\"name\":1}"#, "ünïcödé", #"\ud83d\ude00"#, "[1,2]", ",}]"]

    mutating func whitespace() -> String {
        ["", "", "", " ", "\n  ", "\t\r\n"].randomElement(using: &generator)!
    }

    mutating func value(depth: Int) -> String {
        switch Int.random(in: depth > 4 ? 2..<7 : 0..<7, using: &generator) {
        case 0:
            let count = Int.random(in: 0..<6, using: &generator) + (Int.random(in: 0..<20, using: &generator) == 0 ? 20 : 0)
            let members = (0..<count).map { index -> String in
                var key = keys.randomElement(using: &generator)!
                // Mostly distinct keys, so that a repeat can sit deep in a text.
                if Int.random(in: 0..<8, using: &generator) != 0 { key += "\(index)" }
                return whitespace() + "\"\(key)\"" + whitespace() + ":" + value(depth: depth + 1) + whitespace()
            }
            return whitespace() + "{" + members.joined(separator: ",") + whitespace() + "}"
        case 1:
            let elements = (0..<Int.random(in: 0..<5, using: &generator)).map { _ in value(depth: depth + 1) }
            return whitespace() + "[" + elements.joined(separator: ",") + whitespace() + "]"
        case 2: return whitespace() + "\"" + strings.randomElement(using: &generator)! + "\""
        case 3: return whitespace() + ["0", "-1.5e3", "12345678901234", "3.25"].randomElement(using: &generator)!
        case 4: return whitespace() + ["true", "false", "null"].randomElement(using: &generator)!
        default: return whitespace() + "\"\(Int.random(in: 0..<1000, using: &generator))\""
        }
    }
}
