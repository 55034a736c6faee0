/// Limits applied to a JSON body before it is parsed.
///
/// `JSONSerialization` and `JSONDecoder` build the whole document in memory, and what that costs
/// depends on how many values the body holds more than on its size: on Linux an object of one
/// member costs `JSONSerialization` about 3 KB, so 8 MB of `{"a":0}` objects would take about
/// 3 GB. The JSON resource types therefore count a body's values and containers in the pass they
/// already make over its bytes, before either parser sees them, and refuse a body past either
/// limit with ``ResourceError/parsing(_:)`` whose underlying error is
/// ``JSONParsingError/tooManyValues(limit:)`` or ``JSONParsingError/tooManyContainers(limit:)``.
/// No model, and no part of one, is built.
///
/// The two parsers cost very different amounts, so each resource protocol has its own default:
///
/// | Resource | Default | Peak while parsing, whatever the body holds (Linux) |
/// | --- | --- | --- |
/// | ``JSONResourceType`` (`JSONSerialization`) | `JSONParsingOptions()`: 1,000,000 values, at most 125,000 of them objects or arrays | about 0.5 GB |
/// | ``JSONDecodableResourceType`` (`JSONDecoder`) | ``decoding``: 4,000,000 values, any of them objects or arrays | about 0.3 GB, plus the model |
///
/// 100,000 records of a few fields each pass the first; a million pass the second. Measurements
/// and the formula are in `Docs/Reliability.md`.
///
/// ```swift
/// var jsonParsingOptions: JSONParsingOptions {
///     JSONParsingOptions(maximumValueCount: 5_000_000, maximumContainerCount: 1_000_000)
/// }
/// ```
public struct JSONParsingOptions: Sendable, Hashable {
    /// The default ``maximumValueCount``: 1,000,000 values.
    public static let defaultMaximumValueCount = 1_000_000
    /// The default ``maximumContainerCount``: 125,000 objects and arrays.
    public static let defaultMaximumContainerCount = 125_000

    /// The default limits of ``JSONDecodableResourceType``: 4,000,000 values, any of them objects
    /// or arrays.
    ///
    /// `JSONDecoder` keeps a parsed value in at most about 80 bytes, an object no more than a
    /// number, where `JSONSerialization` spends about 3 KB on every object; so the decoding path
    /// allows four times the values and does not count containers apart. Parsing then peaks at
    /// about 0.3 GB, plus the model the resource decodes.
    public static let decoding = JSONParsingOptions(maximumValueCount: 4_000_000, maximumContainerCount: 4_000_000)

    /// The most values a body may hold: every object, array, string, number, `true`, `false` and
    /// `null`, at any depth, the top-level value included. Object keys are not values.
    public var maximumValueCount: Int
    /// The most objects and arrays a body may hold, at any depth, the top-level value included.
    /// They are counted among the values too.
    public var maximumContainerCount: Int

    /// Creates options with the given limits.
    public init(
        maximumValueCount: Int = JSONParsingOptions.defaultMaximumValueCount,
        maximumContainerCount: Int = JSONParsingOptions.defaultMaximumContainerCount
    ) {
        self.maximumValueCount = maximumValueCount
        self.maximumContainerCount = maximumContainerCount
    }
}
