// The code blocks of Caching.md, verbatim, so that they are compiled (and the offline one run).
// `DocumentationSnippetTests` checks that each block stands here unchanged.
import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct LatestCities: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    let url = URL(string: "https://api.example.com/cities")!
    var headerFields: [String: String] { ["Cache-Control": "max-age=30, max-stale=60"] }
    func model(from root: Root) -> [City] { root.cities }
}

/// The article's resource whose model a memory store keeps.
struct CachedCities: NetworkResourceType, JSONDecodableResourceType, ReusableModelResource {
    struct Root: Decodable { let cities: [City] }
    let url = URL(string: "https://api.example.com/cities")!
    func model(from root: Root) -> [City] { root.cities }
}

/// The article's offline resource: answered from the cache only.
struct OfflineCities: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    let url = URL(string: "https://api.example.com/cities")!
    var headerFields: [String: String] { ["Cache-Control": "only-if-cached"] }
    func model(from root: Root) -> [City] { root.cities }
}

/// What the offline snippet showed.
final class OfflineScreen: @unchecked Sendable {
    // `lock` guards `shown`.
    private let lock = NSLock()
    private var shown: String?

    func set(_ text: String) { lock.withLock { shown = text } }
    var text: String? { lock.withLock { shown } }
}

enum CachingSnippets {
    static func pipeline() -> ResourceService<Cities> {
        let pipeline = ResourcePipeline(cache: HTTPCache())
        let cities = ResourceService<Cities>(pipeline: pipeline)
        return cities
    }

    static func appCache(in cachesDirectory: URL) throws -> HTTPCache {
        let appCache = HTTPCache(store: try DiskCacheStore(directory: cachesDirectory, byteLimit: 50 << 20), policy: CachePolicy(mode: .private))
        return appCache
    }

    static func tiered(in cachesDirectory: URL) throws -> TieredCacheStore {
        let tiered = TieredCacheStore(
            memory: MemoryCacheStore(byteLimit: 8 << 20),
            disk: try DiskCacheStore(directory: cachesDirectory.appendingPathComponent("http"), byteLimit: 256 << 20))
        return tiered
    }

    static func offline(_ service: ResourceService<OfflineCities>, screen: OfflineScreen) async throws {
        func show(_ cities: [City]) { screen.set(cities.map(\.name).joined(separator: ", ")) }
        func showPlaceholder() { screen.set("placeholder") }
        do {
            let cities = try await service.fetch(OfflineCities())
            show(cities)
        } catch .notCached {
            showPlaceholder()
        }
    }

    static func staleIfError() -> HTTPCache {
        let offlineFriendly = HTTPCache(store: MemoryCacheStore(byteLimit: 8 << 20), policy: CachePolicy(mode: .private), staleIfErrorLimit: .seconds(86_400))
        return offlineFriendly
    }
}

@Suite("Caching article")
struct CachingArticleTests {
    @Test func offlineWithNothingStoredShowsThePlaceholderWithoutSending() async throws {
        let session = FakeURLSession()
        let service = ResourceService<OfflineCities>(pipeline: ResourcePipeline(session: session, cache: CachingSnippets.staleIfError()))
        let screen = OfflineScreen()
        try await CachingSnippets.offline(service, screen: screen)
        #expect(screen.text == "placeholder")
        #expect(session.receivedRequests.isEmpty)
    }

    @Test func theArticlesCachesAreMadeAsDescribed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caching-article-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try CachingSnippets.appCache(in: directory)
        #expect(cache.policy.mode == .private)
        #expect(CachingSnippets.pipeline().pipeline?.cache != nil)
        #expect(CachingSnippets.staleIfError().staleIfErrorLimit == .seconds(86_400))
        #expect(LatestCities().headerFields["Cache-Control"] == "max-age=30, max-stale=60")
        let tieredDirectory = directory.appendingPathComponent("tiered")
        let tiered = try CachingSnippets.tiered(in: tieredDirectory)
        #expect(tiered.memory.byteLimit == 8 << 20)
        #expect((tiered.disk as? DiskCacheStore)?.directory.lastPathComponent == "http")
    }
}
