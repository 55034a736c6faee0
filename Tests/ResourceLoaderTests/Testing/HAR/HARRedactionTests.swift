import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tries to leak a credential through every field a HAR holds and every message the recorder and
/// replayer write.
@Suite("HAR redaction")
struct HARRedactionTests {
    static let secret = "tok3nZ9qLeakCheck"

    /// A server that answers with the secret in a cookie, a JSON body and a caller-named header.
    static func makeServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { _ in
            .status(200, headers: [
                "Content-Type": "application/json",
                "Set-Cookie": "sid=\(secret); Path=/; HttpOnly",
                "X-Api-Key": secret,
            ], body: Data(#"{"access_token": "\#(secret)", "nested": [{"refresh_token": "\#(secret)"}], "name": "Ada"}"#.utf8))
        }
    }

    /// A request carrying the secret in every header, the query and a form body.
    static func leakyRequest(to base: URL, path: String = "login") -> URLRequest {
        var components = URLComponents(url: base.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "access_token", value: secret), URLQueryItem(name: "api_key", value: secret),
            URLQueryItem(name: "sig", value: secret), URLQueryItem(name: "page", value: "1"),
        ]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization")
        request.setValue("Basic \(secret)", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("sid=\(secret); theme=dark", forHTTPHeaderField: "Cookie")
        request.setValue(secret, forHTTPHeaderField: "X-Api-Key")
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("username=ada&password=\(secret)&client_secret=\(secret)".utf8)
        return request
    }

    /// The standard redaction plus the caller's own header and query parameter.
    static let redaction = HARRedaction.standard.redacting(headerFields: ["X-Api-Key"]).redacting(parameters: ["sig"])

    @Test func noFieldOfTheArchiveHoldsTheSecret() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let recording = RecordingTransport(wrapping: URLSessionTransport(), redaction: Self.redaction)
        _ = try await exchange(Self.leakyRequest(to: server.baseURL), through: recording).get()

        let json = String(decoding: try recording.har.jsonData(), as: UTF8.self)
        #expect(!json.contains(Self.secret))
        let entry = try #require(recording.har.log.entries.first)
        // Every decoded body is free of it too.
        let sent = String(decoding: try #require(entry.request.postData?.data), as: UTF8.self)
        let received = String(decoding: try #require(entry.response.content.data), as: UTF8.self)
        #expect(!sent.contains(Self.secret))
        #expect(!received.contains(Self.secret))

        // The names stay, so the archive shows what was sent.
        for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"] {
            #expect(entry.request.values(ofHeaderField: name) == [HAR.redactedValue], "\(name)")
        }
        #expect(entry.response.headers.first { $0.name.lowercased() == "set-cookie" }?.value == HAR.redactedValue)
        #expect(entry.response.headers.first { $0.name.lowercased() == "x-api-key" }?.value == HAR.redactedValue)
        #expect(entry.request.cookies.map(\.name) == ["sid", "theme"])
        #expect(entry.request.cookies.allSatisfy { $0.value == HAR.redactedValue })
        #expect(entry.response.cookies.map(\.name) == ["sid"])
        #expect(entry.response.cookies.first?.value == HAR.redactedValue)
        #expect(entry.response.cookies.first?.path == "/")
        #expect(entry.request.queryString.map(\.name) == ["access_token", "api_key", "sig", "page"])
        #expect(entry.request.queryString.map(\.value) == [HAR.redactedValue, HAR.redactedValue, HAR.redactedValue, "1"])
        #expect(entry.request.url.hasSuffix("/login?access_token=%5Bredacted%5D&api_key=%5Bredacted%5D&sig=%5Bredacted%5D&page=1"))
        #expect(entry.request.postData?.text == "username=ada&password=%5Bredacted%5D&client_secret=%5Bredacted%5D")
        let body = try JSONSerialization.jsonObject(with: try #require(entry.response.content.data)) as? [String: Any]
        #expect(body?["access_token"] as? String == HAR.redactedValue)
        #expect((body?["nested"] as? [[String: Any]])?.first?["refresh_token"] as? String == HAR.redactedValue)
        #expect(body?["name"] as? String == "Ada")
    }

    @Test("A Set-Cookie with empty or nameless attributes is recorded, its cookie parsed, the process alive")
    func aSetCookieWithEmptyAttributesIsRecorded() async throws {
        for value in ["a=1; =", "sid=abc; Path=/; ", "sid=1; ; HttpOnly", "sid=1; =x; Path=/p", "sid=1;  ;Secure"] {
            for redaction in [HARRedaction.standard, .none] {
                let response = HAR.Response(
                    ResponseHead(statusCode: 200, url: nil, headerFields: [("Set-Cookie", value)]), body: Data(), redaction: redaction)
                #expect(response.cookies.map(\.name) == [value.hasPrefix("a") ? "a" : "sid"], "\(value)")
            }
        }
        let attributes = HAR.Response(
            ResponseHead(statusCode: 200, url: nil, headerFields: [("Set-Cookie", "sid=1; =x; Path=/p; ; HttpOnly")]), body: Data(),
            redaction: .none
        ).cookies.first
        #expect(attributes?.value == "1")
        #expect(attributes?.path == "/p")
        #expect(attributes?.httpOnly == true)

        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Set-Cookie": "sid=1; ; HttpOnly"], body: Data("{}".utf8)))
        let recording = RecordingTransport(wrapping: session)
        _ = try await exchange(URLRequest(url: URL(string: "http://127.0.0.1/cookie")!), through: recording).get()
        #expect(recording.har.log.entries.first?.response.cookies.map(\.name) == ["sid"])
    }

    @Test func optingOutKeepsEveryValue() async throws {
        // The check above can fail: without redaction the secret is everywhere.
        let server = try Self.makeServer()
        defer { server.stop() }
        let recording = RecordingTransport(wrapping: URLSessionTransport(), redaction: .none)
        _ = try await exchange(Self.leakyRequest(to: server.baseURL), through: recording).get()
        let entry = try #require(recording.har.log.entries.first)
        #expect(entry.request.values(ofHeaderField: "Authorization") == ["Bearer \(Self.secret)"])
        #expect(entry.request.url.contains("access_token=\(Self.secret)"))
        #expect(entry.response.content.text?.contains(Self.secret) == true)
        #expect(entry.response.cookies.first?.value == Self.secret)
    }

    @Test func aURLPasswordAndWhatTheEntryClosureNamesAreRedacted() throws {
        var request = URLRequest(url: URL(string: "https://ada:\(Self.secret)@api.example.com/soap")!)
        request.httpMethod = "POST"
        request.httpBody = Data("<Token>\(Self.secret)</Token>".utf8)
        request.setValue("text/xml", forHTTPHeaderField: "Content-Type")
        let redaction = HARRedaction { entry in
            if let text = entry.request.postData?.text {
                entry.request.postData?.text = text.replacingOccurrences(
                    of: #"<Token>[^<]*</Token>"#, with: "<Token>\(HAR.redactedValue)</Token>", options: .regularExpression)
            }
        }
        let head = ResponseHead(statusCode: 200, url: request.url, headerFields: [("Content-Type", "text/xml")])
        let entry = HAR.Entry(request: request, head: head, body: Data("<ok/>".utf8), startedAt: Date(), duration: .milliseconds(3), redaction: redaction)
        let json = String(decoding: try HAR(log: HAR.Log(creator: HAR.Creator(name: "t", version: "1"), entries: [entry])).jsonData(), as: UTF8.self)
        #expect(!json.contains(Self.secret))
        #expect(entry.request.url == "https://ada:%5Bredacted%5D@api.example.com/soap")
        #expect(entry.request.postData?.text == "<Token>[redacted]</Token>")
    }

    @Test func theReplayerRedactsALiveRequestWithTheEntryClosureToo() async throws {
        // GIVEN a redaction whose entry closure hides the key in the path, and a recording made
        // with it of a request carrying one key
        let redaction = HARRedaction { entry in
            entry.request.url = entry.request.url.replacingOccurrences(
                of: "/keys/[^/]+/", with: "/keys/\(HAR.redactedValue)/", options: .regularExpression)
        }
        let session = FakeURLSession()
        session.stub(.path("/keys/old-key/items"), with: .json(#"{"items": []}"#))
        let recording = RecordingTransport(wrapping: session, redaction: redaction)
        _ = try await exchange(URLRequest(url: URL(string: "https://api.example.com/keys/old-key/items")!), through: recording).get()
        #expect(recording.har.log.entries.map(\.request.url) == ["https://api.example.com/keys/[redacted]/items"])

        // WHEN a request carrying another key is replayed with the same redaction
        let replay = ReplayTransport(har: recording.har, redaction: redaction)
        let live = URLRequest(url: URL(string: "https://api.example.com/keys/\(Self.secret)/items")!)
        let answer = try await exchange(live, through: replay).get()

        // THEN it matches the recording
        #expect(answer.0 == Data(#"{"items": []}"#.utf8))
        #expect(try replay.replayer.entry(for: live).get().request.url == "https://api.example.com/keys/[redacted]/items")

        // AND a request that matches nothing is named without its key
        let other = URLRequest(url: URL(string: "https://api.example.com/keys/\(Self.secret)/orders")!)
        let error = try #require(await exchange(other, through: replay).failure as? HARReplayError)
        #expect(!error.description.contains(Self.secret))
        #expect(error.description.contains("GET https://api.example.com/keys/[redacted]/orders"))
    }

    /// The entry of `request` answered with `head` and `body`, and the archive's JSON holding it.
    static func recorded(_ request: URLRequest, head: ResponseHead, body: Data = Data()) throws -> (HAR.Entry, String) {
        let entry = HAR.Entry(request: request, head: head, body: body, startedAt: Date(), duration: .milliseconds(1))
        let har = HAR(log: HAR.Log(creator: HAR.Creator(name: "t", version: "1"), entries: [entry]))
        return (entry, String(decoding: try har.jsonData(), as: UTF8.self))
    }

    @Test func aJSONBodyThatDoesNotParseKeepsNoListedSecret() throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/batch")!)
        request.httpMethod = "POST"
        request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{\"a\":1}\n{\"access_token\":\"\(Self.secret)\"}".utf8)
        let head = ResponseHead(statusCode: 200, url: request.url, headerFields: [("Content-Type", "application/json")])
        // Cut short, and with the name written as a JSON escape that no text search finds.
        let answer = Data("{\"refresh\\u005ftoken\": \"\(Self.secret)\", \"more\": ".utf8)

        let (entry, json) = try Self.recorded(request, head: head, body: answer)

        #expect(!json.contains(Self.secret))
        #expect(entry.request.postData?.text == HAR.redactedValue)
        #expect(entry.request.postData?.comment?.contains("could not be parsed") == true)
        #expect(entry.response.content.text == HAR.redactedValue)
        #expect(entry.response.content.comment?.contains("could not be parsed") == true)

        // One that names no listed parameter, and has no escape that could hide one, is kept.
        request.httpBody = Data("{\"a\":1}\n{\"b\":2}".utf8)
        let (kept, _) = try Self.recorded(request, head: head)
        #expect(kept.request.postData?.text == "{\"a\":1}\n{\"b\":2}")
        #expect(kept.request.postData?.comment == nil)
    }

    @Test func aWSSecurityPasswordInAnXMLBodyIsRedacted() throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/soap")!)
        request.httpMethod = "POST"
        request.setValue("text/xml; charset=utf-8", forHTTPHeaderField: "Content-Type")
        let envelope = """
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><wsse:Security xmlns:wsse="urn:wsse">\
            <wsse:UsernameToken><wsse:Username>ada</wsse:Username>\
            <wsse:Password Type="urn:wsse#PasswordText">\(Self.secret)</wsse:Password>\
            </wsse:UsernameToken></wsse:Security></s:Header><s:Body><get/></s:Body></s:Envelope>
            """
        request.httpBody = Data(envelope.utf8)
        let (entry, json) = try Self.recorded(request, head: ResponseHead(statusCode: 200, url: request.url, headerFields: []))
        #expect(!json.contains(Self.secret))
        let text = try #require(entry.request.postData?.text)
        #expect(text.contains(#"<wsse:Password Type="urn:wsse#PasswordText">[redacted]</wsse:Password>"#))
        #expect(text.contains("<wsse:Username>ada</wsse:Username>"))
        #expect(entry.request.postData?.comment == nil)

        // Text the pattern cannot replace (a CDATA section) fails closed: the body goes whole.
        request.httpBody = Data("<login><password><![CDATA[\(Self.secret)]]></password></login>".utf8)
        let (closed, closedJSON) = try Self.recorded(request, head: ResponseHead(statusCode: 200, url: request.url, headerFields: []))
        #expect(!closedJSON.contains(Self.secret))
        #expect(closed.request.postData?.text == HAR.redactedValue)
        #expect(closed.request.postData?.comment?.contains("XML") == true)
    }

    @Test func aMultipartPartNamedLikeASecretIsRedactedAndTheOtherPartsKept() throws {
        var bytes = Data("--XyZ-boundary-123\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n".utf8)
        bytes += Data("--XyZ-boundary-123\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n\(Self.secret)\r\n".utf8)
        bytes += Data("--XyZ-boundary-123\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"a.bin\"\r\n".utf8)
        bytes += Data("Content-Type: application/octet-stream\r\n\r\n".utf8) + Data([0x00, 0xFF, 0x10, 0x80])
        bytes += Data("\r\n--XyZ-boundary-123--\r\n".utf8)
        var request = URLRequest(url: URL(string: "https://api.example.com/signup")!)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=XyZ-boundary-123", forHTTPHeaderField: "Content-Type")
        request.httpBody = bytes

        let (entry, json) = try Self.recorded(request, head: ResponseHead(statusCode: 201, url: request.url, headerFields: []))

        #expect(!json.contains(Self.secret))
        let recorded = try #require(entry.request.postData)
        var expected = bytes
        let secret = try #require(expected.range(of: Data(Self.secret.utf8)))
        expected.replaceSubrange(secret, with: Data(HAR.redactedValue.utf8))
        // The binary part makes the body base64 in the archive: its bytes are what to check.
        #expect(recorded.encoding == "base64")
        #expect(recorded.data == expected)
    }

    /// `Content-Disposition` lines naming a part `password` however a sender writes it: the
    /// parameters in either order, a file name holding `name="`, a token, another case, RFC 8187,
    /// and lines that cannot be read, which fail closed.
    @Test(arguments: [
        #"Content-Disposition: form-data; filename="a"; name="password""#,
        #"Content-Disposition: form-data; filename="name=%22x%22"; name="password""#,
        #"Content-Disposition: form-data; name=password"#,
        #"content-disposition:form-data;NAME="password";filename="a""#,
        #"Content-Disposition: form-data; name="pass\word""#,
        #"Content-Disposition: form-data; name*=utf-8''pass%77ord"#,
        #"Content-Disposition: form-data; name="password"#,
        #"Content-Disposition: form-data; name"#,
    ])
    func aMultipartPartIsRedactedWhereverItsNameParameterIs(disposition: String) throws {
        let part = "--b0undary\r\n\(disposition)\r\nContent-Type: text/plain\r\n\r\n\(Self.secret)\r\n"
        let kept = "--b0undary\r\nContent-Disposition: form-data; name=\"user\"; filename=\"password\"\r\n\r\nada\r\n"
        var request = URLRequest(url: URL(string: "https://api.example.com/signup")!)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=b0undary", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data((part + kept + "--b0undary--\r\n").utf8)

        let (entry, json) = try Self.recorded(request, head: ResponseHead(statusCode: 201, url: request.url, headerFields: []))

        #expect(!json.contains(Self.secret))
        let text = try #require(entry.request.postData?.text)
        #expect(text.contains(disposition + "\r\nContent-Type: text/plain\r\n\r\n" + HAR.redactedValue + "\r\n"))
        // A part whose file name, not its name, is listed keeps its content.
        #expect(text.contains(kept))
    }

    @Test("A multipart body whose parts cannot be found by CR LF delimiters is replaced whole", arguments: [
        // Line feeds alone, which some servers accept.
        "--b0undary\nContent-Disposition: form-data; name=\"password\"\n\nSECRET\n--b0undary--\n",
        // A part whose header section does not end in an empty CR LF line.
        "--b0undary\r\nContent-Disposition: form-data; name=\"password\"\n\nSECRET\r\n--b0undary--\r\n",
        // No close delimiter: the last part runs to the end of the body.
        "--b0undary\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n--b0undary\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nSECRET",
    ])
    func aMultipartBodyThatCannotBeSplitIsReplaced(body: String) throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/signup")!)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=b0undary", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.replacingOccurrences(of: "SECRET", with: Self.secret).utf8)

        let (entry, json) = try Self.recorded(request, head: ResponseHead(statusCode: 201, url: request.url, headerFields: []))

        #expect(!json.contains(Self.secret))
        #expect(entry.request.postData?.text == HAR.redactedValue)
    }

    @Test func aFormBodyWithoutAContentTypeIsRedacted() throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/login")!)
        request.httpMethod = "POST"
        request.setBody(.data(Data("user=ada&password=\(Self.secret)".utf8), contentType: nil))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)

        let (entry, json) = try Self.recorded(request, head: ResponseHead(statusCode: 204, url: request.url, headerFields: []))

        #expect(!json.contains(Self.secret))
        #expect(entry.request.postData?.text == "user=ada&password=%5Bredacted%5D")
    }

    @Test func aRedirectsLocationKeepsNoListedQueryOrFragmentSecret() throws {
        let request = URLRequest(url: URL(string: "https://api.example.com/authorize")!)
        let head = ResponseHead(statusCode: 302, url: request.url, headerFields: [
            ("Location", "/next?access_token=\(Self.secret)&page=2"),
            ("Content-Location", "https://api.example.com/doc?api_key=\(Self.secret)"),
        ])
        let (entry, json) = try Self.recorded(request, head: head)
        #expect(!json.contains(Self.secret))
        #expect(entry.response.redirectURL == "/next?access_token=%5Bredacted%5D&page=2")
        #expect(entry.response.headers.first { $0.name == "Location" }?.value == "/next?access_token=%5Bredacted%5D&page=2")
        #expect(entry.response.headers.first { $0.name == "Content-Location" }?.value == "https://api.example.com/doc?api_key=%5Bredacted%5D")

        // An implicit grant answers with the token in the fragment.
        let implicit = ResponseHead(statusCode: 302, url: request.url, headerFields: [
            ("Location", "https://app.example.com/callback#access_token=\(Self.secret)&state=xyz"),
        ])
        let (grant, grantJSON) = try Self.recorded(request, head: implicit)
        #expect(!grantJSON.contains(Self.secret))
        #expect(grant.response.redirectURL == "https://app.example.com/callback#access_token=%5Bredacted%5D&state=xyz")
    }

    @Test func linkAndRefreshFieldsKeepNoListedQuerySecret() throws {
        let request = URLRequest(url: URL(string: "https://api.example.com/items")!)
        let head = ResponseHead(statusCode: 200, url: request.url, headerFields: [
            ("Link", #"<https://api.example.com/items?page=2&access_token=\#(Self.secret)>; rel="next", </help>; rel="help""#),
            ("Refresh", "5; URL=https://api.example.com/next?api_key=\(Self.secret)"),
        ])
        let (entry, json) = try Self.recorded(request, head: head)
        #expect(!json.contains(Self.secret))
        #expect(entry.response.headers.first { $0.name == "Link" }?.value
            == #"<https://api.example.com/items?page=2&access_token=%5Bredacted%5D>; rel="next", </help>; rel="help""#)
        #expect(entry.response.headers.first { $0.name == "Refresh" }?.value == "5; URL=https://api.example.com/next?api_key=%5Bredacted%5D")

        // What cannot be read is replaced whole when it may hold a listed name.
        let broken = ResponseHead(statusCode: 200, url: request.url, headerFields: [
            ("Link", "<https://api.example.com/items?access_token=\(Self.secret); rel=next"),
            ("Refresh", "0; next=/x?password=\(Self.secret)"),
        ])
        let (closed, closedJSON) = try Self.recorded(request, head: broken)
        #expect(!closedJSON.contains(Self.secret))
        #expect(closed.response.headers.first { $0.name == "Link" }?.value == HAR.redactedValue)
        #expect(closed.response.headers.first { $0.name == "Refresh" }?.value == HAR.redactedValue)
    }

    @Test func noErrorDescriptionOrLogLineHoldsTheSecret() async throws {
        let server = try Self.makeServer()
        let lines = Lines()
        let recording = RecordingTransport(wrapping: URLSessionTransport(), redaction: Self.redaction)
        let recordingPipeline = ResourcePipeline(session: recording, monitors: [LoggingFetchMonitor { lines.append($0) }])
        let login = LeakyResource(request: Self.leakyRequest(to: server.baseURL))
        _ = await withTimeLimit { try? await ResourceService<LeakyResource>(pipeline: recordingPipeline).fetch(login) }
        server.stop()

        // A request with the secret that matches nothing, under every rule that could quote it.
        let replay = ReplayTransport(
            har: recording.har, rules: [.method, .url, .headers(["Authorization", "Cookie", "X-Api-Key"]), .body],
            redaction: Self.redaction)
        let replayPipeline = ResourcePipeline(session: replay, monitors: [LoggingFetchMonitor { lines.append($0) }])
        let other = LeakyResource(request: Self.leakyRequest(to: server.baseURL, path: "elsewhere"))
        let failure = await withTimeLimit { () -> ResourceError? in
            do throws(ResourceError) {
                _ = try await ResourceService<LeakyResource>(pipeline: replayPipeline).fetch(other)
                return nil
            } catch {
                return error
            }
        }
        let error = try #require(failure ?? nil)
        let texts = [error.description, String(describing: error), String(reflecting: error), error.localizedDescription]
            + lines.all
        #expect(texts.count > 4)
        for text in texts {
            #expect(!text.contains(Self.secret), "leaked: \(text)")
        }
        // The message still says what differed: the URL, quoted redacted.
        #expect(error.description.contains("differs in URL: recorded http://127.0.0.1:\(server.port)/login?access_token=%5Bredacted%5D"))

        // A fresh secret matches a recording made with another: both compare redacted.
        var fresh = Self.leakyRequest(to: server.baseURL)
        fresh.setValue("Bearer another-token", forHTTPHeaderField: "Authorization")
        #expect(try await exchange(fresh, through: replay).get().1.statusCode == 200)
    }
}

/// A resource that sends a ready-made request.
struct LeakyResource: NetworkResourceType, DataResourceType {
    let request: URLRequest
    var url: URL { request.url! }
    var httpMethod: HTTPMethod { HTTPMethod(rawValue: request.httpMethod ?? "GET") ?? .get }
    var headerFields: [String: String] { request.allHTTPHeaderFields ?? [:] }
    var body: RequestBody? { request.httpBody.map { .data($0, contentType: request.value(forHTTPHeaderField: "Content-Type")) } }
    func model(from data: Data) throws -> Data { data }
}

/// Log lines, collected from any thread.
final class Lines: @unchecked Sendable {
    // `lock` guards `lines`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var all: [String] { lock.withLock { lines } }
}
