import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A type a resource's ``NetworkResourceType/validate(_:data:)`` can take the response as:
/// ``ResponseHead`` (the default) or `HTTPURLResponse`.
///
/// Swift infers ``NetworkResourceType/ValidatedResponse`` from the parameter of the resource's
/// own `validate(_:data:)`, so a resource written against `HTTPURLResponse` keeps receiving one,
/// with every header field, while a resource that keeps the default pays for no
/// `HTTPURLResponse` at all.
public protocol ValidatableResponse {
    /// `head` as this type, or `nil` when it cannot be made (an `HTTPURLResponse` needs a URL).
    static func validatable(from head: ResponseHead) -> Self?
}

extension ResponseHead: ValidatableResponse {
    /// `head` itself.
    public static func validatable(from head: ResponseHead) -> ResponseHead? { head }
}

extension HTTPURLResponse: ValidatableResponse {
    /// The head's ``ResponseHead/httpURLResponse``, if it is of this class.
    public static func validatable(from head: ResponseHead) -> Self? {
        head.httpURLResponse as? Self
    }
}
