/// A `soap:header` of a bound operation: a header block made of one part of a message, often a
/// message that is not the operation's own (a session or credentials header).
public struct WSDLHeader: Sendable, Hashable {
    /// The message the part belongs to.
    public var message: QualifiedName
    /// The part that is the header block.
    public var part: WSDLPart
    /// Whether the `soap:header` says `use="encoded"`.
    public var isEncoded: Bool

    /// Makes a header.
    public init(message: QualifiedName, part: WSDLPart, isEncoded: Bool) {
        self.message = message
        self.part = part
        self.isEncoded = isEncoded
    }
}
