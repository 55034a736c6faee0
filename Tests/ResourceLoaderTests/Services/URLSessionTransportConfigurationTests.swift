import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``URLSessionTransport`` does with its session configuration, and with redirect
/// responses, over loopback.
@Suite("URLSessionTransport: the configuration and redirect responses")
struct URLSessionTransportConfigurationTests {
    /// `request` sent through `transport`, with the answer its completion handler gets.
    private func fetch(
        _ request: URLRequest, with transport: URLSessionTransport, options: TransferOptions = TransferOptions()
    ) async -> Result<(Data, URLResponse), any Error>? {
        await withTimeLimit(.seconds(30)) {
            await withCheckedContinuation { continuation in
                _ = transport.data(for: request, options: options) { continuation.resume(returning: $0) }
            }
        }
    }

    /// A transport whose configuration sends every credential header field.
    private func transportWithConfiguredCredentials() -> URLSessionTransport {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = [
            "Authorization": "Bearer s", "Proxy-Authorization": "Basic p", "Cookie": "c=1", "X-Trace": "t-1",
        ]
        return URLSessionTransport(configuration: configuration)
    }

    // MARK: Credentials in httpAdditionalHeaders

    @Test(arguments: [("GET", 302), ("POST", 307)])
    func credentialsOfTheConfigurationStayWithTheirOrigin(method: String, status: Int) async throws {
        // GIVEN a transport whose configuration names the credential fields, and A redirecting to B
        let seenByA = OrderRecorder()
        let seenByB = OrderRecorder()
        let serverB = try LoopbackHTTPServer { request in
            for name in URLSessionTransport.credentialHeaderFields + ["X-Trace"] {
                seenByB.append(request.value(forHeaderField: name) ?? "-")
            }
            return .status(200, body: Data("landed".utf8))
        }
        defer { serverB.stop() }
        let serverA = try LoopbackHTTPServer { request in
            for name in URLSessionTransport.credentialHeaderFields {
                seenByA.append(request.value(forHeaderField: name) ?? "-")
            }
            return .status(status, headers: ["Location": serverB.baseURL.appendingPathComponent("landed").absoluteString])
        }
        defer { serverA.stop() }
        var request = URLRequest(url: serverA.baseURL)
        request.httpMethod = method
        if method == "POST" { request.httpBody = Data("x=1".utf8) }

        // WHEN the request is sent (its body may follow the 307 to B)
        let answer = await fetch(request, with: transportWithConfiguredCredentials(), options: TransferOptions(sendsBodyToAnotherOrigin: true))

        // THEN A sees the credentials, B only the other fields
        #expect(try answer.map { try String(decoding: $0.get().0, as: UTF8.self) } == "landed")
        #expect(seenByA.values == ["Bearer s", "Basic p", "c=1"])
        #expect(seenByB.values == ["-", "-", "-", "t-1"])
    }

    @Test func credentialsOfTheConfigurationFollowARedirectToTheSameOrigin() async throws {
        // GIVEN a transport whose configuration names the credential fields, and a redirect on
        // the same origin
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/final" else { return .status(302, headers: ["Location": "/final"]) }
            for name in URLSessionTransport.credentialHeaderFields {
                seen.append(request.value(forHeaderField: name) ?? "-")
            }
            return .status(200, body: Data("landed".utf8))
        }
        defer { server.stop() }

        // WHEN the request is sent
        let answer = await fetch(URLRequest(url: server.baseURL.appendingPathComponent("start")), with: transportWithConfiguredCredentials())

        // THEN the redirected request carries them
        #expect(try answer.map { try String(decoding: $0.get().0, as: UTF8.self) } == "landed")
        #expect(seen.values == ["Bearer s", "Basic p", "c=1"])
    }

    @Test func aRequestsOwnCredentialFieldWinsOverTheConfigurations() async throws {
        // GIVEN a transport whose configuration names Authorization, and a request naming its own
        let seen = OrderRecorder()
        let server = try LoopbackHTTPServer { request in
            seen.append(request.value(forHeaderField: "Authorization") ?? "-")
            return .status(200, body: Data("ok".utf8))
        }
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL)
        request.setValue("Bearer own", forHTTPHeaderField: "authorization")

        // WHEN it is sent
        _ = await fetch(request, with: transportWithConfiguredCredentials())

        // THEN the server sees the request's own
        #expect(seen.values == ["Bearer own"])
    }

    // MARK: The configuration's idle timeout

    @Test func aRequestWithoutATimeoutOfItsOwnUsesTheConfigurations() async throws {
        // GIVEN a configuration with a 1-second idle timeout, and a server silent for 40 seconds
        let server = try LoopbackHTTPServer { _ in .status(200, body: Data("late".utf8)).delayed(by: .seconds(40)) }
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1

        // WHEN a request that sets no timeout of its own is sent
        let answer = await fetch(URLRequest(url: server.baseURL), with: URLSessionTransport(configuration: configuration))

        // THEN it times out by the configuration's timeout, not the request's default 60 seconds
        #expect((answer?.failure as? URLError)?.code == .timedOut)
    }

    // MARK: The body of a redirect response

    @Test func aRedirectWithoutALocationIsTheAnswer() async throws {
        // GIVEN a 302 with a body and no Location
        let server = try LoopbackHTTPServer { _ in .status(302, body: Data("moved".utf8)) }
        defer { server.stop() }

        // WHEN it is fetched
        let answer = await fetch(URLRequest(url: server.baseURL), with: URLSessionTransport())

        // THEN the 302 is the answer
        let (body, response) = try #require(try answer?.get())
        #expect((response as? HTTPURLResponse)?.statusCode == 302)
        #if canImport(FoundationNetworking)
        // FoundationNetworking keeps the body of a 301, 302, 303 or 305 to 308 to itself: the
        // answer arrives without it (the limit Docs/Reliability.md describes)
        #expect(body.isEmpty)
        #else
        #expect(String(decoding: body, as: UTF8.self) == "moved")
        #endif
    }

    #if canImport(FoundationNetworking)
    @Test func onLinuxTheBodyOfARedirectIsNotCountedAgainstTheSizeLimit() async throws {
        // GIVEN a 302 with a Location and a 4 MiB body, and a 1 MiB size limit
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/start" else { return .status(200, body: Data("landed".utf8)) }
            return .status(302, headers: ["Location": "/final"], body: Data(count: 4 << 20))
        }
        defer { server.stop() }

        // WHEN it is fetched
        let answer = await fetch(URLRequest(url: server.baseURL.appendingPathComponent("start")), with: URLSessionTransport(),
                                 options: TransferOptions(maximumResponseBytes: 1 << 20))

        // THEN FoundationNetworking holds the redirect's body until it ends without handing any of
        // it to the transport, so the limit cannot stop it: the redirect is followed (the limit
        // Docs/Reliability.md describes)
        #expect(try answer.map { try String(decoding: $0.get().0, as: UTF8.self) } == "landed")
    }
    #endif
}
