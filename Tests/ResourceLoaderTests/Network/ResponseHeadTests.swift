import Foundation
@testable import ResourceLoader
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ResponseHead`, and the promise that a resource (or authenticator) written against
/// `HTTPURLResponse` keeps receiving one, with every field, while the default takes the head.
@Suite("ResponseHead and what validate(_:data:) receives")
struct ResponseHeadTests {
    private let url = URL(string: "https://api.example.com/cities")!

    // MARK: The head

    @Test func fieldsAreFoundWithoutRegardToCaseAndRepeatedOnesJoinInOrder() {
        let head = ResponseHead(statusCode: 200, url: url, headerFields: [
            (name: "X-Tag", value: "a"), (name: "Content-Type", value: "application/json"),
            (name: "x-tag", value: "b"), (name: "X-TAG", value: "c"), (name: "X-Empty", value: ""),
        ])
        #expect(head.value(forHTTPHeaderField: "x-tag") == "a, b, c")
        #expect(head.value(forHTTPHeaderField: "CONTENT-TYPE") == "application/json")
        #expect(head.value(forHTTPHeaderField: "X-Empty") == "")
        #expect(head.value(forHTTPHeaderField: "X-Missing") == nil)
        // A name that differs in more than ASCII case is another name.
        #expect(head.value(forHTTPHeaderField: "X-Ta") == nil)
        #expect(head.value(forHTTPHeaderField: "X_Tag") == nil)
        #expect(head.headerFields == ["X-Tag": "a, b, c", "Content-Type": "application/json", "X-Empty": ""])
    }

    @Test func manyFieldsJoinAsFewDo() {
        // Past the scan limit the names go through a dictionary; the result must not change.
        var fields = (0..<40).map { (name: "X-Field-\($0)", value: "\($0)") }
        fields.append((name: "x-field-3", value: "again"))
        fields.append((name: "X-FIELD-39", value: "last"))
        let head = ResponseHead(statusCode: 200, url: url, headerFields: fields)
        var expected = Dictionary(uniqueKeysWithValues: (0..<40).map { ("X-Field-\($0)", "\($0)") })
        expected["X-Field-3"] = "3, again"
        expected["X-Field-39"] = "39, last"
        #expect(head.headerFields == expected)
        #expect(head.value(forHTTPHeaderField: "x-field-39") == "39, last")
    }

    @Test func namesAreMatchedByASCIICaseOnlyHoweverManyFieldsThereAre() {
        // The Kelvin sign (U+212A) lowercases to k, but is not an ASCII letter.
        for count in [2, 40] {
            var fields = (0..<(count - 2)).map { (name: "X-Field-\($0)", value: "\($0)") }
            fields += [(name: "X-\u{212A}", value: "kelvin"), (name: "x-k", value: "k")]
            let head = ResponseHead(statusCode: 200, url: url, headerFields: fields)
            #expect(head.headerFields["X-\u{212A}"] == "kelvin", "\(count) fields")
            #expect(head.headerFields["x-k"] == "k", "\(count) fields")
        }
    }

    @Test func namesThatAreOneSwiftStringButDifferentBytesShareAnEntry() {
        // "X-\u{212A}" (the Kelvin sign) and "X-K" are different bytes, so different field
        // names, but one Swift string: a dictionary holds them as one key.
        for count in [2, 40] {
            var fields = (0..<(count - 2)).map { (name: "X-Field-\($0)", value: "\($0)") }
            fields += [(name: "X-\u{212A}", value: "kelvin"), (name: "X-K", value: "K")]
            let head = ResponseHead(statusCode: 200, url: url, headerFields: fields)
            #expect(head.headerFields.count == count - 1, "\(count) fields")
            #expect(head.headerFields["X-K"] == "kelvin, K", "\(count) fields")
            #expect(head.value(forHTTPHeaderField: "X-K") == "K", "\(count) fields")
            #expect(head.httpURLResponse?.statusCode == 200)
        }
    }

    @Test func itsHTTPURLResponseIsMadeOnceAndReadsLikeTheHead() throws {
        let head = ResponseHead(statusCode: 503, url: url, headerFields: [
            (name: "Retry-After", value: "5"), (name: "Vary", value: "Accept"), (name: "vary", value: "Origin"),
            (name: "Content-Type", value: "text/plain; charset=utf-8"),
        ])
        let response = try #require(head.httpURLResponse)
        #expect(head.httpURLResponse === response)
        #expect(response.statusCode == 503)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "retry-after") == "5")
        #expect(response.value(forHTTPHeaderField: "Vary") == "Accept, Origin")
        #expect(response.mimeType == "text/plain")
        // A copy shares what was made.
        let copy = head
        #expect(copy.httpURLResponse === response)
        // Without a URL Foundation cannot make one.
        #expect(ResponseHead(statusCode: 200, url: nil, headerFields: []).httpURLResponse == nil)
    }

    @Test func aHeadOfAnHTTPURLResponseReadsItAndHandsItBack() throws {
        let response = try #require(HTTPURLResponse(
            url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["ETag": "\"v1\"", "X-Request-Id": "42"]))
        let head = ResponseHead(response)
        #expect(head.statusCode == 404)
        #expect(head.url == url)
        #expect(head.httpURLResponse === response)
        #expect(head.value(forHTTPHeaderField: "etag") == "\"v1\"")
        #expect(head.headerFields["X-Request-Id"] == "42")
    }

    // MARK: What validate(_:data:) receives

    @Test func eachResourceGetsTheTypeItsValidateTakes() {
        #expect(DefaultCheck.ValidatedResponse.self == ResponseHead.self)
        #expect(HeadCheck.ValidatedResponse.self == ResponseHead.self)
        #expect(FoundationCheck.ValidatedResponse.self == HTTPURLResponse.self)
        #expect(FoundationCheckInExtension.ValidatedResponse.self == HTTPURLResponse.self)
        #expect(VersionedCities.ValidatedResponse.self == HTTPURLResponse.self)
        #expect(UserDetailsCall.ValidatedResponse.self == ResponseHead.self)
        #expect(CheckedSOAPCall.ValidatedResponse.self == HTTPURLResponse.self)
    }

    @Test func aValidateTakingHTTPURLResponseIsCalledWithEveryField() async throws {
        let session = HeadOnlySession(fields: [(name: "X-Version", value: "1"), (name: "x-version", value: "2")])
        let seen = Seen()
        let resources: [any Fetchable] = [
            FoundationCheck(seen: seen), FoundationCheckInExtension(seen: seen), VersionedCities(seen: seen),
        ]
        for resource in resources {
            try await resource.fetch(through: session)
        }
        #expect(seen.values == ["1, 2", "1, 2", "1, 2"])
        #expect(session.dataCalls == 0)
    }

    @Test func aValidateTakingTheHeadIsCalledWithIt() async throws {
        let session = HeadOnlySession(fields: [(name: "X-Version", value: "3")])
        let seen = Seen()
        try await HeadCheck(seen: seen).fetch(through: session)
        #expect(seen.values == ["3"])
    }

    @Test func theDefaultChecksTheStatusAndKeepsTheFieldsForTheError() async throws {
        let session = HeadOnlySession(status: 404, fields: [(name: "X-Request-Id", value: "7")], body: "gone")
        let service = ResourceService<DefaultCheck>(session: session)
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(DefaultCheck()) }
        guard case .httpStatus(let failure) = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 404)
        #expect(failure.headerFields["X-Request-Id"] == "7")
        #expect(failure.bodyPrefix == Data("gone".utf8))
        #expect(session.dataCalls == 0)
    }

    @Test func onlyAResourceThatTakesAnHTTPURLResponseGetsOneMade() async throws {
        let session = HeadOnlySession(fields: [(name: "X-Version", value: "1")])
        _ = try await ResourceService<DefaultCheck>(session: session).fetch(DefaultCheck())
        let defaultHead = try #require(session.lastHead)
        #expect(!defaultHead.holdsHTTPURLResponse)
        try await HeadCheck(seen: Seen()).fetch(through: session)
        #expect(try #require(session.lastHead).holdsHTTPURLResponse == false)
        try await FoundationCheck(seen: Seen()).fetch(through: session)
        #expect(try #require(session.lastHead).holdsHTTPURLResponse)
        // The default authenticator reads the head; one that takes an `HTTPURLResponse` gets one.
        for (authenticated, makesOne) in [(false, false), (true, true)] {
            let pipeline = authenticated
                ? ResourcePipeline(session: session, credentials: CredentialStore(authenticator: FieldAuthenticator(), credential: "old"))
                : ResourcePipeline(session: session, credentials: CredentialStore(authenticator: StatusAuthenticator(), credential: "old"))
            _ = try await ResourceService<DefaultCheck>(pipeline: pipeline).fetch(DefaultCheck())
            #expect(try #require(session.lastHead).holdsHTTPURLResponse == makesOne)
        }
    }

    @Test func isCredentialRejectedStillTakesAnHTTPURLResponseFromTheCaller() throws {
        let unauthorized = try #require(HTTPURLResponse(url: url, statusCode: 401, httpVersion: nil, headerFields: nil))
        let forbidden = try #require(HTTPURLResponse(url: url, statusCode: 403, httpVersion: nil, headerFields: nil))
        #expect(StatusAuthenticator().isCredentialRejected(by: unauthorized, data: Data()))
        #expect(!StatusAuthenticator().isCredentialRejected(by: forbidden, data: Data()))
    }

    @Test func aSOAPResourcesOwnValidateIsCalled() async throws {
        let seen = Seen()
        let session = HeadOnlySession(fields: [(name: "X-Version", value: "9")], body: "<x/>")
        let service = ResourceService<CheckedSOAPCall>(session: session)
        await #expect(throws: ResourceError.self) { try await service.fetch(CheckedSOAPCall(seen: seen)) }
        #expect(seen.values == ["9"])
    }

    @Test func aHeadWithoutAURLFailsAResourceThatNeedsAnHTTPURLResponse() async {
        let session = HeadOnlySession(fields: [], hasURL: false)
        let service = ResourceService<FoundationCheck>(session: session)
        let error = await #expect(throws: ResourceError.self) { try await service.fetch(FoundationCheck(seen: Seen())) }
        guard case .transport(let code, _) = error else {
            Issue.record("expected transport, got \(String(describing: error))")
            return
        }
        #expect(code == .badServerResponse)
    }

    @Test func validateStillTakesAnHTTPURLResponseFromTheCaller() throws {
        let notFound = try #require(HTTPURLResponse(url: url, statusCode: 404, httpVersion: nil, headerFields: nil))
        let ok = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil))
        #expect(throws: ResourceError.self) { try DefaultCheck().validate(notFound, data: Data()) }
        try DefaultCheck().validate(ok, data: Data())
        // SOAP's own validate, reached through the HTTPURLResponse overload: a Fault is found.
        let fault = Data("""
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault>\
            <faultcode>s:Server</faultcode><faultstring>down</faultstring></s:Fault></s:Body></s:Envelope>
            """.utf8)
        let serverError = try #require(HTTPURLResponse(url: url, statusCode: 500, httpVersion: nil, headerFields: nil))
        let error = #expect(throws: ResourceError.self) { try UserDetailsCall().validate(serverError, data: fault) }
        #expect(error?.caseName == "soapFault")
    }

    @Test func aResponseThatIsNotHTTPIsNeverReportedAsAResponse() async {
        let recorder = EventRecorder()
        let pipeline = ResourcePipeline(session: NonHTTPSession(body: "[]"), monitors: [recorder])
        let error = await #expect(throws: ResourceError.self) {
            try await ResourceService<DefaultCheck>(pipeline: pipeline).fetch(DefaultCheck())
        }
        guard case .transport(let code, _) = error else {
            Issue.record("expected transport, got \(String(describing: error))")
            return
        }
        #expect(code == .badServerResponse)
        #expect(!recorder.events.contains { $0.hasPrefix("response") })
        #expect(recorder.finishedEvents.first?.statusCode == nil)
    }

    // MARK: What isCredentialRejected(by:data:) receives

    @Test func anAuthenticatorTakingHTTPURLResponseSeesEveryField() async throws {
        #expect(FieldAuthenticator.CheckedResponse.self == HTTPURLResponse.self)
        #expect(StatusAuthenticator.CheckedResponse.self == ResponseHead.self)
        for useFoundation in [true, false] {
            // The server says the token expired in a field, with a 200.
            let session = HeadOnlySession(fields: []) { request in
                request.value(forHTTPHeaderField: "Authorization") == "old" ? [(name: "X-Token", value: "expired")] : []
            }
            let pipeline = useFoundation
                ? ResourcePipeline(session: session, credentials: CredentialStore(authenticator: FieldAuthenticator(), credential: "old"))
                : ResourcePipeline(session: session, credentials: CredentialStore(authenticator: StatusAuthenticator(), credential: "old"))
            _ = try await ResourceService<DefaultCheck>(pipeline: pipeline).fetch(DefaultCheck())
            #expect(session.authorizations == (useFoundation ? ["old", "new"] : ["old"]))
        }
    }
}

// MARK: - Support

/// A transport that answers through `send` alone, with a head and no `HTTPURLResponse`.
private final class HeadOnlySession: URLSessionType, @unchecked Sendable {
    final class Handle: Cancellable { func cancel() {} }

    let status: Int
    let fields: [(name: String, value: String)]
    let body: String
    let hasURL: Bool
    let extraFields: @Sendable (URLRequest) -> [(name: String, value: String)]
    // `lock` guards `calls`, `sent` and `last`.
    private let lock = NSLock()
    private var calls = 0
    private var sent: [String] = []
    private var last: ResponseHead?

    init(
        status: Int = 200, fields: [(name: String, value: String)], body: String = "[]", hasURL: Bool = true,
        extraFields: @escaping @Sendable (URLRequest) -> [(name: String, value: String)] = { _ in [] }
    ) {
        self.status = status
        self.fields = fields
        self.body = body
        self.hasURL = hasURL
        self.extraFields = extraFields
    }

    var dataCalls: Int { lock.withLock { calls } }
    var authorizations: [String] { lock.withLock { sent } }
    /// The head of the last answer.
    var lastHead: ResponseHead? { lock.withLock { last } }

    func data(
        for request: URLRequest, options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        lock.withLock { calls += 1 }
        completionHandler(.failure(URLError(.unsupportedURL)))
        return Handle()
    }

    func send(
        _ request: URLRequest, options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) -> any Cancellable {
        if let authorization = request.value(forHTTPHeaderField: "Authorization") {
            lock.withLock { sent.append(authorization) }
        }
        let head = ResponseHead(
            statusCode: status, url: hasURL ? request.url : nil, headerFields: fields + extraFields(request))
        lock.withLock { last = head }
        completionHandler(.success((Data(body.utf8), head)))
        return Handle()
    }
}

/// What the resources' `validate` saw of `X-Version`.
private final class Seen: @unchecked Sendable {
    // `lock` guards `seen`.
    private let lock = NSLock()
    private var seen: [String] = []
    var values: [String] { lock.withLock { seen } }
    func record(_ value: String?) { lock.withLock { seen.append(value ?? "-") } }
}

private protocol Fetchable {
    func fetch(through session: HeadOnlySession) async throws
}

extension Fetchable where Self: NetworkResourceType & JSONDecodableResourceType, Self.Model == [City] {
    func fetch(through session: HeadOnlySession) async throws {
        _ = try await ResourceService<Self>(session: session).fetch(self)
    }
}

private struct DefaultCheck: NetworkResourceType, JSONDecodableResourceType, Fetchable {
    typealias Model = [City]
    var url: URL { URL(string: "https://api.example.com/cities")! }
}

private struct HeadCheck: NetworkResourceType, JSONDecodableResourceType, Fetchable {
    typealias Model = [City]
    let seen: Seen
    var url: URL { URL(string: "https://api.example.com/cities")! }
    func validate(_ response: ResponseHead, data: Data) throws(ResourceError) {
        seen.record(response.value(forHTTPHeaderField: "x-version"))
    }
}

private struct FoundationCheck: NetworkResourceType, JSONDecodableResourceType, Fetchable {
    typealias Model = [City]
    let seen: Seen
    var url: URL { URL(string: "https://api.example.com/cities")! }
    func validate(_ response: HTTPURLResponse, data: Data) throws(ResourceError) {
        seen.record(response.value(forHTTPHeaderField: "x-version"))
    }
}

private struct FoundationCheckInExtension: NetworkResourceType, JSONDecodableResourceType, Fetchable {
    typealias Model = [City]
    let seen: Seen
    var url: URL { URL(string: "https://api.example.com/cities")! }
}

extension FoundationCheckInExtension {
    func validate(_ response: HTTPURLResponse, data: Data) throws(ResourceError) {
        seen.record(response.value(forHTTPHeaderField: "X-Version"))
    }
}

/// An app's own family of resources, validated in one place (written against `HTTPURLResponse`).
private protocol VersionedAPI: NetworkResourceType {
    var seen: Seen { get }
}

extension VersionedAPI {
    func validate(_ response: HTTPURLResponse, data: Data) throws(ResourceError) {
        seen.record(response.allHeaderFields["X-Version"] as? String)
    }
}

private struct VersionedCities: VersionedAPI, JSONDecodableResourceType, Fetchable {
    typealias Model = [City]
    let seen: Seen
    var url: URL { URL(string: "https://api.example.com/cities")! }
}

private struct CheckedSOAPCall: SOAPResourceType {
    typealias Model = SeedUser
    let seen: Seen
    var url: URL { URL(string: "https://example.com/services/UserService")! }
    var operation: String { "getUserDetails" }
    var responsePath: [String] { ["getUserDetailsResponse", "getUserDetails", "userModel"] }
    func validate(_ response: HTTPURLResponse, data: Data) throws(ResourceError) {
        seen.record(response.value(forHTTPHeaderField: "X-Version"))
    }
}

/// Rejects a token the server marks as expired in a field, even with a 200.
private struct FieldAuthenticator: Authenticator {
    func apply(_ token: String, to request: inout URLRequest) {
        request.setValue(token, forHTTPHeaderField: "Authorization")
    }
    func refresh(_ token: String, through pipeline: ResourcePipeline) async throws -> String { "new" }
    func isCredentialRejected(by response: HTTPURLResponse, data: Data) -> Bool {
        response.value(forHTTPHeaderField: "X-Token") == "expired"
    }
}

/// Keeps the default check: only a 401 rejects.
private struct StatusAuthenticator: Authenticator {
    func apply(_ token: String, to request: inout URLRequest) {
        request.setValue(token, forHTTPHeaderField: "Authorization")
    }
    func refresh(_ token: String, through pipeline: ResourcePipeline) async throws -> String { "new" }
}
