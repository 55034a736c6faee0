import Foundation
@testable import ResourceLoader
import Testing

@Suite("JSONParser")
struct JSONParserTests {
    static func parse(_ text: String, options: JSONParsingOptions = JSONParsingOptions()) -> Result<JSONTree, JSONParsingError> {
        parse(Data(text.utf8), options: options)
    }

    static func parse(_ data: Data, options: JSONParsingOptions = JSONParsingOptions()) -> Result<JSONTree, JSONParsingError> {
        Result { () throws(JSONParsingError) in try JSONParser.parse(data, options: options) }
    }

    // MARK: Errors

    @Test(arguments: [
        ("", JSONParsingError.unexpectedEnd(offset: 0)),
        ("  \n", .unexpectedEnd(offset: 3)),
        ("[1,]", .unexpectedCharacter(offset: 3)),
        (#"{"a":1,}"#, .unexpectedCharacter(offset: 7)),
        ("[1 2]", .unexpectedCharacter(offset: 3)),
        ("1 2", .unexpectedCharacter(offset: 2)),
        ("{a:1}", .unexpectedCharacter(offset: 1)),
        (#"{"a" 1}"#, .unexpectedCharacter(offset: 5)),
        ("[tru]", .unexpectedCharacter(offset: 4)),
        ("nul", .unexpectedEnd(offset: 3)),
        ("NaN", .unexpectedCharacter(offset: 0)),
        ("[01]", .invalidNumber(offset: 1)),
        ("-", .invalidNumber(offset: 0)),
        ("[1.]", .invalidNumber(offset: 1)),
        ("1e+", .invalidNumber(offset: 0)),
        ("[.5]", .unexpectedCharacter(offset: 1)),
        ("[+1]", .unexpectedCharacter(offset: 1)),
        (#"["a\x"]"#, .invalidEscape(offset: 3)),
        (#"["\u12G4"]"#, .invalidEscape(offset: 2)),
        (#"["\uD800"]"#, .loneSurrogate(offset: 2)),
        (#"["\uDC00\uD800"]"#, .loneSurrogate(offset: 2)),
        (#"["\uD800\u0041"]"#, .loneSurrogate(offset: 2)),
        ("[\"a\tb\"]", .unescapedControlCharacter(offset: 3)),
        (#"["abc"#, .unexpectedEnd(offset: 5)),
        (#"{"a":"#, .unexpectedEnd(offset: 5)),
        ("[[", .unexpectedEnd(offset: 2)),
        ("]", .unexpectedCharacter(offset: 0)),
        ("[}", .unexpectedCharacter(offset: 1)),
        (#"{"a":1]"#, .unexpectedCharacter(offset: 6)),
        (#"{"a":1,"b":2,"a":3}"#, .duplicateKey(path: "a", offset: 13)),
        (#"[{"x":{"y":1,"y":2}}]"#, .duplicateKey(path: "[0].x.y", offset: 13)),
    ])
    func malformedTextsAreRefusedWithWhereAndWhy(text: String, expected: JSONParsingError) {
        #expect(Self.parse(text).failure == expected, "\(text)")
    }

    @Test(arguments: [
        ([0x22, 0xC0, 0x80, 0x22] as [UInt8], 1),  // overlong NUL
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // an encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0x61, 0x80, 0x22], 2),  // a stray continuation byte
        ([0x22, 0xE2, 0x82, 0x22], 1),  // truncated
        ([0x22, 0xFF, 0x22], 1),
        ([0x22, 0x61, 0xE2, 0x82], 2),  // truncated at the end of the text
    ])
    func stringsThatAreNotUTF8AreRefused(bytes: [UInt8], offset: Int) {
        #expect(Self.parse(Data(bytes)).failure == .invalidUTF8(offset: offset))
    }

    @Test(arguments: [
        ([0xFE, 0xFF, 0x00, 0x5B, 0x00, 0x5D] as [UInt8], "UTF-16BE"),
        ([0xFF, 0xFE, 0x5B, 0x00, 0x5D, 0x00], "UTF-16LE"),
        ([0x00, 0x5B, 0x00, 0x5D], "UTF-16BE"),
        ([0x5B, 0x00, 0x5D, 0x00], "UTF-16LE"),
        ([0x00, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x00, 0x31], "UTF-32BE"),
        ([0xFF, 0xFE, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00], "UTF-32LE"),
        ([0x00, 0x00, 0x00, 0x31], "UTF-32BE"),
        ([0x31, 0x00, 0x00, 0x00], "UTF-32LE"),
    ])
    func utf16AndUTF32AreRefused(bytes: [UInt8], encoding: String) {
        #expect(Self.parse(Data(bytes)).failure == .unsupportedEncoding(encoding))
    }

    @Test func aUTF8ByteOrderMarkIsSkippedAndOffsetsCountIt() throws {
        let tree = try Self.parse(Data([0xEF, 0xBB, 0xBF]) + Data(#"{"a":[1]}"#.utf8)).get()
        #expect(tree[0].kind == .object)
        #expect(Self.parse(Data([0xEF, 0xBB, 0xBF]) + Data("[1,]".utf8)).failure == .unexpectedCharacter(offset: 6))
        #expect(Self.parse(Data([0xEF, 0xBB, 0xBF])).failure == .unexpectedEnd(offset: 3))
    }

    @Test func descriptionsQuoteNothingFromTheText() {
        let errors = [Self.parse(#"{"secret":1,"secret":2}"#).failure, Self.parse(#"["secret\q"]"#).failure]
        for error in errors {
            let text = String(describing: error)
            #expect(!text.contains("secret"), "\(text)")
        }
        #expect(JSONParsingError.unexpectedCharacter(offset: 7).offset == 7)
        #expect(JSONParsingError.tooDeep(limit: 3).offset == nil)
    }

    // MARK: Limits

    @Test func theDepthLimitCountsOpenContainers() {
        let options = JSONParsingOptions(maximumDepth: 3)
        #expect((try? Self.parse("[[[1]]]", options: options).get()) != nil)
        #expect((try? Self.parse(#"[{"a":[]}]"#, options: options).get()) != nil)
        #expect(Self.parse("[[[[1]]]]", options: options).failure == .tooDeep(limit: 3))
        #expect(Self.parse(#"{"a":{"b":{"c":{}}}}"#, options: options).failure == .tooDeep(limit: 3))
        // The default allows 512 levels, and refuses 513.
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect((try? Self.parse(deep).get()) != nil)
        #expect(Self.parse("[" + deep + "]").failure == .tooDeep(limit: 512))
    }

    @Test func theSizeLimitCountsEveryByte() {
        let options = JSONParsingOptions(maximumByteCount: 7)
        #expect((try? Self.parse("[1,2,3]", options: options).get()) != nil)
        #expect(Self.parse("[1,2,3] ", options: options).failure == .tooLarge(limit: 7))
        // Above what 32-bit offsets address, the limit is that.
        let huge = JSONParsingOptions(maximumByteCount: .max)
        #expect((try? Self.parse("[1]", options: huge).get()) != nil)
    }

    @Test func valuesAndContainersAreCountedAtAnyDepthAndKeysAreNot() {
        // 1 object + 1 array + 2 numbers + 1 object + 1 string = 6 values, 3 containers.
        let text = #"{"a":[1,2,{"b":"c"}]}"#
        #expect((try? Self.parse(text, options: JSONParsingOptions(maximumValueCount: 6, maximumContainerCount: 3)).get()) != nil)
        #expect(Self.parse(text, options: JSONParsingOptions(maximumValueCount: 5)).failure == .tooManyValues(limit: 5))
        #expect(Self.parse(text, options: JSONParsingOptions(maximumContainerCount: 2)).failure == .tooManyContainers(limit: 2))
    }

    // MARK: The tree

    @Test func theTreeHoldsEveryValueInDocumentOrderWithItsExtent() throws {
        let tree = try Self.parse(#" {"a": [true, null, -1.5e3], "b\n": "x\"y", "c": {}} "#).get()
        let kinds = (0..<tree.nodeCount).map { tree[$0].kind }
        #expect(kinds == [.object, .string, .array, .true, .null, .number, .string, .string, .string, .object])
        #expect(tree[0].length == 3 && tree[0].end == 10)
        #expect(tree[2].length == 3 && tree[2].end == 6)
        #expect(tree.numberText(tree[5]) == "-1.5e3" && !tree[5].isInteger)
        #expect(tree.string(tree[6]) == "b\n" && !tree[6].isPlain)
        #expect(tree.string(tree[7]) == #"x"y"#)
        #expect(tree.string(tree[1]) == "a" && tree[1].isPlain)
        #expect(tree[9].length == 0 && tree[9].end == 10)
    }

    @Test func escapesResolveAsJSONSerializationResolvesThem() throws {
        let text = #"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20AC\uD834\uDD1E\u0000", "é€𝄞 plain", "a\u005Cb"]"#
        let tree = try Self.parse(text).get()
        let ours = try #require(JSONObjectBuilder.object(from: tree) as? [String])
        let foundation = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String])
        #expect(ours == foundation)
        #expect(ours[1].unicodeScalars.map(\.value) == [0x41, 0xE9, 0x20AC, 0x1D11E, 0])
    }

    @Test func keysAreComparedAsSwiftStrings() {
        #expect(Self.parse(#"{"K":1,"\u212A":2}"#).failure == .duplicateKey(path: "\u{212A}", offset: 7))
        #expect(Self.parse(#"{"\u00e9":1,"e\u0301":2}"#).failure == .duplicateKey(path: "e\u{301}", offset: 12))
        #expect(Self.parse(#"{"a":1,"\u0061":2}"#).failure == .duplicateKey(path: "a", offset: 7))
        #expect((try? Self.parse(#"{"a":1,"A":2,"a ":3,"":4}"#).get()) != nil)
        // Large objects go through a set.
        let keys = (0..<100).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        #expect((try? Self.parse("{\(keys)}").get()) != nil)
        #expect(Self.parse(#"{\#(keys),"k\u0035":0}"#).failure?.duplicatePath == "k5")
    }

    // MARK: Against JSONSerialization

    /// Random documents, valid and then damaged: whatever ours accepts, `JSONSerialization`
    /// accepts too, with equal values; ours may refuse more (it is stricter), and never traps.
    @Test func randomDocumentsAgreeWithJSONSerialization() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        var compared = 0
        for round in 0..<400 {
            let text = RandomJSON.document(using: &generator)
            let data = Data(text.utf8)
            let ours = try Self.parse(data).get()
            let value = try JSONObjectBuilder.object(from: ours)
            let foundation = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            #expect(JSONValues.equal(value, foundation), "round \(round): \(text)")
            // A damaged copy: a byte changed, or the text cut short.
            var damaged = [UInt8](data)
            if damaged.count > 1, Bool.random(using: &generator) {
                damaged.removeLast(Int.random(in: 1..<damaged.count, using: &generator))
            } else if !damaged.isEmpty {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = RandomJSON.damagingBytes.randomElement(using: &generator)!
            }
            if let tree = try? Self.parse(Data(damaged)).get(), let value = try? JSONObjectBuilder.object(from: tree) {
                let foundation = try? JSONSerialization.jsonObject(with: Data(damaged), options: [.fragmentsAllowed])
                let text = String(decoding: damaged, as: UTF8.self)
                #expect(foundation.map { JSONValues.equal(value, $0) } == true, "round \(round): \(text)")
                compared += 1
            }
        }
        #expect(compared > 0)
    }

    @Test func randomBytesNeverTrap() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<64, using: &generator)
            let bytes = (0..<count).map { _ in RandomJSON.damagingBytes.randomElement(using: &generator)! }
            _ = try? Self.parse(Data(bytes)).get()
        }
    }
}

extension JSONParsingError {
    fileprivate var duplicatePath: String? {
        if case .duplicateKey(let path, _) = self { return path }
        return nil
    }
}

/// Random JSON texts with unique keys, escapes, non-ASCII text, and numbers of every form.
enum RandomJSON {
    /// Bytes that damage a text in interesting ways.
    static let damagingBytes: [UInt8] = Array(#"{}[],:"\ 0123456789-+.eEtrufalsn/ubx"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xE2, 0xF0, 0xFF]

    static func document(using generator: inout SeededGenerator) -> String {
        value(depth: 0, using: &generator)
    }

    static func value(depth: Int, using generator: inout SeededGenerator) -> String {
        let choice = Int.random(in: 0..<(depth > 4 ? 5 : 7), using: &generator)
        let space = [" ", "", "\n", "\t", "\r\n "].randomElement(using: &generator)!
        switch choice {
        case 0: return "null"
        case 1: return Bool.random(using: &generator) ? "true" : "false"
        case 2, 3: return number(using: &generator)
        case 4: return string(using: &generator)
        case 5:
            let count = Int.random(in: 0..<5, using: &generator)
            return "[" + space + (0..<count).map { _ in value(depth: depth + 1, using: &generator) }.joined(separator: "," + space) + "]"
        default:
            let count = Int.random(in: 0..<5, using: &generator)
            var members: [String] = []
            for index in 0..<count {
                let suffix = ["", "é", "\\u00e9x", "\\n"].randomElement(using: &generator)!
                let member: String = "\"k\(index)\(suffix)\"" + space + ":" + value(depth: depth + 1, using: &generator)
                members.append(member)
            }
            return "{" + space + members.joined(separator: ",") + space + "}"
        }
    }

    static func number(using generator: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return String(Int64.random(in: .min ... .max, using: &generator))
        case 1: return String(Int.random(in: -1000...1000, using: &generator))
        case 2: return String(Double.random(in: -1e6...1e6, using: &generator))
        case 3: return "\(Int.random(in: 0...99, using: &generator)).\(Int.random(in: 0...999, using: &generator))e\(Int.random(in: -30...30, using: &generator))"
        case 4: return "-0.\(String(repeating: "0", count: Int.random(in: 0...20, using: &generator)))1"
        default: return String(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &generator))
        }
    }

    static func string(using generator: inout SeededGenerator) -> String {
        let pieces = ["a", "plain text", "é", "€", "𝄞", "\\\"", "\\\\", "\\/", "\\b\\f\\n\\r\\t", "\\u0041", "\\uD834\\uDD1E", "\\u00e9", "日本"]
        let count = Int.random(in: 0..<5, using: &generator)
        var text = "\""
        for _ in 0..<count { text += pieces.randomElement(using: &generator)! }
        return text + "\""
    }
}

/// Deep equality of the values `JSONSerialization` produces, numbers compared by class, type and
/// value.
enum JSONValues {
    static func equal(_ a: Any, _ b: Any) -> Bool {
        if a is NSNull || b is NSNull { return a is NSNull && b is NSNull }
        if let a = a as? NSNumber, type(of: a) != String.self {
            guard let b = b as? NSNumber else { return false }
            return type(of: a) == type(of: b) && String(cString: a.objCType) == String(cString: b.objCType) && a.isEqual(b)
        }
        if let a = a as? String { return (b as? String) == a && !(b is NSNumber) }
        if let a = a as? [String: Any] {
            guard let b = b as? [String: Any], a.count == b.count else { return false }
            return a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        }
        if let a = a as? [Any] {
            guard let b = b as? [Any], a.count == b.count else { return false }
            return zip(a, b).allSatisfy { equal($0, $1) }
        }
        return false
    }
}
