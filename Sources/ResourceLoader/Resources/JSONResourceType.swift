import Foundation

/// A resource whose model is built from a JSON dictionary or array.
///
/// Implement whichever of ``modelFrom(jsonDictionary:)`` and ``modelFrom(jsonArray:)`` matches
/// the top level of the JSON the service returns; the other keeps its default, which returns
/// `nil`. The body is read by ResourceLoader's strict JSON parser (see <doc:ParsingJSON>) into
/// the values `JSONSerialization` would produce: `[String: Any]`, `[Any]`, `String`, `NSNumber`
/// and `NSNull`.
///
/// ```swift
/// struct Greeting: JSONResourceType {
///     func modelFrom(jsonDictionary: [String: Any]) -> String? {
///         jsonDictionary["greeting"] as? String
///     }
/// }
/// ```
///
/// Invalid JSON, an object with the same key twice, a top-level shape the resource does not
/// handle, or a `nil` model all fail with ``ResourceError/parsing(_:)``; an empty body fails with
/// ``ResourceError/emptyResponse(statusCode:)``. The parser counts the body's values, containers
/// and depth against ``jsonParsingOptions`` as it reads it: a body past a limit fails with
/// ``ResourceError/parsing(_:)`` whose underlying error is a ``JSONParsingError``, and nothing of
/// it is built. Numbers become `NSNumber`s as `JSONSerialization` makes them; one that does not
/// fit a `Double` (such as `1e400`) is refused, and an integer beyond 64 bits arrives as an
/// `NSDecimalNumber` that does not cast to `Int`.
///
/// For `Decodable` models, ``JSONDecodableResourceType`` is usually simpler.
public protocol JSONResourceType: DataResourceType {
    /// The type a successful fetch produces. Restated here so that Swift infers it from
    /// the type the `modelFrom` functions return.
    associatedtype Model

    /// The limits a body must keep to be parsed. Default: ``JSONParsingOptions``' defaults.
    var jsonParsingOptions: JSONParsingOptions { get }

    /// Builds the model from a top-level JSON object, or returns `nil` if it cannot.
    func modelFrom(jsonDictionary: [String: Any]) -> Model?

    /// Builds the model from a top-level JSON array, or returns `nil` if it cannot.
    func modelFrom(jsonArray: [Any]) -> Model?
}

// MARK: - Default implementations

extension JSONResourceType {
    /// The default limits.
    public var jsonParsingOptions: JSONParsingOptions { JSONParsingOptions() }

    /// Returns `nil`: this resource does not handle a top-level object.
    public func modelFrom(jsonDictionary: [String: Any]) -> Model? { nil }

    /// Returns `nil`: this resource does not handle a top-level array.
    public func modelFrom(jsonArray: [Any]) -> Model? { nil }

    /// Parses `data` and hands the top level to ``modelFrom(jsonDictionary:)`` or
    /// ``modelFrom(jsonArray:)``.
    ///
    /// The parser enforces ``jsonParsingOptions`` and refuses objects with the same key twice
    /// (rather than silently keeping one of the values) in its one pass over the bytes; a body it
    /// refuses fails with ``ResourceError/parsing(_:)`` whose underlying error is the
    /// ``JSONParsingError``, and nothing of it is built.
    public func model(from data: Data) throws -> Model {
        guard !data.isEmpty else { throw ResourceError.emptyResponse(statusCode: nil) }
        let object: Any
        do {
            let tree = try JSONParser.parse(data, options: jsonParsingOptions)
            guard tree[0].kind == .object || tree[0].kind == .array else {
                throw ResourceError.parsing(
                    .init(context: "reading JSON: the top level is neither an object nor an array"))
            }
            object = try JSONObjectBuilder.object(from: tree)
        } catch let error as ResourceError {
            throw error
        } catch {
            throw ResourceError.parsing(.init(context: "reading JSON", underlying: error))
        }
        if let dictionary = object as? [String: Any] {
            guard let model = modelFrom(jsonDictionary: dictionary) else {
                throw ResourceError.parsing(.init(context: "making \(Model.self) from a JSON object"))
            }
            return model
        }
        if let array = object as? [Any] {
            guard let model = modelFrom(jsonArray: array) else {
                throw ResourceError.parsing(.init(context: "making \(Model.self) from a JSON array"))
            }
            return model
        }
        throw ResourceError.parsing(
            .init(context: "reading JSON: the top level is neither an object nor an array"))
    }
}
