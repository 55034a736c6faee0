import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on `127.0.0.1` for integration tests and demos.
///
/// It listens on an ephemeral port of the loopback interface only and answers each request with
/// what `handler` returns: an ordinary response, or a scripted sequence of raw writes, pauses, a
/// close or a reset, for testing how a client copes with a misbehaving server.
///
/// ```swift
/// let server = try LoopbackHTTPServer { request in
///     request.path == "/europe.json"
///         ? .json(#"{"cities": [{"name": "Lisbon"}]}"#)
///         : .status(404)
/// }
/// defer { server.stop() }
/// let url = server.baseURL.appendingPathComponent("europe.json")
/// ```
///
/// Everything is bounded so a test cannot hang on it: request heads and bodies have size limits,
/// an idle connection is closed after ``Limits/idleTimeout``, a connection serves at most
/// ``Limits/maximumRequestsPerConnection`` requests, and ``stop()`` ends every connection,
/// including those paused in a script. A script also ends as soon as the client closes the
/// connection, even during a pause, so ``openConnectionCount`` shows when a client gave up.
public final class LoopbackHTTPServer: Sendable {
    /// Bounds on what the server accepts and how long it waits.
    public struct Limits: Sendable {
        /// The largest request head (request line and headers) read, in bytes, and the largest
        /// trailer section of a chunked request body. Default: 64 KiB.
        public var maximumHeadBytes = 64 * 1024
        /// The largest request body read, in bytes, sized by `Content-Length` or sent chunked.
        /// Default: 16 MiB.
        public var maximumBodyBytes = 16 * 1024 * 1024
        /// How long a connection may sit idle before the server closes it; a duration under a
        /// millisecond (zero, which a socket reads as no timeout, included) is taken as one
        /// millisecond. Default: 30 s.
        public var idleTimeout: Duration = .seconds(30)
        /// The most requests one connection serves before the server closes it. Default: 10,000.
        public var maximumRequestsPerConnection = 10_000

        /// The default limits.
        public init() {}
    }

    /// The port the server listens on, on `127.0.0.1`.
    public var port: UInt16 { core.port }
    /// `http://127.0.0.1:<port>/`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    // The accept and connection threads hold the core, not this object, so that releasing the
    // last reference to the server stops it.
    private let core: Core

    /// Starts a server on an ephemeral port of `127.0.0.1`.
    ///
    /// - Parameters:
    ///   - limits: Bounds on requests and connections.
    ///   - handler: Called once per request, on the connection's thread, with the request;
    ///     returns the response.
    /// - Throws: ``ServerError`` if the socket cannot be set up.
    public init(limits: Limits = Limits(), handler: @escaping @Sendable (Request) -> Response) throws {
        core = try Core(limits: limits, handler: handler)
        let thread = Thread { [core] in core.acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    deinit {
        core.stop()
    }

    /// How many requests the server has received so far.
    public var requestCount: Int { core.requestCount }

    /// How many client connections are open now. A test can wait for it to reach zero to check
    /// that a client really closed a connection (for example after cancelling a transfer).
    public var openConnectionCount: Int { core.openConnectionCount }

    /// Stops listening and ends every connection. Waits (up to 5 seconds) for the connection
    /// threads to finish. Calling it again does nothing; releasing the server calls it too.
    public func stop() {
        core.stop()
    }
}

extension LoopbackHTTPServer {
    /// The listening socket, the connections and the request loop.
    private final class Core: @unchecked Sendable {
        let port: UInt16
        private let listener: Int32
        private let handler: @Sendable (Request) -> Response
        private let limits: Limits
        private let connections = DispatchGroup()
        // `lock` guards `isStopped`, `openSockets` and `requests`.
        private let lock = NSLock()
        private var isStopped = false
        private var openSockets: Set<Int32> = []
        private var requests = 0

        init(limits: Limits, handler: @escaping @Sendable (Request) -> Response) throws(ServerError) {
            self.handler = handler
            self.limits = limits
            (listener, port) = try Socket.bindLoopback(listening: true)
        }

        var requestCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return requests
        }

        var openConnectionCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return openSockets.count
        }

        func stop() {
            lock.lock()
            let wasStopped = isStopped
            isStopped = true
            let sockets = openSockets
            lock.unlock()
            guard !wasStopped else { return }
            for socket in sockets { _ = shutdown(socket, Int32(SHUT_RDWR)) }
            _ = connections.wait(timeout: .now() + 5)
        }

        private var stopped: Bool {
            lock.lock()
            defer { lock.unlock() }
            return isStopped
        }

        func acceptLoop() {
            defer { close(listener) }
            while !stopped {
                var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) > 0 else { continue }
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                Socket.configure(client, idleTimeout: limits.idleTimeout)
                lock.lock()
                if isStopped {
                    lock.unlock()
                    close(client)
                    return
                }
                openSockets.insert(client)
                connections.enter()
                lock.unlock()
                let thread = Thread { [self] in
                    serve(client)
                    lock.lock()
                    openSockets.remove(client)
                    lock.unlock()
                    close(client)
                    connections.leave()
                }
                thread.name = "LoopbackHTTPServer.connection"
                thread.start()
            }
        }

        private func serve(_ client: Int32) {
            var reader = Socket.Reader(socket: client)
            for _ in 0..<limits.maximumRequestsPerConnection {
                guard !stopped, let request = reader.readRequest(limits: limits) else { return }
                lock.lock()
                requests += 1
                lock.unlock()
                let response = handler(request)
                for step in response.steps {
                    switch step {
                    case .write(let bytes):
                        guard Socket.write(bytes, to: client) else { return }
                    case .pause(let duration):
                        guard pause(for: duration, on: client) else { return }
                    case .close:
                        return
                    case .reset:
                        Socket.reset(client)
                        return
                    }
                }
                if !response.keepsConnectionOpen || !request.wantsKeepAlive { return }
            }
        }

        /// Sleeps in short slices so that ``stop()`` is not held up; `false` if stopped or if the
        /// client closed the connection meanwhile.
        private func pause(for duration: Duration, on client: Int32) -> Bool {
            let end = ContinuousClock.now + duration
            while ContinuousClock.now < end {
                if stopped || Socket.peerHasClosed(client) { return false }
                Thread.sleep(forTimeInterval: min(0.01, max(0, (end - ContinuousClock.now).seconds)))
            }
            return !stopped
        }
    }
}

// MARK: - Requests and responses

extension LoopbackHTTPServer {
    /// A request as the server received it.
    public struct Request: Sendable {
        /// The method, for example `"GET"`.
        public let method: String
        /// The request target as sent: the path with its query, still percent-encoded.
        public let target: String
        /// The header fields in the order they arrived, names as sent.
        public let headerFields: [(name: String, value: String)]
        /// The body (empty when there is none).
        public let body: Data
        let wantsKeepAlive: Bool

        /// The path part of ``target``, percent-decoded.
        public var path: String {
            let raw = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
            return raw.removingPercentEncoding ?? raw
        }

        /// The query items of ``target``, percent-decoded.
        public var queryItems: [URLQueryItem] {
            URLComponents(string: target)?.queryItems ?? []
        }

        /// The value of the first header field called `name`, compared case-insensitively.
        public func value(forHeaderField name: String) -> String? {
            headerFields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// One step of a scripted response.
    public enum Step: Sendable {
        /// Writes these bytes to the connection.
        case write(Data)
        /// Waits this long before the next step.
        case pause(Duration)
        /// Closes the connection normally.
        case close
        /// Resets the connection (TCP RST) instead of closing it normally.
        case reset
    }

    /// What the server does in answer to one request.
    public struct Response: Sendable {
        /// The steps, in order.
        public let steps: [Step]
        let keepsConnectionOpen: Bool

        /// A complete HTTP/1.1 response with `Content-Length`, after which the connection stays
        /// open for the next request.
        public static func status(_ statusCode: Int, headers: [String: String] = [:], body: Data = Data()) -> Response {
            var head = "HTTP/1.1 \(statusCode) \(reasonPhrase(statusCode))\r\n"
            var fields = headers
            if fields.keys.first(where: { $0.lowercased() == "content-length" }) == nil {
                fields["Content-Length"] = String(body.count)
            }
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                head += "\(name): \(value)\r\n"
            }
            head += "\r\n"
            return Response(steps: [.write(Data(head.utf8) + body)], keepsConnectionOpen: true)
        }

        /// A response with a JSON body and `Content-Type: application/json`.
        public static func json(_ text: String, status: Int = 200) -> Response {
            .status(status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
        }

        /// A response with an XML body and `Content-Type: text/xml; charset=utf-8`.
        public static func xml(_ text: String, status: Int = 200) -> Response {
            .status(status, headers: ["Content-Type": "text/xml; charset=utf-8"], body: Data(text.utf8))
        }

        /// Raw steps; the connection is closed after the last one unless `keepingConnectionOpen`
        /// is `true`, in which case the server reads the next request from it (if the client
        /// asked to keep it alive).
        public static func script(_ steps: [Step], keepingConnectionOpen: Bool = false) -> Response {
            Response(steps: steps, keepsConnectionOpen: keepingConnectionOpen)
        }

        /// The same response, after a pause.
        public func delayed(by duration: Duration) -> Response {
            Response(steps: [.pause(duration)] + steps, keepsConnectionOpen: keepsConnectionOpen)
        }

        private static func reasonPhrase(_ statusCode: Int) -> String {
            switch statusCode {
            case 200: "OK"
            case 201: "Created"
            case 204: "No Content"
            case 301: "Moved Permanently"
            case 302: "Found"
            case 303: "See Other"
            case 307: "Temporary Redirect"
            case 308: "Permanent Redirect"
            case 400: "Bad Request"
            case 404: "Not Found"
            case 500: "Internal Server Error"
            default: "Status"
            }
        }
    }

    /// A port on `127.0.0.1` that refuses every connection, for testing connection failures.
    ///
    /// It holds the port (bound, never listening) until it is released, so no other server can
    /// take it meanwhile: a port freed by stopping a server may be reused at once by a server
    /// another test starts.
    public final class RefusingPort: Sendable {
        /// The reserved port.
        public let port: UInt16
        private let socket: Int32

        /// Reserves an ephemeral port on `127.0.0.1`.
        public init() throws(ServerError) {
            (socket, port) = try Socket.bindLoopback(listening: false)
        }

        deinit {
            close(socket)
        }

        /// `http://127.0.0.1:<port>/`.
        public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }
    }

    /// Why the server could not start.
    public struct ServerError: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }
}

// MARK: - Sockets

private enum Socket {
    static func bindLoopback(listening: Bool) throws(LoopbackHTTPServer.ServerError) -> (Int32, UInt16) {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .init(description: "socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, !listening || listen(fd, 512) == 0 else {
            close(fd)
            throw .init(description: "bind/listen on 127.0.0.1 failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw .init(description: "getsockname failed: errno \(errno)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    static func configure(_ fd: Int32, idleTimeout: Duration) {
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        // A zero timeout would mean none: the shortest is a millisecond.
        let (seconds, attoseconds) = max(idleTimeout, .milliseconds(1)).components
        var timeout = timeval(tv_sec: .init(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    static func write(_ data: Data, to fd: Int32) -> Bool {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        return data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(fd, buffer.baseAddress! + offset, buffer.count - offset, flags)
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// `true` when the peer has closed or reset the connection; never blocks or consumes bytes.
    static func peerHasClosed(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        return count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Reads requests from one connection, keeping bytes that arrive ahead of time.
    struct Reader {
        let socket: Int32
        private var buffer = Data()

        init(socket: Int32) {
            self.socket = socket
        }

        /// Reads one request; `nil` when the peer closed, timed out or sent something invalid or
        /// too large.
        mutating func readRequest(limits: LoopbackHTTPServer.Limits) -> LoopbackHTTPServer.Request? {
            let separator = Data("\r\n\r\n".utf8)
            var headEnd = buffer.range(of: separator)
            while headEnd == nil {
                guard buffer.count <= limits.maximumHeadBytes, fill() else { return nil }
                headEnd = buffer.range(of: separator)
            }
            guard let headEnd, headEnd.lowerBound <= limits.maximumHeadBytes else { return nil }
            let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
            buffer = Data(buffer[headEnd.upperBound...])
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count == 3 else { return nil }
            var fields: [(name: String, value: String)] = []
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { return nil }
                fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            func field(_ name: String) -> String? {
                fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
            }
            if field("Expect")?.caseInsensitiveCompare("100-continue") == .orderedSame {
                guard Socket.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: socket) else { return nil }
            }
            let body: Data
            if let coding = field("Transfer-Encoding") {
                // Only `chunked` alone is understood; a length beside it is ignored (RFC 9112, 6.3).
                guard coding.caseInsensitiveCompare("chunked") == .orderedSame, let chunked = readChunkedBody(limits: limits) else {
                    return nil
                }
                body = chunked
            } else {
                let length = field("Content-Length").flatMap { Int($0) } ?? 0
                guard length >= 0, length <= limits.maximumBodyBytes else { return nil }
                while buffer.count < length {
                    guard fill() else { return nil }
                }
                body = Data(buffer.prefix(length))
                buffer = Data(buffer.dropFirst(length))
            }
            let version = String(requestLine[2])
            let connection = field("Connection")?.lowercased()
            let keepAlive = version == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
            return LoopbackHTTPServer.Request(
                method: String(requestLine[0]), target: String(requestLine[1]),
                headerFields: fields, body: body, wantsKeepAlive: keepAlive)
        }

        /// Reads a chunked body (RFC 9112, 7.1) and its trailer section; `nil` when it is
        /// malformed, larger than the body limit, has a trailer section larger than the head
        /// limit, or the peer goes away.
        private mutating func readChunkedBody(limits: LoopbackHTTPServer.Limits) -> Data? {
            var body = Data()
            while true {
                guard let line = readLine(limits: limits) else { return nil }
                let size = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard !size.isEmpty, size.count <= 16, let count = Int(size, radix: 16), count >= 0,
                      count <= limits.maximumBodyBytes - body.count else { return nil }
                if count == 0 { break }
                while buffer.count < count + 2 {
                    guard fill() else { return nil }
                }
                guard buffer[buffer.startIndex + count] == UInt8(ascii: "\r"), buffer[buffer.startIndex + count + 1] == UInt8(ascii: "\n") else {
                    return nil
                }
                body.append(buffer.prefix(count))
                buffer = Data(buffer.dropFirst(count + 2))
            }
            // The trailer section: fields until an empty line, bounded like a head.
            var trailerBytes = 0
            while true {
                guard let line = readLine(limits: limits) else { return nil }
                if line.isEmpty { return body }
                trailerBytes += line.utf8.count + 2
                guard trailerBytes <= limits.maximumHeadBytes else { return nil }
            }
        }

        /// Reads one line ended by CR LF, within the head limit.
        private mutating func readLine(limits: LoopbackHTTPServer.Limits) -> String? {
            let separator = Data("\r\n".utf8)
            var end = buffer.range(of: separator)
            while end == nil {
                guard buffer.count <= limits.maximumHeadBytes, fill() else { return nil }
                end = buffer.range(of: separator)
            }
            guard let end else { return nil }
            let line = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            buffer = Data(buffer[end.upperBound...])
            return line
        }

        private mutating func fill() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = recv(socket, &chunk, chunk.count, 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
        }
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
