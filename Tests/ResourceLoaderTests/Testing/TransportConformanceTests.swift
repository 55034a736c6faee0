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

    /// The checks see receiver calls that overlap, and a call after the receiver answered stop.
    @Test func aTransportWhoseReceiverCallsOverlapOrFollowAStopFails() async throws {
        // GIVEN a transport that, at the first piece of the body, reports coded bytes from two
        // threads at once
        let overlapping = TransportConformance { MisbehavingTransport(base: URLSessionTransport(), misstep: .overlappingCalls) }
        // WHEN a check runs THEN it fails, naming the overlap
        await #expect {
            try await overlapping.verify(.wholeBody)
        } throws: { error in
            (error as? TransportConformance.Failure)?.reason.contains("while another call was running") == true
        }

        // GIVEN a transport that reports coded bytes after the receiver answered stop
        let afterStop = TransportConformance { MisbehavingTransport(base: URLSessionTransport(), misstep: .callAfterStop) }
        // WHEN the receiver stops in the body THEN the check fails, naming the late call
        await #expect {
            try await afterStop.verify(.receiverStopsInTheBody)
        } throws: { error in
            (error as? TransportConformance.Failure)?.reason.contains("after the receiver answered stop") == true
        }
    }

    /// A response framed both ways must be refused before any of its body is handed over.
    @Test func aTransportThatHandsOverABodyItThenRefusesFails() async throws {
        // GIVEN a transport that hands over a head and a piece of the body before the refusal
        let leaky = TransportConformance { MisbehavingTransport(base: URLSessionTransport(), misstep: .bodyBeforeARefusal) }
        // WHEN a response with both Content-Length and Transfer-Encoding is checked
        // THEN the check fails, although the transfer ends with badServerResponse
        await #expect {
            try await leaky.verify(.contentLengthWithTransferEncodingIsRefused)
        } throws: { error in
            (error as? TransportConformance.Failure)?.reason.contains("piece") == true
        }
    }

    /// Passes everything on from `base`, and makes the receiver calls `misstep` names besides.
    private struct MisbehavingTransport: HTTPTransport {
        enum Misstep {
            /// At the first piece of the body, reports zero coded bytes from two threads at once
            /// for a second, then hands the piece on.
            case overlappingCalls
            /// Reports zero coded bytes after a piece the receiver answered with stop.
            case callAfterStop
            /// Before an error that ends a transfer without a head, hands over a head and a
            /// piece of the body.
            case bodyBeforeARefusal
        }

        let base: any HTTPTransport
        let misstep: Misstep

        func startTransfer(_ request: URLRequest, options: TransferOptions, receiver: any TransferReceiver) -> any Cancellable {
            base.startTransfer(request, options: options, receiver: MisbehavingReceiver(next: receiver, misstep: misstep))
        }
    }

    private final class MisbehavingReceiver: TransferReceiver, @unchecked Sendable {
        private let next: any TransferReceiver
        private let misstep: MisbehavingTransport.Misstep
        // `lock` guards `overlapped` and `sawHead`.
        private let lock = NSLock()
        private var overlapped = false
        private var sawHead = false

        init(next: any TransferReceiver, misstep: MisbehavingTransport.Misstep) {
            self.next = next
            self.misstep = misstep
        }

        func transferDidSend(_ sent: Int64, of expected: Int64?) { next.transferDidSend(sent, of: expected) }
        func transferDidReceive(codedByteCount: Int) { next.transferDidReceive(codedByteCount: codedByteCount) }

        func transferDidReceive(head: ResponseHead) -> TransferDecision {
            lock.withLock { sawHead = true }
            return next.transferDidReceive(head: head)
        }

        func transferDidComplete(with error: (any Error)?) {
            if case .bodyBeforeARefusal = misstep, error != nil, !lock.withLock({ sawHead }) {
                _ = next.transferDidReceive(head: ResponseHead(statusCode: 200, url: nil, headerFields: [("Content-Length", "10")]))
                _ = next.transferDidReceive(Data("0123456789".utf8))
            }
            next.transferDidComplete(with: error)
        }

        func transferDidReceive(_ chunk: Data) -> TransferDecision {
            switch misstep {
            case .overlappingCalls:
                let first = lock.withLock { () -> Bool in
                    defer { overlapped = true }
                    return !overlapped
                }
                if first {
                    // Two threads of their own (a concurrent queue may run both on one), both
                    // started before either calls, calling for a second.
                    let started = DispatchGroup()
                    let done = DispatchGroup()
                    let next = next
                    for _ in 0..<2 {
                        started.enter()
                        done.enter()
                        Thread {
                            started.leave()
                            started.wait()
                            let end = ContinuousClock.now + .seconds(1)
                            while ContinuousClock.now < end { next.transferDidReceive(codedByteCount: 0) }
                            done.leave()
                        }.start()
                    }
                    done.wait()
                }
                return next.transferDidReceive(chunk)
            case .callAfterStop:
                let decision = next.transferDidReceive(chunk)
                if case .stop = decision { next.transferDidReceive(codedByteCount: 0) }
                return decision
            case .bodyBeforeARefusal:
                return next.transferDidReceive(chunk)
            }
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
