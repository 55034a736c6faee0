import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `nginx` serving a directory on `127.0.0.1`, with its own configuration in a temporary
/// directory: a real server's range handling (`Range`, `If-Range`, `206`, `416`, `ETag`).
final class NginxServer: Sendable {
    let process: Process
    let directory: URL
    let port: UInt16
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }
    var root: URL { directory.appendingPathComponent("www") }

    /// The `nginx` executable, if there is one.
    static let executable: String? = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx"]
        .first(where: FileManager.default.isExecutableFile(atPath:))

    private init(process: Process, directory: URL, port: UInt16) {
        self.process = process
        self.directory = directory
        self.port = port
    }

    /// Starts nginx off the cooperative pool, waiting (up to five seconds a try) until it answers.
    static func start(executable: String) async throws -> NginxServer {
        try await offTheCooperativePool {
            // The port is free when chosen but may be taken before nginx binds it (by another
            // test's server or a client's ephemeral port): nginx then exits, and another port is tried.
            var lastError: any Error = POSIXError(.EADDRINUSE)
            for _ in 0..<5 {
                do { return try startWaiting(executable: executable) } catch { lastError = error }
            }
            throw lastError
        }
    }

    private static func startWaiting(executable: String) throws -> NginxServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("www"), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let port = try freePort()
        // A location only this nginx answers, so that the wait cannot end at another server that
        // took the port.
        let token = UUID().uuidString
        let configuration = """
            worker_processes 1;
            daemon off;
            master_process off;
            error_log \(directory.path)/error.log;
            pid \(directory.path)/nginx.pid;
            events { worker_connections 32; }
            http {
                access_log off;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(directory.path)/www;
                    location = /.ready-\(token) { return 200 "\(token)"; }
                }
            }
            """
        let file = directory.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", file.path, "-p", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = NginxServer(process: process, directory: directory, port: port)
        for _ in 0..<100 {
            if answers(port, token: token) { return server }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        server.stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "nginx did not start on 127.0.0.1:\(port)"])
    }

    /// Stops nginx on a thread of its own and removes its directory.
    func stop() {
        let process = process
        let directory = directory
        Thread.detachNewThread {
            if process.isRunning { process.terminate() }
            for _ in 0..<100 where process.isRunning { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A TCP socket, or a negative value.
    private static func streamSocket() -> Int32 {
        #if canImport(Glibc)
        Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func freePort() throws -> UInt16 {
        let socket = streamSocket()
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether the server on `port` answers `GET /.ready-<token>` with the token.
    private static func answers(_ port: UInt16, token: String) -> Bool {
        let request = Array("GET /.ready-\(token) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard let exchange = rawHTTPExchange(request, port: port, receiveTimeout: 2, limit: 16_384), exchange.sent == request.count else { return false }
        return exchange.answer.hasSuffix("\r\n\r\n\(token)")
    }
}
