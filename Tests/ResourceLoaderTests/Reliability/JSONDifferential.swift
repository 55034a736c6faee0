import Foundation
import ResourceLoader

// The `json-diff` harness: ResourceLoader's JSON parser against Foundation's `JSONSerialization`.
// Like FuzzEntryPoints.swift (whose `run(_:_:)` calls `checkJSONDiff(_:)`), this file is compiled
// into the test target (FuzzCorpusReplayTests, JSONParserTests) and into the libFuzzer harnesses
// (Fuzz/run.sh); it uses only public API.

extension FuzzEntryPoints {
    /// Reads `data` through ``JSONResourceType`` (our parser and the values it builds) and through
    /// `JSONSerialization`, and reports every disagreement that is not a
    /// ``JSONDifferential/KnownDifference``: one accepts a top-level object or array that the
    /// other refuses, or both accept and the values differ (by type, number class or value).
    static func checkJSONDiff(_ data: Data) -> [String] {
        let ours = JSONDifferential.AnyContainer().result(from: data, statusCode: 200)
        let theirs = try? JSONSerialization.jsonObject(with: data)
        switch (ours, theirs) {
        case (.success(let mine), .some(let value)):
            let foundation = JSONDifferential.canonical(value)
            return mine == foundation ? [] : ["both accept, but the values differ: ours \(mine), Foundation's \(foundation)"]
        case (.success, .none):
            return ["ours accepts what JSONSerialization refuses"]
        case (.failure(let error), .some):
            guard case .parsing(let failure) = error else { return ["refused with .\(kind(error))"] }
            if JSONDifferential.knownDifference(data, underlying: failure.underlying) != nil { return [] }
            return ["ours refuses (\(error)) what JSONSerialization accepts"]
        case (.failure(let error), .none):
            if !(kind(error) == "parsing" || (data.isEmpty && kind(error) == "emptyResponse")) {
                return ["refused with .\(kind(error))"]
            }
            return []
        }
    }
}

/// How ResourceLoader's JSON parser and `JSONSerialization` are compared.
enum JSONDifferential {
    /// A top-level object or array, as ``canonical(_:)`` text.
    struct AnyContainer: JSONResourceType {
        func modelFrom(jsonDictionary: [String: Any]) -> String? { JSONDifferential.canonical(jsonDictionary) }
        func modelFrom(jsonArray: [Any]) -> String? { JSONDifferential.canonical(jsonArray) }
    }

    /// Where ResourceLoader refuses, on purpose, what `JSONSerialization` accepts.
    enum KnownDifference: String {
        /// An object with the same key twice (RFC 8259 allows it; `JSONSerialization` keeps the
        /// last value).
        case repeatedKey
        /// A `\u` escape of a surrogate that is not half of a pair.
        case loneSurrogate
        /// UTF-16 or UTF-32, which `JSONSerialization` reads.
        case notUTF8
        /// A comma before a closing bracket, which `JSONSerialization` on Linux accepts.
        case trailingComma
        /// A limit of ``JSONParsingOptions`` (`JSONSerialization` has none but its depth).
        case limit
    }

    /// Why ours refusing `data` with `underlying` is expected, or `nil` if it is not.
    static func knownDifference(_ data: Data, underlying: (any Error)?) -> KnownDifference? {
        switch underlying as? JSONParsingError {
        case .duplicateKey: return .repeatedKey
        case .loneSurrogate: return .loneSurrogate
        case .unsupportedEncoding: return .notUTF8
        case .tooManyValues, .tooManyContainers, .tooDeep, .tooLarge: return .limit
        case .unexpectedCharacter(let offset):
            // `[1,]` or `{"a":1,}`: a closing bracket after a comma and white space.
            let bytes = [UInt8](data)
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "]") || bytes[offset] == UInt8(ascii: "}") else { return nil }
            var before = offset - 1
            while before >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[before]) { before -= 1 }
            return before >= 0 && bytes[before] == UInt8(ascii: ",") ? .trailingComma : nil
        default: return nil
        }
    }

    /// The value as text that tells apart everything `JSONSerialization` does: keys sorted,
    /// numbers with their class and type, strings escaped.
    static func canonical(_ value: Any) -> String {
        if value is NSNull { return "null" }
        if let number = value as? NSNumber, !(value is String) {
            return "\(type(of: number)):\(String(cString: number.objCType)):\(number)"
        }
        if let string = value as? String { return string.debugDescription }
        if let dictionary = value as? [String: Any] {
            let members = dictionary.keys.sorted().map { "\($0.debugDescription):\(canonical(dictionary[$0]!))" }
            return "{" + members.joined(separator: ",") + "}"
        }
        if let array = value as? [Any] { return "[" + array.map(canonical).joined(separator: ",") + "]" }
        return "?\(type(of: value))"
    }
}
