import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A body as bytes: what a 1 MB download costs without a model in the way.
struct RawBody: NetworkResourceType, DataResourceType {
    let url: URL
    func model(from data: Data) throws -> Int { data.count }
}

/// ``CityList`` with its model kept by a memory store (``ReusableModelResource``).
struct ReusableCityList: NetworkResourceType, JSONDecodableResourceType, ReusableModelResource {
    typealias Root = CitiesRoot
    let url: URL
    func model(from root: Root) -> [City] { root.cities }
}

/// The caching group (``HTTPCache`` in front of ``URLSessionTransport``, nginx on loopback):
///
/// - `caching.memory_hit_vs_nginx`: a fresh hit from a ``MemoryCacheStore`` for a 10 KB JSON
///   resource that adopts ``ReusableModelResource``, model included (the one kept with the
///   entry), against the same fetch from nginx with no cache (bound: ≥ 20×); the same hit for a
///   resource that parses every time is measured alongside;
/// - `caching.disk_hit_vs_nginx`: a hit from a ``DiskCacheStore``, parsed (bound: ≥ 5×);
/// - `caching.miss_overhead_1mb`: a 1 MB miss stored in a memory cache, against the same fetch
///   with no cache (a new query string each time, so every fetch misses; bound: ≤ 1.05); the same
///   miss offered to a store that keeps nothing (a byte limit of 0) is measured alongside, to part
///   the cost of the cache's work from the cost of keeping the body;
/// - `caching.disk_footprint_vs_limit`: the entries' bytes on disk after 10,000 inserts of mixed
///   sizes into a ``DiskCacheStore`` with an 8 MiB limit, over the limit (bound: ≤ 1.0).
///
/// Each timed contender runs `fetches` fetches in one task per sample, so that bridging the
/// harness's thread to the task is paid once per sample, not per fetch.
func runCaching(_ recorder: Recorder, quick: Bool) throws {
    guard let binary = NginxServer.locateOrInstall() else { throw HarnessError("caching: nginx is not available") }
    var count = 1
    while citiesDocument(count: count).count < 10_240 { count += 1 }
    let document = citiesDocument(count: count)
    let largeBody = Data(repeating: 0x61, count: 1 << 20)
    let server = try NginxServer(binary: binary, files: ["europe.json": document, "large.bin": largeBody])
    defer { server.stop() }
    let jsonURL = URL(string: "http://127.0.0.1:\(server.port)/europe.json")!
    let largeURL = URL(string: "http://127.0.0.1:\(server.port)/large.bin")!
    let rounds = quick ? 3 : 7
    let network = URLSessionTransport()

    // Stored responses fresh for a day, as a server would have sent them.
    let now = Date()
    let stored = CachedResponse(
        statusCode: 200, url: jsonURL,
        headerFields: [("Cache-Control", "max-age=86400"), ("Content-Type", "application/json"), ("Content-Length", String(document.count))],
        body: document, requestDate: now, responseDate: now)
    let key = CachePolicy.key(method: "GET", url: jsonURL)
    let memory = HTTPCache(store: MemoryCacheStore(byteLimit: 64 << 20))
    memory.store.store(stored, forKey: key)
    let diskDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("resourceloader-bench-cache-\(getpid())")
    try? FileManager.default.removeItem(at: diskDirectory)
    defer { try? FileManager.default.removeItem(at: diskDirectory) }
    let disk = HTTPCache(store: try DiskCacheStore(directory: diskDirectory, byteLimit: 64 << 20))
    disk.store.store(stored, forKey: key)

    let plain = ResourceService<CityList>(session: network)
    let fromMemory = ResourceService<CityList>(session: CachingTransport(wrapping: network, cache: memory))
    let fromDisk = ResourceService<CityList>(session: CachingTransport(wrapping: network, cache: disk))
    let reusingMemory = ResourceService<ReusableCityList>(session: CachingTransport(wrapping: network, cache: memory))
    let fetches = 50
    func fetching<Resource>(_ service: ResourceService<Resource>, _ resource: Resource) -> () throws -> Int where Resource.Model == [City] {
        {
            try blocking {
                var total = 0
                for _ in 0..<fetches { total += try await service.fetch(resource).count }
                return total
            }
        }
    }
    let resource = CityList(url: jsonURL)
    let hits = try interleave([
        Contender(name: "nginx, no cache", run: fetching(plain, resource)),
        Contender(name: "memory hit", run: fetching(reusingMemory, ReusableCityList(url: jsonURL))),
        Contender(name: "memory hit, parsed", run: fetching(fromMemory, resource)),
        Contender(name: "disk hit", run: fetching(fromDisk, resource)),
    ], rounds: rounds, sampleSeconds: quick ? 0.2 : 0.5)
    for (name, timing) in hits {
        recorder.measurements.append(Measurement(
            group: "caching", scenario: "10 KB JSON resource with its model, \(fetches) fetches", contender: name,
            secondsPerIteration: timing.secondsPerIteration / Double(fetches),
            allocationsPerIteration: timing.allocations.map { $0 / Double(fetches) },
            operationsPerSecond: Double(fetches) / timing.secondsPerIteration))
    }
    let memoryRatio = pairedSpeedRatio(hits["memory hit"]!.samples, hits["nginx, no cache"]!.samples)
    recorder.target("caching.memory_hit_vs_nginx", ratio: memoryRatio.ratio, atLeast: 20,
                    detail: "fetches/s, fresh memory hit vs nginx on loopback, 10 KB JSON with the model kept with the entry (\(memoryRatio.spread))")
    let diskRatio = pairedSpeedRatio(hits["disk hit"]!.samples, hits["nginx, no cache"]!.samples)
    recorder.target("caching.disk_hit_vs_nginx", ratio: diskRatio.ratio, atLeast: 5,
                    detail: "fetches/s, fresh disk hit vs nginx on loopback, 10 KB JSON parsed into the model (\(diskRatio.spread))")

    // Misses: a new URL each time (nginx ignores the query), stored or not.
    let missCache = HTTPCache(store: MemoryCacheStore(byteLimit: 64 << 20))
    let uncached = ResourceService<RawBody>(session: network)
    let caching = ResourceService<RawBody>(session: CachingTransport(wrapping: network, cache: missCache))
    let notKeeping = ResourceService<RawBody>(session: CachingTransport(wrapping: network, cache: HTTPCache(store: MemoryCacheStore(byteLimit: 0))))
    let sequence = MissCounter()
    func missing(_ service: ResourceService<RawBody>) -> () throws -> Int {
        {
            let url = URL(string: largeURL.absoluteString + "?n=\(sequence.next())")!
            return try blocking { try await service.fetch(RawBody(url: url)) }
        }
    }
    let misses = try interleave([
        Contender(name: "1 MB, no cache", run: missing(uncached)),
        Contender(name: "1 MB miss, stored in memory", run: missing(caching)),
        Contender(name: "1 MB miss, offered to a store that keeps nothing", run: missing(notKeeping)),
    ], rounds: quick ? 5 : 11, sampleSeconds: quick ? 0.3 : 0.6)
    for (name, timing) in misses {
        recorder.measurements.append(Measurement(
            group: "caching", scenario: "1 MB body from nginx", contender: name,
            secondsPerIteration: timing.secondsPerIteration,
            megabytesPerSecond: 1 / timing.secondsPerIteration,
            allocationsPerIteration: timing.allocations))
    }
    // Seconds with the cache over seconds without: the extra cost of storing.
    let missRatio = pairedSpeedRatio(misses["1 MB, no cache"]!.samples, misses["1 MB miss, stored in memory"]!.samples)
    let offeredRatio = pairedSpeedRatio(misses["1 MB, no cache"]!.samples, misses["1 MB miss, offered to a store that keeps nothing"]!.samples)
    recorder.target("caching.miss_overhead_1mb", ratio: missRatio.ratio, atMost: 1.05,
                    detail: "seconds per fetch with a cache storing the miss over without a cache, 1 MB body (\(missRatio.spread); offered to a store that keeps nothing: \(String(format: "%.3f", offeredRatio.ratio)))")

    // Disk footprint after 10,000 inserts of mixed sizes.
    let footprintDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("resourceloader-bench-footprint-\(getpid())")
    try? FileManager.default.removeItem(at: footprintDirectory)
    defer { try? FileManager.default.removeItem(at: footprintDirectory) }
    let limit = 8 << 20
    let footprintStore = try DiskCacheStore(directory: footprintDirectory, byteLimit: limit)
    let sizes = [200, 2_000, 20_000, 200_000]
    for index in 0..<10_000 {
        let body = Data(repeating: 0x62, count: sizes[index % sizes.count] + index % 97)
        footprintStore.store(
            CachedResponse(statusCode: 200, url: largeURL, headerFields: [("Cache-Control", "max-age=60")], body: body, requestDate: now, responseDate: now),
            forKey: "GET http://bench.test/\(index % 3_000)")
    }
    var entryBytes = 0
    var otherBytes = 0
    for name in (try? FileManager.default.contentsOfDirectory(atPath: footprintDirectory.path)) ?? [] {
        let size = (try? FileManager.default.attributesOfItem(atPath: footprintDirectory.appendingPathComponent(name).path)[.size] as? Int) ?? 0
        if name.hasSuffix(".entry") { entryBytes += size } else { otherBytes += size }
    }
    recorder.target("caching.disk_footprint_vs_limit", ratio: Double(entryBytes) / Double(limit), atMost: 1.0,
                    detail: "entry bytes on disk over the 8 MiB limit after 10,000 inserts of 200 B to 200 KB; \(footprintStore.count) entries, journal and lock \(otherBytes) bytes")
}

/// Numbers the misses, so that each asks for a URL not seen before.
final class MissCounter: @unchecked Sendable {
    // `lock` guards `value`.
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
