import AsyncHTTPClient
import Foundation
import NIOCore
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

// MARK: - nginx

/// An nginx serving a static JSON file on 127.0.0.1, with a generated configuration in a
/// temporary folder; started and stopped by the benchmark itself.
final class NginxServer {
    let port: Int
    let directory: URL
    private let process: Process

    /// The nginx binary, installing Debian's package when it is missing and we may.
    static func locateOrInstall() -> String? {
        let candidates = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx"]
        if let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) { return found }
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") else { return nil }
        log("nginx is not installed: running apt-get install -y nginx")
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/bin/sh")
        install.arguments = ["-c", "DEBIAN_FRONTEND=noninteractive apt-get install -y nginx >/dev/null 2>&1 || "
            + "(apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y nginx >/dev/null 2>&1)"]
        guard (try? install.run()) != nil else { return nil }
        install.waitUntilExit()
        return candidates.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// Starts nginx serving `files` (name → bytes) and waits until it accepts connections.
    init(binary: String, files: [String: Data]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("resourceloader-bench-nginx-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        let www = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        // nginx's workers run as an unprivileged user when started by root: let them read.
        chmod(directory.path, 0o755)
        chmod(www.path, 0o755)
        for (name, data) in files {
            let file = www.appendingPathComponent(name)
            try data.write(to: file)
            chmod(file.path, 0o644)
        }
        port = try Self.freePort()
        let dir = directory.path
        let configuration = """
            worker_processes 1;
            daemon off;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path \(dir)/client_body;
                proxy_temp_path \(dir)/proxy;
                fastcgi_temp_path \(dir)/fastcgi;
                uwsgi_temp_path \(dir)/uwsgi;
                scgi_temp_path \(dir)/scgi;
                keepalive_requests 10000000;
                keepalive_timeout 120s;
                types { application/json json; }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(port);
                    root \(dir)/www;
                }
            }
            """
        let configurationFile = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", dir, "-e", "\(dir)/error.log", "-c", configurationFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = now() + 10_000_000_000
        while !Self.accepts(port: port) {
            guard process.isRunning, now() < deadline else {
                let errors = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                stop()
                throw HarnessError("nginx did not start: \(errors)")
            }
            usleep(20_000)
        }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw HarnessError("could not find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

// MARK: - Clients

/// One way of fetching the cities: started `concurrency` times at once, each slot fetching again
/// as soon as its previous fetch ends, until `total` fetches are done.
enum HTTPClientKind: String, CaseIterable {
    case ourAsync = "ResourceService async"
    case ourAsyncPlain = "ResourceService async, plain URLSession"
    case handAsync = "hand-written URLSession async"
    case ourCompletion = "ResourceService completion"
    case handCompletion = "hand-written URLSession completion"
    case asyncHTTPClient = "AsyncHTTPClient"
    // Through a `ResourcePipeline`, over the same transport as `ourAsync` and `ourCompletion`
    // (issue 14's cost bounds; see "Pipeline hooks: what they cost" in Docs/Performance.md).
    case pipelineEmptyAsync = "ResourceService async, empty pipeline"
    case pipelineHooksAsync = "ResourceService async, pipeline: adapter + no-op monitor"
    case pipelineLoggingAsync = "ResourceService async, pipeline: adapter + LoggingFetchMonitor"
    case pipelineAuthRetryAsync = "ResourceService async, pipeline: credential store + retry policy"
    case pipelineEmptyCompletion = "ResourceService completion, empty pipeline"
    case pipelineHooksCompletion = "ResourceService completion, pipeline: adapter + no-op monitor"
    case pipelineLoggingCompletion = "ResourceService completion, pipeline: adapter + LoggingFetchMonitor"
    case pipelineAuthRetryCompletion = "ResourceService completion, pipeline: credential store + retry policy"
    // The references of the pipeline clients that change the request: no pipeline, the same
    // header set by the resource's own `headerFields`.
    case headerAsync = "ResourceService async, header in headerFields"
    case headerCompletion = "ResourceService completion, header in headerFields"
    case bearerAsync = "ResourceService async, Authorization in headerFields"
    case bearerCompletion = "ResourceService completion, Authorization in headerFields"

    /// The clients compared with hand-written code and with each other at every concurrency.
    static let comparedClients: [HTTPClientKind] = [.ourAsync, .ourAsyncPlain, .handAsync, .ourCompletion, .handCompletion, .asyncHTTPClient]

    /// Every compared client once, each target's two side by side: the groups a run's rounds are
    /// made of.
    static let pairedGroups: [[HTTPClientKind]] = [[.ourAsync, .handAsync], [.ourCompletion, .handCompletion], [.ourAsyncPlain], [.asyncHTTPClient]]

    /// The pipeline clients and the services without a pipeline they are compared with: the
    /// groups of the pipeline part's rounds.
    static let pipelineGroups: [[HTTPClientKind]] = [
        [.ourAsync, .headerAsync, .bearerAsync, .pipelineEmptyAsync, .pipelineHooksAsync, .pipelineLoggingAsync, .pipelineAuthRetryAsync],
        [.ourCompletion, .headerCompletion, .bearerCompletion, .pipelineEmptyCompletion, .pipelineHooksCompletion,
         .pipelineLoggingCompletion, .pipelineAuthRetryCompletion],
    ]

    /// Whether the client fetches with `async`/`await` (else with completion handlers).
    var isAsync: Bool {
        switch self {
        case .ourAsync, .ourAsyncPlain, .handAsync, .asyncHTTPClient, .pipelineEmptyAsync, .pipelineHooksAsync,
             .pipelineLoggingAsync, .pipelineAuthRetryAsync, .headerAsync, .bearerAsync:
            true
        case .ourCompletion, .handCompletion, .pipelineEmptyCompletion, .pipelineHooksCompletion, .pipelineLoggingCompletion,
             .pipelineAuthRetryCompletion, .headerCompletion, .bearerCompletion:
            false
        }
    }

    var key: String {
        switch self {
        case .ourAsync: "resourceservice-async"
        case .ourAsyncPlain: "resourceservice-async-plain"
        case .handAsync: "urlsession-async"
        case .ourCompletion: "resourceservice-completion"
        case .handCompletion: "urlsession-completion"
        case .asyncHTTPClient: "asynchttpclient"
        case .pipelineEmptyAsync: "resourceservice-pipeline-empty-async"
        case .pipelineHooksAsync: "resourceservice-pipeline-hooks-async"
        case .pipelineLoggingAsync: "resourceservice-pipeline-logging-async"
        case .pipelineAuthRetryAsync: "resourceservice-pipeline-auth-retry-async"
        case .pipelineEmptyCompletion: "resourceservice-pipeline-empty-completion"
        case .pipelineHooksCompletion: "resourceservice-pipeline-hooks-completion"
        case .pipelineLoggingCompletion: "resourceservice-pipeline-logging-completion"
        case .pipelineAuthRetryCompletion: "resourceservice-pipeline-auth-retry-completion"
        case .headerAsync: "resourceservice-header-async"
        case .headerCompletion: "resourceservice-header-completion"
        case .bearerAsync: "resourceservice-bearer-async"
        case .bearerCompletion: "resourceservice-bearer-completion"
        }
    }
}

/// The pipeline targets: a service made from a `ResourcePipeline` against one made with
/// `ResourceService(session:)` over the same transport, sending the same request: a pipeline
/// whose adapter sets a header against a resource that sets it in its `headerFields`, one whose
/// credential store signs the request against a resource that sends the same `Authorization`.
/// Bounds: at most 2% more for an empty pipeline, 5% for one adapter and one monitor, or for a
/// credential store and a retry policy.
let pipelineComparisons: [(name: String, kind: HTTPClientKind, reference: HTTPClientKind, bound: Double)] = [
    ("http.pipeline_empty_async_c1_vs_resourceservice", .pipelineEmptyAsync, .ourAsync, 0.98),
    ("http.pipeline_empty_completion_c1_vs_resourceservice", .pipelineEmptyCompletion, .ourCompletion, 0.98),
    ("http.pipeline_hooks_async_c1_vs_resourceservice", .pipelineHooksAsync, .headerAsync, 0.95),
    ("http.pipeline_hooks_completion_c1_vs_resourceservice", .pipelineHooksCompletion, .headerCompletion, 0.95),
    ("http.pipeline_logging_async_c1_vs_resourceservice", .pipelineLoggingAsync, .headerAsync, 0.95),
    ("http.pipeline_logging_completion_c1_vs_resourceservice", .pipelineLoggingCompletion, .headerCompletion, 0.95),
    ("http.pipeline_auth_retry_async_c1_vs_resourceservice", .pipelineAuthRetryAsync, .bearerAsync, 0.95),
    ("http.pipeline_auth_retry_completion_c1_vs_resourceservice", .pipelineAuthRetryCompletion, .bearerCompletion, 0.95),
]

/// `CityList` whose request carries the header the pipeline clients' adapter sets: what that
/// header costs without a pipeline.
struct CityListWithHeader: NetworkResourceType, JSONDecodableResourceType {
    typealias Root = CitiesRoot
    let url: URL
    func model(from root: Root) -> [City] { root.cities }

    var headerFields: [String: String] { ["X-Bench-Client": "resourceloader-bench"] }
}

/// `CityList` whose request carries the `Authorization` the pipeline clients' credential store
/// signs with: what that header costs without a pipeline.
struct CityListWithBearer: NetworkResourceType, JSONDecodableResourceType {
    typealias Root = CitiesRoot
    let url: URL
    func model(from root: Root) -> [City] { root.cities }

    var headerFields: [String: String] { ["Authorization": "Bearer bench-token"] }
}

/// A monitor that does nothing: what the pipeline itself costs for one monitor.
struct SilentMonitor: FetchMonitor {}

/// The simplest bearer-token authenticator: puts the token on every request; never refreshes,
/// since nginx never answers 401 here.
struct BenchBearerAuthenticator: Authenticator {
    func apply(_ token: String, to request: inout URLRequest) {
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ token: String, through pipeline: ResourcePipeline) async throws -> String {
        token
    }
}

/// What one load run measured.
struct LoadResult {
    var requestsPerSecond: Double
    var p50: Double
    var p99: Double
    var cpuPerRequest: Double
    var failures: Int
}

extension LoadResult {
    /// Several runs of the same size as one: requests per second over their total time, CPU
    /// per request averaged, the median of their medians and the worst of their 99th
    /// percentiles.
    init(combining parts: [LoadResult]) {
        let seconds = parts.reduce(0) { $0 + 1 / $1.requestsPerSecond }
        self.init(
            requestsPerSecond: Double(parts.count) / seconds, p50: median(parts.map(\.p50)),
            p99: parts.map(\.p99).max() ?? .nan, cpuPerRequest: parts.reduce(0) { $0 + $1.cpuPerRequest } / Double(parts.count),
            failures: parts.reduce(0) { $0 + $1.failures })
    }
}

/// The clients of one run, each created once and reused (warm connections), sharing one
/// URLSession configuration: `.ephemeral`.
final class HTTPClients: @unchecked Sendable {
    // Immutable after init.
    let url: URL
    let expectedCount: Int
    /// What ResourceService uses by default: the delegate-backed transport that enforces the
    /// limits, over the same ephemeral configuration as the hand-written code.
    let ourSession: URLSessionTransport
    let handSession: URLSession
    let service: ResourceService<CityList>
    let plainService: ResourceService<CityList>
    /// Through a pipeline with nothing configured.
    let emptyPipelineService: ResourceService<CityList>
    /// Through a pipeline with one adapter setting a header and one monitor that does nothing.
    let hooksPipelineService: ResourceService<CityList>
    /// The same adapter, and `LoggingFetchMonitor` with a sink that discards its lines.
    let loggingPipelineService: ResourceService<CityList>
    /// Through a pipeline with a credential store (a bearer token, never refreshed) and the
    /// default `RetryPolicy()` (3 attempts; never used, since every answer is a 200).
    let authRetryPipelineService: ResourceService<CityList>
    /// Without a pipeline, for a resource that sets the adapter's header itself.
    let headerService: ResourceService<CityListWithHeader>
    /// Without a pipeline, for a resource that sends the credential store's `Authorization`.
    let bearerService: ResourceService<CityListWithBearer>
    let httpClient: HTTPClient
    let callbackQueue = DispatchQueue(label: "bench.callbacks", attributes: .concurrent)

    init(url: URL, expectedCount: Int) {
        self.url = url
        self.expectedCount = expectedCount
        ourSession = URLSessionTransport(configuration: .ephemeral)
        handSession = URLSession(configuration: .ephemeral)
        service = ResourceService(session: ourSession)
        plainService = ResourceService(session: handSession)
        let header = ClosureRequestAdapter { request in
            var request = request
            request.setValue("resourceloader-bench", forHTTPHeaderField: "X-Bench-Client")
            return request
        }
        headerService = ResourceService(session: ourSession)
        bearerService = ResourceService(session: ourSession)
        emptyPipelineService = ResourceService(pipeline: ResourcePipeline(session: ourSession))
        hooksPipelineService = ResourceService(pipeline: ResourcePipeline(session: ourSession, adapters: [header], monitors: [SilentMonitor()]))
        loggingPipelineService = ResourceService(pipeline: ResourcePipeline(
            session: ourSession, adapters: [header], monitors: [LoggingFetchMonitor(sink: { _ in })]))
        authRetryPipelineService = ResourceService(pipeline: ResourcePipeline(
            session: ourSession, credentials: CredentialStore(authenticator: BenchBearerAuthenticator(), credential: "bench-token"),
            retryPolicy: RetryPolicy()))
        httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    func shutdown() throws {
        handSession.invalidateAndCancel()
        let client = httpClient
        try blocking { try await client.shutdown() }
    }

    /// Runs `total` fetches with `kind` at `concurrency` and measures them.
    func load(_ kind: HTTPClientKind, concurrency: Int, total: Int) throws -> LoadResult {
        let state = LoadState(total: total)
        let cpuBefore = processCPUSeconds()
        let start = now()
        if kind.isAsync {
            try blocking { [self] in
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<concurrency {
                        group.addTask {
                            while state.claim() {
                                let begin = now()
                                let ok = await self.fetchAsync(kind)
                                state.record(latencyNanoseconds: now() - begin, ok: ok)
                            }
                        }
                    }
                }
            }
        } else {
            let done = DispatchGroup()
            for _ in 0..<concurrency {
                done.enter()
                startNext(kind, state: state, done: done)
            }
            done.wait()
        }
        let seconds = Double(now() - start) / 1e9
        let cpu = processCPUSeconds() - cpuBefore
        let (latencies, failures) = state.snapshot
        let sorted = latencies.sorted()
        return LoadResult(
            requestsPerSecond: Double(total) / seconds, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99),
            cpuPerRequest: cpu / Double(total), failures: failures)
    }

    private func startNext(_ kind: HTTPClientKind, state: LoadState, done: DispatchGroup) {
        guard state.claim() else {
            done.leave()
            return
        }
        let begin = now()
        let next: @Sendable (Bool) -> Void = { ok in
            state.record(latencyNanoseconds: now() - begin, ok: ok)
            self.startNext(kind, state: state, done: done)
        }
        let expectedCount = expectedCount
        switch kind {
        case .ourCompletion:
            service.fetch(CityList(url: url), callbackQueue: callbackQueue) { result in
                next((try? result.get())?.count == expectedCount)
            }
        case .pipelineEmptyCompletion:
            emptyPipelineService.fetch(CityList(url: url), callbackQueue: callbackQueue) { result in
                next((try? result.get())?.count == expectedCount)
            }
        case .pipelineHooksCompletion:
            hooksPipelineService.fetch(CityList(url: url), callbackQueue: callbackQueue) { result in
                next((try? result.get())?.count == expectedCount)
            }
        case .pipelineLoggingCompletion:
            loggingPipelineService.fetch(CityList(url: url), callbackQueue: callbackQueue) { result in
                next((try? result.get())?.count == expectedCount)
            }
        case .pipelineAuthRetryCompletion:
            authRetryPipelineService.fetch(CityList(url: url), callbackQueue: callbackQueue) { result in
                next((try? result.get())?.count == expectedCount)
            }
        case .headerCompletion:
            headerService.fetch(CityListWithHeader(url: url), callbackQueue: callbackQueue) { result in
                next((try? result.get())?.count == expectedCount)
            }
        case .bearerCompletion:
            bearerService.fetch(CityListWithBearer(url: url), callbackQueue: callbackQueue) { result in
                next((try? result.get())?.count == expectedCount)
            }
        case .handCompletion:
            // What a careful user writes without a library: check the status, decode the body.
            handSession.dataTask(with: URLRequest(url: url)) { data, response, error in
                guard error == nil, let response = response as? HTTPURLResponse, (200..<300).contains(response.statusCode),
                    let data, let root = try? JSONDecoder().decode(CitiesRoot.self, from: data)
                else { return next(false) }
                next(root.cities.count == expectedCount)
            }.resume()
        default:
            preconditionFailure("not a completion client")
        }
    }

    private func fetchAsync(_ kind: HTTPClientKind) async -> Bool {
        switch kind {
        case .ourAsync:
            return (try? await service.fetch(CityList(url: url)))?.count == expectedCount
        case .ourAsyncPlain:
            return (try? await plainService.fetch(CityList(url: url)))?.count == expectedCount
        case .pipelineEmptyAsync:
            return (try? await emptyPipelineService.fetch(CityList(url: url)))?.count == expectedCount
        case .pipelineHooksAsync:
            return (try? await hooksPipelineService.fetch(CityList(url: url)))?.count == expectedCount
        case .pipelineLoggingAsync:
            return (try? await loggingPipelineService.fetch(CityList(url: url)))?.count == expectedCount
        case .pipelineAuthRetryAsync:
            return (try? await authRetryPipelineService.fetch(CityList(url: url)))?.count == expectedCount
        case .headerAsync:
            return (try? await headerService.fetch(CityListWithHeader(url: url)))?.count == expectedCount
        case .bearerAsync:
            return (try? await bearerService.fetch(CityListWithBearer(url: url)))?.count == expectedCount
        case .handAsync:
            guard let (data, response) = try? await handSession.data(for: URLRequest(url: url)),
                let response = response as? HTTPURLResponse, (200..<300).contains(response.statusCode),
                let root = try? JSONDecoder().decode(CitiesRoot.self, from: data)
            else { return false }
            return root.cities.count == expectedCount
        case .asyncHTTPClient:
            do {
                let response = try await httpClient.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
                guard response.status == .ok else { return false }
                let body = try await response.body.collect(upTo: 1 << 24)
                let root = try JSONDecoder().decode(CitiesRoot.self, from: Data(body.readableBytesView))
                return root.cities.count == expectedCount
            } catch {
                return false
            }
        default:
            preconditionFailure("not an async client")
        }
    }
}
