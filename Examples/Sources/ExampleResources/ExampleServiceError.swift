/// The error the example services put in a `200 OK` body: `{"error": "…"}`.
public struct ExampleServiceError: Error, Decodable, Hashable, CustomStringConvertible {
    /// The service's message.
    public let error: String

    /// The message.
    public var description: String { error }
}
