import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The redirect rules of ``URLSessionTransport``, decided without a network. The loopback
/// cases are in `FaultInjectionTests`; these cover what loopback cannot serve, such as `https`.
@Suite("URLSessionTransport redirect rules")
struct URLSessionTransportTests {
    /// The decision for a redirect from `current` to `location`, for a request first sent to
    /// `original` (default: `current`) with credentials and a trace header; the request sent to
    /// `current` carries the credentials only if `current` is on the original origin.
    private func decide(
        from current: String, to location: String, original: String? = nil, status: Int = 302,
        followed: Int = 0, options: TransferOptions = TransferOptions()
    ) -> TransferRules.RedirectDecision {
        var first = URLRequest(url: URL(string: original ?? current)!)
        first.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        first.setValue("session=1", forHTTPHeaderField: "Cookie")
        first.setValue("t-1", forHTTPHeaderField: "X-Trace")
        var sent = first
        sent.url = URL(string: current)
        if URL(string: current)?.host != first.url?.host {
            for name in URLSessionTransport.credentialHeaderFields { sent.setValue(nil, forHTTPHeaderField: name) }
        }
        return TransferRules.redirect(
            statusCode: status, location: location, after: sent, original: first,
            redirectsFollowed: followed, options: options)
    }

    private func headers(_ decision: TransferRules.RedirectDecision) -> [String]? {
        guard case .follow(let request) = decision else { return nil }
        return ["Authorization", "Cookie", "X-Trace"].map { request.value(forHTTPHeaderField: $0) ?? "-" }
    }

    @Test(arguments: ["http://api.example.com/b", "HTTP://api.example.com/b"])
    func httpsToAnythingElseIsADowngrade(next: String) {
        #expect(decide(from: "https://api.example.com/a", to: next) == .refuse(.insecureDowngrade))
    }

    @Test("From https, a Location that is not an http or https URL with a host is an unsupported scheme, as from http",
          arguments: ["ftp://api.example.com/b", "file:///etc/passwd", "javascript:alert(1)", "http://[bad", "https:///nohost"])
    func aLocationThatIsNoHTTPURLIsAnUnsupportedSchemeFromHTTPSToo(next: String) {
        #expect(decide(from: "https://api.example.com/a", to: next) == .refuse(.unsupportedScheme))
        #expect(decide(from: "http://api.example.com/a", to: next) == .refuse(.unsupportedScheme))
    }

    @Test("Accept-Encoding: a coding's own weight decides; * stands only for the codings it does not list (RFC 9110 §12.5.3)")
    func acceptEncodingWeights() {
        #expect(TransferRules.accepts("gzip", coding: "gzip"))
        #expect(TransferRules.accepts("br, GZIP;q=0.5", coding: "gzip"))
        #expect(TransferRules.accepts("x-gzip", coding: "gzip"))
        #expect(!TransferRules.accepts("gzip;q=0", coding: "gzip"))
        #expect(!TransferRules.accepts("identity", coding: "gzip"))
        #expect(TransferRules.accepts("*", coding: "deflate"))
        #expect(!TransferRules.accepts("*;q=0", coding: "deflate"))
        #expect(!TransferRules.accepts("gzip;q=0, *", coding: "gzip"))
        #expect(!TransferRules.accepts("*, gzip;q=0", coding: "gzip"))
        #expect(TransferRules.accepts("gzip;q=0, *", coding: "br"))
        #expect(TransferRules.accepts("*;q=0, gzip", coding: "gzip"))
    }

    @Test func aDowngradeIsRefusedEvenAfterAnUpgrade() {
        // http → https → http: the second hop leaves https.
        #expect(decide(from: "https://api.example.com/b", to: "http://api.example.com/c",
                       original: "http://api.example.com/a", followed: 1) == .refuse(.insecureDowngrade))
    }

    @Test(arguments: [
        ("https://api.example.com/a", "https://api.example.com/b"),
        ("http://api.example.com/a", "https://api.example.com/b"),
        ("http://api.example.com/a", "http://api.example.com/b"),
    ])
    func otherSchemeChangesAreFollowed(current: String, next: String) {
        guard case .follow(let request) = decide(from: current, to: next) else {
            Issue.record("expected the redirect to be followed")
            return
        }
        #expect(request.url?.absoluteString == next)
    }

    @Test func theLimitCountsRedirectsAlreadyFollowed() {
        let options = TransferOptions(maximumRedirects: 3)
        #expect(headers(decide(from: "https://a.example/1", to: "https://a.example/2", followed: 2, options: options)) != nil)
        #expect(decide(from: "https://a.example/1", to: "https://a.example/2", followed: 3, options: options)
            == .refuse(.tooManyRedirects(limit: 3)))
        #expect(decide(from: "https://a.example/1", to: "https://a.example/2", options: TransferOptions(maximumRedirects: 0))
            == .refuse(.tooManyRedirects(limit: 0)))
    }

    @Test(arguments: [
        "https://api.example.com/b",
        "https://API.example.com:443/b",
        "https://api.example.com/b?x=1#f",
    ])
    func credentialsGoAlongToTheSameOrigin(next: String) {
        #expect(headers(decide(from: "https://api.example.com/a", to: next)) == ["Bearer secret", "session=1", "t-1"])
    }

    @Test(arguments: [
        ("https://api.example.com/a", "https://other.example.com/b"),
        ("https://api.example.com/a", "https://api.example.com:8443/b"),
        ("https://api.example.com/a", "https://example.com/b"),
        ("https://api.example.com/a", "https://evil.api.example.com/b"),
        ("http://api.example.com/a", "https://api.example.com/b"),
    ])
    func credentialsStayBehindForAnotherOrigin(current: String, next: String) {
        // Another host, port or scheme is another origin; other header fields still go along.
        #expect(headers(decide(from: current, to: next)) == ["-", "-", "t-1"])
    }

    @Test func credentialsAreComparedWithTheOriginalOriginNotThePreviousHop() {
        // api → cdn → api: the last hop returns to the original origin.
        #expect(headers(decide(from: "https://cdn.example.com/x", to: "https://api.example.com/b",
                               original: "https://api.example.com/a", followed: 1)) == ["Bearer secret", "session=1", "t-1"])
    }

    // MARK: Credentials

    @Test func theCredentialFieldsAreTheOnesTheDocumentationLists() {
        // TransferOptions, URLSessionTransport, the README and Docs/Reliability.md name these.
        #expect(URLSessionTransport.credentialHeaderFields == ["Authorization", "Proxy-Authorization", "Cookie"])
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func everyCredentialFieldStaysBehindOnEveryRedirectForm(status: Int) {
        // GIVEN a POST with a body and every credential field, redirected to another origin
        var first = URLRequest(url: URL(string: "https://api.example.com/a")!)
        first.httpMethod = "POST"
        first.httpBody = Data("x".utf8)
        for name in URLSessionTransport.credentialHeaderFields { first.setValue("secret", forHTTPHeaderField: name) }
        for (location, sameOrigin) in [("https://other.example.com/b", false), ("/b", true)] {
            // (The body may follow, so that the redirect is followed whatever its status.)
            let decision = TransferRules.redirect(
                statusCode: status, location: location, after: first, original: first,
                redirectsFollowed: 0, options: TransferOptions(sendsBodyToAnotherOrigin: true))
            guard case .follow(let next) = decision else {
                Issue.record("expected the redirect to be followed")
                return
            }
            // THEN none of them goes to the other origin, and all of them to the same one
            for name in URLSessionTransport.credentialHeaderFields {
                #expect(next.value(forHTTPHeaderField: name) == (sameOrigin ? "secret" : nil), "\(name) to \(location)")
            }
        }
    }

    // MARK: Schemes

    @Test(arguments: [
        "file:///etc/passwd", "FILE:///etc/passwd", "ftp://api.example.com/x", "javascript:alert(1)",
        "data:text/plain,hi", "mailto:a@example.com", "http:///no-host",
    ])
    func aLocationThatIsNotAnHTTPURLIsRefused(location: String) {
        #expect(decide(from: "http://api.example.com/a", to: location) == .refuse(.unsupportedScheme))
    }

    @Test func aLocationThatIsNotAURLIsRefused() {
        #expect(decide(from: "http://api.example.com/a", to: "http://[bad") == .refuse(.unsupportedScheme))
    }

    @Test(arguments: [
        ("http://api.example.com/a", "//cdn.example.com/x?y=1", "http://cdn.example.com/x?y=1"),
        ("https://api.example.com/a", "//cdn.example.com/x", "https://cdn.example.com/x"),
        ("https://api.example.com/a/b", "c", "https://api.example.com/a/c"),
        ("https://api.example.com/a/b", "/c?d=%20", "https://api.example.com/c?d=%20"),
    ])
    func aRelativeLocationIsResolvedAgainstTheURLThatAnswered(current: String, location: String, resolved: String) {
        guard case .follow(let request) = decide(from: current, to: location) else {
            Issue.record("expected the redirect to be followed")
            return
        }
        #expect(request.url?.absoluteString == resolved)
    }

    // MARK: Methods and bodies

    /// The request a `method` request with a body becomes after a `status` redirect: its
    /// method, body and content type.
    private func redirected(_ method: String, status: Int) -> [String]? {
        var request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        request.httpMethod = method
        request.httpBody = Data("envelope".utf8)
        request.setValue("text/xml", forHTTPHeaderField: "Content-Type")
        request.setValue("en", forHTTPHeaderField: "Content-Language")
        request.setValue("t-1", forHTTPHeaderField: "X-Trace")
        let decision = TransferRules.redirect(
            statusCode: status, location: "/b", after: request, original: request,
            redirectsFollowed: 0, options: TransferOptions())
        guard case .follow(let next) = decision else { return nil }
        return [
            next.httpMethod ?? "-", next.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? "-",
            next.value(forHTTPHeaderField: "Content-Type") ?? "-", next.value(forHTTPHeaderField: "Content-Language") ?? "-",
            next.value(forHTTPHeaderField: "X-Trace") ?? "-",
        ]
    }

    @Test(arguments: [
        // 307 and 308: the same method and body, always.
        ("POST", 307, ["POST", "envelope", "text/xml", "en", "t-1"]),
        ("POST", 308, ["POST", "envelope", "text/xml", "en", "t-1"]),
        ("PUT", 307, ["PUT", "envelope", "text/xml", "en", "t-1"]),
        ("DELETE", 308, ["DELETE", "envelope", "text/xml", "en", "t-1"]),
        // 301 and 302: POST becomes GET (as browsers do); other methods are kept.
        ("POST", 301, ["GET", "-", "-", "-", "t-1"]),
        ("POST", 302, ["GET", "-", "-", "-", "t-1"]),
        ("PUT", 301, ["PUT", "envelope", "text/xml", "en", "t-1"]),
        ("PATCH", 302, ["PATCH", "envelope", "text/xml", "en", "t-1"]),
        // 303: GET without the body or its header fields, except that HEAD stays HEAD.
        ("POST", 303, ["GET", "-", "-", "-", "t-1"]),
        ("PUT", 303, ["GET", "-", "-", "-", "t-1"]),
        ("HEAD", 303, ["HEAD", "-", "-", "-", "t-1"]),
    ])
    func methodsAndBodiesFollowRFC9110(method: String, status: Int, expected: [String]) {
        #expect(redirected(method, status: status) == expected)
    }

    @Test(arguments: [("POST", 307), ("POST", 308), ("PUT", 301), ("PATCH", 302)])
    func aBodySentAgainStaysWithItsOrigin(method: String, status: Int) throws {
        // GIVEN a request whose body holds a credential, redirected with a status that sends it again
        var request = URLRequest(url: URL(string: "http://api.example.com/token")!)
        request.httpMethod = method
        request.httpBody = Data("grant_type=password&password=secret".utf8)
        func decide(to location: String, after current: URLRequest? = nil, options: TransferOptions = TransferOptions()) -> TransferRules.RedirectDecision {
            TransferRules.redirect(
                statusCode: status, location: location, after: current ?? request, original: request,
                redirectsFollowed: current == nil ? 0 : 1, options: options)
        }
        // THEN to another host, port or scheme it is refused
        for location in ["http://other.example.com/token", "http://api.example.com:8080/token", "https://api.example.com/token"] {
            #expect(decide(to: location) == .refuse(.bodyToAnotherOrigin), "\(location)")
        }
        // AND to the same origin it is sent again
        guard case .follow(let sameOrigin) = decide(to: "/v2/token") else {
            Issue.record("a redirect within the origin was not followed")
            return
        }
        #expect(sameOrigin.httpBody == request.httpBody)
        // AND a hop back to the original origin from another one is followed too
        var elsewhere = request
        elsewhere.url = URL(string: "http://cdn.example.com/token")
        guard case .follow(let back) = decide(to: "http://api.example.com/v2/token", after: elsewhere) else {
            Issue.record("a redirect back to the original origin was not followed")
            return
        }
        #expect(back.httpBody == request.httpBody)
        // AND with sendsBodyToAnotherOrigin it goes to the other origin, without the credential fields
        guard case .follow(let other) = decide(to: "http://other.example.com/token", options: TransferOptions(sendsBodyToAnotherOrigin: true)) else {
            Issue.record("with sendsBodyToAnotherOrigin the redirect was not followed")
            return
        }
        #expect(other.httpBody == request.httpBody)
        #expect(other.httpMethod == method)
    }

    @Test func aRedirectToAnotherOriginThatSendsNoBodyIsFollowed() {
        // A 303, and a 301 or 302 answering a POST, drop the body; a request without one has none to send.
        var post = URLRequest(url: URL(string: "https://api.example.com/a")!)
        post.httpMethod = "POST"
        post.httpBody = Data("password=secret".utf8)
        var empty = URLRequest(url: URL(string: "https://api.example.com/a")!)
        empty.httpMethod = "POST"
        empty.httpBody = Data()
        for (request, status) in [(post, 303), (post, 301), (post, 302), (empty, 307), (URLRequest(url: URL(string: "https://api.example.com/a")!), 308)] {
            let decision = TransferRules.redirect(
                statusCode: status, location: "https://other.example.com/b", after: request, original: request,
                redirectsFollowed: 0, options: TransferOptions())
            guard case .follow(let next) = decision else {
                Issue.record("a \(status) without a body to send again was refused: \(decision)")
                continue
            }
            #expect(next.httpBody.map(\.isEmpty) ?? true)
        }
    }

    @Test func aBodyStreamThatMustBeSentAgainIsRefused() {
        var request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("envelope".utf8))
        for status in [307, 308] {
            #expect(TransferRules.redirect(
                statusCode: status, location: "/b", after: request, original: request,
                redirectsFollowed: 0, options: TransferOptions()) == .refuse(.unrepeatableBody))
        }
        // A 303 drops the body, so there is nothing to send again.
        guard case .follow(let next) = TransferRules.redirect(
            statusCode: 303, location: "/b", after: request, original: request,
            redirectsFollowed: 0, options: TransferOptions())
        else {
            Issue.record("expected the 303 to be followed")
            return
        }
        #expect(next.httpMethod == "GET")
        #expect(next.httpBodyStream == nil)
    }

    @Test func theNewRefusalsDescribeThemselvesWithoutTheLocation() {
        let unsupported = ResourceError.redirectRefused(.unsupportedScheme)
        let unrepeatable = ResourceError.redirectRefused(.unrepeatableBody)
        #expect("\(unsupported)" == "Redirect refused: it leads to a URL that is not http or https")
        #expect("\(unrepeatable)".hasPrefix("Redirect refused: it needs the request body again"))
        #expect("\(ResourceError.redirectRefused(.bodyToAnotherOrigin))" == "Redirect refused: it would send the request body to another origin")
    }

    // MARK: Framing

    @Test(arguments: [("5", true), ("5, 5", true), ("5,5", true), ("0", true), ("5, 7", false), ("5,", false),
                      ("", false), ("abc", false), ("-5", false), ("5 7", false)])
    func onlyOneContentLengthIsAccepted(value: String, accepted: Bool) {
        #expect(TransferRules.isSingleContentLength(value) == accepted)
    }

    // MARK: The shared transport

    @Test func theDefaultServiceUsesTheSharedTransport() {
        let service = ResourceService<CitiesResource>()
        #expect(service.session as? URLSessionTransport === URLSessionTransport.shared)
        #expect(service.options == TransferOptions(deadline: .seconds(60), maximumResponseBytes: 32 << 20, maximumRedirects: 10))
    }

    @Test func releasingATransportWithARequestInFlightStillAnswersOnce() async throws {
        let calls = Counter()
        let port = try LoopbackHTTPServer.RefusingPort()
        let answer: Result<(Data, URLResponse), any Error> = await withCheckedContinuation { continuation in
            var transport: URLSessionTransport? = URLSessionTransport()
            _ = transport?.data(for: URLRequest(url: port.baseURL), options: TransferOptions()) { result in
                calls.increment()
                continuation.resume(returning: result)
            }
            transport = nil
        }
        #expect((answer.failure as? URLError)?.code == .cannotConnectToHost)
        #expect(calls.value == 1)
    }

    @Test func releasingATransportWhileItSendsABodyAgainStillAnswersOnce() async throws {
        // GIVEN a POST answered with a 307, so that the body goes out again on a new task
        let received = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/final" else { return .status(307, headers: ["Location": "/final"]) }
            received.append(String(decoding: request.body, as: UTF8.self))
            return .status(200, body: Data("done".utf8))
        }
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("start"))
        request.httpMethod = "POST"
        request.httpBody = Data("envelope".utf8)
        let post = request
        let calls = Counter()
        // WHEN the transport is released as soon as the request is sent
        let answer: Result<(Data, URLResponse), any Error> = await withCheckedContinuation { continuation in
            var transport: URLSessionTransport? = URLSessionTransport()
            _ = transport?.data(for: post, options: TransferOptions()) { result in
                calls.increment()
                continuation.resume(returning: result)
            }
            transport = nil
        }
        // THEN the transfer still moves to its new task and answers, once
        #expect(try String(decoding: answer.get().0, as: UTF8.self) == "done")
        #expect(received.values == ["envelope"])
        #expect(calls.value == 1)
    }
}
