import AsyncHTTPClient
import Foundation
import NIOCore
import ResourceLoader
import ResourceLoaderAsyncHTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - On the server: ResourceService over AsyncHTTPClientTransport

/// The clients of the server-side comparison (`--only http-server`, part of `http` too).
enum ServerHTTPClientKind: String, CaseIterable {
    case ourAsyncHTTPClient = "ResourceService async, AsyncHTTPClientTransport"
    case rawAsyncHTTPClient = "raw AsyncHTTPClient, same client"
    case handAsync = "hand-written URLSession async"
}

/// `ResourceService` over `AsyncHTTPClientTransport`, and raw AsyncHTTPClient code doing the same
/// work through the same `HTTPClient`: a GET, a status check and the cities decoded with
/// `JSONDecoder` (the raw side) or the resource's own parse (ours). The hand-written `URLSession`
/// client is the one of the end-to-end group.
final class ServerHTTPClients: @unchecked Sendable {
    // Immutable after init.
    let url: URL
    let expectedCount: Int
    /// One client for both sides, configured as the transport configures its own.
    let client: HTTPClient
    let transport: AsyncHTTPClientTransport
    let service: ResourceService<CityList>
    let handSession: URLSession

    init(url: URL, expectedCount: Int) {
        self.url = url
        self.expectedCount = expectedCount
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.defaultConfiguration)
        transport = AsyncHTTPClientTransport(client: client)
        service = ResourceService(session: transport)
        handSession = URLSession(configuration: .ephemeral)
    }

    func shutdown() throws {
        handSession.invalidateAndCancel()
        let client = client
        try blocking { try await client.shutdown() }
    }

    /// Runs `total` fetches with `kind` at `concurrency` and measures them.
    func load(_ kind: ServerHTTPClientKind, concurrency: Int, total: Int) throws -> LoadResult {
        let state = LoadState(total: total)
        let cpuBefore = processCPUSeconds()
        let start = now()
        try blocking { [self] in
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        while state.claim() {
                            let begin = now()
                            let ok = await self.fetch(kind)
                            state.record(latencyNanoseconds: now() - begin, ok: ok)
                        }
                    }
                }
            }
        }
        let seconds = Double(now() - start) / 1e9
        let cpu = processCPUSeconds() - cpuBefore
        let (latencies, failures) = state.snapshot
        let sorted = latencies.sorted()
        return LoadResult(
            requestsPerSecond: Double(total) / seconds, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99),
            cpuPerRequest: cpu / Double(total), failures: failures)
    }

    private func fetch(_ kind: ServerHTTPClientKind) async -> Bool {
        switch kind {
        case .ourAsyncHTTPClient:
            return (try? await service.fetch(CityList(url: url)))?.count == expectedCount
        case .rawAsyncHTTPClient:
            do {
                let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
                guard (200..<300).contains(response.status.code) else { return false }
                let body = try await response.body.collect(upTo: 32 << 20)
                let root = try JSONDecoder().decode(CitiesRoot.self, from: Data(body.readableBytesView))
                return root.cities.count == expectedCount
            } catch {
                return false
            }
        case .handAsync:
            guard let (data, response) = try? await handSession.data(for: URLRequest(url: url)),
                let response = response as? HTTPURLResponse, (200..<300).contains(response.statusCode),
                let root = try? JSONDecoder().decode(CitiesRoot.self, from: data)
            else { return false }
            return root.cities.count == expectedCount
        }
    }
}

/// `ResourceService` over `AsyncHTTPClientTransport` against raw AsyncHTTPClient at concurrency 1,
/// 32 and 256, and against hand-written `URLSession` at 32, on the same nginx and document as the
/// end-to-end group, with the same counterbalanced turns.
func runServerHTTP(_ recorder: Recorder, quick: Bool) throws {
    let names = [1, 32, 256].map { "http.asynchttpclienttransport_c\($0)_vs_raw_asynchttpclient" }
        + ["http.asynchttpclienttransport_c32_vs_urlsession"]
    guard let binary = NginxServer.locateOrInstall() else {
        log("SKIPPING the server HTTP part: nginx is not installed and could not be installed (apt-get install -y nginx)")
        for name in names {
            recorder.targets.append(TargetResult(name: name, ratio: nil, target: name.hasSuffix("urlsession") ? 3.5 : 0.9,
                                                 comparison: ">=", pass: false, detail: "skipped: nginx not available"))
        }
        return
    }
    let cityCount = 50
    let server = try NginxServer(binary: binary, files: ["europe.json": citiesDocument(count: cityCount)])
    defer { server.stop() }
    let clients = ServerHTTPClients(url: URL(string: "http://127.0.0.1:\(server.port)/europe.json")!, expectedCount: cityCount)
    defer { try? clients.shutdown() }
    log("http-server: nginx on 127.0.0.1:\(server.port)")

    var shuffler = Shuffler()
    for concurrency in [1, 32, 256] {
        let rounds = quick ? 2 : (concurrency == 1 ? 18 : 32)
        let total = quick ? 200 : (concurrency == 1 ? 900 : 1500)
        let slices = quick ? 1 : max(1, min(3, total / (concurrency * 8)))
        // URLSession only where a target compares it: at concurrency 32.
        var kinds: [ServerHTTPClientKind] = [.ourAsyncHTTPClient, .rawAsyncHTTPClient]
        if concurrency == 32 { kinds.append(.handAsync) }
        for kind in kinds {
            let warm = try clients.load(kind, concurrency: concurrency, total: max(concurrency * 2, 100))
            guard warm.failures == 0 else { throw HarnessError("\(kind.rawValue) failed \(warm.failures) warm-up requests") }
        }
        var samples: [ServerHTTPClientKind: [LoadResult]] = [:]
        var turns: [ServerHTTPClientKind: [Double]] = [:]
        var turn = 0
        var order = kinds
        for _ in 0..<rounds {
            var parts: [ServerHTTPClientKind: [LoadResult]] = [:]
            for _ in 0..<slices {
                // Back to back, in an order shuffled for two turns and reversed in the second.
                if turn % 2 == 0 { order.shuffle(using: &shuffler) }
                for kind in turn % 2 == 0 ? order : order.reversed() {
                    let result = try clients.load(kind, concurrency: concurrency, total: total / slices)
                    guard result.failures == 0 else { throw HarnessError("\(kind.rawValue) failed \(result.failures) requests") }
                    parts[kind, default: []].append(result)
                    turns[kind, default: []].append(1 / result.requestsPerSecond)
                }
                turn += 1
            }
            for (kind, results) in parts { samples[kind, default: []].append(LoadResult(combining: results)) }
        }
        for kind in kinds {
            let results = samples[kind]!
            let rate = median(results.map(\.requestsPerSecond))
            recorder.measurements.append(Measurement(
                group: "http-server", scenario: "concurrency \(concurrency)", contender: kind.rawValue,
                requestsPerSecond: rate, p50Milliseconds: median(results.map(\.p50)) * 1000,
                p99Milliseconds: median(results.map(\.p99)) * 1000,
                cpuMicrosecondsPerRequest: median(results.map(\.cpuPerRequest)) * 1e6))
            log(String(format: "http-server c%d %@: %.0f req/s, %.0f µs CPU/request", concurrency, kind.rawValue, rate,
                       median(results.map(\.cpuPerRequest)) * 1e6))
        }
        let method = "median over pairs of turns, each ratio the geometric mean of one turn in either order; \(rounds) rounds of \(total) in \(slices) slices"
        let raw = balancedSpeedRatio(turns[.ourAsyncHTTPClient]!, turns[.rawAsyncHTTPClient]!)
        recorder.target("http.asynchttpclienttransport_c\(concurrency)_vs_raw_asynchttpclient", ratio: raw.ratio, atLeast: 0.9,
                        detail: "requests/s, ResourceService async over AsyncHTTPClientTransport vs raw AsyncHTTPClient (same HTTPClient, status check + JSONDecoder) (\(method); \(raw.spread))")
        if concurrency == 32 {
            let hand = balancedSpeedRatio(turns[.ourAsyncHTTPClient]!, turns[.handAsync]!)
            recorder.target("http.asynchttpclienttransport_c32_vs_urlsession", ratio: hand.ratio, atLeast: 3.5,
                            detail: "requests/s, ResourceService async over AsyncHTTPClientTransport vs hand-written URLSession async (\(method); \(hand.spread))")
        }
    }
}
