import Foundation

/// A resource whose model is made from raw bytes.
///
/// This is the parsing half of a resource: the "parser and factory" step that turns a response
/// body into ``ResourceType/Model``. Services call ``serviceError(in:)`` first, then
/// ``model(from:)``.
///
/// Most resources adopt a refinement that implements ``model(from:)`` for them:
/// ``JSONResourceType``, ``JSONDecodableResourceType``, or the XML ones.
public protocol DataResourceType: ResourceType {
    /// The type a successful fetch produces. Restated here so that Swift infers it from
    /// the type ``model(from:)`` returns.
    associatedtype Model

    /// Makes the model from a response body.
    ///
    /// Throw a ``ResourceError`` to report a specific failure; any other error is reported as
    /// ``ResourceError/parsing(_:)``.
    func model(from data: Data) throws -> Model

    /// Returns the service-level error a response body carries, or `nil` if it carries none.
    ///
    /// Some services answer `200 OK` with a body such as `{"error": "quota exceeded"}`. Return an
    /// error describing it and the fetch fails with ``ResourceError/serviceLevel(_:)`` instead of
    /// trying to parse a model. Called only for responses whose status the resource accepts,
    /// before ``model(from:)``. The default returns `nil`.
    func serviceError(in data: Data) -> (any Error)?
}

// MARK: - Default implementations

extension DataResourceType {
    /// Reports no service-level error.
    public func serviceError(in data: Data) -> (any Error)? { nil }
}

// MARK: - Conveniences

extension DataResourceType {
    /// Runs the parsing half of the pipeline on a body: the service-level check, then
    /// ``model(from:)``, with every failure as a ``ResourceError``.
    ///
    /// - Parameters:
    ///   - data: The response body.
    ///   - statusCode: The response's status code, used in
    ///     ``ResourceError/emptyResponse(statusCode:)``; `nil` when the bytes did not come from HTTP.
    public func result(from data: Data, statusCode: Int? = nil) -> Result<Model, ResourceError> {
        if let error = serviceError(in: data) {
            return .failure(.serviceLevel(error))
        }
        do {
            return .success(try model(from: data))
        } catch let error as ResourceError {
            if case .emptyResponse(nil) = error { return .failure(.emptyResponse(statusCode: statusCode)) }
            return .failure(error)
        } catch {
            return .failure(.parsing(.init(context: "making \(Model.self) from \(data.count) bytes", underlying: error)))
        }
    }
}
