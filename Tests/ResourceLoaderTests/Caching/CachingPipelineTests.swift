import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `{"cities": [...]}` from a URL of the test's choosing, with header fields of its own (the
/// request's `Cache-Control` directives among them).
struct CachedCitiesResource: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    var url: URL
    var headerFields: [String: String] = [:]
    func model(from root: Root) -> [City] { root.cities }
}

/// Keeps the cache's decisions a pipeline's monitors see.
final class CacheDecisionRecorder: FetchMonitor, @unchecked Sendable {
    // `lock` guards `outcomes`.
    private let lock = NSLock()
    private var outcomes: [FetchEvent.CacheDecided.Outcome] = []

    var recorded: [FetchEvent.CacheDecided.Outcome] { lock.withLock { outcomes } }

    func cacheDecided(_ event: FetchEvent.CacheDecided) {
        lock.withLock { outcomes.append(event.outcome) }
    }
}

/// Counts the requests a loopback server answers and keeps their validators.
final class RequestLog: @unchecked Sendable {
    // `lock` guards `ifNoneMatch`.
    private let lock = NSLock()
    private var ifNoneMatch: [String?] = []

    func record(_ request: LoopbackHTTPServer.Request) {
        lock.withLock { ifNoneMatch.append(request.value(forHeaderField: "If-None-Match")) }
    }

    var validators: [String?] { lock.withLock { ifNoneMatch } }
}

@Suite("Caching end to end: a ResourcePipeline's cache over the loopback server")
struct CachingPipelineTests {
    static let body = #"{"cities": [{"name": "Lisbon"}, {"name": "Porto"}]}"#
    static let cities = [City(name: "Lisbon"), City(name: "Porto")]

    @Test("§4.2: a second fetch of a fresh response is served from the cache, model and all; monitors see miss, stored, hit")
    func secondFetchFromCache() async throws {
        let server = try LoopbackHTTPServer { _ in
            .status(200, headers: ["Cache-Control": "max-age=60", "Content-Type": "application/json"], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], clock: ManualClock(), cache: HTTPCache())
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(server.requestCount == 1)
        #expect(recorder.recorded == [.miss, .stored, .hit])
    }

    @Test("§4.3: a stale response is revalidated; the 304 lets the resource parse the stored body")
    func revalidationWithA304() async throws {
        let log = RequestLog()
        let server = try LoopbackHTTPServer { request in
            log.record(request)
            if request.value(forHeaderField: "If-None-Match") == "\"v1\"" {
                return .status(304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"])
            }
            return .status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let clock = ManualClock()
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], clock: clock, cache: HTTPCache())
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        #expect(try await service.fetch(resource) == Self.cities)
        clock.advance(by: .seconds(61))
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(log.validators == [nil, "\"v1\""])
        // Revalidated for another 60 s: no request.
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(server.requestCount == 2)
        #expect(recorder.recorded == [.miss, .stored, .conditionalHit, .hit])
    }

    @Test("§5.2.1.7: only-if-cached with nothing stored is ResourceError.notCached, and nothing is sent")
    func onlyIfCached() async throws {
        let server = try LoopbackHTTPServer { _ in .json(Self.body) }
        defer { server.stop() }
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], cache: HTTPCache())
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(
            url: server.baseURL.appendingPathComponent("europe.json"), headerFields: ["Cache-Control": "only-if-cached"])
        await #expect {
            try await service.fetch(resource)
        } throws: { error in
            if case .notCached = error as? ResourceError { true } else { false }
        }
        #expect(server.requestCount == 0)
        #expect(recorder.recorded == [.onlyIfCachedUnsatisfied])
    }

    @Test("§3.5: a shared cache never serves one request's authorised response to another")
    func sharedModeAndAuthorization() async throws {
        let server = try LoopbackHTTPServer { request in
            let who = request.value(forHeaderField: "Authorization") == nil ? "Anonymous" : "Alice"
            return .status(200, headers: ["Cache-Control": "max-age=60"], body: Data(#"{"cities": [{"name": "\#(who)"}]}"#.utf8))
        }
        defer { server.stop() }
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], cache: HTTPCache())
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let url = server.baseURL.appendingPathComponent("me.json")
        #expect(try await service.fetch(CachedCitiesResource(url: url, headerFields: ["Authorization": "Bearer alice"])) == [City(name: "Alice")])
        #expect(try await service.fetch(CachedCitiesResource(url: url)) == [City(name: "Anonymous")])
        #expect(server.requestCount == 2)
        #expect(recorder.recorded.contains(.notStored(.authorization)))
    }

    @Test("§4: a response reached through a redirect is stored under the last URL, never under the request's")
    func redirectedResponseIsStoredUnderItsOwnURL() async throws {
        // GIVEN an origin whose /old redirects (302, no freshness) to a fresh /new
        let server = try LoopbackHTTPServer { request in
            if request.path.hasSuffix("/old") { return .status(302, headers: ["Location": "/new"]) }
            return .status(200, headers: ["Cache-Control": "max-age=3600"], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let store = MemoryCacheStore(byteLimit: 1 << 20)
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], clock: ManualClock(), cache: HTTPCache(store: store))
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let old = server.baseURL.appendingPathComponent("old")
        let new = server.baseURL.appendingPathComponent("new")
        // WHEN /old is fetched twice
        #expect(try await service.fetch(CachedCitiesResource(url: old)) == Self.cities)
        #expect(try await service.fetch(CachedCitiesResource(url: old)) == Self.cities)
        // THEN each fetch asks the origin (the redirect could not be stored), and the answer is
        // kept under /new only
        #expect(server.requestCount == 4)
        #expect(store.cachedResponse(forKey: CachePolicy.key(method: "GET", url: old)) == nil)
        #expect(store.cachedResponse(forKey: CachePolicy.key(method: "GET", url: new))?.url == new)
        // AND a fetch of /new is answered from the cache
        #expect(try await service.fetch(CachedCitiesResource(url: new)) == Self.cities)
        #expect(server.requestCount == 4)
        #expect(recorder.recorded == [.miss, .stored, .miss, .stored, .hit])
    }

    @Test("§4.3: a stale response whose URL now redirects is removed; a 304 from the new URL validates its body there")
    func redirectMovesWhatIsStoredForTheRequest() async throws {
        // GIVEN /page stored with an ETag, and an origin that then redirects it to /moved, which
        // answers 304 to that ETag and 200 with another body to anything else
        let redirects = LockedFlag()
        let server = try LoopbackHTTPServer { request in
            if request.path.hasSuffix("/page"), redirects.isSet { return .status(301, headers: ["Location": "/moved"]) }
            if request.value(forHeaderField: "If-None-Match") == "\"v1\"" {
                return .status(304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"])
            }
            let name = request.path.hasSuffix("/moved") ? "Moved" : "Page"
            return .status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"], body: Data(#"{"cities": [{"name": "\#(name)"}]}"#.utf8))
        }
        defer { server.stop() }
        let clock = ManualClock()
        let store = MemoryCacheStore(byteLimit: 1 << 20)
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], clock: clock, cache: HTTPCache(store: store))
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let page = server.baseURL.appendingPathComponent("page")
        let moved = server.baseURL.appendingPathComponent("moved")
        #expect(try await service.fetch(CachedCitiesResource(url: page)) == [City(name: "Page")])
        clock.advance(by: .seconds(61))
        redirects.set()
        // WHEN the stale /page is fetched: the conditional request is redirected, and /moved
        // answers 304 to the validator it carried
        #expect(try await service.fetch(CachedCitiesResource(url: page)) == [City(name: "Page")])
        // THEN the body /moved validated is stored under /moved, and nothing under /page
        #expect(store.cachedResponse(forKey: CachePolicy.key(method: "GET", url: page)) == nil)
        #expect(store.cachedResponse(forKey: CachePolicy.key(method: "GET", url: moved))?.url == moved)
        #expect(recorder.recorded == [.miss, .stored, .conditionalHit])
        // AND the next fetch of /page asks the origin again, unconditionally: it gets /moved's
        // own body
        #expect(try await service.fetch(CachedCitiesResource(url: page)) == [City(name: "Moved")])
        #expect(server.requestCount == 5)
    }

    @Test("A private cache does store the authorised response")
    func privateModeAndAuthorization() async throws {
        let server = try LoopbackHTTPServer { _ in
            .status(200, headers: ["Cache-Control": "max-age=60"], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let pipeline = ResourcePipeline(session: URLSessionTransport(), cache: HTTPCache(policy: CachePolicy(mode: .private)))
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("me.json"), headerFields: ["Authorization": "Bearer alice"])
        _ = try await service.fetch(resource)
        _ = try await service.fetch(resource)
        #expect(server.requestCount == 1)
    }

    @Test("A disk cache answers a second pipeline, as after a relaunch")
    func diskCacheAcrossPipelines() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let server = try LoopbackHTTPServer { _ in
            .status(200, headers: ["Cache-Control": "max-age=600"], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        weak var firstStore: DiskCacheStore?
        do {
            let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
            firstStore = store
            let service = ResourceService<CachedCitiesResource>(pipeline: ResourcePipeline(session: URLSessionTransport(), cache: HTTPCache(store: store)))
            #expect(try await service.fetch(resource) == Self.cities)
        }
        // The first store closes once nothing holds it: the transport lets go of the finished
        // transfer (and its receiver) shortly after the answer.
        try #require(await eventually { firstStore == nil }, "the first store was never released")
        let cache = HTTPCache(store: try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20))
        let service = ResourceService<CachedCitiesResource>(pipeline: ResourcePipeline(session: URLSessionTransport(), cache: cache))
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(server.requestCount == 1)
    }

    @Test("Completion-handler fetches use the cache too")
    func completionHandlerFetch() async throws {
        let server = try LoopbackHTTPServer { _ in
            .status(200, headers: ["Cache-Control": "max-age=60"], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let service = ResourceService<CachedCitiesResource>(pipeline: ResourcePipeline(session: URLSessionTransport(), cache: HTTPCache()))
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        for _ in 0..<2 {
            let result = await withCheckedContinuation { continuation in
                service.fetch(resource, callbackQueue: .global()) { continuation.resume(returning: $0) }
            }
            #expect(try result.get() == Self.cities)
        }
        #expect(server.requestCount == 1)
    }

    @Test("Through adapters and retries (the attempts' own task) a hit is answered at once, and the adapted request is the one looked up")
    func hitThroughAdaptersAndRetries() async throws {
        let server = try LoopbackHTTPServer { request in
            let language = request.value(forHeaderField: "Accept-Language") ?? "none"
            return .status(200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                body: Data(#"{"cities": [{"name": "\#(language)"}]}"#.utf8))
        }
        defer { server.stop() }
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(
            session: URLSessionTransport(),
            adapters: [ClosureRequestAdapter { request in
                var request = request
                request.setValue("pt", forHTTPHeaderField: "Accept-Language")
                return request
            }],
            retryPolicy: RetryPolicy(maximumAttempts: 3),
            monitors: [recorder],
            cache: HTTPCache()
        )
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        #expect(try await service.fetch(resource) == [City(name: "pt")])
        #expect(try await service.fetch(resource) == [City(name: "pt")])
        #expect(server.requestCount == 1)
        #expect(recorder.recorded == [.miss, .stored, .hit])
    }

    @Test("RFC 5861: within stale-while-revalidate, concurrent fetches are answered at once and one background request revalidates; monitors see it")
    func staleWhileRevalidate() async throws {
        let log = RequestLog()
        let server = try LoopbackHTTPServer { request in
            log.record(request)
            if request.value(forHeaderField: "If-None-Match") == "\"v1\"" {
                // Held a little, so that the fetches below find the validation under way.
                return LoopbackHTTPServer.Response.status(304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"]).delayed(by: .milliseconds(300))
            }
            return .status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=600"], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let clock = ManualClock()
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], clock: clock, cache: HTTPCache())
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        #expect(try await service.fetch(resource) == Self.cities)
        clock.advance(by: .seconds(61))
        let answers = try await withThrowingTaskGroup(of: [City].self) { group in
            for _ in 0..<5 { group.addTask { try await service.fetch(resource) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == Array(repeating: Self.cities, count: 5))
        #expect(await eventually { recorder.recorded.contains(.conditionalHit) })
        let outcomes = recorder.recorded
        #expect(outcomes.prefix(3) == [.miss, .stored, .staleWhileRevalidate])
        #expect(outcomes.filter { $0 == .conditionalHit }.count == 1)
        // A fetch after the validation ended is a hit.
        #expect(outcomes.filter { $0 == .staleWhileRevalidate || $0 == .hit }.count == 5)
        #expect(server.requestCount == 2)
        #expect(log.validators == [nil, "\"v1\""])
        // Revalidated: fresh again, no request.
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(server.requestCount == 2)
        #expect(recorder.recorded.last == .hit)
    }

    @Test("RFC 5861: a background validation's outcome reaches the monitors after the fetch's fetchFinished, however soon the origin answers")
    func backgroundOutcomeAfterTheFetchFinished() async throws {
        // GIVEN a stored response that may be served stale while it is revalidated, an origin
        // that answers the validation at once, and a model that is made only when the test says
        let session = FakeURLSession()
        session.stub(.any, with: [
            .status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=600"], body: Data("A".utf8)),
            .status(304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"]),
        ])
        let clock = ManualClock()
        let recorder = EventOrderRecorder()
        let cache = HTTPCache()
        let pipeline = ResourcePipeline(session: session, monitors: [recorder], clock: clock, cache: cache)
        let parse = ParseGate()
        let service = ResourceService<HeldParseResource>(pipeline: pipeline)
        let resource = HeldParseResource(url: URL(string: "http://origin.test/a")!, gate: parse)
        parse.open()
        #expect(try await service.fetch(resource) == "A")
        let firstStored = try #require(cache.store.cachedResponse(forKey: "GET http://origin.test/a")?.responseDate)
        clock.advance(by: .seconds(61))

        // WHEN the stale answer is being parsed while the validation's 304 arrives and updates
        // the store
        let fetch = Task { try await service.fetch(resource) }
        #expect(await eventually { cache.store.cachedResponse(forKey: "GET http://origin.test/a")?.responseDate != firstStored })
        parse.open()
        #expect(try await fetch.value == "A")

        // THEN the monitors hear of the 304 after the fetch finished
        #expect(await eventually { recorder.events.count == 8 })
        #expect(recorder.events == [
            "cache miss", "cache stored", "model", "finished",
            "cache staleWhileRevalidate", "model", "finished", "cache conditionalHit",
        ])
    }

    @Test("RFC 5861, §4.3.3: a stale response answering a 503 ends the fetch at once, without waiting for the 503's body")
    func staleIfErrorDoesNotWaitForTheErrorBody() async throws {
        // GIVEN a stored response stale at once, and an origin that then answers 503 with a
        // body it never finishes sending
        let served = LockedFlag()
        let server = try LoopbackHTTPServer { _ in
            guard served.isSet else {
                served.set()
                return .status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0", "Content-Type": "application/json"], body: Data(Self.body.utf8))
            }
            let head = LoopbackScript.head(["Content-Length": "1000"], status: "503 Service Unavailable")
            return .script([.write(head + Data("down".utf8)), .pause(.seconds(60))])
        }
        defer { server.stop() }
        let cache = HTTPCache(store: MemoryCacheStore(byteLimit: 1 << 20), staleIfErrorLimit: .seconds(3600))
        // A deadline the fetch would reach if it waited for the 503's body.
        let pipeline = ResourcePipeline(session: URLSessionTransport(), options: TransferOptions(deadline: .seconds(10)), cache: cache)
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))
        #expect(try await service.fetch(resource) == Self.cities)

        // WHEN it is fetched again, THEN the stored response answers, before the deadline
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(server.requestCount == 2)
    }

    @Test("§3.5: a shared cache does not store the answer to a request its URLSessionTransport sends with a configured Authorization")
    func configuredAuthorizationKeepsTheResponseOut() async throws {
        // GIVEN a URLSessionTransport whose configuration carries Authorization, under a shared cache
        let log = LoopbackScript()
        log.enqueue(.status(200, headers: ["Cache-Control": "max-age=60", "Content-Type": "application/json"], body: Data(Self.body.utf8)))
        let server = try LoopbackHTTPServer { log.answer($0) }
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["Authorization": "Bearer alice"]
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(
            session: URLSessionTransport(configuration: configuration), monitors: [recorder], clock: ManualClock(), cache: HTTPCache())
        let service = ResourceService<CachedCitiesResource>(pipeline: pipeline)
        let resource = CachedCitiesResource(url: server.baseURL.appendingPathComponent("europe.json"))

        // WHEN the URL is fetched twice
        #expect(try await service.fetch(resource) == Self.cities)
        #expect(try await service.fetch(resource) == Self.cities)

        // THEN both went to the server with the credential, and neither answer was stored
        #expect(log.receivedRequests.map { $0.value(forHeaderField: "Authorization") } == ["Bearer alice", "Bearer alice"])
        #expect(recorder.recorded == [.miss, .notStored(.authorization), .miss, .notStored(.authorization)])
    }

    @Test("§4.3.5: a HEAD fetch is answered from the stored GET response, without a request")
    func headFromStoredGET() async throws {
        let server = try LoopbackHTTPServer { _ in
            .status(200, headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""], body: Data(Self.body.utf8))
        }
        defer { server.stop() }
        let recorder = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: URLSessionTransport(), monitors: [recorder], clock: ManualClock(), cache: HTTPCache())
        let url = server.baseURL.appendingPathComponent("europe.json")
        #expect(try await ResourceService<CachedCitiesResource>(pipeline: pipeline).fetch(CachedCitiesResource(url: url)) == Self.cities)
        #expect(try await ResourceService<CachedHeadResource>(pipeline: pipeline).fetch(CachedHeadResource(url: url)) == 0)
        #expect(server.requestCount == 1)
        #expect(recorder.recorded == [.miss, .stored, .hit])
    }

    @Test("No cache decision of a fetch reaches its monitors after fetchFinished: a body that ends after the fetch was cancelled")
    func noDecisionAfterTheFetchFinished() async throws {
        // GIVEN an origin that sends a storable head, then holds the body until told to fail
        let origin = HeadThenHold()
        let recorder = EventRecorder()
        let decisions = CacheDecisionRecorder()
        let pipeline = ResourcePipeline(session: origin, monitors: [recorder, decisions], clock: ManualClock(), cache: HTTPCache())
        let resource = CachedCitiesResource(url: URL(string: "http://origin.test/europe.json")!)

        // WHEN the fetch is cancelled while the body is held, and the transfer then fails
        let task = Task { try await ResourceService<CachedCitiesResource>(pipeline: pipeline).fetch(resource) }
        #expect(await eventually { origin.hasSentHead })
        task.cancel()
        #expect(await eventually { recorder.finishedEvents.count == 1 })
        origin.failTheBody()

        // THEN the cache does not store it, and tells no monitor so after the fetch finished
        try await Task.sleep(for: .milliseconds(100))
        #expect(decisions.recorded == [.miss])
        #expect(recorder.events.last?.hasPrefix("finished cancelled") == true, "\(recorder.events)")
    }
}

/// An origin that answers `200` with `max-age=60`, sends nothing of the body, and fails it with
/// a lost connection when told; cancelling does nothing.
final class HeadThenHold: HTTPTransport, @unchecked Sendable {
    // `lock` guards `receiver` and `sentHead`.
    private let lock = NSLock()
    private var receiver: (any TransferReceiver)?

    private var sentHead = false

    var hasSentHead: Bool { lock.withLock { sentHead } }

    func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
        let head = ResponseHead(
            statusCode: 200, url: request.url ?? URL(string: "http://origin.test/")!,
            headerFields: [("Cache-Control", "max-age=60"), ("Content-Type", "application/json")])
        _ = receiver.transferDidReceive(head: head)
        lock.withLock {
            self.receiver = receiver
            sentHead = true
        }
        return Ignored()
    }

    /// Ends the transfer with a lost connection.
    func failTheBody() {
        // Let go of the receiver, which holds the transport that holds this origin.
        let receiver = lock.withLock { () -> (any TransferReceiver)? in
            defer { self.receiver = nil }
            return self.receiver
        }
        receiver?.transferDidComplete(with: URLError(.networkConnectionLost))
    }

    private final class Ignored: Cancellable {
        func cancel() {}
    }
}

/// A `HEAD` request: its model is the number of body bytes it got.
struct CachedHeadResource: NetworkResourceType, DataResourceType {
    var url: URL
    var httpMethod: HTTPMethod { .head }
    func model(from data: Data) throws -> Int { data.count }
}

/// A flag that a test sets while a loopback server's handler reads it.
final class LockedFlag: @unchecked Sendable {
    // `lock` guards `value`.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}

/// Keeps, in order, the models made, the fetches finished and the cache's decisions a pipeline's
/// monitors see.
final class EventOrderRecorder: FetchMonitor, @unchecked Sendable {
    // `lock` guards `lines`.
    private let lock = NSLock()
    private var lines: [String] = []

    var events: [String] { lock.withLock { lines } }

    private func record(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    func modelMade(_ event: FetchEvent.ModelMade) { record("model") }
    func fetchFinished(_ event: FetchEvent.Finished) { record("finished") }
    func cacheDecided(_ event: FetchEvent.CacheDecided) {
        let outcome = "\(event.outcome)"
        record("cache " + (outcome.firstIndex(of: "(").map { String(outcome[..<$0]) } ?? outcome))
    }
}

/// A `GET` whose model is its body as text, made once its ``ParseGate`` lets it.
struct HeldParseResource: NetworkResourceType, DataResourceType {
    var url: URL
    let gate: ParseGate
    func model(from data: Data) throws -> String {
        gate.pass()
        return String(decoding: data, as: UTF8.self)
    }
}
