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
    private func decide(
        from current: String, to next: String, original: String? = nil,
        followed: Int = 0, options: TransferOptions = TransferOptions()
    ) -> URLSessionTransport.RedirectDecision {
        var request = URLRequest(url: URL(string: next)!)
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("session=1", forHTTPHeaderField: "Cookie")
        request.setValue("t-1", forHTTPHeaderField: "X-Trace")
        return URLSessionTransport.redirect(
            request, from: URL(string: current), originalURL: URL(string: original ?? current),
            redirectsFollowed: followed, options: options)
    }

    private func headers(_ decision: URLSessionTransport.RedirectDecision) -> [String]? {
        guard case .follow(let request) = decision else { return nil }
        return ["Authorization", "Cookie", "X-Trace"].map { request.value(forHTTPHeaderField: $0) ?? "-" }
    }

    @Test(arguments: ["http://api.example.com/b", "HTTP://api.example.com/b", "ftp://api.example.com/b"])
    func httpsToAnythingElseIsADowngrade(next: String) {
        #expect(decide(from: "https://api.example.com/a", to: next) == .refuse(.insecureDowngrade))
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
}
