import Foundation
@testable import ResourceLoader
import Testing

/// `LoggingFetchMonitor.redacted(_:)` reads plain http and https URLs byte by byte, and every other
/// URL through `URLComponents`: the two must agree wherever the first answers.
@Suite("URL redaction: the byte reader agrees with URLComponents")
struct URLRedactionTests {
    static let urls = [
        "http://127.0.0.1:8080/cities/europe.json",
        "https://api.example.com",
        "https://api.example.com/",
        "https://api.example.com:8443/v1/search?apikey=K3Y&q=a%20b&bare",
        "https://api.example.com/v1?",
        "https://api.example.com/v1?#top",
        "https://api.example.com/v1#frag?x=1",
        "https://api.example.com/v1?a=1&&b=&=c#frag",
        "https://api.example.com/v1?a=1=2;b",
        "http://example.com:80/",
        "http://example.com:0/",
        "http://example.com:65535/x",
        "http://example.com/a%2Fb/c;p=1/d.json?x=%41",
        "http://my_host.example-1.com/~user/",
        "http://EXAMPLE.com/Path",
        "http://a/b?c=d",
        "http://localhost:3/",
        "http://1.2.3.4/x?y",
        "https://api.example.com/path/with'quote(and)star*!$+,",
        "http://example.com/caf%C3%A9?q=%C3%A9",
    ]

    /// URLs the byte reader leaves to `URLComponents`.
    static let others = [
        "https://alice:pa55word@api.example.com:8443/v1/search?apikey=K3Y#frag",
        "https://alice@api.example.com/",
        "http://[::1]:8080/x?y=1",
        "http://example.com:080/",
        "http://example.com:/",
        "http://example.com:123456/",
        "HTTP://example.com/",
        "ftp://example.com/file?x=1",
        "http://ex%41mple.com/",
        "mailto:someone@example.com",
    ]

    @Test(arguments: urls)
    func theByteReaderAnswersAsURLComponentsDoes(_ string: String) throws {
        let url = try #require(URL(string: string))
        let read = try #require(LoggingFetchMonitor.redactedPlainHTTP(url.absoluteString), "the byte reader left \(string) alone")
        #expect(read == LoggingFetchMonitor.redactedByComponents(url))
        #expect(LoggingFetchMonitor.redacted(url) == read)
    }

    @Test(arguments: others)
    func otherURLsGoThroughURLComponents(_ string: String) throws {
        let url = try #require(URL(string: string))
        #expect(LoggingFetchMonitor.redactedPlainHTTP(url.absoluteString) == nil)
        #expect(LoggingFetchMonitor.redacted(url) == LoggingFetchMonitor.redactedByComponents(url))
    }

    @Test func aRelativeURLIsResolvedAgainstItsBase() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        let url = try #require(URL(string: "cities?q=Lisbon", relativeTo: base))
        #expect(LoggingFetchMonitor.redacted(url) == "https://api.example.com/v1/cities?q=REDACTED")
    }

    @Test func neitherReaderQuotesAQueryValue() throws {
        let url = try #require(URL(string: "https://api.example.com/v1?token=SECRET1&SECRET2&k=SECRET3"))
        #expect(LoggingFetchMonitor.redacted(url) == "https://api.example.com/v1?token=REDACTED&REDACTED&k=REDACTED")
    }

    @Test func aTypeIsNamedTheSameEveryTime() {
        let context = FetchEvent.Context(fetchID: 1, resourceType: Probe.self)
        #expect(context.resourceTypeName == "Probe")
        #expect(context.resourceTypeName == "Probe")
        #expect(FetchEvent.Context(fetchID: 2, resourceType: Generic<Int>.self).resourceTypeName == "Generic<Int>")
        #expect(FetchEvent.Context(fetchID: 3, resourceType: Generic<String>.self).resourceTypeName == "Generic<String>")
    }

    struct Probe: ResourceType {
        typealias Model = Int
    }

    struct Generic<T: Sendable>: ResourceType {
        typealias Model = Int
    }
}
