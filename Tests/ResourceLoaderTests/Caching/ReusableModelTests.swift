import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts what the resources of one test do: parses, validations, and whether parsing fails.
final class ParseCounter: @unchecked Sendable {
    // `lock` guards every field.
    private let lock = NSLock()
    private var parseCount = 0
    private var validationCount = 0
    private var failing = false

    var parses: Int { lock.withLock { parseCount } }
    var validations: Int { lock.withLock { validationCount } }

    /// Makes every parse from now on fail (`true`) or succeed (`false`).
    func setFailing(_ value: Bool) { lock.withLock { failing = value } }

    func parsed() throws {
        let fails = lock.withLock { () -> Bool in
            parseCount += 1
            return failing
        }
        if fails { throw ResourceError.parsing(.init(context: "told to fail")) }
    }

    func validated() { lock.withLock { validationCount += 1 } }
}

/// `{"cities": [...]}`, each city's name prefixed with the resource's `prefix`; counts its parses
/// and validations. Equal when URL and prefix are: the counter is not part of its value.
struct CountedCities: NetworkResourceType, JSONDecodableResourceType, ReusableModelResource {
    struct Root: Decodable { let cities: [City] }
    let url: URL
    var prefix = ""
    let counter: ParseCounter

    func model(from root: Root) throws -> [City] {
        try counter.parsed()
        return root.cities.map { City(name: prefix + $0.name) }
    }

    func validate(_ response: ResponseHead, data: Data) throws(ResourceError) {
        counter.validated()
        guard acceptableStatusCodes.contains(response.statusCode) else { throw .httpStatus(.init(head: response, body: data)) }
    }

    static func == (left: Self, right: Self) -> Bool { left.url == right.url && left.prefix == right.prefix }
    func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(prefix)
    }
}

/// The same resource without ``ReusableModelResource``: every hit parses.
struct CountedCitiesParsedEachTime: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    let url: URL
    let counter: ParseCounter

    func model(from root: Root) throws -> [City] {
        try counter.parsed()
        return root.cities
    }
}

@Suite("ReusableModelResource: a memory hit hands out the model kept with the stored response")
struct ReusableModelTests {
    static let url = URL(string: "http://origin.test/a")!
    static let fresh = ["Cache-Control": "max-age=60", "Content-Type": "application/json"]
    static let body = #"{"cities": [{"name": "Lisbon"}, {"name": "Porto"}]}"#
    static let cities = [City(name: "Lisbon"), City(name: "Porto")]

    /// An origin that answers every request with the cities, fresh for a minute.
    static func freshOrigin() -> ScriptedOrigin {
        ScriptedOrigin([.response(status: 200, headers: fresh, body: body)])
    }

    /// A service over `origin` through a cache in `store`, read with `date`.
    static func service<Resource>(
        _: Resource.Type, origin: ScriptedOrigin, store: any HTTPCacheStore = MemoryCacheStore(byteLimit: 1 << 20), date: TestDate = TestDate()
    ) -> ResourceService<Resource> {
        ResourceService<Resource>(session: CachingTransport(wrapping: origin, cache: HTTPCache(store: store), now: { date.now }))
    }

    @Test("the first hit parses and keeps the model; later hits of an equal resource reuse it, and the network is asked once")
    func laterHitsReuseTheModel() async throws {
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin)
        for _ in 0..<5 {
            #expect(try await service.fetch(CountedCities(url: Self.url, counter: counter)) == Self.cities)
        }
        #expect(origin.requestCount == 1)
        // The miss parses what the network sent; the first hit parses the stored body once.
        #expect(counter.parses == 2)
    }

    @Test("validation still runs on every hit; only the parse is skipped")
    func validationRunsOnEveryHit() async throws {
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin)
        for _ in 0..<4 { _ = try await service.fetch(CountedCities(url: Self.url, counter: counter)) }
        #expect(counter.validations == 4)
        #expect(counter.parses == 2)
    }

    @Test("a resource that does not adopt ReusableModelResource parses on every hit")
    func otherResourcesParseEachTime() async throws {
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let service = Self.service(CountedCitiesParsedEachTime.self, origin: origin)
        for _ in 0..<4 {
            #expect(try await service.fetch(CountedCitiesParsedEachTime(url: Self.url, counter: counter)) == Self.cities)
        }
        #expect(origin.requestCount == 1)
        #expect(counter.parses == 4)
    }

    @Test("unequal resources answered by one stored response each get the model they make")
    func unequalResourcesKeepTheirOwnModels() async throws {
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin)
        let plain = CountedCities(url: Self.url, counter: counter)
        let marked = CountedCities(url: Self.url, prefix: "→", counter: counter)
        _ = try await service.fetch(plain)
        for _ in 0..<3 {
            #expect(try await service.fetch(plain) == Self.cities)
            #expect(try await service.fetch(marked) == [City(name: "→Lisbon"), City(name: "→Porto")])
        }
        // The miss, then one parse on the first hit of each.
        #expect(counter.parses == 3)
    }

    @Test("an entry keeps modelsKeptPerEntry models, the least recently used replaced first; 0 keeps none")
    func theNumberOfModelsIsBounded() async throws {
        for (kept, expectedParses) in [(0, 7), (1, 7), (2, 3)] {
            let origin = Self.freshOrigin()
            let counter = ParseCounter()
            let store = MemoryCacheStore(byteLimit: 1 << 20, modelsKeptPerEntry: kept)
            let service = Self.service(CountedCities.self, origin: origin, store: store)
            let first = CountedCities(url: Self.url, prefix: "a", counter: counter)
            let second = CountedCities(url: Self.url, prefix: "b", counter: counter)
            _ = try await service.fetch(first)
            // Alternating between two resources: one kept model is replaced every time.
            for resource in [first, second, first, second, first, second] {
                #expect(try await service.fetch(resource).first?.name == resource.prefix + "Lisbon")
            }
            #expect(counter.parses == expectedParses, "modelsKeptPerEntry \(kept)")
        }
    }

    @Test("using a kept model makes it the most recently used: the one replaced is the model used longest ago")
    func usingAModelKeepsIt() async throws {
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let store = MemoryCacheStore(byteLimit: 1 << 20, modelsKeptPerEntry: 2)
        let service = Self.service(CountedCities.self, origin: origin, store: store)
        let (a, b, c) = (
            CountedCities(url: Self.url, prefix: "a", counter: counter), CountedCities(url: Self.url, prefix: "b", counter: counter),
            CountedCities(url: Self.url, prefix: "c", counter: counter)
        )
        _ = try await service.fetch(a)  // the miss: parsed
        var parses: [Int] = []
        for resource in [a, b, a, c, a, b] {
            _ = try await service.fetch(resource)
            parses.append(counter.parses)
        }
        // a and b parse; a is reused; c replaces b (a was used since); a is reused; b parses again.
        #expect(parses == [2, 3, 3, 4, 4, 5])
    }

    @Test("a response stored in place of the entry is parsed again, and its model is the new body's")
    func aNewResponseIsParsedAgain() async throws {
        let origin = ScriptedOrigin([
            .response(status: 200, headers: Self.fresh, body: Self.body),
            .response(status: 200, headers: Self.fresh, body: #"{"cities": [{"name": "Faro"}]}"#),
        ])
        let date = TestDate()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin, date: date)
        let resource = CountedCities(url: Self.url, counter: counter)
        _ = try await service.fetch(resource)
        #expect(try await service.fetch(resource) == Self.cities)
        date.advance(by: 61)
        #expect(try await service.fetch(resource) == [City(name: "Faro")])
        #expect(try await service.fetch(resource) == [City(name: "Faro")])
        #expect(origin.requestCount == 2)
        #expect(counter.parses == 4)
    }

    @Test("a response revalidated by a 304 is parsed again; the hits after it reuse that parse")
    func aRevalidatedResponseIsParsedAgain() async throws {
        let validated = ["Cache-Control": "max-age=60", "Content-Type": "application/json", "ETag": "\"v1\""]
        let origin = ScriptedOrigin([
            .response(status: 200, headers: validated, body: Self.body),
            .response(status: 304, headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""], body: ""),
        ])
        let date = TestDate()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin, date: date)
        let resource = CountedCities(url: Self.url, counter: counter)
        _ = try await service.fetch(resource)  // the miss
        _ = try await service.fetch(resource)  // the first hit parses and keeps the model
        #expect(counter.parses == 2)
        date.advance(by: 61)
        #expect(try await service.fetch(resource) == Self.cities)  // validated: the 304's answer is parsed
        #expect(origin.requestCount == 2)
        #expect(counter.parses == 3)
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(counter.parses == 4)
    }

    @Test("a stale response served while it is revalidated hands out the model kept with it")
    func staleWhileRevalidateReusesTheModel() async throws {
        let lenient = ["Cache-Control": "max-age=60, stale-while-revalidate=600", "Content-Type": "application/json", "ETag": "\"v1\""]
        let origin = ScriptedOrigin([
            .response(status: 200, headers: lenient, body: Self.body),
            .response(status: 304, headers: ["Cache-Control": "max-age=60, stale-while-revalidate=600", "ETag": "\"v1\""], body: ""),
        ])
        let date = TestDate()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin, date: date)
        let resource = CountedCities(url: Self.url, counter: counter)
        _ = try await service.fetch(resource)
        _ = try await service.fetch(resource)
        #expect(counter.parses == 2)
        date.advance(by: 61)
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(counter.parses == 2)
    }

    @Test("a failed parse is not kept: the next hit parses again")
    func aFailureIsNotKept() async throws {
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin)
        let resource = CountedCities(url: Self.url, counter: counter)
        _ = try await service.fetch(resource)
        counter.setFailing(true)
        await #expect(throws: ResourceError.self) { try await service.fetch(resource) }
        counter.setFailing(false)
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(counter.parses == 3)
    }

    @Test("a hit read from a DiskCacheStore is parsed every time")
    func diskHitsParse() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reusable-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin, store: try DiskCacheStore(directory: directory, byteLimit: 1 << 20))
        for _ in 0..<3 {
            #expect(try await service.fetch(CountedCities(url: Self.url, counter: counter)) == Self.cities)
        }
        #expect(origin.requestCount == 1)
        #expect(counter.parses == 3)
    }

    @Test("concurrent hits all get the model, whichever of them parses")
    func concurrentHits() async throws {
        let origin = Self.freshOrigin()
        let counter = ParseCounter()
        let service = Self.service(CountedCities.self, origin: origin)
        let resource = CountedCities(url: Self.url, counter: counter)
        _ = try await service.fetch(resource)
        let models = try await withThrowingTaskGroup(of: [City].self) { group in
            for _ in 0..<32 { group.addTask { try await service.fetch(resource) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(models.count == 32)
        #expect(models.allSatisfy { $0 == Self.cities })
        #expect(origin.requestCount == 1)
        #expect(counter.parses <= 33)
        // Once every concurrent hit has finished, the model is kept.
        let before = counter.parses
        _ = try await service.fetch(resource)
        #expect(counter.parses == before)
    }
}
