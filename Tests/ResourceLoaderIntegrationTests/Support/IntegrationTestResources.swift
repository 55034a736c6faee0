#if Logging || Metrics || Tracing
import Foundation
import ResourceLoader
import ResourceLoaderTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A resource whose request carries a secret in every place a request can carry one: the URL's
/// user and password, query values, a fragment, a header and the body.
struct SecretResource: NetworkResourceType, DataResourceType {
    var url: URL { URL(string: "https://alice:pa55word@api.example.com:8443/v1/search?apikey=K3Y-SECRET#frag-secret")! }
    var httpMethod: HTTPMethod { .post }
    var headerFields: [String: String] { ["X-Api-Token": "HEADER-SECRET"] }
    var queryItems: [URLQueryItem] {
        [URLQueryItem(name: "q", value: "QUERY-SECRET"), URLQueryItem(name: "bare-SECRET", value: nil)]
    }
    var body: RequestBody? { .data(Data(#"{"password": "BODY-SECRET"}"#.utf8), contentType: "application/json") }
    func model(from data: Data) throws -> Data {
        throw ResourceError.parsing(.init(context: "reading PARSE-SECRET"))
    }

    /// Every secret above, and those the tests put in responses, adapters and errors.
    static let secrets = [
        "alice", "pa55word", "K3Y-SECRET", "frag-secret", "HEADER-SECRET", "QUERY-SECRET", "bare-SECRET",
        "BODY-SECRET", "PARSE-SECRET", "RESPONSE-SECRET", "Cookie-Secret", "ADAPTER-SECRET", "ERROR-SECRET",
    ]
}

/// A GET whose body is returned as the model.
struct Greeting: NetworkResourceType, DataResourceType {
    var url: URL { URL(string: "https://api.example.com/v1/greeting?name=Ada")! }
    func model(from data: Data) throws -> String {
        String(decoding: data, as: UTF8.self)
    }
}

/// A GET that does not want the pipeline's adapters.
struct UnadaptedGreeting: NetworkResourceType, DataResourceType {
    var url: URL { URL(string: "http://login.example.com/token")! }
    var usesPipelineAdapters: Bool { false }
    func model(from data: Data) throws -> String {
        String(decoding: data, as: UTF8.self)
    }
}

/// A resource whose request cannot be built: nothing is sent.
struct Unbuildable: NetworkResourceType, DataResourceType {
    var url: URL { URL(string: "file:///etc/passwd")! }
    func model(from data: Data) throws -> Data { data }
}

/// A resource whose own request names `method`, as it is.
struct MethodResource: NetworkResourceType, DataResourceType {
    let method: String
    var url: URL { URL(string: "https://api.example.com/cities")! }

    func urlRequest() throws(ResourceError) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        return request
    }

    func model(from data: Data) throws -> Data { data }
}

/// An adapter that puts a secret bearer token on every request.
let secretTokenAdapter = ClosureRequestAdapter { request in
    var request = request
    request.setValue("Bearer ADAPTER-SECRET", forHTTPHeaderField: "Authorization")
    return request
}

/// A retry policy that retries at once, so that tests need no clock.
let immediateRetries = RetryPolicy(maximumAttempts: 3, baseDelay: .zero, jitter: .none)

extension ResourceService {
    /// Fetches `resource` and returns the outcome as a `Result`.
    func outcome(of resource: Resource) async -> Result<Resource.Model, ResourceError> {
        do {
            return .success(try await fetch(resource))
        } catch {
            return .failure(error)
        }
    }
}
/// A session that advances a `ManualClock` by `delay` before handing each request to `session`,
/// so that a fetch takes a known time.
struct ClockAdvancingSession: URLSessionType {
    let clock: ManualClock
    let delay: Duration
    let session: any URLSessionType

    func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        clock.advance(by: delay)
        return session.data(for: request, options: options, completionHandler: completionHandler)
    }
}
#endif
