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
/// ``ResourceError/emptyResponse(statusCode:)``. Numbers that do not fit a `Double` (such as
/// `1e400`) are invalid JSON; integers beyond 64 bits arrive as `NSNumber`s that do not cast to
/// `Int`.
///
/// For `Decodable` models, ``JSONDecodableResourceType`` is usually simpler.
public protocol JSONResourceType: DataResourceType {
    /// The type a successful fetch produces. Restated here so that Swift infers it from
    /// the type the `modelFrom` functions return.
    associatedtype Model

    /// Builds the model from a top-level JSON object, or returns `nil` if it cannot.
    func modelFrom(jsonDictionary: [String: Any]) -> Model?

    /// Builds the model from a top-level JSON array, or returns `nil` if it cannot.
    func modelFrom(jsonArray: [Any]) -> Model?
}

// MARK: - Default implementations

extension JSONResourceType {
    /// Returns `nil`: this resource does not handle a top-level object.
    public func modelFrom(jsonDictionary: [String: Any]) -> Model? { nil }

    /// Returns `nil`: this resource does not handle a top-level array.
    public func modelFrom(jsonArray: [Any]) -> Model? { nil }

    /// Parses `data` with `JSONSerialization` and hands the top level to
    /// ``modelFrom(jsonDictionary:)`` or ``modelFrom(jsonArray:)``.
    ///
    /// A body in which an object has the same key twice fails with ``ResourceError/parsing(_:)``
    /// rather than silently keeping one of the values.
    public func model(from data: Data) throws -> Model {
        guard !data.isEmpty else { throw ResourceError.emptyResponse(statusCode: nil) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw ResourceError.parsing(.init(context: "reading JSON", underlying: error))
        }
        if JSONDuplicateKeyScanner.firstDuplicateKeyPath(in: data) != nil {
            throw ResourceError.parsing(.init(context: "reading JSON: a key appears twice in one object"))
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
