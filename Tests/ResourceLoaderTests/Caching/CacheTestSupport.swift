import Foundation
import ResourceLoader
import ResourceLoaderTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The date the cache's rules read, moved by hand: the injected clock of the cache's tests.
final class TestDate: @unchecked Sendable {
    // `lock` guards `date`.
    private let lock = NSLock()
    private var date: Date

    init(_ date: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.date = date
    }

    var now: Date { lock.withLock { date } }

    func advance(by seconds: TimeInterval) {
        lock.withLock { date = date.addingTimeInterval(seconds) }
    }

    /// `now` moved by `seconds`, as an HTTP-date.
    func httpDate(_ seconds: TimeInterval = 0) -> String {
        CacheTesting.httpDate(now.addingTimeInterval(seconds))
    }
}

enum CacheTesting {
    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func request(_ url: String = "http://origin.test/a", method: String = "GET", headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    static func response(
        status: Int = 200,
        headers: [String: String] = [:],
        body: String = "",
        requestDate: Date,
        responseDate: Date? = nil
    ) -> CachedResponse {
        CachedResponse(
            statusCode: status, url: URL(string: "http://origin.test/a"),
            headerFields: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: Data(body.utf8), requestDate: requestDate, responseDate: responseDate ?? requestDate
        )
    }

    static func head(status: Int = 200, headers: [String: String] = [:], url: String = "http://origin.test/a") -> ResponseHead {
        ResponseHead(statusCode: status, url: URL(string: url), headerFields: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}

/// An origin server as a transport: answers each request from a script, in order (the last
/// answer repeats), and records the requests it got.
final class ScriptedOrigin: HTTPTransport, @unchecked Sendable {
    enum Answer {
        case response(status: Int, headers: [String: String], body: String)
        /// A response whose header fields keep their order, and may repeat a name.
        case fields(status: Int, fields: [(name: String, value: String)], body: String)
        case failure(URLError.Code)
    }

    // `lock` guards `answers` and `requests`.
    private let lock = NSLock()
    private var answers: [Answer]
    private var requests: [URLRequest] = []

    init(_ answers: [Answer] = []) {
        self.answers = answers
    }

    /// Adds answers to the script.
    func enqueue(_ answer: Answer) {
        lock.withLock { answers.append(answer) }
    }

    func enqueue(status: Int = 200, headers: [String: String] = [:], body: String = "") {
        enqueue(.response(status: status, headers: headers, body: body))
    }

    var receivedRequests: [URLRequest] { lock.withLock { requests } }
    var requestCount: Int { lock.withLock { requests.count } }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        let answer = lock.withLock { () -> Answer in
            requests.append(request)
            return answers.count > 1 ? answers.removeFirst() : answers.first ?? .failure(.cannotConnectToHost)
        }
        DispatchQueue.global().async {
            switch answer {
            case .failure(let code):
                receiver.transferDidComplete(with: URLError(code))
            case .response(let status, let headers, let body):
                let fields = headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                Self.deliver(ResponseHead(statusCode: status, url: request.url, headerFields: fields), body: body, for: request, to: receiver)
            case .fields(let status, let fields, let body):
                Self.deliver(ResponseHead(statusCode: status, url: request.url, headerFields: fields), body: body, for: request, to: receiver)
            }
        }
        return Nothing()
    }

    /// Hands `head` and `body` (none for a `HEAD` request) to `receiver`, as a transport does.
    private static func deliver(_ head: ResponseHead, body: String, for request: URLRequest, to receiver: any TransferReceiver) {
        if case .stop(let error) = receiver.transferDidReceive(head: head) {
            receiver.transferDidComplete(with: error)
            return
        }
        if !body.isEmpty, !request.isHEADRequest, case .stop(let error) = receiver.transferDidReceive(Data(body.utf8)) {
            receiver.transferDidComplete(with: error)
            return
        }
        receiver.transferDidComplete(with: nil)
    }

    private final class Nothing: Cancellable {
        func cancel() {}
    }
}

/// A transport in front of an origin that, once closed, holds every transfer until it is opened
/// again: what a test does meanwhile happens while those requests are in flight.
final class GatedTransport: HTTPTransport, @unchecked Sendable {
    private typealias Transfer = (id: Int, request: URLRequest, options: TransferOptions, receiver: any TransferReceiver)

    private let origin: any HTTPTransport
    // `lock` guards `held`, `heldSoFar` and `isOpen`.
    private let lock = NSLock()
    private var held: [Transfer] = []
    private var heldSoFar = 0
    private var isOpen = true

    init(_ origin: any HTTPTransport) {
        self.origin = origin
    }

    /// The transfers held so far, including those cancelled or let through since.
    var heldCount: Int { lock.withLock { heldSoFar } }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        let id = lock.withLock { () -> Int? in
            guard !isOpen else { return nil }
            heldSoFar += 1
            held.append((heldSoFar, request, options, receiver))
            return heldSoFar
        }
        guard let id else { return origin.startTransfer(request, options: options, receiver: receiver) }
        return Held { [weak self] in self?.cancel(id) }
    }

    /// Holds the transfers started from now on.
    func close() {
        lock.withLock { isOpen = false }
    }

    /// Lets the held transfers, and every later one, through.
    func open() {
        let pending = lock.withLock { () -> [Transfer] in
            isOpen = true
            defer { held = [] }
            return held
        }
        for transfer in pending { _ = origin.startTransfer(transfer.request, options: transfer.options, receiver: transfer.receiver) }
    }

    /// Ends a held transfer that was cancelled, as a transport does: with a cancellation.
    private func cancel(_ id: Int) {
        let transfer = lock.withLock { () -> Transfer? in
            guard let index = held.firstIndex(where: { $0.id == id }) else { return nil }
            return held.remove(at: index)
        }
        transfer?.receiver.transferDidComplete(with: URLError(.cancelled))
    }

    private final class Held: Cancellable {
        let onCancel: @Sendable () -> Void
        init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
        func cancel() { onCancel() }
    }
}

/// A transport in front of an origin that follows redirects below the cache, as a transport
/// does: a request whose method and URL (`"PUT http://origin.test/a"`) `redirects` lists goes to
/// the URL it names instead, with its method, fields and body (a `307` or `308` resend), and the
/// answer carries that URL.
struct RedirectingTransport: HTTPTransport {
    let origin: any HTTPTransport
    let redirects: [String: String]

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        var request = request
        let method = (request.httpMethod ?? "GET").uppercased()
        if let url = request.url, let target = redirects[method + " " + url.absoluteString] { request.url = URL(string: target) }
        return origin.startTransfer(request, options: options, receiver: receiver)
    }
}

/// Waits, a few milliseconds at a time and ten seconds at most, until `condition` holds; says
/// whether it did.
func eventually(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<1_000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

extension URLRequest {
    var isHEADRequest: Bool { httpMethod?.uppercased() == "HEAD" }
}

/// A cache over a scripted origin, with a clock moved by hand, and a way to send one request
/// through it and read the whole answer.
struct CacheHarness {
    let origin: ScriptedOrigin
    let date: TestDate
    let cache: HTTPCache
    let transport: CachingTransport
    /// The gate between the cache and the origin, when the harness was made with one.
    let gate: GatedTransport?

    init(
        mode: CachePolicy.Mode = .private,
        store: any HTTPCacheStore = MemoryCacheStore(byteLimit: 1 << 20),
        staleIfErrorLimit: Duration? = nil,
        heuristicLimit: TimeInterval = 7 * 86_400,
        gated: Bool = false,
        redirects: [String: String] = [:]
    ) {
        origin = ScriptedOrigin()
        date = TestDate()
        cache = HTTPCache(store: store, policy: CachePolicy(mode: mode, heuristicLimit: heuristicLimit), staleIfErrorLimit: staleIfErrorLimit)
        let date = date
        gate = gated ? GatedTransport(origin) : nil
        let base: any HTTPTransport = gate ?? origin
        transport = CachingTransport(
            wrapping: redirects.isEmpty ? base : RedirectingTransport(origin: base, redirects: redirects), cache: cache, now: { date.now })
    }

    struct Answer {
        let status: Int
        let head: ResponseHead
        let body: String
    }

    /// Sends `request` through the cache, with `options`, and returns the whole answer.
    func send(_ request: URLRequest, options: TransferOptions = TransferOptions()) async throws -> Answer {
        let transport = transport
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<(Data, ResponseHead), any Error>, Never>) in
            let collector = ResponseCollector(maximumBytes: 1 << 20, ignoresDeclaredLength: request.isHEADRequest) { continuation.resume(returning: $0) }
            _ = transport.startTransfer(request, options: options, receiver: collector)
        }
        let (data, head) = try result.get()
        return Answer(status: head.statusCode, head: head, body: String(decoding: data, as: UTF8.self))
    }

    func get(_ url: String = "http://origin.test/a", headers: [String: String] = [:]) async throws -> Answer {
        try await send(CacheTesting.request(url, headers: headers))
    }
}

// MARK: - Real transfers: the loopback server

/// The answers of a loopback server, in order (the last repeats), and the requests it got.
final class LoopbackScript: @unchecked Sendable {
    // `lock` guards `answers` and `requests`.
    private let lock = NSLock()
    private var answers: [LoopbackHTTPServer.Response] = []
    private var requests: [LoopbackHTTPServer.Request] = []

    /// Adds an answer to the script.
    func enqueue(_ answer: LoopbackHTTPServer.Response) {
        lock.withLock { answers.append(answer) }
    }

    /// The next answer, with `request` recorded; a `500` once the script is empty.
    func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        lock.withLock {
            requests.append(request)
            return answers.count > 1 ? answers.removeFirst() : answers.first ?? .status(500)
        }
    }

    /// The requests the server got, in order.
    var receivedRequests: [LoopbackHTTPServer.Request] { lock.withLock { requests } }

    /// A `200` whose body is sent in chunks of `chunkSize` bytes (`Transfer-Encoding: chunked`),
    /// after which the connection stays open.
    static func chunked(headers: [String: String] = [:], body: Data, chunkSize: Int) -> LoopbackHTTPServer.Response {
        var bytes = head(headers.merging(["Transfer-Encoding": "chunked"]) { $1 })
        var offset = 0
        while offset < body.count {
            let chunk = body[offset..<min(offset + chunkSize, body.count)]
            bytes += Data((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Data("\r\n".utf8)
            offset += chunkSize
        }
        bytes += Data("0\r\n\r\n".utf8)
        return .script([.write(bytes)], keepingConnectionOpen: true)
    }

    /// A `200` without `Content-Length` or chunks: the body ends when the server closes the
    /// connection.
    static func endOfStream(headers: [String: String] = [:], body: Data) -> LoopbackHTTPServer.Response {
        .script([.write(head(headers.merging(["Connection": "close"]) { $1 }) + body), .close])
    }

    /// The head of a `200` with `headers` and nothing else.
    static func head(_ headers: [String: String], status: String = "200 OK") -> Data {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }
}

/// A `GET` whose model is its body as text, with header fields of the test's choosing.
struct TextResource: NetworkResourceType, DataResourceType {
    var url: URL
    var headerFields: [String: String] = [:]
    func model(from data: Data) throws -> String { String(decoding: data, as: UTF8.self) }
}

/// A private cache in a ``ResourcePipeline`` over ``URLSessionTransport`` and a loopback server
/// that answers from a script, with a ``ManualClock``: real transfers (chunks, codings, closed
/// connections) through the cache.
struct LoopbackCacheHarness {
    let script = LoopbackScript()
    let server: LoopbackHTTPServer
    let clock = ManualClock()
    let cache: HTTPCache
    let pipeline: ResourcePipeline

    /// - Parameters:
    ///   - acceptEncoding: The `Accept-Encoding` the session sends (and the platform decodes),
    ///     below the cache; `nil` for the transport's default, `identity`.
    ///   - mode: Whose cache it is. Default: private, as OkHttp's.
    ///   - monitors: The pipeline's monitors.
    init(acceptEncoding: String? = nil, mode: CachePolicy.Mode = .private, monitors: [any FetchMonitor] = []) throws {
        let script = script
        server = try LoopbackHTTPServer { script.answer($0) }
        cache = HTTPCache(store: MemoryCacheStore(byteLimit: 1 << 20), policy: CachePolicy(mode: mode))
        let configuration = URLSessionConfiguration.ephemeral
        if let acceptEncoding { configuration.httpAdditionalHeaders = ["Accept-Encoding": acceptEncoding] }
        pipeline = ResourcePipeline(session: URLSessionTransport(configuration: configuration), monitors: monitors, clock: clock, cache: cache)
    }

    /// The URL the tests fetch.
    var url: URL { server.baseURL.appendingPathComponent("a") }

    /// The pipeline's date moved by `seconds`, as an HTTP-date.
    func httpDate(_ seconds: TimeInterval = 0) -> String {
        CacheTesting.httpDate(pipeline.currentDate.addingTimeInterval(seconds))
    }

    /// Fetches ``url`` (or `path` on the server) with `headers` through the pipeline, and
    /// returns the body.
    func fetch(_ path: String? = nil, headers: [String: String] = [:]) async throws -> String {
        let target = path.map { server.baseURL.appendingPathComponent($0) } ?? url
        return try await ResourceService<TextResource>(pipeline: pipeline).fetch(TextResource(url: target, headerFields: headers))
    }

    /// The value of the field `name` in each request the server got, in order.
    func requestValues(_ name: String) -> [String?] {
        script.receivedRequests.map { $0.value(forHeaderField: name) }
    }
}
