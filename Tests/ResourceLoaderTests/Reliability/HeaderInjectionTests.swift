import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request that reaches the wire is checked after every adapter and authenticator, on every
/// transport: a hook that writes a header field a server would read as two, or a method or URL
/// that is not one, fails the fetch with ``ResourceError/invalidRequest(reason:)`` and sends
/// nothing.
@Suite("Header injection through hooks")
struct HeaderInjectionTests {
    typealias Transport = TransportUnderTest

    /// How a hook corrupts the request.
    enum Corruption: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case nameWithCRLF
        case nameWithSpace
        case nameWithColon
        case emptyName
        case valueWithCRLF
        case valueWithNUL
        case valueWithControlCharacter
        case methodWithSpace
        case fileURL

        func apply(to request: inout URLRequest) {
            switch self {
            case .nameWithCRLF: request.setValue("1", forHTTPHeaderField: "X-A: 1\r\nX-Injected")
            case .nameWithSpace: request.setValue("1", forHTTPHeaderField: "Bad Name")
            case .nameWithColon: request.setValue("1", forHTTPHeaderField: "X-A:")
            case .emptyName: request.setValue("1", forHTTPHeaderField: "")
            case .valueWithCRLF: request.setValue("1\r\nX-Injected: 1", forHTTPHeaderField: "X-A")
            case .valueWithNUL: request.setValue("1\u{0}2", forHTTPHeaderField: "X-A")
            case .valueWithControlCharacter: request.setValue("1\u{1B}[2J\u{7F}", forHTTPHeaderField: "X-A")
            case .methodWithSpace: request.httpMethod = "GET /admin"
            case .fileURL: request.url = URL(fileURLWithPath: "/etc/passwd")
            }
        }

        /// A value Foundation's `URLRequest` may drop at `setValue` (Linux's does): then the
        /// field never exists, and the request may go out without it.
        var mayBeDroppedByFoundation: Bool { self == .valueWithCRLF || self == .valueWithNUL }

        /// Whether `outcome` and what the server saw keep the corruption off the wire: the fetch
        /// was refused as an invalid request and nothing was sent, or (for a value Foundation
        /// dropped) the request went out without the field.
        func isKeptOffTheWire(_ outcome: Result<Data, ResourceError>, seen: [String]) -> Bool {
            if outcome.failure?.caseName == "invalidRequest" { return seen.isEmpty }
            return mayBeDroppedByFoundation && outcome.failure == nil
                && seen.allSatisfy { !$0.contains("X-Injected") && !$0.contains("X-A:") }
        }

        var testDescription: String { rawValue }
    }

    private struct CorruptingAdapter: RequestAdapter {
        let corruption: Corruption
        func adapt(_ request: URLRequest) async throws -> URLRequest {
            var request = request
            corruption.apply(to: &request)
            return request
        }
    }

    private struct CorruptingAuthenticator: Authenticator {
        let corruption: Corruption
        func apply(_ credential: String, to request: inout URLRequest) {
            request.setValue("Bearer \(credential)", forHTTPHeaderField: "Authorization")
            corruption.apply(to: &request)
        }
        func refresh(_ credential: String, through pipeline: ResourcePipeline) async throws -> String { credential }
    }

    /// A server that records whether any request arrived.
    private func recordingServer() throws -> (LoopbackHTTPServer, Guarded<[String]>) {
        let seen = Guarded<[String]>([])
        let server = try LoopbackHTTPServer { request in
            seen.withLock { $0.append(request.headerFields.map { "\($0.name): \($0.value)" }.joined(separator: "|")) }
            return .status(200, body: Data("ok".utf8))
        }
        return (server, seen)
    }

    @Test(arguments: Transport.allCases, Corruption.allCases)
    func anAdapterCannotPutAnInvalidRequestOnTheWire(transport: Transport, corruption: Corruption) async throws {
        // GIVEN a pipeline whose adapter corrupts the request
        let (server, seen) = try recordingServer()
        defer { server.stop() }
        let pipeline = ResourcePipeline(session: transport.session, adapters: [CorruptingAdapter(corruption: corruption)])
        let service = ResourceService<Endpoint>(pipeline: pipeline)

        // WHEN a fetch goes through it
        let outcome = await service.fetchResult(Endpoint(server.baseURL.appendingPathComponent("x").absoluteString))

        // THEN it fails as an invalid request and nothing reached the server (or Foundation
        // dropped the field before anyone could send it)
        #expect(corruption.isKeptOffTheWire(outcome, seen: seen.withLock { $0 }), "\(outcome), \(seen.withLock { $0 })")
    }

    @Test(arguments: Transport.allCases, [Corruption.nameWithCRLF, .valueWithCRLF, .nameWithSpace])
    func anAuthenticatorCannotPutAnInvalidRequestOnTheWire(transport: Transport, corruption: Corruption) async throws {
        // GIVEN a pipeline whose authenticator corrupts the request as it applies the credential
        let (server, seen) = try recordingServer()
        defer { server.stop() }
        let store = CredentialStore(authenticator: CorruptingAuthenticator(corruption: corruption), credential: "token")
        let pipeline = ResourcePipeline(session: transport.session, credentials: store)
        let service = ResourceService<Endpoint>(pipeline: pipeline)

        // WHEN a fetch goes through it
        let outcome = await service.fetchResult(Endpoint(server.baseURL.appendingPathComponent("x").absoluteString))

        // THEN it fails as an invalid request and nothing reached the server (or Foundation
        // dropped the field before anyone could send it)
        #expect(corruption.isKeptOffTheWire(outcome, seen: seen.withLock { $0 }), "\(outcome), \(seen.withLock { $0 })")
    }

    @Test(arguments: Corruption.allCases)
    func aResourceBuildingItsOwnRequestIsCheckedToo(corruption: Corruption) async throws {
        // GIVEN a resource whose own urlRequest() corrupts the request, and a fake session
        struct HandBuilt: NetworkResourceType, DataResourceType {
            let corruption: Corruption
            var url: URL { URL(string: "https://api.example.com/x")! }
            func urlRequest() throws(ResourceError) -> URLRequest {
                var request = URLRequest(url: url)
                corruption.apply(to: &request)
                return request
            }
            func model(from data: Data) throws -> Data { data }
        }
        let session = FakeURLSession()
        session.stub(.any, with: .json("{}"))

        // WHEN it is fetched, with async and with a completion handler
        let service = ResourceService<HandBuilt>(session: session)
        let asyncOutcome = await service.fetchResult(HandBuilt(corruption: corruption))
        let completionOutcome = await withCheckedContinuation { continuation in
            service.fetch(HandBuilt(corruption: corruption), callbackQueue: .global()) { continuation.resume(returning: $0) }
        }

        // THEN both fail as invalid requests and the session received nothing (or Foundation
        // dropped the field before anyone could send it)
        let sent = session.receivedRequests.map { ($0.allHTTPHeaderFields ?? [:]).map { "\($0.key): \($0.value)" }.joined(separator: "|") }
        #expect(corruption.isKeptOffTheWire(asyncOutcome, seen: sent))
        #expect(corruption.isKeptOffTheWire(completionOutcome, seen: sent))
    }

    @Test func everyControlCharacterButTabIsRefusedInAValueWithoutQuotingIt() {
        // GIVEN a resource whose credential holds one character of C0 or DEL, in turn
        for byte in Array(UInt8(0x00)...0x1F) + [0x7F] {
            var endpoint = Endpoint("https://api.example.com/x")
            endpoint.headerFields = ["Authorization": "Bearer secret\(Character(Unicode.Scalar(byte)))value"]
            // WHEN its request is built
            // THEN only a tab (RFC 9110, 5.5) goes out; every other is refused without the value
            do {
                let request = try endpoint.urlRequest()
                #expect(byte == 0x09, "byte \(byte)")
                #expect(byte != 0x09 || request.value(forHTTPHeaderField: "Authorization") == "Bearer secret\tvalue")
            } catch {
                #expect(byte != 0x09)
                #expect(error.caseName == "invalidRequest", "byte \(byte)")
                #expect(!error.description.contains("secret"), "byte \(byte)")
            }
        }
    }

    @Test func validHeaderFieldsStillGoOut() async throws {
        // GIVEN an adapter that adds ordinary fields, with every token character in a name
        struct Adding: RequestAdapter {
            func adapt(_ request: URLRequest) async throws -> URLRequest {
                var request = request
                request.setValue("v tab\there~é", forHTTPHeaderField: "X-!#$%&'*+-.^_`|~09azAZ")
                return request
            }
        }
        let session = FakeURLSession()
        session.stub(.any, with: .json("{}"))
        let service = ResourceService<Endpoint>(pipeline: ResourcePipeline(session: session, adapters: [Adding()]))

        // WHEN a fetch goes through
        let outcome = await service.fetchResult(Endpoint("https://api.example.com/x"))

        // THEN it is sent
        #expect(outcome.failure == nil)
        #expect(session.receivedRequests.count == 1)
    }
}
