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
/// With the defaults (1,000,000 values, of which at most 125,000 objects or arrays), parsing a
/// body peaks at about 0.5 GB with `JSONSerialization` and under 0.1 GB with `JSONDecoder`
/// (plus the model) on Linux, whatever the body holds; 100,000 records of a few fields each pass.
/// Measurements and the formula are in `Docs/Reliability.md`.
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
