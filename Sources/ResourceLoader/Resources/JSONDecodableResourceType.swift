import Foundation

/// A resource whose model is decoded from JSON as ``jsonDecoder`` would decode it.
///
/// The body is read by ResourceLoader's strict JSON parser and decoded straight from what it
/// produced, with the key, date, data and non-conforming-float strategies and the `userInfo` of
/// ``jsonDecoder`` (see <doc:ParsingJSON>): the same models and `DecodingError`s as
/// `JSONDecoder`. A decoder that allows JSON5, assumes a top-level
/// dictionary or is a subclass decodes the body itself, once the parser has checked it.
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
/// Services that report errors inside a `200 OK` body, such as `{"error": "quota exceeded"}`,
/// name the shape of that body as ``ServiceError``; a body that decodes as one fails the fetch
/// with ``ResourceError/serviceLevel(_:)`` carrying the decoded value:
///
/// ```swift
/// struct APIError: Error, Decodable { let error: String }
///
/// struct Quota: JSONDecodableResourceType {
///     typealias Model = [String: Int]
///     typealias ServiceError = APIError
/// }
/// ```
///
/// Decoding errors are reported as ``ResourceError/parsing(_:)`` and keep the `DecodingError`,
/// so ``ResourceError/ParsingFailure/codingPath`` says where decoding stopped. A body the parser
/// refuses (invalid JSON, an object with the same key twice, a body past
/// ``jsonParsingOptions``' limits) also fails with ``ResourceError/parsing(_:)``, whose underlying
/// error is the ``JSONParsingError``, and nothing is decoded. Repeated keys are refused because
/// parsers disagree about which value wins, so neither is trusted; with JSON5 allowed, which the
/// parser does not read, only the limits are checked.
public protocol JSONDecodableResourceType: DataResourceType {
    /// The type a successful fetch produces. Restated here so that Swift infers it from
    /// the type ``model(from:)-(Root)`` returns.
    associatedtype Model

    /// The type the JSON body decodes to. Defaults to ``ResourceType/Model``.
    associatedtype Root: Decodable = Model

    /// The shape of a service-level error sent in a successful response. Default: `Never`, so
    /// bodies are not checked for one.
    ///
    /// When it is not `Never`, the body is tried as a `ServiceError` before it is decoded as
    /// ``Root`` — in the same parse, so the check costs no second pass over the bytes. If it
    /// decodes as one, the fetch fails with ``ResourceError/serviceLevel(_:)``. Give it required
    /// properties that a real model never has, so that it cannot match one.
    associatedtype ServiceError: Error & Decodable = Never

    /// The decoder whose strategies and `userInfo` decode the body. The default is a plain
    /// `JSONDecoder()`.
    var jsonDecoder: JSONDecoder { get }

    /// The limits a body must keep to be decoded. Default: ``JSONParsingOptions/decoding``
    /// (4,000,000 values).
    var jsonParsingOptions: JSONParsingOptions { get }

    /// Maps the decoded root to the model. The identity when `Root == Model`.
    func model(from root: Root) throws -> Model
}

// MARK: - Default implementations

extension JSONDecodableResourceType {
    /// A plain `JSONDecoder`.
    public var jsonDecoder: JSONDecoder { JSONDecoder() }

    /// ``JSONParsingOptions/decoding``: 4,000,000 values, any of them objects or arrays.
    public var jsonParsingOptions: JSONParsingOptions { .decoding }

    /// Decodes ``Root`` from `data` as ``jsonDecoder`` would and maps it with
    /// ``model(from:)-(Root)``.
    ///
    /// A body that decodes as ``ServiceError`` fails with ``ResourceError/serviceLevel(_:)``. A
    /// body the parser refuses (past ``jsonParsingOptions``, with a repeated key, or not JSON)
    /// fails with ``ResourceError/parsing(_:)`` whose underlying error is the
    /// ``JSONParsingError``, and is never decoded.
    public func model(from data: Data) throws -> Model {
        guard !data.isEmpty else { throw ResourceError.emptyResponse(statusCode: nil) }
        let decoder = jsonDecoder
        let root: Root
        do {
            if ServiceError.self == Never.self {
                root = try JSONValueDecoder.decode(Root.self, from: data, using: decoder, options: jsonParsingOptions)
            } else {
                let decoded = try JSONValueDecoder.decode(
                    ServiceErrorOrRoot<ServiceError, Root>.self, from: data, using: decoder, options: jsonParsingOptions)
                switch decoded {
                case .serviceError(let error): throw ResourceError.serviceLevel(error)
                case .root(let decoded): root = decoded
                }
            }
        } catch let error as ResourceError {
            throw error
        } catch {
            throw ResourceError.parsing(.init(context: "decoding \(Root.self) from JSON", underlying: error))
        }
        return try model(from: root)
    }
}

/// A body that is either a service's in-body error or the resource's root, decoded from one
/// parse: the error shape is tried first on the same decoder. The root is decoded through the
/// single-value container, as a top-level value is: `Date`, `Data`, `URL`, `Decimal` and
/// dictionaries by the decoder's strategies, as `JSONDecoder` decodes them.
private enum ServiceErrorOrRoot<ServiceError: Decodable, Root: Decodable>: Decodable {
    case serviceError(ServiceError)
    case root(Root)

    init(from decoder: any Decoder) throws {
        if let error = try? ServiceError(from: decoder) {
            self = .serviceError(error)
        } else {
            self = .root(try decoder.singleValueContainer().decode(Root.self))
        }
    }
}

extension JSONDecodableResourceType where Root == Model {
    /// Returns the decoded root: it already is the model.
    public func model(from root: Root) -> Model { root }
}
