import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Transport conformance: the library's transports and a wrapper pass every check")
struct TransportConformanceTests {
    @Test(arguments: TransportUnderTest.enforcing, TransportConformance.Check.allCases)
    func everyTransportOfTheLibraryConforms(_ transport: TransportUnderTest, _ check: TransportConformance.Check) async throws {
        var conformance = TransportConformance { transport.session }
        conformance.sendsRequestBodyStreams = transport.sendsRequestBodyStreams
        try await conformance.verify(check)
    }

    /// FoundationNetworking was seen to report a task cancelled in the middle of its body as
    /// finished without an error; the transport must complete it with one all the same.
    @Test func cancellingInTheBodyNeverCompletesAsAWholeBodyAgainAndAgain() async throws {
        let conformance = TransportConformance { URLSessionTransport() }
        for _ in 0..<30 {
            try await conformance.verify(.cancellationInTheBody)
        }
    }

    @Test(arguments: TransportConformance.Check.allCases)
    func aRecordingWrapperKeepsEveryRule(_ check: TransportConformance.Check) async throws {
        var conformance = TransportConformance { RecordingTransport(wrapping: URLSessionTransport()) }
        conformance.sendsRequestBodyStreams = TransportUnderTest.urlSessionTransport.sendsRequestBodyStreams
        try await conformance.verify(check)
    }

    @Test(arguments: TransportConformance.Check.allCases)
    func aCachingWrapperKeepsEveryRule(_ check: TransportConformance.Check) async throws {
        var conformance = TransportConformance { CachingTransport(wrapping: URLSessionTransport(), cache: HTTPCache()) }
        conformance.sendsRequestBodyStreams = TransportUnderTest.urlSessionTransport.sendsRequestBodyStreams
        try await conformance.verify(check)
    }

    /// The suite is not satisfied by a transport that hands the body over whole, once it has all
    /// arrived, nor by one that follows a redirect to another scheme.
    @Test func aPlainURLSessionFailsTheStreamingAndRedirectChecks() async throws {
        let conformance = TransportConformance { URLSession(configuration: .ephemeral) }
        await #expect(throws: TransportConformance.Failure.self) {
            try await conformance.verify(.bodyInPiecesAsItArrives)
        }
        await #expect(throws: TransportConformance.Failure.self) {
            try await conformance.verify(.redirectToAnotherScheme)
        }
    }

    /// A transport written against the older protocol, answering whole bodies.
    private struct WholeBodySession: URLSessionType {
        let body: Data

        func data(
            for request: URLRequest,
            options: TransferOptions,
            completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
        ) -> any Cancellable {
            let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!
            DispatchQueue.global().async { completionHandler(.success((body, response))) }
            return NothingToCancel()
        }
    }

    private final class NothingToCancel: Cancellable {
        func cancel() {}
    }

    @Test func aTransportWrittenForURLSessionTypeStillFetchesWithinTheSizeLimit() async throws {
        let session = WholeBodySession(body: Data(#"{"cities": [{"name": "Lisbon"}]}"#.utf8))
        let cities = try await ResourceService<CitiesResource>(session: session).fetch(CitiesResource())
        #expect(cities == [City(name: "Lisbon")])
        let small = ResourceService<CitiesResource>(session: session, options: TransferOptions(maximumResponseBytes: 10))
        await #expect {
            try await small.fetch(CitiesResource())
        } throws: { error in
            if case .responseTooLarge(limit: 10) = error as? ResourceError { true } else { false }
        }
    }
}
