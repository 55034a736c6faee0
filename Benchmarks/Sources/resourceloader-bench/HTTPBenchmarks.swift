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

    /// Every client once, each target's two side by side: the groups a run's rounds are made of.
    static let pairedGroups: [[HTTPClientKind]] = [[.ourAsync, .handAsync], [.ourCompletion, .handCompletion], [.ourAsyncPlain], [.asyncHTTPClient]]

    var key: String {
        switch self {
        case .ourAsync: "resourceservice-async"
        case .ourAsyncPlain: "resourceservice-async-plain"
        case .handAsync: "urlsession-async"
        case .ourCompletion: "resourceservice-completion"
        case .handCompletion: "urlsession-completion"
        case .asyncHTTPClient: "asynchttpclient"
        }
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
    let httpClient: HTTPClient
    let callbackQueue = DispatchQueue(label: "bench.callbacks", attributes: .concurrent)

    init(url: URL, expectedCount: Int) {
        self.url = url
        self.expectedCount = expectedCount
        ourSession = URLSessionTransport(configuration: .ephemeral)
        handSession = URLSession(configuration: .ephemeral)
        service = ResourceService(session: ourSession)
        plainService = ResourceService(session: handSession)
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
        switch kind {
        case .ourAsync, .ourAsyncPlain, .handAsync, .asyncHTTPClient:
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
        case .ourCompletion, .handCompletion:
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
