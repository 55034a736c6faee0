import Foundation
@testable import ResourceLoader
import Testing

/// The parser against JSONTestSuite's parsing cases (`../shared/jsontestsuite/test_parsing` from
/// the repository root): every `y_` document accepted, every `n_` document refused, and each
/// `i_` document (where RFC 8259 lets parsers choose) handled as decided below. Skipped where the
/// suite is absent, except under `CI=true`, where its absence fails.
@Suite("JSONTestSuite")
struct JSONTestSuiteTests {
    /// `../shared/jsontestsuite` from the repository root, found from this file's path.
    static let suiteDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // JSON
        .deletingLastPathComponent()  // ResourceLoaderTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the repository
        .deletingLastPathComponent()
        .appendingPathComponent("shared/jsontestsuite", isDirectory: true)

    static var isPresent: Bool {
        FileManager.default.fileExists(atPath: suiteDirectory.appendingPathComponent("test_parsing").path)
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The `i_` documents the parser accepts; it refuses the others.
    ///
    /// - Numbers are kept as written, so any number the grammar allows parses; whether it fits
    ///   is decided when it is decoded (`1e400` is no `Double`, `-123123…` no `Int64`).
    /// - 500 levels of nesting are within the default limit of 512.
    /// - A UTF-8 byte order mark is skipped.
    ///
    /// Refused: strings that are not UTF-8 (``JSONParsingError/invalidUTF8(offset:)``), escaped
    /// surrogates that are not pairs (``JSONParsingError/loneSurrogate(offset:)``), and UTF-16
    /// texts (``JSONParsingError/unsupportedEncoding(_:)``).
    static let acceptedImplementationDefined: Set<String> = [
        "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json",
        "i_number_pos_double_huge_exp.json", "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
        "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
        "i_number_very_big_negative_int.json", "i_structure_500_nested_arrays.json",
        "i_structure_UTF-8_BOM_empty_object.json",
    ]

    /// Every parsing case's file name and bytes, or `nil` when the suite is absent.
    static func cases() throws -> [(name: String, data: Data)]? {
        guard isPresent else { return nil }
        let folder = suiteDirectory.appendingPathComponent("test_parsing", isDirectory: true)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") }
            .sorted()
            .map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) }
    }

    /// The `y_` documents that have an object with a repeated key: RFC 8259 allows them (keys
    /// *should* be unique), the resource types refuse them.
    static let repeatedKeys: Set<String> = ["y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"]

    /// Parses as the resource types do, or by the grammar alone (repeated keys allowed).
    static func parse(_ data: Data, refusingDuplicateKeys: Bool = true) -> Result<JSONTree, JSONParsingError> {
        Result { () throws(JSONParsingError) in
            try JSONParser.parse(data, options: JSONParsingOptions(), refusingDuplicateKeys: refusingDuplicateKeys)
        }
    }

    @Test func theSuiteIsPresentOrSkipped() throws {
        if !Self.isPresent {
            #expect(!Self.isCI, "JSONTestSuite is missing at \(Self.suiteDirectory.path); CI=true requires it")
            print("JSONTestSuite is absent at \(Self.suiteDirectory.path): its tests are skipped")
        }
    }

    @Test func everyYesDocumentIsAccepted() throws {
        guard let cases = try Self.cases() else { return }
        let yes = cases.filter { $0.name.hasPrefix("y_") }
        #expect(yes.count == 95)
        for (name, data) in yes {
            if case .failure(let error) = Self.parse(data, refusingDuplicateKeys: false) {
                Issue.record("\(name) refused: \(error)")
            }
            // As the resource types parse: all but the two with a repeated key.
            switch Self.parse(data) {
            case .success: #expect(!Self.repeatedKeys.contains(name), "\(name) accepted with a repeated key")
            case .failure(.duplicateKey(let path, _)): #expect(Self.repeatedKeys.contains(name) && path == "a", "\(name)")
            case .failure(let error): Issue.record("\(name) refused: \(error)")
            }
        }
    }

    @Test func everyNoDocumentIsRefused() throws {
        guard let cases = try Self.cases() else { return }
        let no = cases.filter { $0.name.hasPrefix("n_") }
        #expect(no.count == 188)
        for (name, data) in no {
            if case .success = Self.parse(data, refusingDuplicateKeys: false) { Issue.record("\(name) accepted") }
        }
    }

    @Test func everyImplementationDefinedDocumentIsHandledAsDecided() throws {
        guard let cases = try Self.cases() else { return }
        let implementationDefined = cases.filter { $0.name.hasPrefix("i_") }
        #expect(implementationDefined.count == 35)
        #expect(Self.acceptedImplementationDefined.isSubset(of: implementationDefined.map(\.name)))
        for (name, data) in implementationDefined {
            let accepted = (try? Self.parse(data).get()) != nil
            #expect(accepted == Self.acceptedImplementationDefined.contains(name), "\(name)")
        }
    }

    /// How the refused `i_` documents are refused: each with the error that names its fault.
    @Test(arguments: [
        ("i_string_UTF-16LE_with_BOM.json", "unsupportedEncoding"),
        ("i_string_utf16BE_no_BOM.json", "unsupportedEncoding"),
        ("i_string_utf16LE_no_BOM.json", "unsupportedEncoding"),
        ("i_string_lone_second_surrogate.json", "loneSurrogate"),
        ("i_string_1st_surrogate_but_2nd_missing.json", "loneSurrogate"),
        ("i_string_inverted_surrogates_U+1D11E.json", "loneSurrogate"),
        ("i_object_key_lone_2nd_surrogate.json", "loneSurrogate"),
        ("i_string_iso_latin_1.json", "invalidUTF8"),
        ("i_string_UTF8_surrogate_U+D800.json", "invalidUTF8"),
        ("i_string_overlong_sequence_2_bytes.json", "invalidUTF8"),
        ("i_string_not_in_unicode_range.json", "invalidUTF8"),
    ])
    func refusedImplementationDefinedDocumentsSayWhy(name: String, error expected: String) throws {
        guard let cases = try Self.cases() else { return }
        let data = try #require(cases.first { $0.name == name }?.data)
        guard case .failure(let error) = Self.parse(data) else {
            Issue.record("\(name) accepted")
            return
        }
        // The case's name, as `Mirror` gives it for a case with associated values.
        #expect(Mirror(reflecting: error).children.first?.label == expected, "\(name): \(error)")
    }

    /// JSONTestSuite's `test_transform` cases: what each becomes, as documented in the
    /// "Parsing JSON" article.
    @Test func transformCasesBecomeWhatIsDocumented() throws {
        guard Self.isPresent else { return }
        let folder = Self.suiteDirectory.appendingPathComponent("test_transform", isDirectory: true)
        func data(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }
        func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
            try JSONValueDecoder.decode(type, from: try data(name), using: JSONDecoder(), options: .decoding)
        }
        #expect(try decode([Int64].self, "number_-9223372036854775808.json") == [.min])
        #expect(throws: DecodingError.self) { try decode([Int64].self, "number_-9223372036854775809.json") }
        #expect(try decode([Double].self, "number_-9223372036854775809.json") == [-9_223_372_036_854_775_808])
        #expect(try decode([Decimal].self, "number_-9223372036854775809.json") == [Decimal(string: "-9223372036854775809")!])
        #expect(try decode([Int].self, "number_1.0.json") == [1])
        #expect(try decode([Double].self, "number_1.000000000000000005.json") == [1])
        #expect(throws: DecodingError.self) { try decode([Int].self, "number_1.000000000000000005.json") }
        #expect(try decode([Decimal].self, "number_1.000000000000000005.json") == [Decimal(string: "1.000000000000000005")!])
        #expect(try decode([Int].self, "number_1000000000000000.json") == [1_000_000_000_000_000])
        #expect(try decode([UInt64].self, "number_10000000000000000999.json") == [10_000_000_000_000_000_999])
        #expect(throws: DecodingError.self) { try decode([Int64].self, "number_10000000000000000999.json") }
        #expect(try decode([Double].self, "number_1e-999.json") == [0])
        #expect(try decode([Int].self, "number_1e6.json") == [1_000_000])
        #expect(try decode([Int64].self, "number_9223372036854775807.json") == [.max])
        #expect(throws: DecodingError.self) { try decode([Int64].self, "number_9223372036854775808.json") }
        #expect(try decode([UInt64].self, "number_9223372036854775808.json") == [9_223_372_036_854_775_808])
        #expect(try decode([String].self, "string_with_escaped_NULL.json") == ["A\u{0}B"])
        for name in ["object_key_nfc_nfd.json", "object_key_nfd_nfc.json", "object_same_key_different_values.json",
                     "object_same_key_same_value.json", "object_same_key_unclear_values.json"] {
            guard case .failure(.duplicateKey) = Self.parse(try data(name)) else {
                Issue.record("\(name) is not refused as a repeated key")
                continue
            }
        }
        for name in ["string_1_escaped_invalid_codepoint.json", "string_2_escaped_invalid_codepoints.json",
                     "string_3_escaped_invalid_codepoints.json"] {
            #expect(Self.parse(try data(name)).failure == .loneSurrogate(offset: 2), "\(name)")
        }
        for name in ["string_1_invalid_codepoint.json", "string_2_invalid_codepoints.json", "string_3_invalid_codepoints.json"] {
            #expect(Self.parse(try data(name)).failure == .invalidUTF8(offset: 2), "\(name)")
        }
    }

    /// Against `JSONSerialization`, through the `json-diff` fuzzing harness's checks: where both
    /// accept, the values are equal; where only `JSONSerialization` accepts, the difference is a
    /// known one (repeated keys, lone surrogates, UTF-16 and UTF-32, trailing commas).
    @Test func everyDocumentOfTheSuiteAgreesWithJSONSerializationOrDiffersAsKnown() throws {
        guard let cases = try Self.cases() else { return }
        for (name, data) in cases {
            let problems = FuzzEntryPoints.checkJSONDiff(data)
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    @Test func noDocumentOfTheSuiteCrashesTheDecoderOrTheDictionaryBuilder() throws {
        guard let cases = try Self.cases() else { return }
        struct Anything: Decodable {
            init(from decoder: any Decoder) throws {}
        }
        for (_, data) in cases {
            guard let tree = try? Self.parse(data).get() else { continue }
            _ = try? JSONObjectBuilder.object(from: tree)
            _ = try? JSONValueDecoder.decode(Anything.self, from: tree, options: JSONDecodingOptions())
        }
    }
}
