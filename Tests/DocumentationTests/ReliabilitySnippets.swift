// The code blocks of Docs/Reliability.md, verbatim, so that they are compiled and their limits
// checked. `DocumentationSnippetTests` checks that each block stands here unchanged.
import Foundation
import ResourceLoader
import Testing

enum ReliabilitySnippets {
    /// A row of the export in the per-resource example.
    struct Row: Decodable, Sendable {
        let id: Int
    }

    struct Export: NetworkResourceType, JSONDecodableResourceType {
        typealias Model = [Row]
        var url: URL { URL(string: "https://api.example.com/export")! }

        func transferOptions(_ serviceDefaults: TransferOptions) -> TransferOptions {
            var options = serviceDefaults
            options.maximumResponseBytes = 256 << 20
            options.deadline = .seconds(300)
            return options
        }
    }

    static func serviceLimits() -> ResourceService<Cities> {
        let service = ResourceService<Cities>(
            options: TransferOptions(deadline: .seconds(10), maximumResponseBytes: 4 << 20, maximumRedirects: 3)
        )
        return service
    }
}

@Suite("Reliability.md")
struct ReliabilityArticleTests {
    @Test func aResourceAdjustsOnlyTheLimitsItNames() {
        // GIVEN the service's defaults with a redirect limit of its own
        let defaults = TransferOptions(deadline: .seconds(10), maximumResponseBytes: 4 << 20, maximumRedirects: 3)
        // WHEN the export adjusts them
        let options = ReliabilitySnippets.Export().transferOptions(defaults)
        // THEN its two limits change and the service's third stays
        #expect(options.maximumResponseBytes == 256 << 20)
        #expect(options.deadline == .seconds(300))
        #expect(options.maximumRedirects == 3)
    }

    @Test func theServiceKeepsTheLimitsItWasGiven() {
        let options = ReliabilitySnippets.serviceLimits().options
        #expect(options.deadline == .seconds(10))
        #expect(options.maximumResponseBytes == 4 << 20)
        #expect(options.maximumRedirects == 3)
    }
}
