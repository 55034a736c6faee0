/// The header blocks of a SOAP response, for a resource's model to read.
///
/// ``SOAPResourceType/model(from:headers:)`` receives them:
///
/// ```swift
/// func model(from root: User, headers: SOAPResponseHeaders) throws -> SessionUser {
///     let session = try headers.decode(SessionInfo.self, named: "SessionInfo", namespaceURI: "urn:example")
///     return SessionUser(user: root, session: session)
/// }
/// ```
public struct SOAPResponseHeaders: Sendable, Hashable {
    /// The children of the response's `Header`, in order; empty when it has none.
    public var blocks: [XMLTree.Element]

    /// Creates a value from blocks.
    public init(blocks: [XMLTree.Element]) {
        self.blocks = blocks
    }

    /// The first block with this local name (and namespace, unless `nil`).
    public func block(named name: String, namespaceURI: String? = nil) -> XMLTree.Element? {
        blocks.first { $0.name == name && (namespaceURI == nil || $0.namespaceURI == namespaceURI) }
    }

    /// Decodes the first block with this name, or returns `nil` when there is none.
    ///
    /// - Throws: `DecodingError` when the block does not hold a `T`.
    public func decode<T: Decodable>(
        _ type: T.Type,
        named name: String,
        namespaceURI: String? = nil,
        decoder: XMLTreeDecoder = XMLTreeDecoder()
    ) throws -> T? {
        guard let block = block(named: name, namespaceURI: namespaceURI) else { return nil }
        return try decoder.decode(type, from: block)
    }
}
