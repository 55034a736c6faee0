import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Whether a transport may send this request again on its own, after a connection is lost
    /// before the answer arrives: `true` for the idempotent methods `GET`, `HEAD`, `OPTIONS`,
    /// `TRACE`, `PUT` and `DELETE`, and for a request of any method that carries an
    /// `Idempotency-Key` or `X-Idempotency-Key` header field (the rule of Go's `net/http`).
    ///
    /// A resource whose `POST` is safe to repeat says so by sending an `Idempotency-Key`.
    package var mayBeSentAgain: Bool {
        switch (httpMethod ?? "GET").uppercased() {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE":
            true
        default:
            value(forHTTPHeaderField: "Idempotency-Key") != nil || value(forHTTPHeaderField: "X-Idempotency-Key") != nil
        }
    }
}
