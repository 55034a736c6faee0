import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Why this request must not reach a transport, if it must not: a method that is not an
    /// HTTP token, a URL that is not `http` or `https` with a host, a header field name that is
    /// not a token, or a header field value with a control character other than horizontal tab.
    ///
    /// Every fetch checks the request it hands the transport, after every adapter and
    /// authenticator has run, so no hook can split a header field or smuggle a second one in.
    package var refusalForTransport: ResourceError? {
        if let method = httpMethod, method.isEmpty || !method.utf8.allSatisfy(HTTPMethod.isTokenByte) {
            return .invalidRequest(reason: "the method \(method.debugDescription) is not a valid HTTP token")
        }
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            return .invalidRequest(reason: "the URL must be http or https, with a host")
        }
        for (name, value) in allHTTPHeaderFields ?? [:] {
            if let refusal = Self.refusal(ofHeaderField: name, value: value) { return refusal }
        }
        return nil
    }

    /// Why a header field cannot be sent, if it cannot: its name is not an HTTP token, or its
    /// value holds a control character other than horizontal tab (`0x00`–`0x08`,
    /// `0x0A`–`0x1F`, `0x7F`), which RFC 9110 (5.5) does not allow in a field value. The reason
    /// never quotes the value, which may be a credential.
    static func refusal(ofHeaderField name: String, value: String) -> ResourceError? {
        guard !name.isEmpty, name.utf8.allSatisfy(HTTPMethod.isTokenByte) else {
            return .invalidRequest(reason: "the header field name \(name.debugDescription) is not a valid HTTP token")
        }
        if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return .invalidRequest(reason: "the value of header field \(name) contains a control character other than tab")
        }
        return nil
    }
}
