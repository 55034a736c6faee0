import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request that is not idempotent reaches the server at most once, even when the server
/// closes a kept-alive connection after reading it, unanswered.
@Suite("Non-idempotent requests are never re-sent")
struct ResendTests {
    typealias Transport = TransportUnderTest

    /// A server that answers `GET /warm` (leaving the connection open for the next request) and
    /// closes the connection unanswered after reading the first request to `/order`; later
    /// requests to `/order` are answered.
    private final class DroppingServer: Sendable {
        let server: LoopbackHTTPServer
        private let orders = Guarded(0)

        init() throws {
            let orders = self.orders
            server = try LoopbackHTTPServer { request in
                guard request.path == "/order" else { return .status(200, body: Data("warm".utf8)) }
                let count = orders.withLock { count -> Int in
                    count += 1
                    return count
                }
                return count == 1 ? .script([.close]) : .status(200, body: Data("done".utf8))
            }
        }

        var orderCount: Int { orders.withLock { $0 } }

        func endpoint(_ path: String, method: HTTPMethod, body: String? = nil, headers: [String: String] = [:]) -> Endpoint {
            var endpoint = Endpoint(server.baseURL.appendingPathComponent(path).absoluteString)
            endpoint.httpMethod = method
            endpoint.headerFields = headers
            endpoint.requestBody = body.map { RequestBody(data: Data($0.utf8), contentType: "text/xml") }
            return endpoint
        }
    }

    @Test(arguments: Transport.enforcing, [nil, "<order/>"])
    func aPOSTOnAKeptAliveConnectionIsSentOnce(transport: Transport, body: String?) async throws {
        // GIVEN a connection kept alive by an earlier request
        let dropping = try DroppingServer()
        defer { dropping.server.stop() }
        let service = ResourceService<Endpoint>(session: transport.session)
        _ = try await service.fetch(dropping.endpoint("warm", method: .get))

        // WHEN a POST is sent and the server closes the connection without answering it
        let outcome = await withTimeLimit(.seconds(30)) {
            await service.fetchResult(dropping.endpoint("order", method: .post, body: body))
        }

        // THEN the server saw the POST once, and the fetch failed with a transport error
        #expect(dropping.orderCount == 1)
        let error = try #require(outcome?.failure)
        #expect(error.caseName == "transport", "\(error)")
    }

    @Test(arguments: Transport.enforcing)
    func aPOSTWithAnIdempotencyKeyMayBeSentAgain(transport: Transport) async throws {
        // GIVEN a connection kept alive by an earlier request, and a POST that says it is safe
        // to repeat
        let dropping = try DroppingServer()
        defer { dropping.server.stop() }
        let service = ResourceService<Endpoint>(session: transport.session)
        _ = try await service.fetch(dropping.endpoint("warm", method: .get))
        let order = dropping.endpoint("order", method: .post, headers: ["Idempotency-Key": "order-1"])

        // WHEN the server drops the first attempt
        let outcome = await withTimeLimit(.seconds(30)) { await service.fetchResult(order) }

        // THEN the fetch either succeeds on a second connection or fails, and no more than two
        // attempts reached the server
        #expect(dropping.orderCount <= 2)
        #expect(outcome != nil)
    }

    @Test(arguments: Transport.enforcing)
    func aGETOnAKeptAliveConnectionMayBeSentAgain(transport: Transport) async throws {
        // GIVEN a connection kept alive by an earlier request
        let dropping = try DroppingServer()
        defer { dropping.server.stop() }
        let service = ResourceService<Endpoint>(session: transport.session)
        _ = try await service.fetch(dropping.endpoint("warm", method: .get))

        // WHEN an idempotent request is dropped unanswered
        let outcome = await withTimeLimit(.seconds(30)) {
            await service.fetchResult(dropping.endpoint("order", method: .get))
        }

        // THEN it ends, once, and reached the server at most twice
        #expect(outcome != nil)
        #expect(dropping.orderCount <= 2)
    }

    @Test(arguments: Transport.enforcing)
    func manyPOSTsEachReachTheServerOnce(transport: Transport) async throws {
        // GIVEN a server that counts each order by its body
        let seen = Guarded<[String: Int]>([:])
        let server = try LoopbackHTTPServer { request in
            let key = String(decoding: request.body, as: UTF8.self)
            seen.withLock { $0[key, default: 0] += 1 }
            return .status(200, body: Data("ok".utf8))
        }
        defer { server.stop() }
        let service = ResourceService<Endpoint>(session: transport.session)

        // WHEN 200 POSTs go out, eight at a time
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                if index >= 8 { await group.next() }
                group.addTask {
                    var endpoint = Endpoint(server.baseURL.appendingPathComponent("order").absoluteString)
                    endpoint.httpMethod = .post
                    endpoint.requestBody = RequestBody(data: Data("order-\(index)".utf8), contentType: "text/plain")
                    _ = await service.fetchResult(endpoint)
                }
            }
        }

        // THEN each reached the server exactly once
        let counts = seen.withLock { $0 }
        #expect(counts.count == 200)
        #expect(counts.values.allSatisfy { $0 == 1 })
    }
}

extension ResourceService {
    /// The outcome of fetching `resource`, as a `Result`.
    func fetchResult(_ resource: Resource) async -> Result<Resource.Model, ResourceError> {
        do throws(ResourceError) {
            return .success(try await fetch(resource))
        } catch {
            return .failure(error)
        }
    }
}

/// A response that carries body bytes where none belong (a `HEAD`, a `204`, a `304` with
/// `Content-Length: 5` and five bytes) leaves no stray bytes for the next request on the
/// connection.
@Suite("Framing violations on a kept-alive connection")
struct FramingViolationTests {
    typealias Transport = TransportUnderTest

    /// How a response carries five bytes where no body belongs.
    enum Violation: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case head
        case noContent
        case notModified

        var method: HTTPMethod { self == .head ? .head : .get }
        var status: Int {
            switch self {
            case .head: 200
            case .noContent: 204
            case .notModified: 304
            }
        }
        var testDescription: String { rawValue }
    }

    /// The transports that see a response's head before its connection goes back to a pool.
    /// AsyncHTTPClient's async API, which a transport over a tracing client uses, hands over a
    /// response only after the client has finished with it, so the transport cannot keep its
    /// connection out of the pool (Docs/Reliability.md says so).
    static var seeingTheHeadFirst: [Transport] {
        #if AsyncHTTPClient
        Transport.enforcing.filter { $0 != .tracedAsyncHTTPClientTransport }
        #else
        Transport.enforcing
        #endif
    }

    @Test(arguments: Self.seeingTheHeadFirst, Violation.allCases)
    func theNextRequestOnTheConnectionIsAnsweredNormally(transport: Transport, violation: Violation) async throws {
        // GIVEN a server whose answer to /bad has five body bytes where none belong, written
        // with its head, on a connection it keeps open
        let head = "HTTP/1.1 \(violation.status) Status\r\nContent-Length: 5\r\n\r\n"
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/bad" else { return .status(200, body: Data("good".utf8)) }
            return .script([.write(Data((head + "hello").utf8))], keepingConnectionOpen: true)
        }
        defer { server.stop() }
        let service = ResourceService<Endpoint>(session: transport.session)
        var endpoint = Endpoint(server.baseURL.appendingPathComponent("bad").absoluteString)
        endpoint.httpMethod = violation.method
        let bad = endpoint

        // WHEN that request is answered, and then three more go out one after another
        let first = await withTimeLimit(.seconds(30)) { await service.fetchResult(bad) }
        var next: [Result<Data, ResourceError>?] = []
        for _ in 0..<3 {
            next.append(await withTimeLimit(.seconds(30)) {
                await service.fetchResult(Endpoint(server.baseURL.appendingPathComponent("good").absoluteString))
            })
        }

        // THEN the first ends with an empty body or an error, and each later one gets its own
        // answer
        if case .success(let body)? = first { #expect(body.isEmpty) }
        #expect(first != nil)
        for outcome in next {
            #expect((try? outcome?.get()) == Data("good".utf8), "\(String(describing: outcome))")
        }
    }
}
