/// Limits applied to a JSON body while it is parsed.
///
/// What parsing a body costs depends on how many values it holds more than on its size, so the
/// JSON resource types count a body's values and containers in the one pass that reads its bytes,
/// and refuse a body past a limit with ``ResourceError/parsing(_:)`` whose underlying error is
/// ``JSONParsingError/tooManyValues(limit:)``, ``JSONParsingError/tooManyContainers(limit:)``,
/// ``JSONParsingError/tooDeep(limit:)`` or ``JSONParsingError/tooLarge(limit:)``. No model, and
/// no part of one, is built.
///
/// ResourceLoader's parser keeps a parsed value in 16 bytes. What is built from it costs more:
/// `[String: Any]` for ``JSONResourceType`` (a dictionary, an array or an `NSNumber` for every
/// container and number), the model itself for ``JSONDecodableResourceType``. So each resource
/// protocol has its own default:
///
/// | Resource | Default |
/// | --- | --- |
/// | ``JSONResourceType`` (`[String: Any]`) | `JSONParsingOptions()`: 1,000,000 values, at most 125,000 of them objects or arrays |
/// | ``JSONDecodableResourceType`` (`Decodable`) | ``decoding``: 4,000,000 values, any of them objects or arrays |
///
/// Both allow 512 levels of nesting and 2 GiB of text. 100,000 records of a few fields each pass
/// the first; a million pass the second.
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

    /// The default ``maximumDepth``: 512 levels of objects and arrays.
    public static let defaultMaximumDepth = 512
    /// The default ``maximumByteCount``, and the most it may be: 2 GiB less one byte, the most
    /// the parsed form's 32-bit offsets address.
    public static let defaultMaximumByteCount = Int(Int32.max)

    /// The default limits of ``JSONDecodableResourceType``: 4,000,000 values, any of them objects
    /// or arrays.
    ///
    /// Decoding reads the parsed form (16 bytes a value) straight into the model, with no
    /// dictionary or array per container in between; so the decoding path allows four times the
    /// values and does not count containers apart.
    public static let decoding = JSONParsingOptions(maximumValueCount: 4_000_000, maximumContainerCount: 4_000_000)

    /// The most values a body may hold: every object, array, string, number, `true`, `false` and
    /// `null`, at any depth, the top-level value included. Object keys are not values.
    public var maximumValueCount: Int
    /// The most objects and arrays a body may hold, at any depth, the top-level value included.
    /// They are counted among the values too.
    public var maximumContainerCount: Int
    /// The most objects and arrays a value may sit inside: `[[1]]` is two levels deep. The
    /// decoding of a model recurses once a level, so this also bounds the stack it takes.
    public var maximumDepth: Int
    /// The most bytes a body may have, its byte order mark included. Values above
    /// ``defaultMaximumByteCount`` count as that.
    public var maximumByteCount: Int

    /// Creates options with the given limits.
    public init(
        maximumValueCount: Int = JSONParsingOptions.defaultMaximumValueCount,
        maximumContainerCount: Int = JSONParsingOptions.defaultMaximumContainerCount,
        maximumDepth: Int = JSONParsingOptions.defaultMaximumDepth,
        maximumByteCount: Int = JSONParsingOptions.defaultMaximumByteCount
    ) {
        self.maximumValueCount = maximumValueCount
        self.maximumContainerCount = maximumContainerCount
        self.maximumDepth = maximumDepth
        self.maximumByteCount = maximumByteCount
    }
}
