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
    // `lock` guards `progress`, `body`, `head` and `outcome`.
    private let lock = NSLock()
    private var progress: [(sent: Int64, expected: Int64?)] = []
    private var body = Data()
    private var head: ResponseHead?
    private var continuation: CheckedContinuation<Result<(ResponseHead, Data), any Error>, Never>?
    private var outcome: Result<(ResponseHead, Data), any Error>?

    var reports: [(sent: Int64, expected: Int64?)] { lock.withLock { progress } }

    func transferDidSend(_ sent: Int64, of expected: Int64?) {
        lock.withLock { progress.append((sent, expected)) }
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
