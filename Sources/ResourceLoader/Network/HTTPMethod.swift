/// An HTTP request method.
///
/// An open set: the common methods are static members, and any other valid method token can be
/// made with ``init(rawValue:)``.
///
/// ```swift
/// let method: HTTPMethod = .post
/// let custom = HTTPMethod(rawValue: "PROPFIND")
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token as sent on the wire, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its token, or returns `nil` if `rawValue` is not a valid HTTP token
    /// (RFC 9110: one or more of `A-Z a-z 0-9 ! # $ % & ' * + - . ^ _ ` | ~`).
    public init?(rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.allSatisfy(HTTPMethod.isTokenByte) else { return nil }
        self.rawValue = rawValue
    }

    private init(known rawValue: String) {
        self.rawValue = rawValue
    }

    /// The method token.
    public var description: String { rawValue }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension HTTPMethod {
    /// `GET`: retrieve a representation.
    public static let get = HTTPMethod(known: "GET")
    /// `POST`: submit data to be processed.
    public static let post = HTTPMethod(known: "POST")
    /// `PUT`: replace a representation.
    public static let put = HTTPMethod(known: "PUT")
    /// `PATCH`: apply a partial modification.
    public static let patch = HTTPMethod(known: "PATCH")
    /// `DELETE`: remove a representation.
    public static let delete = HTTPMethod(known: "DELETE")
    /// `HEAD`: like `GET` without the body.
    public static let head = HTTPMethod(known: "HEAD")
    /// `OPTIONS`: describe the communication options.
    public static let options = HTTPMethod(known: "OPTIONS")
}
