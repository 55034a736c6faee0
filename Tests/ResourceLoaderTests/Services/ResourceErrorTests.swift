import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("ResourceError")
struct ResourceErrorTests {
    @Test func descriptionsNeverContainHeaderValuesOrBodies() async {
        let session = FakeURLSession()
        session.stub(.any, with: .status(401, headers: ["WWW-Authenticate": "Bearer secret-realm"], body: Data("secret-body".utf8)))
        var endpoint = Endpoint("https://example.com/login")
        endpoint.headerFields = ["Authorization": "Bearer secret-token"]
        endpoint.requestBody = .data(Data("password=secret-password".utf8), contentType: "text/plain")
        let error = await ResourceService<Endpoint>(session: session).fetchError(endpoint)
        let texts = [error?.description, error?.localizedDescription, error.map { "\($0)" }].compactMap { $0 }
        #expect(!texts.isEmpty)
        for text in texts {
            #expect(!text.contains("secret"))
        }
        #expect(error?.description.contains("401") == true)
    }

    @Test func anInvalidHeaderValueIsNotEchoed() {
        var endpoint = Endpoint("https://example.com/")
        endpoint.headerFields = ["Authorization": "secret\r\nX: y"]
        do {
            _ = try endpoint.urlRequest()
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("secret"))
        }
    }

    @Test func transportErrorsKeepTheirCode() {
        let error = ResourceError(transportError: URLError(.cannotFindHost))
        guard case .transport(let code, let underlying) = error else {
            Issue.record("expected transport")
            return
        }
        #expect(code == .cannotFindHost)
        #expect((underlying as? URLError)?.code == .cannotFindHost)
        #expect(ResourceError(transportError: CancellationError()).isCancelled)
        #expect(ResourceError(transportError: ResourceError.timedOut).caseName == "timedOut")
    }

    @Test func aSOAPFaultsDescriptionNamesItsClassNotTheServersText() {
        let sender = SOAPFault(
            code: SOAPFault.Code(namespaceURI: SOAPVersion.v1_1.envelopeNamespace, localName: "Client.UnknownUser", text: "soap:Client.UnknownUser"),
            reason: "Unknown user")
        #expect(ResourceError.soapFault(sender).description == "SOAP Fault Sender")
        let unresolved = ResourceError.soapFault(SOAPFault(code: "soap:Client", reason: "Unknown user"))
        #expect(unresolved.description == "SOAP Fault with a code SOAP does not define")
    }

    @Test func aParsingPathKeepsTheModelsKeysAndIndices() async {
        let session = FakeURLSession()
        session.stub(.any, with: .json(#"{"cities": [{"name": "Paris"}, {"name": 7}]}"#))
        let error = await fetchError(CitiesResource(), from: session)
        #expect(error?.description.contains("cities[1].name") == true)
    }
}

/// Every field a server controls, filled with a secret, must stay out of every text a
/// `ResourceError` gives: `description`, `debugDescription` (`String(reflecting:)`),
/// `localizedDescription` and string interpolation. The values stay on the associated values.
@Suite("ResourceError redaction")
struct ResourceErrorRedactionTests {
    static let secret = "S3CR3T"

    private func expectNoSecret(_ error: ResourceError?, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else {
            Issue.record("\(what): expected an error", sourceLocation: sourceLocation)
            return
        }
        let texts = [
            error.description, String(reflecting: error), error.localizedDescription, "\(error)",
            (error as any Error).localizedDescription,
        ]
        for text in texts where text.contains(Self.secret) {
            Issue.record("\(what): \(text)", sourceLocation: sourceLocation)
        }
    }

    // MARK: SOAP

    @Test(arguments: [500, 200])
    func aSOAP11FaultsFields(status: Int) async {
        let s = Self.secret
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:\(s.lowercased())="urn:\(s)"><soap:Body><soap:Fault>\
            <faultcode>soap:Client.\(s)</faultcode><faultstring>password=\(s)</faultstring>\
            <faultactor>https://\(s).example</faultactor><detail><\(s)>\(s)</\(s)></detail>\
            </soap:Fault></soap:Body></soap:Envelope>
            """, statusCode: status))
        let error = await fetchError(UserDetailsCall(), from: session)
        expectNoSecret(error, "SOAP 1.1 Fault")
        guard case .soapFault(let fault) = error else {
            Issue.record("expected soapFault")
            return
        }
        // The values are still there for callers.
        #expect(fault.reason == "password=\(s)")
        #expect(fault.standardCode == .sender)
        // And a code SOAP does not define is not quoted either.
        expectNoSecret(.soapFault(SOAPFault(code: "x:\(s)", reason: s)), "a non-standard code")
    }

    @Test func aSOAP12FaultsFields() async {
        let s = Self.secret
        var call = UserDetailsCall()
        call.soapVersion = .v1_2
        let session = FakeURLSession()
        session.stub(.any, with: .xml("""
            <env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:m="urn:\(s)"><env:Body><env:Fault>\
            <env:Code><env:Value>env:Receiver</env:Value><env:Subcode><env:Value>m:\(s)</env:Value></env:Subcode></env:Code>\
            <env:Reason><env:Text xml:lang="en">\(s)</env:Text></env:Reason><env:Node>\(s)</env:Node><env:Role>\(s)</env:Role>\
            <env:Detail><m:e>\(s)</m:e></env:Detail></env:Fault></env:Body></env:Envelope>
            """, statusCode: 500))
        let error = await fetchError(call, from: session)
        expectNoSecret(error, "SOAP 1.2 Fault")
        #expect(error?.description == "SOAP Fault Receiver")
    }

    // MARK: XML

    @Test func xmlParsingErrorsNameNoDeclaredNames() async {
        let s = Self.secret
        let session = FakeURLSession()
        for document in [
            #"<?xml version="1.0" encoding="\#(s)"?><a/>"#,
            "<a>&\(s);</a>",
        ] {
            session.stub(.any, with: .xml(document))
            let error = await fetchError(UserDetailsCall(), from: session)
            #expect(error?.caseName == "parsing")
            expectNoSecret(error, document)
        }
        for underlying in [
            XMLParsingError.unsupportedEncoding(s), .undeclaredEntity(name: s, line: 1, column: 2),
        ] {
            expectNoSecret(.parsing(.init(context: "parsing XML", underlying: underlying)), "\(underlying)")
            #expect(!underlying.description.contains(s))
        }
    }

    @Test func xmlDecodingPathsFromTheDocument() async {
        struct Table: NetworkResourceType, XMLDecodableResourceType {
            typealias Model = [String: Int]
            var url: URL { URL(string: "https://example.com/table")! }
        }
        let session = FakeURLSession()
        session.stub(.any, with: .xml("<r><\(Self.secret)>not a number \(Self.secret)</\(Self.secret)></r>"))
        expectNoSecret(await fetchError(Table(), from: session), "an XML dictionary key")
    }

    // MARK: JSON

    @Test func jsonDecodingPathsFromKeysAndValues() async {
        struct Table: NetworkResourceType, JSONDecodableResourceType {
            typealias Model = [String: Int]
            var url: URL { URL(string: "https://example.com/table")! }
        }
        struct Cities: NetworkResourceType, JSONDecodableResourceType {
            typealias Model = [String: City]
            var url: URL { URL(string: "https://example.com/cities")! }
        }
        let s = Self.secret
        let session = FakeURLSession()
        // A wrong type under a key the server chose, a missing key below one, a broken document,
        // and a duplicate key.
        for (body, resource) in [
            (#"{"\#(s)": "\#(s)"}"#, Table()),
            (#"{"a": 1, "\#(s)": "x"}"#, Table()),
            (#"{"a": 1, "a": 2, "\#(s)": 3, "\#(s)": 4}"#, Table()),
            (#"{"\#(s)": \#(s)}"#, Table()),
        ] as [(String, Table)] {
            session.stub(.any, with: .json(body))
            expectNoSecret(await fetchError(resource, from: session), body)
        }
        session.stub(.any, with: .json(#"{"\#(s)": {"population": 1}}"#))
        expectNoSecret(await fetchError(Cities(), from: session), "keyNotFound below a server's key")
        session.stub(.any, with: .json(#"{"\#(s)": 1, "\#(s)": 2}"#))
        expectNoSecret(await fetchError(CityNamesResource(), from: session), "a duplicate key (JSONSerialization path)")
        session.stub(.any, with: .json(#"[\#(s)]"#))
        expectNoSecret(await fetchError(CityNamesResource(), from: session), "JSONSerialization's error")
    }

    @Test func numericDictionaryKeysInADecodingPath() async {
        struct Table: NetworkResourceType, JSONDecodableResourceType {
            typealias Model = [String: Int]
            var url: URL { URL(string: "https://example.com/table")! }
            var json5 = false
            var jsonDecoder: JSONDecoder {
                let decoder = JSONDecoder()
                decoder.allowsJSON5 = json5
                return decoder
            }
        }
        struct XMLTable: NetworkResourceType, XMLDecodableResourceType {
            typealias Model = [String: Int]
            var url: URL { URL(string: "https://example.com/table")! }
        }
        struct Lists: NetworkResourceType, JSONDecodableResourceType {
            typealias Model = [[Int]]
            var url: URL { URL(string: "https://example.com/lists")! }
            var json5 = false
            var jsonDecoder: JSONDecoder {
                let decoder = JSONDecoder()
                decoder.allowsJSON5 = json5
                return decoder
            }
        }
        // GIVEN a dictionary key the server chose that reads as an integer (a card number)
        let number = "4111111111111111"
        let session = FakeURLSession()
        for json5 in [false, true] {
            // WHEN the value under it does not decode, by our decoder or by JSONDecoder itself
            session.stub(.any, with: .json(#"{"\#(number)": "x"}"#))
            let error = await fetchError(Table(json5: json5), from: session)
            // THEN the description shows the key as any other dictionary key, `*`
            #expect(error?.caseName == "parsing")
            for text in [error?.description ?? "", String(reflecting: error), error?.localizedDescription ?? ""] {
                #expect(!text.contains(number), "\(json5): \(text)")
            }
            #expect(error?.description.contains("at *") == true, "\(error?.description ?? "")")
            guard case .parsing(let failure) = error else { continue }
            #expect(failure.codingPath == number)
            // AND array indices are still shown as indices
            session.stub(.any, with: .json("[[1],[2,\"x\"]]"))
            let listError = await fetchError(Lists(json5: json5), from: session)
            #expect(listError?.description.contains("at [1][1]") == true, "\(listError?.description ?? "")")
        }
        // The same for an XML element name whose local part is the number.
        session.stub(.any, with: .xml(#"<r xmlns:n="urn:n"><n:\#(number)>x</n:\#(number)></r>"#))
        let xmlError = await fetchError(XMLTable(), from: session)
        #expect(xmlError != nil)
        for text in [xmlError?.description ?? "", String(reflecting: xmlError)] {
            #expect(!text.contains(number), "\(text)")
        }
    }

    // MARK: HTTP, service level, transport

    @Test func statusBodiesHeadersAndServiceErrors() async {
        let s = Self.secret
        let session = FakeURLSession()
        session.stub(.any, with: .status(503, headers: ["Retry-After": s, "X-Debug": s], body: Data("<html>\(s)</html>".utf8)))
        let status = await fetchError(CityNamesResource(), from: session)
        #expect(status?.statusCode == 503)
        expectNoSecret(status, "an HTTP status with a body")
        // A service-level error built from the body.
        session.stub(.any, with: .json(#"{"error": "\#(s)"}"#))
        let serviceLevel = await fetchError(CityNamesResource(), from: session)
        #expect(serviceLevel?.caseName == "serviceLevel")
        expectNoSecret(serviceLevel, "a service-level error")
        // An error that promises a content-free description is quoted in full.
        struct QuotaExceeded: Error, ContentFreeDescription {
            var description: String { "The daily quota is used up" }
        }
        #expect(ResourceError.serviceLevel(QuotaExceeded()).description == "The service reported an error (The daily quota is used up)")
        #expect(ResourceError.serviceLevel(CityNamesResource.ServiceError(message: s)).description == "The service reported an error (ServiceError)")
    }

    @Test func transportAndRedirectErrors() async {
        struct TransportFailure: Error { let message: String }
        let s = Self.secret
        let session = FakeURLSession()
        // A custom transport's error, whose text may quote what the server said.
        session.stub(.any, with: .error(TransportFailure(message: "server said \(s)")))
        expectNoSecret(await fetchError(CityNamesResource(), from: session), "a custom transport error")
        // A URLError naming the URL that failed.
        let urlError = URLError(.badServerResponse, userInfo: [
            NSURLErrorFailingURLErrorKey: URL(string: "https://example.com/?token=\(s)")!,
            NSLocalizedDescriptionKey: s,
        ])
        session.stub(.any, with: .error(urlError))
        expectNoSecret(await fetchError(CityNamesResource(), from: session), "a URLError with user info")
        expectNoSecret(.transport(.unknown, underlying: NSError(domain: "d", code: 1, userInfo: [NSLocalizedDescriptionKey: s])), "an NSError")
        for refusal in [ResourceError.RedirectRefusal.tooManyRedirects(limit: 3), .insecureDowngrade] {
            expectNoSecret(.redirectRefused(refusal), "\(refusal)")
        }
    }
}

/// The error a fetch of `resource` through `session` ends with, or `nil` if it succeeds.
func fetchError<Resource: NetworkResourceType & DataResourceType>(_ resource: Resource, from session: FakeURLSession) async -> ResourceError? {
    do {
        _ = try await ResourceService<Resource>(session: session).fetch(resource)
        return nil
    } catch {
        return error
    }
}
