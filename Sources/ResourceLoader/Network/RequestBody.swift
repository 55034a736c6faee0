import Foundation

/// The body of a request and its content type.
///
/// Make one with the static factories; each encodes its input when it is made, so a
/// `RequestBody` that exists is ready to send.
///
/// ```swift
/// var body: RequestBody? {
///     get throws { try .json(NewCity(name: "Lisbon")) }
/// }
/// ```
///
/// A body can also be streamed as it is sent, never held whole in memory: a file
/// (``file(_:contentType:)``), an `AsyncSequence` of chunks (``stream(_:contentType:)``), or a
/// multipart form (``multipart(_:)``). See ``Content``.
public struct RequestBody: Sendable, Hashable {
    /// What the body is made of: bytes in memory, or a source read as it is sent.
    public var content: Content
    /// The `Content-Type` header to send with them, unless the resource sets one itself.
    public var contentType: String?

    /// The bytes to send, for a body held in memory (``Content/bytes(_:)``); empty for a streamed
    /// body, whose bytes are read only as it is sent (``makeReader()``). Setting it makes the
    /// body one of bytes in memory.
    public var data: Data {
        get {
            if case .bytes(let data) = content { return data }
            return Data()
        }
        set { content = .bytes(newValue) }
    }

    /// Creates a body from raw bytes and their content type.
    public init(data: Data, contentType: String?) {
        self.content = .bytes(data)
        self.contentType = contentType
    }

    /// Creates a body from its content and content type.
    public init(content: Content, contentType: String?) {
        self.content = content
        self.contentType = contentType
    }
}

// MARK: - Factories

extension RequestBody {
    /// Raw bytes with a content type.
    public static func data(_ data: Data, contentType: String?) -> RequestBody {
        RequestBody(data: data, contentType: contentType)
    }

    /// A JSON object (`[String: Any]`, `[Any]`, or a fragment) serialised with
    /// `JSONSerialization`.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` if the object is not valid JSON.
    public static func jsonObject(_ object: Any) throws(ResourceError) -> RequestBody {
        guard JSONSerialization.isValidJSONObject(object) || isFragment(object) else {
            throw .invalidRequest(reason: "the body is not a valid JSON object")
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])
            return RequestBody(data: data, contentType: "application/json")
        } catch {
            throw .invalidRequest(reason: "the body could not be serialised as JSON")
        }
    }

    /// An `Encodable` value encoded with `encoder`.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` if encoding fails.
    public static func json<Value: Encodable>(
        _ value: Value,
        encoder: JSONEncoder = JSONEncoder()
    ) throws(ResourceError) -> RequestBody {
        do {
            return RequestBody(data: try encoder.encode(value), contentType: "application/json")
        } catch {
            throw .invalidRequest(reason: "the body could not be encoded as JSON (\(Value.self))")
        }
    }

    /// Name-value pairs as `application/x-www-form-urlencoded`, in order.
    ///
    /// Every byte outside `A-Z a-z 0-9 - . _ ~` is percent-encoded, so `+`, `&`, `=`, spaces
    /// and non-ASCII text reach the server exactly as given.
    public static func form(_ items: [URLQueryItem]) -> RequestBody {
        let text = PercentEncoding.encode(items)
        return RequestBody(data: Data(text.utf8), contentType: "application/x-www-form-urlencoded")
    }

    private static func isFragment(_ object: Any) -> Bool {
        object is String || object is NSNumber || object is NSNull
    }
}
