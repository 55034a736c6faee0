import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if AsyncHTTPClient
import ResourceLoaderAsyncHTTPClient
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A resource that sends `upload` and answers with the response's body as it is.
struct Upload: NetworkResourceType, DataResourceType {
    typealias Model = Data
    var url: URL
    var httpMethod: HTTPMethod = .post
    var upload: RequestBody
    var retries: RetryPolicy?

    var body: RequestBody? { upload }

    func model(from data: Data) throws -> Data { data }

    func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy { retries ?? pipelinePolicy }
}

/// The transports that stream request bodies: ``URLSessionTransport`` and, with the
/// `AsyncHTTPClient` trait, `AsyncHTTPClientTransport`, with and without a tracer (a traced
/// client's requests go through AsyncHTTPClient's async API).
enum UploadTransport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSessionTransport
    #if AsyncHTTPClient
    case asyncHTTPClientTransport
    case tracedAsyncHTTPClientTransport
    #endif

    /// A new transport of this kind.
    var transport: any HTTPTransport {
        switch self {
        case .urlSessionTransport: URLSessionTransport()
        #if AsyncHTTPClient
        case .asyncHTTPClientTransport: AsyncHTTPClientTransport()
        case .tracedAsyncHTTPClientTransport: AsyncHTTPClientTransport(configuration: TransportUnderTest.tracingConfiguration)
        #endif
        }
    }

    /// Whether a streamed body of known length goes out with `Content-Length`: not through
    /// `URLSessionTransport` on Linux, where FoundationNetworking sends every body stream chunked.
    var declaresStreamedLength: Bool {
        #if canImport(FoundationNetworking)
        self != .urlSessionTransport
        #else
        true
        #endif
    }

    /// Checks that `request` declared a streamed body of `length` bytes as this transport does:
    /// `Content-Length`, or chunked without one. Never both.
    func expectFraming(of request: LoopbackHTTPServer.Request, length: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        if declaresStreamedLength {
            #expect(request.value(forHeaderField: "Content-Length") == String(length), sourceLocation: sourceLocation)
            #expect(request.value(forHeaderField: "Transfer-Encoding") == nil, sourceLocation: sourceLocation)
        } else {
            #expect(request.value(forHeaderField: "Content-Length") == nil, sourceLocation: sourceLocation)
            #expect(request.value(forHeaderField: "Transfer-Encoding")?.lowercased() == "chunked", sourceLocation: sourceLocation)
        }
    }

    var testDescription: String { rawValue }
}

/// Records the request body's progress and collects the response, for calling a transport
/// directly.
final class ProgressRecorder: TransferReceiver, @unchecked Sendable {
    // `lock` guards `progress`, `reportsAfterHead`, `body`, `head` and `outcome`.
    private let lock = NSLock()
    private var progress: [(sent: Int64, expected: Int64?)] = []
    private var reportsAfterHead = 0
    private var body = Data()
    private var head: ResponseHead?
    private var continuation: CheckedContinuation<Result<(ResponseHead, Data), any Error>, Never>?
    private var outcome: Result<(ResponseHead, Data), any Error>?

    var reports: [(sent: Int64, expected: Int64?)] { lock.withLock { progress } }

    /// How many of the ``reports`` came after the head.
    var sendsAfterHead: Int { lock.withLock { reportsAfterHead } }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        lock.withLock {
            progress.append((sent, expected))
            if head != nil { reportsAfterHead += 1 }
        }
    }

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        lock.withLock { self.head = head }
        return .proceed
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        lock.withLock { body.append(chunk) }
        return .proceed
    }

    func transferDidReceive(codedByteCount: Int) {}

    func transferDidComplete(with error: (any Error)?) {
        let (result, waiter) = lock.withLock { () -> (Result<(ResponseHead, Data), any Error>, CheckedContinuation<Result<(ResponseHead, Data), any Error>, Never>?) in
            let result: Result<(ResponseHead, Data), any Error>
            if let error {
                result = .failure(error)
            } else if let head {
                result = .success((head, body))
            } else {
                result = .failure(URLError(.badServerResponse))
            }
            outcome = result
            defer { continuation = nil }
            return (result, continuation)
        }
        waiter?.resume(returning: result)
    }

    /// The transfer's outcome, once it completes.
    var result: Result<(ResponseHead, Data), any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = lock.withLock { () -> Result<(ResponseHead, Data), any Error>? in
                    if outcome == nil { self.continuation = continuation }
                    return outcome
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// The paths of the files this process has open, from `/proc/self/fd`.
func openFilePaths() -> [String] {
    let directory = "/proc/self/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)") }
}

/// The number of file descriptors this process has open, or `nil` without `/proc`.
func openDescriptorCount() -> Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map(\.count)
}

/// An `AsyncStream` of `chunks`.
func chunkStream(_ chunks: [Data]) -> AsyncStream<Data> {
    AsyncStream { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
    }
}

/// A listening socket on 127.0.0.1 that never accepts: a client's connection completes and its
/// bytes fill the kernel's buffers, then the client's sending stalls. Closed when released.
final class StallingListener: Sendable {
    let port: UInt16
    private let socket: Int32

    init() throws {
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw URLError(.cannotConnectToHost) }
        var receiveBuffer: Int32 = 4096
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            close(descriptor)
            throw URLError(.cannotConnectToHost)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        socket = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/upload")! }

    deinit {
        close(socket)
    }
}

/// The SHA-256 of a file, in hex, from `sha256sum` (run off the cooperative pool); `nil` without
/// it.
func sha256Hex(of url: URL) async throws -> String? {
    try await offTheCooperativePool { sha256HexBlocking(of: url) }
}

private func sha256HexBlocking(of url: URL) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum", url.path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init)
}

/// Fetches `resource` through `transport` (or `service`), within a time limit: its outcome, or
/// `nil` if the limit passed first (an issue is recorded then).
func upload(
    _ resource: Upload, through transport: any HTTPTransport, limit: Duration = .seconds(60)
) async -> Result<Data, ResourceError>? {
    await upload(resource, with: ResourceService<Upload>(session: transport), limit: limit)
}

/// Fetches `resource` with `service`, within a time limit.
func upload(
    _ resource: Upload, with service: ResourceService<Upload>, limit: Duration = .seconds(60)
) async -> Result<Data, ResourceError>? {
    await withTimeLimit(limit) { () async -> Result<Data, ResourceError> in
        do throws(ResourceError) {
            return .success(try await service.fetch(resource))
        } catch {
            return .failure(error)
        }
    }
}

/// A server on 127.0.0.1 that takes one upload, reads it up to `pieceSize` bytes at a time with
/// `pause` between pieces, and records whether the body arrived whole: a chunked body's last
/// (zero-length) chunk and trailer section, or every byte a `Content-Length` declared. It writes
/// `answer`, if any, as soon as it has read the request's head (after `100 Continue` when the
/// request expects it), and goes on reading the body; with `answersOnceWhole`, only once the body
/// is whole. Every loop is bounded: it stops when the body is whole, when the client closes the
/// connection, at ``stop()`` and after `limit`.
final class UploadFramingServer: @unchecked Sendable {
    /// What the server saw of the upload.
    struct Outcome: Sendable {
        /// The body bytes read (chunk data, not the chunks' framing).
        var bodyBytes: Int64 = 0
        /// Whether the body's framing said it was whole.
        var isComplete = false
        /// Whether the connection is over (the client closed it, or the body was whole).
        var hasEnded = false
    }

    let port: UInt16
    private let socket: Int32
    private let state = Guarded<(outcome: Outcome, isStopped: Bool)>((Outcome(), false))

    init(
        answer: Data? = nil, answersOnceWhole: Bool = false, pieceSize: Int = 256 * 1024, pause: Duration = .zero,
        limit: Duration = .seconds(90)
    ) throws {
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw URLError(.cannotConnectToHost) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            close(descriptor)
            throw URLError(.cannotConnectToHost)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        socket = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in
            serve(answer: answer, answersOnceWhole: answersOnceWhole, pieceSize: pieceSize, pause: pause, until: ContinuousClock.now + limit)
            state.withLock { $0.outcome.hasEnded = true }
        }
        thread.name = "UploadFramingServer"
        thread.start()
    }

    deinit {
        close(socket)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/upload")! }

    /// What the server has seen so far.
    var outcome: Outcome { state.withLock { $0.outcome } }

    /// Ends the server's loops at their next turn.
    func stop() {
        state.withLock { $0.isStopped = true }
    }

    /// What the server saw, once the connection is over (waiting at most a minute).
    func outcomeOnceEnded() async -> Outcome {
        _ = await withTimeLimit { [self] in
            while !outcome.hasEnded {
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return }
            }
        }
        return outcome
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    private func serve(answer: Data?, answersOnceWhole: Bool, pieceSize: Int, pause: Duration, until deadline: ContinuousClock.Instant) {
        var client: Int32 = -1
        while client < 0 {
            guard !isStopped, ContinuousClock.now < deadline else { return }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            client = accept(socket, nil, nil)
        }
        defer { close(client) }
        var parser = UploadFramingParser()
        var piece = [UInt8](repeating: 0, count: pieceSize)
        while !isStopped, ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let count = recv(client, &piece, piece.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            let hadHead = parser.head != nil
            let bytes = parser.consume(piece[0..<count])
            if !hadHead, let head = parser.head {
                if head.contains("\r\nexpect: 100-continue") { _ = Self.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: client) }
                if let answer, !answersOnceWhole { _ = Self.write(answer, to: client) }
            }
            let complete = parser.isComplete
            state.withLock {
                $0.outcome.bodyBytes += bytes
                $0.outcome.isComplete = complete
            }
            if complete, answersOnceWhole, let answer { _ = Self.write(answer, to: client) }
            guard !complete, !parser.isMalformed else { return }
            if pause > .zero { Thread.sleep(forTimeInterval: pause.timeInterval) }
        }
    }
}

extension UploadFramingServer {
    fileprivate static func write(_ data: Data, to socket: Int32) -> Bool {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        return data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(socket, buffer.baseAddress! + offset, buffer.count - offset, flags)
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }
}

/// Follows the framing of one request as its bytes arrive: the head, then a chunked body or a
/// `Content-Length` one.
struct UploadFramingParser {
    private enum Stage {
        case head
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailer
        case identity(remaining: Int64)
        case complete
        case malformed
    }

    private var stage = Stage.head
    private var buffer: [UInt8] = []
    /// The request's head, lowercased, once it has arrived.
    private(set) var head: String?

    var isComplete: Bool {
        if case .complete = stage { return true }
        return false
    }

    var isMalformed: Bool {
        if case .malformed = stage { return true }
        return false
    }

    /// Takes the next bytes of the connection; returns how many of them were body bytes.
    mutating func consume(_ bytes: ArraySlice<UInt8>) -> Int64 {
        buffer.append(contentsOf: bytes)
        var body: Int64 = 0
        var offset = 0
        parsing: while true {
            switch stage {
            case .head:
                guard let end = line(from: offset, separator: [13, 10, 13, 10]) else { break parsing }
                let head = String(decoding: buffer[offset..<end], as: UTF8.self).lowercased()
                self.head = head
                offset = end + 4
                let fields = head.components(separatedBy: "\r\n").dropFirst()
                if fields.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }) {
                    stage = .chunkSize
                } else if let field = fields.first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int64(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                {
                    stage = length > 0 ? .identity(remaining: length) : .complete
                } else {
                    stage = .complete
                }
            case .chunkSize:
                guard let end = line(from: offset, separator: [13, 10]) else { break parsing }
                let text = String(decoding: buffer[offset..<end], as: UTF8.self)
                offset = end + 2
                guard let size = Int(text.split(separator: ";").first.map(String.init) ?? "", radix: 16), size >= 0 else {
                    stage = .malformed
                    break parsing
                }
                stage = size == 0 ? .trailer : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let count = min(remaining, buffer.count - offset)
                guard count > 0 else { break parsing }
                offset += count
                body += Int64(count)
                stage = count == remaining ? .chunkEnd : .chunkData(remaining: remaining - count)
            case .chunkEnd:
                guard buffer.count - offset >= 2 else { break parsing }
                guard buffer[offset] == 13, buffer[offset + 1] == 10 else {
                    stage = .malformed
                    break parsing
                }
                offset += 2
                stage = .chunkSize
            case .trailer:
                guard let end = line(from: offset, separator: [13, 10]) else { break parsing }
                stage = end == offset ? .complete : .trailer
                offset = end + 2
            case .identity(let remaining):
                let count = Int(min(remaining, Int64(buffer.count - offset)))
                guard count > 0 else { break parsing }
                offset += count
                body += Int64(count)
                stage = Int64(count) == remaining ? .complete : .identity(remaining: remaining - Int64(count))
            case .complete, .malformed:
                break parsing
            }
        }
        buffer.removeFirst(offset)
        return body
    }

    /// Where `separator` starts in the buffer at or after `offset`.
    private func line(from offset: Int, separator: [UInt8]) -> Int? {
        guard buffer.count - offset >= separator.count else { return nil }
        var index = offset
        while index + separator.count <= buffer.count {
            if buffer[index..<index + separator.count].elementsEqual(separator) { return index }
            index += 1
        }
        return nil
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
