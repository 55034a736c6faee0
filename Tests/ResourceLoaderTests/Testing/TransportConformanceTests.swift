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
        try await TransportConformance { transport.session }.verify(check)
    }

    @Test(arguments: TransportConformance.Check.allCases)
    func aRecordingWrapperKeepsEveryRule(_ check: TransportConformance.Check) async throws {
        try await TransportConformance { RecordingTransport(wrapping: URLSessionTransport()) }.verify(check)
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
}
