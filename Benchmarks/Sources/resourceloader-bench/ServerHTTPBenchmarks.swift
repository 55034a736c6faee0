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

    /// The name `--profile-http-server` takes.
    var key: String {
        switch self {
        case .ourAsyncHTTPClient: "resourceservice-asynchttpclienttransport"
        case .rawAsyncHTTPClient: "raw-asynchttpclient"
        case .handAsync: "urlsession-async"
        }
    }
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

/// What one run of the server group found at one concurrency.
struct ServerHTTPRun {
    /// Each client's rounds combined: the median of its rounds' rates, latencies and CPU.
    var results: [ServerHTTPClientKind: LoadResult]
    /// Ours against raw AsyncHTTPClient, and the rounds' spread.
    var versusRaw: (ratio: Double, spread: String)
    /// Ours against hand-written `URLSession` (concurrency 32 only).
    var versusURLSession: (ratio: Double, spread: String)?
}

/// `ResourceService` over `AsyncHTTPClientTransport` against raw AsyncHTTPClient at concurrency 1,
/// 32 and 256, and against hand-written `URLSession` at 32, on the same nginx and document as the
/// end-to-end group, with the same counterbalanced turns.
///
/// The whole group runs `runs` times in a row (fresh clients, so fresh connections, each time);
/// a target's ratio is the median of the runs' ratios, and each row is the median of the runs'
/// medians, so that one run spoilt by the other engineers' builds on this machine does not decide
/// a target.
func runServerHTTP(_ recorder: Recorder, quick: Bool, runs: Int) throws {
    let concurrencies = [1, 32, 256]
    func rawName(_ concurrency: Int) -> String { "http.asynchttpclienttransport_c\(concurrency)_vs_raw_asynchttpclient" }
    let urlSessionName = "http.asynchttpclienttransport_c32_vs_urlsession"
    guard let binary = NginxServer.locateOrInstall() else {
        log("SKIPPING the server HTTP part: nginx is not installed and could not be installed (apt-get install -y nginx)")
        for name in concurrencies.map(rawName) + [urlSessionName] {
            recorder.targets.append(TargetResult(name: name, ratio: nil, target: name == urlSessionName ? 3.5 : 0.9,
                                                 comparison: ">=", pass: false, detail: "skipped: nginx not available"))
        }
        return
    }
    let cityCount = 50
    let server = try NginxServer(binary: binary, files: ["europe.json": citiesDocument(count: cityCount)])
    defer { server.stop() }
    let url = URL(string: "http://127.0.0.1:\(server.port)/europe.json")!
    log("http-server: nginx on 127.0.0.1:\(server.port), \(runs) run(s)")

    var shuffler = Shuffler()
    var found: [Int: [ServerHTTPRun]] = [:]
    var methods: [Int: String] = [:]
    for run in 1...runs {
        let clients = ServerHTTPClients(url: url, expectedCount: cityCount)
        defer { try? clients.shutdown() }
        for concurrency in concurrencies {
            let (result, method) = try measureServerHTTP(clients, concurrency: concurrency, quick: quick, shuffler: &shuffler)
            found[concurrency, default: []].append(result)
            methods[concurrency] = method
            let cpu = result.results.mapValues { $0.cpuPerRequest * 1e6 }
            log(String(format: "http-server run %d c%d: ours %.0f req/s (%.0f µs CPU), raw %.0f req/s (%.0f µs CPU), ratio %.3f",
                       run, concurrency, result.results[.ourAsyncHTTPClient]!.requestsPerSecond, cpu[.ourAsyncHTTPClient]!,
                       result.results[.rawAsyncHTTPClient]!.requestsPerSecond, cpu[.rawAsyncHTTPClient]!, result.versusRaw.ratio)
                + (result.versusURLSession.map { String(format: "; URLSession %.0f req/s (%.0f µs CPU), ratio %.3f",
                                                         result.results[.handAsync]!.requestsPerSecond, cpu[.handAsync]!, $0.ratio) } ?? ""))
        }
    }

    let loadNote = "load average \(loadAverage())"
    for concurrency in concurrencies {
        let results = found[concurrency]!
        for kind in ServerHTTPClientKind.allCases {
            let rows = results.compactMap { $0.results[kind] }
            guard !rows.isEmpty else { continue }
            recorder.measurements.append(Measurement(
                group: "http-server", scenario: "concurrency \(concurrency)", contender: kind.rawValue,
                requestsPerSecond: median(rows.map(\.requestsPerSecond)), p50Milliseconds: median(rows.map(\.p50)) * 1000,
                p99Milliseconds: median(rows.map(\.p99)) * 1000, cpuMicrosecondsPerRequest: median(rows.map(\.cpuPerRequest)) * 1e6))
        }
        func cpuRatio(_ reference: ServerHTTPClientKind) -> String {
            let ratios = results.compactMap { run in
                run.results[reference].map { $0.cpuPerRequest / run.results[.ourAsyncHTTPClient]!.cpuPerRequest }
            }
            return String(format: "%.3f", median(ratios))
        }
        func each(_ ratios: [(ratio: Double, spread: String)]) -> String {
            ratios.map { String(format: "%.3f (%@)", $0.ratio, $0.spread) }.joined(separator: ", ")
        }
        let summary = "median of \(runs) run(s): \(each(results.map(\.versusRaw))); each run the \(methods[concurrency]!); \(loadNote)"
        recorder.target(rawName(concurrency), ratio: median(results.map { $0.versusRaw.ratio }), atLeast: 0.95,
                        detail: "requests/s, ResourceService async over AsyncHTTPClientTransport vs raw AsyncHTTPClient "
                            + "(same HTTPClient, status check + collect + JSONDecoder); \(summary); "
                            + "client CPU per request, raw over ours: \(cpuRatio(.rawAsyncHTTPClient))")
        let versusURLSession = results.compactMap(\.versusURLSession)
        if !versusURLSession.isEmpty {
            recorder.target(urlSessionName, ratio: median(versusURLSession.map { $0.ratio }), atLeast: 3.5,
                            detail: "requests/s, ResourceService async over AsyncHTTPClientTransport vs hand-written URLSession async "
                                + "(status check + JSONDecoder); median of \(runs) run(s): \(each(versusURLSession)); "
                                + "each run the \(methods[concurrency]!); \(loadNote); "
                                + "client CPU per request, URLSession over ours: \(cpuRatio(.handAsync))")
        }
    }
}

/// One run of the server group at `concurrency`: a warm-up, then rounds of counterbalanced
/// turns; returns what it found and how (for the targets' detail).
private func measureServerHTTP(
    _ clients: ServerHTTPClients, concurrency: Int, quick: Bool, shuffler: inout Shuffler
) throws -> (ServerHTTPRun, String) {
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
    var results: [ServerHTTPClientKind: LoadResult] = [:]
    for kind in kinds {
        let rows = samples[kind]!
        results[kind] = LoadResult(
            requestsPerSecond: median(rows.map(\.requestsPerSecond)), p50: median(rows.map(\.p50)), p99: median(rows.map(\.p99)),
            cpuPerRequest: median(rows.map(\.cpuPerRequest)), failures: 0)
    }
    let method = "median over pairs of turns, each ratio the geometric mean of one turn in either order; "
        + "\(rounds) rounds of \(total) in \(slices) slices"
    let run = ServerHTTPRun(
        results: results,
        versusRaw: balancedSpeedRatio(turns[.ourAsyncHTTPClient]!, turns[.rawAsyncHTTPClient]!),
        versusURLSession: concurrency == 32 ? balancedSpeedRatio(turns[.ourAsyncHTTPClient]!, turns[.handAsync]!) : nil)
    return (run, method)
}

/// The side-by-side table of the server group: each concurrency's clients in one row, with
/// ours' ratios to the others (requests per second and CPU per request).
func printServerHTTPTable(_ summary: Summary) {
    let rows = summary.measurements.filter { $0.group == "http-server" }
    guard !rows.isEmpty else { return }
    func row(_ scenario: String, _ kind: ServerHTTPClientKind) -> Measurement? {
        rows.first { $0.scenario == scenario && $0.contender == kind.rawValue }
    }
    func target(_ name: String) -> String {
        summary.targets.first { $0.name == name }?.ratio.map { String(format: "%.2f×", $0) } ?? ""
    }
    func cell(_ value: Double?, _ format: String) -> String { value.map { String(format: format, $0) } ?? "–" }
    print("\n| Concurrency | ours req/s | raw AHC req/s | URLSession req/s | ours/raw (target ≥ 0.95) | ours/URLSession (target ≥ 3.5) | CPU µs/req ours | raw AHC | URLSession |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for concurrency in [1, 32, 256] {
        let scenario = "concurrency \(concurrency)"
        guard let ours = row(scenario, .ourAsyncHTTPClient) else { continue }
        let raw = row(scenario, .rawAsyncHTTPClient), hand = row(scenario, .handAsync)
        let versusHand = concurrency == 32 ? target("http.asynchttpclienttransport_c32_vs_urlsession") : "–"
        print("| \(concurrency) | \(cell(ours.requestsPerSecond, "%.0f")) | \(cell(raw?.requestsPerSecond, "%.0f")) | "
            + "\(cell(hand?.requestsPerSecond, "%.0f")) | \(target("http.asynchttpclienttransport_c\(concurrency)_vs_raw_asynchttpclient")) | "
            + "\(versusHand) | \(cell(ours.cpuMicrosecondsPerRequest, "%.0f")) | \(cell(raw?.cpuMicrosecondsPerRequest, "%.0f")) | "
            + "\(cell(hand?.cpuMicrosecondsPerRequest, "%.0f")) |")
    }
}

/// Runs one client of the server group alone, so that a profiler sees only its work:
/// `--profile-http-server CONTENDER CONCURRENCY TOTAL [URL]`, CONTENDER being
/// `resourceservice-asynchttpclienttransport`, `raw-asynchttpclient` or `urlsession-async`.
/// Without a URL it starts nginx itself (valgrind cannot: pass the URL of a 50-city document
/// served elsewhere).
func runServerHTTPProfile(_ arguments: [String]) throws {
    try runProfile(arguments, option: "--profile-http-server", key: \ServerHTTPClientKind.key) { kind, url, concurrency, total in
        let clients = ServerHTTPClients(url: url, expectedCount: 50)
        defer { try? clients.shutdown() }
        return try clients.load(kind, concurrency: concurrency, total: total)
    }
}

/// The system's load averages over 1, 5 and 15 minutes, as `/proc/loadavg` gives them
/// ("n/a" without procfs).
func loadAverage() -> String {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "n/a" }
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}
