/// A city, as the cities service lists it.
public struct City: Decodable, Hashable, Sendable {
    /// The city's name.
    public let name: String

    /// Creates a city.
    public init(name: String) {
        self.name = name
    }
}
