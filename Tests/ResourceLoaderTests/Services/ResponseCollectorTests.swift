import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``ResponseCollector`` given heads whose declared lengths are right, wrong, huge or coded.
@Suite("ResponseCollector")
struct ResponseCollectorTests {
    /// Feeds `chunks` after a head with `fields` to a collector of `limit`; its answer.
    static func collect(
        limit: Int, fields: [(name: String, value: String)], chunks: [Data]
    ) -> (decision: TransferDecision, answer: Result<(Data, ResponseHead), any Error>?) {
        let answer = Locked<Result<(Data, ResponseHead), any Error>?>(nil)
        let collector = ResponseCollector(maximumBytes: limit) { result in answer.withLock { $0 = result } }
        let head = ResponseHead(statusCode: 200, url: URL(string: "http://origin.test/a"), headerFields: fields)
        let decision = collector.transferDidReceive(head: head)
        if case .proceed = decision {
            for chunk in chunks { _ = collector.transferDidReceive(chunk) }
            collector.transferDidComplete(with: nil)
        }
        return (decision, answer.withLock { $0 })
    }

    @Test("A declared length is the body's room, not its size: a body shorter, longer or coded arrives whole")
    func declaredLengths() throws {
        let body = Data((0..<3_000).map { UInt8(truncatingIfNeeded: $0) })
        let chunks = stride(from: 0, to: body.count, by: 700).map { body[$0..<min($0 + 700, body.count)] }.map { Data($0) }
        for fields: [(name: String, value: String)] in [
            [("Content-Length", "3000")], [("Content-Length", "10")], [("Content-Length", "1000000")],
            [("Content-Length", "3000"), ("Content-Encoding", "gzip")], [("Content-Length", "-5")], [],
        ] {
            let (decision, answer) = Self.collect(limit: 1 << 20, fields: fields, chunks: chunks)
            guard case .proceed = decision else {
                Issue.record("\(fields): stopped")
                continue
            }
            #expect(try #require(answer).get().0 == body, "\(fields)")
        }
    }

    @Test("A huge declared length under a huge limit reserves a bounded room, and the body arrives")
    func hugeDeclaredLength() throws {
        let (decision, answer) = Self.collect(
            limit: Int.max, fields: [("Content-Length", String(Int64(1) << 50))], chunks: [Data("short".utf8)])
        guard case .proceed = decision else {
            Issue.record("stopped")
            return
        }
        #expect(try #require(answer).get().0 == Data("short".utf8))
    }

    @Test("A declared length over the limit stops the transfer before the body")
    func overTheLimit() {
        let (decision, answer) = Self.collect(limit: 100, fields: [("Content-Length", "101")], chunks: [])
        guard case .stop(let error) = decision, case .responseTooLarge(let limit) = error else {
            Issue.record("\(decision)")
            return
        }
        #expect(limit == 100)
        #expect(answer == nil)
    }

    @Test(
        "Repeated equal declared lengths, or one too long for Int64, over the limit stop the transfer before the body",
        arguments: [
            [("Content-Length", "101"), ("Content-Length", "101")],
            [("Content-Length", "101, 101")],
            [("Content-Length", "99999999999999999999")],
        ] as [[(name: String, value: String)]]
    )
    func repeatedOrHugeDeclaredLengthsOverTheLimit(fields: [(name: String, value: String)]) {
        let (decision, answer) = Self.collect(limit: 100, fields: fields, chunks: [Data(count: 101)])
        guard case .stop(let error) = decision, case .responseTooLarge(let limit) = error else {
            Issue.record("\(decision)")
            return
        }
        #expect(limit == 100)
        #expect(answer == nil)
    }

    @Test("Through a transport, a repeated declared length over the limit fails on the head")
    func repeatedDeclaredLengthThroughATransport() async {
        // GIVEN a head that declares its length twice, over the limit, and a connection that
        // drops before any of the body: only a refusal on the head fails as too large
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ["Content-Length": "10, 10"], body: Data(count: 10))
            .cut(afterBytes: 0, with: URLError(.networkConnectionLost)))
        let service = ResourceService<CitiesResource>(session: session, options: TransferOptions(maximumResponseBytes: 5))

        // WHEN it is fetched
        let error = await service.fetchError(CitiesResource())

        // THEN the fetch fails as too large, before the body was read
        guard case .responseTooLarge(let limit)? = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 5)
    }
}
