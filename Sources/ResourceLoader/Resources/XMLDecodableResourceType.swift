import Foundation

/// A resource whose model is decoded from an element of an XML document with ``XMLTreeDecoder``.
///
/// When the root element is the model, conforming is one line:
///
/// ```swift
/// struct Profile: NetworkResourceType, XMLDecodableResourceType {
///     typealias Model = User
///     var url: URL { URL(string: "https://api.example.com/profile.xml")! }
/// }
/// ```
///
/// When the model sits deeper, give the ``elementPath`` from the root to it; when it needs a
/// wrapper, name the wrapper ``Root`` and say how to get the model out of it:
///
/// ```swift
/// struct Catalogue: NetworkResourceType, XMLDecodableResourceType {
///     struct Root: Decodable { let book: [Book] }
///     var url: URL { URL(string: "https://api.example.com/catalogue.xml")! }
///     var elementPath: [String] { ["books"] }
///     func model(from root: Root) -> [Book] { root.book }
/// }
/// ```
///
/// A missing element on the path and decoding errors are reported as ``ResourceError/parsing(_:)``
/// with the `DecodingError`, whose coding path starts with the element path, so
/// ``ResourceError/ParsingFailure/codingPath`` says where decoding stopped.
public protocol XMLDecodableResourceType: XMLResourceType {
    /// The type a successful fetch produces. Restated here so that Swift infers it from
    /// the type ``model(from:)-(Root)`` returns.
    associatedtype Model

    /// The type the element decodes to. Defaults to ``ResourceType/Model``.
    associatedtype Root: Decodable = Model

    /// The names of the elements leading from the root element to the one ``Root`` is decoded
    /// from, matched by local name whatever their prefix. Default: empty, the root itself.
    var elementPath: [String] { get }

    /// The decoder used. Default: a plain ``XMLTreeDecoder``.
    var xmlDecoder: XMLTreeDecoder { get }

    /// Maps the decoded root to the model. The identity when `Root == Model`.
    func model(from root: Root) throws -> Model
}

// MARK: - Default implementations

extension XMLDecodableResourceType {
    /// Empty: decode the root element.
    public var elementPath: [String] { [] }

    /// A plain ``XMLTreeDecoder``.
    public var xmlDecoder: XMLTreeDecoder { XMLTreeDecoder() }

    /// Decodes ``Root`` from the element at ``elementPath`` and maps it with
    /// ``model(from:)-(Root)``.
    public func model(from document: XMLTree) throws -> Model? {
        try decodedModel(from: document)
    }
}

extension XMLDecodableResourceType where Root == Model {
    /// Returns the decoded root: it already is the model.
    public func model(from root: Root) -> Model { root }
}

// MARK: - Decoding

extension XMLDecodableResourceType {
    func decodedModel(from document: XMLTree) throws -> Model {
        try model(from: try decodedRoot(from: document))
    }

    /// ``Root`` decoded from the element at ``elementPath``.
    func decodedRoot(from document: XMLTree) throws -> Root {
        let path = elementPath
        do {
            let element = try XMLTreeDecoder.element(atPath: path, in: document.root)
            return try xmlDecoder.decode(Root.self, from: element, path: path)
        } catch {
            throw ResourceError.parsing(.init(context: "decoding \(Root.self) from XML", underlying: error))
        }
    }
}
