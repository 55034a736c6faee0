import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rules every transport keeps, written once: which redirects are followed and how, which
/// header fields a redirect carries, which content codings and `Content-Length` framings are
/// accepted.
///
/// ``URLSessionTransport`` and `AsyncHTTPClientTransport` call these functions rather than keep
/// copies of them; a transport of your own calls them too. They are pure functions of the
/// request, the response and the ``TransferOptions``:
///
/// - ``redirect(statusCode:location:after:original:redirectsFollowed:options:)`` decides a
///   redirect: the limit, `https` to `http`, schemes other than `http` and `https`, the method
///   and body RFC 9110 asks for, the ``credentialHeaderFields`` across origins, and a body sent
///   again only to the original origin.
/// - ``refusal(of:request:defaultAcceptEncoding:)`` checks a response's head: a content coding
///   the request did not ask for, and `Content-Length` fields that disagree.
/// - ``decodingContent(for:limit:)`` decodes `gzip` and `deflate` bodies, verified and bounded,
///   for a transport that receives the bytes as sent.
/// - ``isIdentity(_:)`` and ``isSingleContentLength(_:)`` are the pieces those use.
///
/// The size limit is kept as bytes arrive by the receiver (``ResponseCollector``), and the
/// deadline by ``ResourceService``.
public enum TransferRules {
    /// The header fields that carry credentials. A redirect to an origin (scheme, host and port)
    /// other than the original request's is sent without them; a redirect back to the original
    /// origin carries them again: `Authorization`, `Proxy-Authorization` and `Cookie`.
    ///
    /// Every other header field goes along to any origin, including credentials in fields of
    /// your own naming (an `X-API-Key`, say): give such a resource
    /// ``TransferOptions/maximumRedirects`` `0` if it must not follow redirects at all.
    public static let credentialHeaderFields = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// The header fields that describe a request body; a redirect that drops the body (a `303`,
    /// or a `301` or `302` answering a `POST`) drops them too.
    public static let contentHeaderFields = [
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
        "Content-Range", "Content-MD5", "Content-Digest", "Repr-Digest", "Digest", "Transfer-Encoding",
        "Last-Modified",
    ]

    /// Decides what to do with one redirect: refuse it, or follow it with the returned request.
    ///
    /// The next request is built here, not taken from the platform (FoundationNetworking turns a
    /// `Location` such as `file:///etc/passwd` into a path on the current origin, and drops the
    /// body of every redirected request):
    ///
    /// - `301` and `302` answering a `POST`, and `303` answering anything but `HEAD`, become a
    ///   `GET` without the body and without ``contentHeaderFields`` (RFC 9110, 15.4). Every other
    ///   redirect (`307`, `308`, a `301` or `302` answering any other method) sends the same
    ///   method and body again; a body stream cannot be read twice, so such a redirect of a
    ///   request with an `httpBodyStream` is refused, unless it carries a repeatable
    ///   ``RequestBody`` (a file, or a form without stream parts), which is read again: the
    ///   returned request carries a new, unopened ``RequestBodyInputStream`` of that body.
    /// - The ``credentialHeaderFields`` go only to the original request's origin.
    /// - A request body goes only to the original request's origin: a redirect to another origin
    ///   that would send a non-empty body again is refused with
    ///   ``ResourceError/RedirectRefusal/bodyToAnotherOrigin``, unless the request's options
    ///   allow it (``TransferOptions/sendsBodyToAnotherOrigin``). A body carries credentials as
    ///   often as a header does: a password or refresh token in a form, a WS-Security
    ///   `UsernameToken` or signature in a SOAP envelope.
    ///
    /// - Parameters:
    ///   - statusCode: The redirect's status code.
    ///   - location: The redirect's `Location` header field, resolved against `current`'s URL.
    ///   - current: The request that was answered with the redirect.
    ///   - original: The request as first sent; its credential header fields are restored when a
    ///     redirect leads back to its origin.
    ///   - redirectsFollowed: How many redirects this request has already followed.
    ///   - options: The request's limits.
    /// - Returns: The request to send next, or why the redirect is refused.
    public static func redirect(
        statusCode: Int,
        location: String?,
        after current: URLRequest,
        original: URLRequest,
        redirectsFollowed: Int,
        options: TransferOptions
    ) -> RedirectDecision {
        guard redirectsFollowed < options.maximumRedirects else {
            return .refuse(.tooManyRedirects(limit: options.maximumRedirects))
        }
        let target = location.flatMap { URL(string: $0, relativeTo: current.url)?.absoluteURL }
        let scheme = target?.scheme?.lowercased()
        guard let target, scheme == "http" || scheme == "https", target.host?.isEmpty == false else {
            return .refuse(.unsupportedScheme)
        }
        if current.url?.scheme?.lowercased() == "https", scheme != "https" {
            return .refuse(.insecureDowngrade)
        }
        var next = current
        next.url = target
        let method = (current.httpMethod ?? "GET").uppercased()
        let dropsBody = switch statusCode {
        case 301, 302: method == "POST"
        case 303: true
        default: false
        }
        if dropsBody {
            if method != "HEAD" { next.httpMethod = "GET" }
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in contentHeaderFields {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        } else if !current.hasRepeatableBody {
            return .refuse(.unrepeatableBody)
        } else if let stream = current.httpBodyStream as? RequestBodyInputStream {
            // The stream that went out with `current` has been read (and maybe closed): the next
            // request gets one of its own, which reads the body from its start.
            next.httpBodyStream = stream.makeCopy()
        }
        let sameOrigin = Origin(target).map { $0 == Origin(original.url) } ?? false
        if !sameOrigin, next.hasBody, !options.sendsBodyToAnotherOrigin {
            return .refuse(.bodyToAnotherOrigin)
        }
        for name in credentialHeaderFields {
            next.setValue(sameOrigin ? original.value(forHTTPHeaderField: name) : nil, forHTTPHeaderField: name)
        }
        return .follow(next)
    }

    /// `true` for a `Content-Length` value that is one decimal length, or a list of equal ones
    /// (RFC 9112, 6.3). FoundationNetworking joins repeated fields into one comma-separated value.
    public static func isSingleContentLength(_ value: String) -> Bool {
        let lengths = value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lengths.first, !first.isEmpty, first.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return false
        }
        return lengths.allSatisfy { $0 == first }
    }

    /// The length a `Content-Length` value declares: one decimal length, or a list of equal ones
    /// (RFC 9112, 6.3) as a transport that joins repeated fields hands them over; `nil` for
    /// anything else. A length too long for `Int64` reads as `Int64.max`: over any limit.
    static func declaredContentLength(_ value: String) -> Int64? {
        if let length = Int64(value) { return length }
        guard isSingleContentLength(value) else { return nil }
        let first = value.prefix { $0 != "," }.trimmingCharacters(in: .whitespaces)
        return Int64(first) ?? .max
    }

    /// What to do with a redirect.
    public enum RedirectDecision: Equatable, Sendable {
        /// Send this request next.
        case follow(URLRequest)
        /// Do not follow the redirect; fail the fetch with this reason.
        case refuse(ResourceError.RedirectRefusal)
    }

    /// A URL's scheme, host and port, as RFC 6454 compares them.
    package struct Origin: Hashable {
        let scheme: String
        let host: String
        let port: Int

        package init?(_ url: URL?) {
            guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
                return nil
            }
            let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
            guard let port = url.port ?? defaultPort else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = port
        }
    }

    /// The `Accept-Encoding` a transport that decodes bodies itself (with
    /// ``decodingContent(for:limit:)``) sends when a request names none: `gzip, deflate`.
    public static let decodedContentCodings = ContentCoding.acceptEncodingValue

    /// A receiver that decodes a body in `gzip` or `deflate` as its pieces arrive and hands the
    /// decoded pieces to `receiver`: for a transport that receives a body's bytes as sent.
    ///
    /// gzip's CRC-32 and length trailer and zlib's Adler-32 are checked, so a corrupt body, or one
    /// cut short, ends the transfer with ``ResourceError/transport(_:underlying:)``
    /// (`URLError.Code.cannotDecodeContentData`, underlying a ``ContentDecodingError``) and never
    /// hands over a partial body as whole. The decoded bytes are bounded by `limit` as they are
    /// produced, so a decompression bomb fails with ``ResourceError/responseTooLarge(limit:)``
    /// after `limit` bytes, in bounded memory. A body in another coding, or in none, passes
    /// through unchanged; the head is handed over as received, `Content-Encoding` included.
    public static func decodingContent(for receiver: any TransferReceiver, limit: Int) -> any TransferReceiver {
        ContentDecodingReceiver(receiver: receiver, limit: limit)
    }

    /// Why the head of a response to `request` is refused, or `nil` to accept it.
    ///
    /// - A `Content-Encoding` other than `identity` that the request's `Accept-Encoding` (or,
    ///   when it names none, `defaultAcceptEncoding`) does not list with a weight above zero:
    ///   ``ResourceError/transport(_:underlying:)`` with `URLError.Code.cannotDecodeContentData`.
    /// - `Content-Length` fields whose values differ (a transport that joins repeated fields
    ///   hands them over as one comma-separated value), or a `Content-Length` together with a
    ///   `Transfer-Encoding` (RFC 9112, section 6.3: the framing is ambiguous, a sign of response
    ///   smuggling): ``ResourceError/transport(_:underlying:)`` with
    ///   `URLError.Code.badServerResponse`.
    ///
    /// - Parameters:
    ///   - head: The response's head.
    ///   - request: The request it answers, as sent (after any redirects).
    ///   - defaultAcceptEncoding: What the transport sends when `request` names no
    ///     `Accept-Encoding`.
    public static func refusal(
        of head: ResponseHead,
        request: URLRequest,
        defaultAcceptEncoding: String = "identity"
    ) -> ResourceError? {
        if let coding = head.value(forHTTPHeaderField: "Content-Encoding"), !isIdentity(coding) {
            let accepted = request.value(forHTTPHeaderField: "Accept-Encoding") ?? defaultAcceptEncoding
            if !accepts(accepted, coding: coding) {
                return .transport(.cannotDecodeContentData, underlying: URLError(.cannotDecodeContentData))
            }
        }
        if let length = head.value(forHTTPHeaderField: "Content-Length"),
            !isSingleContentLength(length) || head.value(forHTTPHeaderField: "Transfer-Encoding") != nil
        {
            return .transport(.badServerResponse, underlying: URLError(.badServerResponse))
        }
        return nil
    }

    /// Whether an `Accept-Encoding` value accepts `coding` (RFC 9110, section 12.5.3): it lists
    /// the coding with a weight above zero, or does not list it and lists `*` with a weight above
    /// zero. A `Content-Encoding` that lists several codings is accepted only as a whole, which
    /// no `Accept-Encoding` names.
    public static func accepts(_ acceptEncoding: String, coding: String) -> Bool {
        var wanted = coding.trimmingCharacters(in: .whitespaces).lowercased()
        if wanted == "x-gzip" { wanted = "gzip" }
        var wildcard = false
        for element in acceptEncoding.split(separator: ",") {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard var name = parts.first, !name.isEmpty else { continue }
            if name == "x-gzip" { name = "gzip" }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            // The coding's own weight decides, wherever it stands; `*` only for codings not listed.
            if name == wanted { return weight > 0 }
            if name == "*" { wildcard = wildcard || weight > 0 }
        }
        return wildcard
    }

    /// `true` for an empty content coding or `identity`, in any case, with surrounding spaces.
    public static func isIdentity(_ coding: String) -> Bool {
        let coding = coding.trimmingCharacters(in: .whitespaces)
        return coding.isEmpty || ResponseHead.sameFieldName(coding, "identity")
    }
}
