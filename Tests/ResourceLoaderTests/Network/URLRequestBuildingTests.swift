import Foundation
import Testing

@testable import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Building URL requests")
struct URLRequestBuildingTests {
    @Test func defaultsAreAPlainGet() throws {
        let request = try Endpoint("https://example.com/a").urlRequest()
        #expect(request.httpMethod == "GET")
        #expect(request.url?.absoluteString == "https://example.com/a")
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test(arguments: [
        ("a+b", "a%2Bb"),
        ("a&b=c", "a%26b%3Dc"),
        ("two words", "two%20words"),
        ("café", "caf%C3%A9"),
        ("日本", "%E6%97%A5%E6%9C%AC"),
        ("100%", "100%25"),
        ("a/b?c#d", "a%2Fb%3Fc%23d"),
        ("-._~", "-._~"),
    ])
    func queryValuesAreEncodedExactly(value: String, encoded: String) throws {
        var endpoint = Endpoint("https://example.com/search")
        endpoint.queryItems = [URLQueryItem(name: "q", value: value)]
        let url = try #require(try endpoint.urlRequest().url)
        #expect(url.absoluteString == "https://example.com/search?q=\(encoded)")
        // What the server sees after decoding is exactly the value.
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.queryItems?.first?.value == value)
    }

    @Test func queryNamesAreEncodedAndItemsKeepTheirOrder() throws {
        var endpoint = Endpoint("https://example.com/")
        endpoint.queryItems = [
            URLQueryItem(name: "b&c", value: "1"),
            URLQueryItem(name: "a", value: "2"),
            URLQueryItem(name: "flag", value: nil),
        ]
        #expect(try endpoint.urlRequest().url?.query == "b%26c=1&a=2&flag")
    }

    @Test func queryItemsAreMergedWithAQueryAlreadyInTheURL() throws {
        var endpoint = Endpoint("https://example.com/list?page=2&sort=name")
        endpoint.queryItems = [URLQueryItem(name: "q", value: "x y")]
        #expect(try endpoint.urlRequest().url?.absoluteString == "https://example.com/list?page=2&sort=name&q=x%20y")
    }

    @Test func methodHeadersAndTimeoutAreApplied() throws {
        var endpoint = Endpoint("https://example.com/")
        endpoint.httpMethod = .patch
        endpoint.headerFields = ["X-Trace": "abc", "Accept": "application/json"]
        endpoint.timeoutInterval = 7
        let request = try endpoint.urlRequest()
        #expect(request.httpMethod == "PATCH")
        #expect(request.value(forHTTPHeaderField: "x-trace") == "abc")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.timeoutInterval == 7)
    }

    @Test(arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b"])
    func headerValuesWithLineBreaksAreRejected(value: String) {
        var endpoint = Endpoint("https://example.com/")
        endpoint.headerFields = ["X-Value": value]
        #expect {
            try endpoint.urlRequest()
        } throws: { error in
            guard case .invalidRequest(let reason) = error as? ResourceError else { return false }
            return !reason.contains(value)
        }
    }

    @Test(arguments: ["X-Bad\r\nName", "X Bad", "", "X:Y"])
    func invalidHeaderNamesAreRejected(name: String) {
        var endpoint = Endpoint("https://example.com/")
        endpoint.headerFields = [name: "v"]
        #expect(throws: ResourceError.self) { try endpoint.urlRequest() }
    }

    @Test(arguments: ["ftp://example.com/a", "file:///etc/passwd", "mailto:a@example.com"])
    func nonHTTPURLsAreRejected(url: String) {
        #expect {
            try Endpoint(url).urlRequest()
        } throws: { error in
            (error as? ResourceError)?.caseName == "invalidRequest"
        }
    }

    @Test func rawBodyKeepsItsBytesAndContentType() throws {
        var endpoint = Endpoint("https://example.com/")
        endpoint.httpMethod = .put
        endpoint.requestBody = .data(Data([0, 1, 2]), contentType: "application/octet-stream")
        let request = try endpoint.urlRequest()
        #expect(request.httpBody == Data([0, 1, 2]))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test func aContentTypeHeaderFieldWinsOverTheBodys() throws {
        var endpoint = Endpoint("https://example.com/")
        endpoint.headerFields = ["Content-Type": "application/vnd.api+json"]
        endpoint.requestBody = try .jsonObject(["a": 1])
        #expect(try endpoint.urlRequest().value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test func jsonObjectBody() throws {
        var endpoint = Endpoint("https://example.com/")
        endpoint.requestBody = try .jsonObject(["name": "Oslo", "size": 3])
        let request = try endpoint.urlRequest()
        let body = try #require(request.httpBody)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["name"] as? String == "Oslo")
        #expect(object["size"] as? Int == 3)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func invalidJSONObjectBodyIsATypedError() {
        #expect(throws: ResourceError.self) { try RequestBody.jsonObject(["date": Date()]) }
    }

    @Test func encodableBodyUsesTheGivenEncoder() throws {
        struct Payload: Encodable { let cityName: String }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let body = try RequestBody.json(Payload(cityName: "Rome"), encoder: encoder)
        #expect(String(decoding: body.data, as: UTF8.self) == #"{"city_name":"Rome"}"#)
        #expect(body.contentType == "application/json")
    }

    @Test func encodingFailureIsAnInvalidRequest() {
        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        #expect {
            try RequestBody.json(Failing())
        } throws: { error in
            (error as? ResourceError)?.caseName == "invalidRequest"
        }
    }

    @Test func aThrowingBodyMakesUrlRequestThrowInvalidRequest() {
        struct Boom: Error {}
        var endpoint = Endpoint("https://example.com/")
        endpoint.bodyError = Boom()
        #expect {
            try endpoint.urlRequest()
        } throws: { error in
            (error as? ResourceError)?.caseName == "invalidRequest"
        }
    }

    @Test func aThrowingBodyIsDescribedWithoutWhatItsErrorHolds() {
        // GIVEN a body getter that throws an error holding a secret
        struct Leaky: Error, CustomStringConvertible {
            let token = "secret-token-4711"
            var description: String { "Leaky(\(token))" }
        }
        var endpoint = Endpoint("https://example.com/")
        endpoint.bodyError = Leaky()
        // WHEN the request is made THEN the error names the thrown error's type, not its text
        let error = #expect(throws: ResourceError.self) { try endpoint.urlRequest() }
        #expect(error?.caseName == "invalidRequest")
        #expect(error?.description.contains("secret") == false)
        #expect(error?.description.contains("Leaky") == true)
    }

    @Test func formBodyIsPercentEncoded() throws {
        let body = RequestBody.form([
            URLQueryItem(name: "user name", value: "a+b&c=d"),
            URLQueryItem(name: "city", value: "São Paulo"),
        ])
        #expect(String(decoding: body.data, as: UTF8.self) == "user%20name=a%2Bb%26c%3Dd&city=S%C3%A3o%20Paulo")
        #expect(body.contentType == "application/x-www-form-urlencoded")
    }
}

@Suite("HTTPMethod")
struct HTTPMethodTests {
    @Test func staticMembersUseTheStandardTokens() {
        let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options]
        #expect(methods.map(\.rawValue) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
    }

    @Test func customTokensAreAccepted() {
        #expect(HTTPMethod(rawValue: "PROPFIND")?.rawValue == "PROPFIND")
        #expect(HTTPMethod(rawValue: "GET") == .get)
    }

    @Test(arguments: ["", "GET POST", "GET\r\n", "GÉT", "A(B)"])
    func invalidTokensAreRefused(token: String) {
        #expect(HTTPMethod(rawValue: token) == nil)
    }
}
