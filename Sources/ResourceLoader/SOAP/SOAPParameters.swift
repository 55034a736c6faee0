/// The ordered parameters of a SOAP operation: each becomes a child element of the operation
/// element, in order.
///
/// Write them as a dictionary literal (the order is kept, and names may repeat) or build them
/// with ``append(_:_:)``:
///
/// ```swift
/// var parameters: SOAPParameters {
///     ["userID": .text(userID), "fields": ["name": "", "email": ""]]
/// }
/// ```
///
/// Names must be valid XML names without a colon; text may be anything XML 1.0 can carry. Both
/// are checked, and every value escaped, when the envelope is written.
public struct SOAPParameters: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One parameter: an element name and its value.
    public struct Entry: Sendable, Hashable {
        /// The element's name.
        public var name: String
        /// The element's content.
        public var value: SOAPValue

        /// Creates a parameter.
        public init(name: String, value: SOAPValue) {
            self.name = name
            self.value = value
        }
    }

    /// The parameters, in order.
    public var entries: [Entry]

    /// Creates parameters from entries, in order.
    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    /// Creates parameters from a literal, keeping its order.
    public init(dictionaryLiteral elements: (String, SOAPValue)...) {
        self.entries = elements.map { Entry(name: $0.0, value: $0.1) }
    }

    /// Appends a parameter; names may repeat, for lists.
    public mutating func append(_ name: String, _ value: SOAPValue) {
        entries.append(Entry(name: name, value: value))
    }
}
