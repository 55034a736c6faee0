import Foundation
@testable import ResourceLoaderWSDL
import Testing

@Suite("Generator: service addresses")
struct GeneratorAddressTests {
    /// A wrapped operation served at `location`.
    static func service(at location: String) -> String {
        GeneratorSnippets.wrapped.replacingOccurrences(of: "https://example.com/orders", with: location)
    }

    @Test func anAddressIsWrittenWithWhatRFC3986DoesNotAllowPercentEncoded() throws {
        // GIVEN a port whose location holds a space, a quote, a non-ASCII letter and a lone %
        let output = try GeneratorSnippets.generate(Self.service(at: "http://h/my service/&quot;zü%zz?q=%41"))
        let operations = try #require(output.files.last?.contents)
        // THEN the default URL is written percent-encoded, a string every Foundation parses
        #expect(operations.contains(#"static let defaultURL = URL(string: "http://h/my%20service/%22z%C3%BC%25zz?q=%41")!"#))
        #expect(GenerationSession.uriString("http://h/my service") == "http://h/my%20service")
        #expect(GenerationSession.uriString("https://example.com/a?b=c#d") == "https://example.com/a?b=c#d")
        #expect(output.diagnostics.isEmpty)
    }

    @Test func anAddressThatIsNoURIIsRefusedWithADiagnostic() throws {
        // GIVEN a port whose location cannot be made a URI
        let output = try GeneratorSnippets.generate(Self.service(at: "http://[bad/orders"))
        let operations = try #require(output.files.last?.contents)
        // THEN the resource has no default URL, and a diagnostic says why
        #expect(!operations.contains("defaultURL"))
        #expect(operations.contains("struct GetOrder: SOAPResourceType"))
        #expect(output.diagnostics.contains { $0.construct == .invalidAttribute && $0.message.contains("http://[bad/orders") })
    }
}
