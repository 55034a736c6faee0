import Foundation

/// What ``JSONValueDecoder`` takes from a `JSONDecoder`: its key, date, data and
/// non-conforming-float strategies, custom closures included, and its `userInfo`.
///
/// ``init(_:)`` returns `nil` for a decoder this one does not stand in for: one that allows
/// JSON5 or assumes a top-level dictionary, a subclass (which may decode differently), or a
/// strategy added to Foundation after this was written. Those bodies go to the `JSONDecoder`
/// itself.
struct JSONDecodingOptions {
    /// How keys are matched.
    enum KeyStrategy {
        case useDefaultKeys
        case convertFromSnakeCase
        case custom(([any CodingKey]) -> any CodingKey)
    }

    var keyStrategy: KeyStrategy = .useDefaultKeys
    var dateStrategy: JSONDecoder.DateDecodingStrategy = .deferredToDate
    var dataStrategy: JSONDecoder.DataDecodingStrategy = .base64
    var nonConformingFloatStrategy: JSONDecoder.NonConformingFloatDecodingStrategy = .throw
    var userInfo: [CodingUserInfoKey: Any] = [:]

    /// The options of a plain `JSONDecoder()`.
    init() {}

    /// The options of `decoder`, or `nil` if this decoder does not stand in for it.
    init?(_ decoder: JSONDecoder) {
        guard type(of: decoder) == JSONDecoder.self, !decoder.allowsJSON5, !decoder.assumesTopLevelDictionary else {
            return nil
        }
        switch decoder.keyDecodingStrategy {
        case .useDefaultKeys: keyStrategy = .useDefaultKeys
        case .convertFromSnakeCase: keyStrategy = .convertFromSnakeCase
        case .custom(let convert): keyStrategy = .custom(convert)
        @unknown default: return nil
        }
        switch decoder.dateDecodingStrategy {
        case .deferredToDate, .secondsSince1970, .millisecondsSince1970, .iso8601, .custom: break
        #if !canImport(FoundationNetworking)
        // A case of its own on Apple platforms; elsewhere `.formatted` makes a `.custom` one.
        case .formatted: break
        #endif
        @unknown default: return nil
        }
        switch decoder.dataDecodingStrategy {
        case .deferredToData, .base64, .custom: break
        @unknown default: return nil
        }
        switch decoder.nonConformingFloatDecodingStrategy {
        case .throw, .convertFromString: break
        @unknown default: return nil
        }
        dateStrategy = decoder.dateDecodingStrategy
        dataStrategy = decoder.dataDecodingStrategy
        nonConformingFloatStrategy = decoder.nonConformingFloatDecodingStrategy
        for (key, value) in decoder.userInfo { userInfo[key] = value }
    }

    /// `snake_case_key` as `snakeCaseKey`, as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase`
    /// converts it: underscores at either end are kept, the words between are joined, each but
    /// the first capitalised and the first lowercased; a key of one word is kept as it is.
    static func convertedFromSnakeCase(_ key: String) -> String {
        guard let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore, key[lastNonUnderscore] == "_" {
            key.formIndex(before: &lastNonUnderscore)
        }
        let words = key[firstNonUnderscore...lastNonUnderscore].split(separator: "_")
        let joined: String
        if words.count == 1 {
            joined = String(key[firstNonUnderscore...lastNonUnderscore])
        } else {
            joined = ([words[0].lowercased()] + words[1...].map { $0.capitalized }).joined()
        }
        return String(key[..<firstNonUnderscore]) + joined + String(key[key.index(after: lastNonUnderscore)...])
    }
}
