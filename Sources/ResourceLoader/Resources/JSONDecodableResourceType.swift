import Foundation

/// A resource whose model is decoded from JSON with `JSONDecoder`.
///
/// When the JSON's top level is the model itself, conforming is one line:
///
/// ```swift
/// struct Profile: JSONDecodableResourceType {
///     typealias Model = User
/// }
/// ```
///
/// When the model sits inside a wrapper, name the wrapper ``Root`` and say how to get the model
/// out of it:
///
/// ```swift
/// struct CityList: JSONDecodableResourceType {
///     struct Root: Decodable { let cities: [City] }
///     func model(from root: Root) -> [City] { root.cities }
/// }
/// ```
///
/// Decoding errors are reported as ``ResourceError/parsing(_:)`` and keep the `DecodingError`,
/// so ``ResourceError/ParsingFailure/codingPath`` says where decoding stopped.
public protocol JSONDecodableResourceType: DataResourceType {
    /// The type a successful fetch produces. Restated here so that Swift infers it from
    /// the type ``model(from:)-(Root)`` returns.
    associatedtype Model

    /// The type the JSON body decodes to. Defaults to ``ResourceType/Model``.
    associatedtype Root: Decodable = Model

    /// The decoder used for the body. The default is a plain `JSONDecoder()`.
    var jsonDecoder: JSONDecoder { get }

    /// Maps the decoded root to the model. The identity when `Root == Model`.
    func model(from root: Root) throws -> Model
}

// MARK: - Default implementations

extension JSONDecodableResourceType {
    /// A plain `JSONDecoder`.
    public var jsonDecoder: JSONDecoder { JSONDecoder() }

    /// Decodes ``Root`` from `data` with ``jsonDecoder`` and maps it with ``model(from:)-(Root)``.
    public func model(from data: Data) throws -> Model {
        guard !data.isEmpty else { throw ResourceError.emptyResponse(statusCode: nil) }
        let root: Root
        do {
            root = try jsonDecoder.decode(Root.self, from: data)
        } catch {
            throw ResourceError.parsing(.init(context: "decoding \(Root.self) from JSON", underlying: error))
        }
        return try model(from: root)
    }
}

extension JSONDecodableResourceType where Root == Model {
    /// Returns the decoded root: it already is the model.
    public func model(from root: Root) -> Model { root }
}
