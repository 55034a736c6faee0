/// The value of a SOAP parameter: text, or nested elements.
///
/// String and dictionary literals make values directly, so nested parameters read like the XML
/// they become:
///
/// ```swift
/// let address: SOAPValue = ["street": "1 High Street", "city": "London"]
/// ```
public enum SOAPValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral {
    /// Text, escaped when written: `<userID>12345</userID>`.
    case text(String)
    /// Child elements, in order: `<address><street>…</street><city>…</city></address>`.
    case elements(SOAPParameters)

    /// Creates a ``text(_:)`` value.
    public init(stringLiteral value: String) {
        self = .text(value)
    }

    /// Creates an ``elements(_:)`` value, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, SOAPValue)...) {
        self = .elements(SOAPParameters(elements.map { SOAPParameters.Entry(name: $0.0, value: $0.1) }))
    }
}
