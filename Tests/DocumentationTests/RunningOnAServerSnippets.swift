// The code blocks of RunningOnAServer.md, verbatim, so that they are compiled when the package is
// built with the AsyncHTTPClient trait (CI builds with every trait). `DocumentationSnippetTests`
// checks that each block stands here unchanged, with or without the trait.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import ResourceLoader
import ResourceLoaderAsyncHTTPClient

func citiesService() -> ResourceService<Cities> {
    ResourceService<Cities>(session: AsyncHTTPClientTransport.shared)
}

enum RunningOnAServerSnippets {
    static func injectAClient() async throws {
        func serveWithSharedClient() async throws {
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                    configuration: AsyncHTTPClientTransport.defaultConfiguration)
            let pipeline = ResourcePipeline(session: AsyncHTTPClientTransport(client: client))
            let cities = ResourceService<Cities>(pipeline: pipeline)
            _ = try await cities.fetch(Cities(continent: "europe"))
            try await client.shutdown()
        }
        try await serveWithSharedClient()
    }
}
#endif
