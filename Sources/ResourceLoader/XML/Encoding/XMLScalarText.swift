import Foundation

/// The text of a scalar value, kept as it came until it is written into the output: integers
/// are written digit by digit, and text known to need no escaping is copied as it is.
enum XMLScalarText {
    /// Text to escape.
    case text(String)
    /// Text made by the encoder itself (`true`, a number's digits) that needs no escaping.
    case ascii(String)
    /// A signed integer.
    case signed(Int64)
    /// An unsigned integer.
    case unsigned(UInt64)
    /// A `Decimal` that is not NaN, in its own digits.
    case decimal(Decimal)

    /// Appends the text to `output`, escaped; `false` when it holds a character XML 1.0 does
    /// not allow.
    func write(inAttribute: Bool, into output: inout [UInt8]) -> Bool {
        switch self {
        case .text(let text): return XMLEscaping.escape(text, inAttribute: inAttribute, into: &output)
        case .ascii(let text): XMLEscaping.append(utf8Of: text, to: &output)
        case .signed(let value): XMLEscaping.append(value, to: &output)
        case .unsigned(let value): XMLEscaping.append(value, to: &output)
        case .decimal(let value):
            if !XMLEscaping.append(value, to: &output) {
                output.append(contentsOf: value.description.utf8)
            }
        }
        return true
    }

    /// The value, for an `EncodingError` (never put in its description).
    var value: Any {
        switch self {
        case .text(let text), .ascii(let text): text
        case .signed(let value): value
        case .unsigned(let value): value
        case .decimal(let value): value
        }
    }
}
