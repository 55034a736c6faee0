import Foundation

/// A resource whose model is built from a parsed XML document.
///
/// Implement ``model(from:)-(XMLTree)`` to build the model from the element tree: this is the
/// factory step, after parsing. Return `nil` when the document does not hold a model and the
/// fetch fails with ``ResourceError/parsing(_:)``.
///
/// ```swift
/// struct Temperature: NetworkResourceType, XMLResourceType {
///     var url: URL { URL(string: "https://weather.example.com/now.xml")! }
///
///     func model(from document: XMLTree) -> Double? {
///         document.root.child(named: "celsius").flatMap { Double($0.text) }
///     }
/// }
/// ```
///
/// The body is parsed by ``XMLTree/init(data:options:)`` with ``xmlParsingOptions``; a refused
/// document fails with ``ResourceError/parsing(_:)`` whose underlying error is the
/// ``XMLParsingError``, and an empty body with ``ResourceError/emptyResponse(statusCode:)``.
///
/// For `Decodable` models, ``XMLDecodableResourceType`` is usually simpler; for SOAP services, use
/// ``SOAPResourceType``.
public protocol XMLResourceType: DataResourceType {
    /// The type a successful fetch produces. Restated here so that Swift infers it from
    /// the type ``model(from:)-(XMLTree)`` returns.
    associatedtype Model

    /// The limits applied while parsing the body. Default: ``XMLParsingOptions``' defaults.
    var xmlParsingOptions: XMLParsingOptions { get }

    /// Builds the model from the parsed document, or returns `nil` if it cannot.
    ///
    /// Throw a ``ResourceError`` to report a specific failure; any other error is reported as
    /// ``ResourceError/parsing(_:)``. The default returns `nil`.
    func model(from document: XMLTree) throws -> Model?
}

// MARK: - Default implementations

extension XMLResourceType {
    /// The default limits.
    public var xmlParsingOptions: XMLParsingOptions { XMLParsingOptions() }

    /// Returns `nil`: implement this to build the model.
    public func model(from document: XMLTree) throws -> Model? { nil }

    /// Parses `data` into an ``XMLTree`` and hands it to ``model(from:)-(XMLTree)``.
    public func model(from data: Data) throws -> Model {
        guard !data.isEmpty else { throw ResourceError.emptyResponse(statusCode: nil) }
        let document: XMLTree
        do {
            document = try XMLTree(data: data, options: xmlParsingOptions)
        } catch {
            throw ResourceError.parsing(.init(context: "parsing XML", underlying: error))
        }
        let model: Model?
        do {
            model = try self.model(from: document)
        } catch {
            throw ResourceError(parsingError: error, context: "making \(Model.self) from XML")
        }
        guard let model else {
            throw ResourceError.parsing(.init(context: "making \(Model.self) from XML: the document holds no model"))
        }
        return model
    }
}
