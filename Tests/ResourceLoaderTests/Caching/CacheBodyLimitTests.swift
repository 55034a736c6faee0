import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How much of a body the cache keeps while it arrives, and what it keeps of a head whose body
/// the transport decoded.
@Suite("Cache: the body kept is bounded, and a decoded body carries no digest of the coded one")
struct CacheBodyLimitTests {
    /// Takes every byte, as a download's receiver does, and counts them.
    private final class CountingReceiver: TransferReceiver, @unchecked Sendable {
        // `lock` guards `bytes` and `error`.
        private let lock = NSLock()
        private var bytes = 0
        private var error: (any Error)?
        private let done = DispatchSemaphore(value: 0)

        func transferDidSend(_ sent: Int64, of expected: Int64?) {}
        func transferDidReceive(head: ResponseHead) -> TransferDecision { .proceed }
        func transferDidReceive(_ chunk: Data) -> TransferDecision {
            lock.withLock { bytes += chunk.count }
            return .proceed
        }
        func transferDidReceive(codedByteCount: Int) {}
        func transferDidComplete(with error: (any Error)?) {
            lock.withLock { self.error = error }
            done.signal()
        }

        /// The bytes received and the error, once the transfer completed.
        func outcome() async -> (bytes: Int, error: (any Error)?) {
            let done = done
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    _ = done.wait(timeout: .now() + 30)
                    continuation.resume()
                }
            }
            return lock.withLock { (bytes, error) }
        }
    }

    private let key = CachePolicy.key(method: "GET", url: URL(string: "http://origin.test/a")!)

    @Test("A receiver other than a collector, with a download's size limit, gets the whole body; the cache keeps none past its maximumBodyBytes")
    func aBodyPastTheCachesLimitIsPassedOnButNotKept() async throws {
        let origin = ScriptedOrigin()
        let date = TestDate()
        let cache = HTTPCache(store: MemoryCacheStore(byteLimit: 64 << 20), maximumBodyBytes: 1 << 20)
        let transport = CachingTransport(wrapping: origin, cache: cache, now: { date.now })
        var options = TransferOptions()
        options.maximumResponseBytes = 1 << 34
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: String(repeating: "x", count: 2 << 20))
        origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=60"], body: String(repeating: "y", count: 1000))

        let large = CountingReceiver()
        _ = transport.startTransfer(CacheTesting.request(), options: options, receiver: large)
        let first = await large.outcome()
        #expect(first.bytes == 2 << 20 && first.error == nil)
        #expect(cache.store.cachedResponse(forKey: key) == nil)

        let small = CountingReceiver()
        _ = transport.startTransfer(CacheTesting.request(), options: options, receiver: small)
        let second = await small.outcome()
        #expect(second.bytes == 1000 && second.error == nil)
        #expect(cache.store.cachedResponse(forKey: key)?.body.count == 1000)
    }

    @Test("RFC 5861: a background validation keeps no more of a new body than the fetch's size limit, and what was stored goes")
    func aBackgroundValidationIsBoundedByTheFetchsLimit() async throws {
        let harness = CacheHarness(mode: .shared, store: MemoryCacheStore(byteLimit: 64 << 20))
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=1, stale-while-revalidate=600", "ETag": "\"a\""], body: "A")
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=600", "ETag": "\"b\""], body: String(repeating: "B", count: 8192))
        var options = TransferOptions()
        options.maximumResponseBytes = 1024
        _ = try await harness.send(CacheTesting.request(), options: options)
        harness.date.advance(by: 2)
        let stale = try await harness.send(CacheTesting.request(), options: options)
        #expect(stale.body == "A")
        #expect(await eventually { harness.cache.store.cachedResponse(forKey: key)?.value(forHTTPHeaderField: "ETag") != "\"a\"" })
        #expect(harness.cache.store.cachedResponse(forKey: key) == nil)
        #expect(harness.origin.requestCount == 2)
    }

    @Test("A body the transport decoded is stored without the digests of the coded bytes")
    func aDecodedBodyIsStoredWithoutTheCodedBytesDigests() async throws {
        let harness = CacheHarness(mode: .shared)
        let digest = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
        harness.origin.enqueue(
            status: 200,
            headers: ["Cache-Control": "max-age=60", "Content-Encoding": "gzip", "Content-Digest": digest, "Repr-Digest": digest, "ETag": "\"e\""],
            body: "decoded")
        _ = try await harness.get()
        let stored = try #require(harness.cache.store.cachedResponse(forKey: key))
        #expect(stored.value(forHTTPHeaderField: "Content-Encoding") == nil)
        #expect(stored.value(forHTTPHeaderField: "Content-Digest") == nil)
        #expect(stored.value(forHTTPHeaderField: "Repr-Digest") == nil)
        let hit = try await harness.get()
        #expect(hit.body == "decoded")
        #expect(hit.head.value(forHTTPHeaderField: "Content-Digest") == nil)
        #expect(harness.origin.requestCount == 1)
    }
    @Test("A 304 or a HEAD answer never puts the coded bytes' digests back onto a decoded stored body")
    func aValidationKeepsTheStoredDigests() async throws {
        for validatesWithHEAD in [false, true] {
            let harness = CacheHarness(mode: .shared)
            let digest = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
            harness.origin.enqueue(
                status: 200,
                headers: ["Cache-Control": "max-age=1", "Content-Encoding": "gzip", "Repr-Digest": digest, "ETag": "\"e\""],
                body: "decoded")
            // The validation carries the digests of the coded representation.
            let fields = ["Cache-Control": "max-age=60", "ETag": "\"e\"", "Repr-Digest": digest, "Content-Digest": digest]
            if validatesWithHEAD {
                harness.origin.enqueue(status: 200, headers: fields.merging(["Content-Encoding": "gzip"]) { $1 }, body: "")
            } else {
                harness.origin.enqueue(status: 304, headers: fields, body: "")
            }
            _ = try await harness.get()
            harness.date.advance(by: 10)
            if validatesWithHEAD {
                _ = try await harness.send(CacheTesting.request(method: "HEAD"))
            } else {
                #expect(try await harness.get().body == "decoded")
            }
            #expect(harness.origin.requestCount == 2)
            let stored = try #require(harness.cache.store.cachedResponse(forKey: key), "HEAD: \(validatesWithHEAD)")
            #expect(stored.value(forHTTPHeaderField: "Cache-Control") == "max-age=60", "HEAD: \(validatesWithHEAD)")
            #expect(stored.value(forHTTPHeaderField: "Repr-Digest") == nil, "HEAD: \(validatesWithHEAD)")
            #expect(stored.value(forHTTPHeaderField: "Content-Digest") == nil, "HEAD: \(validatesWithHEAD)")
        }
    }

    @Test("§4.3.5: a HEAD answer whose Content-Length is of the coded body freshens a stored body kept decoded")
    func aHEADAnswerWithTheCodedLengthFreshensADecodedStoredBody() async throws {
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=1", "Content-Encoding": "gzip", "ETag": "\"e\""], body: "decoded")
        // The coded body the HEAD describes is 27 bytes; the stored, decoded one 7.
        harness.origin.enqueue(
            status: 200, headers: ["Cache-Control": "max-age=60", "Content-Encoding": "gzip", "Content-Length": "27", "ETag": "\"e\""], body: "")
        _ = try await harness.get()
        harness.date.advance(by: 10)
        _ = try await harness.send(CacheTesting.request(method: "HEAD"))
        let stored = try #require(harness.cache.store.cachedResponse(forKey: key))
        #expect(stored.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
        #expect(stored.value(forHTTPHeaderField: "Content-Length") == "7")
        #expect(stored.value(forHTTPHeaderField: "Content-Encoding") == nil)
        #expect(try await harness.get().body == "decoded")
        #expect(harness.origin.requestCount == 2)
    }

    @Test("§4.3.5: a HEAD answer with the coded body's length but another validator still makes the stored response go")
    func aHEADAnswerForAnotherCodedRepresentationRemovesTheStoredBody() async throws {
        let harness = CacheHarness(mode: .shared)
        harness.origin.enqueue(status: 200, headers: ["Cache-Control": "max-age=1", "Content-Encoding": "gzip", "ETag": "\"e\""], body: "decoded")
        harness.origin.enqueue(
            status: 200, headers: ["Cache-Control": "max-age=60", "Content-Encoding": "gzip", "Content-Length": "27", "ETag": "\"f\""], body: "")
        _ = try await harness.get()
        harness.date.advance(by: 10)
        _ = try await harness.send(CacheTesting.request(method: "HEAD"))
        #expect(harness.cache.store.cachedResponse(forKey: key) == nil)
    }

    @Test("A body a transport decoded for a request that named its own Accept-Encoding is stored decoded, without the coding or its digests")
    func aBodyDecodedForTheRequestsOwnCodingIsStoredDecoded() async throws {
        let body = Data(String(repeating: "decoded body ", count: 100).utf8)
        let gzip = Data(Compressor.compress(Array(body), .gzip))
        let digest = "sha-256=:\(Data(SHA256Digest(of: gzip).bytes).base64EncodedString()):"
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Cache-Control": "max-age=60", "Content-Encoding": "gzip", "Content-Digest": digest], body: gzip))
        let date = TestDate()
        let cache = HTTPCache(store: MemoryCacheStore(byteLimit: 1 << 20))
        let transport = CachingTransport(wrapping: session, cache: cache, now: { date.now })
        let request = CacheTesting.request(headers: ["Accept-Encoding": "gzip"])
        for _ in 0..<2 {
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<(Data, ResponseHead), any Error>, Never>) in
                let collector = ResponseCollector(maximumBytes: 1 << 20) { continuation.resume(returning: $0) }
                _ = transport.startTransfer(request, options: TransferOptions(), receiver: collector)
            }
            #expect(try result.get().0 == body)
        }
        #expect(session.receivedRequests.count == 1)
        let stored = try #require(cache.store.cachedResponse(forKey: key))
        #expect(stored.body == body)
        #expect(stored.value(forHTTPHeaderField: "Content-Encoding") == nil)
        #expect(stored.value(forHTTPHeaderField: "Content-Digest") == nil)
        #expect(stored.value(forHTTPHeaderField: "Content-Length") == String(body.count))
    }
}
