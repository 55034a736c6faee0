import Foundation

/// A resource whose model is built from a JSON dictionary or array.
///
/// Implement whichever of ``modelFrom(jsonDictionary:)`` and ``modelFrom(jsonArray:)`` matches
/// the top level of the JSON the service returns; the other keeps its default, which returns
/// `nil`. The body is read with `JSONSerialization`.
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
/// ``ResourceError/emptyResponse(statusCode:)``. Before `JSONSerialization` sees the body, its
/// values and containers are counted against ``jsonParsingOptions``: a body with more fails with
/// ``ResourceError/parsing(_:)`` whose underlying error is a ``JSONParsingError``, and nothing of
/// it is built. This bounds the memory parsing takes, which on Linux is about 3 KB per object
/// (see ``JSONParsingOptions``). Numbers that do not fit a `Double` (such as
/// `1e400`) are invalid JSON; integers beyond 64 bits arrive as `NSNumber`s that do not cast to
/// `Int`.
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

    /// Parses `data` with `JSONSerialization` and hands the top level to
    /// ``modelFrom(jsonDictionary:)`` or ``modelFrom(jsonArray:)``.
    ///
    /// Before that, one pass over the bytes counts the body's values and containers against
    /// ``jsonParsingOptions`` and looks for objects with the same key twice. A body past a limit,
    /// or with a repeated key (rather than silently keeping one of the values), fails with
    /// ``ResourceError/parsing(_:)`` whose underlying error is the ``JSONParsingError``, and is
    /// never parsed.
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
