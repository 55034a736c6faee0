import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("FakeURLSession: scripted answers")
struct FakeURLSessionScriptTests {
    let session = FakeURLSession()

    func fetch() async -> Result<[City], ResourceError> {
        await Result { () async throws(ResourceError) in
            try await ResourceService<CityArrayResource>(session: session).fetch(CityArrayResource())
        }
    }

    @Test func answersInOrderThenRepeatsTheLast() async throws {
        session.stub(.path("/cities"), with: [.status(401), .json(#"[{"name": "Oslo"}]"#), .json("[]")])

        let first = await fetch()
        let second = await fetch()
        let third = await fetch()
        let fourth = await fetch()

        #expect(first.failure?.statusCode == 401)
        #expect(try second.get() == [City(name: "Oslo")])
        #expect(try third.get() == [])
        #expect(try fourth.get() == [])
        #expect(session.receivedRequests.count == 4)
    }

    @Test func onlyRequestsTheStubAnswersMoveItAlong() async throws {
        session.stub(.path("/cities"), with: [.status(503), .json("[]")])
        session.stub(.path("/other"), with: .status(204))
        let other = Endpoint("https://api.example.com/other")

        _ = await Result { () async throws(ResourceError) in try await ResourceService<Endpoint>(session: session).fetch(other) }
        let first = await fetch()
        let second = await fetch()

        #expect(first.failure?.statusCode == 503)
        #expect(try second.get() == [])
    }

    @Test func aNewerStubStillWins() async throws {
        session.stub(.any, with: [.status(500), .status(500)])
        session.stub(.path("/cities"), with: .json("[]"))
        #expect(try await fetch().get() == [])
    }

    @Test func anEmptyScriptAddsNoStub() async throws {
        session.stub(.any, with: [])
        guard case .transport(_, let underlying) = await fetch().failure else {
            Issue.record("expected a transport failure")
            return
        }
        #expect(underlying is UnmatchedRequestError)
    }

    @Test func scriptedAnswersCanBeDelayedAndErrors() async throws {
        session.stub(.any, with: [.error(URLError(.networkConnectionLost)).delayed(by: .milliseconds(10)), .json("[]")])
        #expect(await fetch().failure?.caseName == "transport")
        #expect(try await fetch().get() == [])
    }
}
