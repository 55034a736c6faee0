import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A resource that lives behind a URL: says where it is and how to ask for it.
///
/// Only ``url`` is required; everything else has a default. ``urlRequest()`` builds the request
/// and ``validate(_:data:)`` checks the response before it is parsed.
///
/// ```swift
/// struct SearchCities: NetworkResourceType, JSONDecodableResourceType {
///     typealias Model = [City]
///     let query: String
///     var url: URL { URL(string: "https://api.example.com/cities")! }
///     var queryItems: [URLQueryItem] { [URLQueryItem(name: "q", value: query)] }
/// }
/// ```
public protocol NetworkResourceType: ResourceType {
    /// Where the resource lives. Any query it already has is kept; ``queryItems`` are appended.
    var url: URL { get }

    /// The request method. Default: ``HTTPMethod/get``.
    var httpMethod: HTTPMethod { get }

    /// Header fields to send. Default: none. Names must be HTTP tokens, and values must not
    /// contain a control character other than tab.
    var headerFields: [String: String] { get }

    /// Query items appended to ``url``'s query, in order. Default: none.
    ///
    /// Names and values are percent-encoded so the server sees exactly the given text: `+`, `&`,
    /// `=`, spaces and non-ASCII characters included.
    var queryItems: [URLQueryItem] { get }

    /// The request body. Default: `nil`. May throw if it cannot be encoded.
    var body: RequestBody? { get throws }

    /// The idle timeout for the request, in seconds; `nil` keeps the session's. Over
    /// `AsyncHTTPClientTransport`, and ``URLSessionTransport`` on Linux, a value that is not
    /// finite or not positive means none (``TransferOptions/deadline`` still bounds the fetch).
    /// Default: `nil`.
    var timeoutInterval: TimeInterval? { get }

    /// The status codes that count as success. Default: `200..<300`.
    var acceptableStatusCodes: Range<Int> { get }

    /// The limits for this resource's requests, given the service's.
    ///
    /// The default returns `serviceDefaults` unchanged. Override it to adjust one limit and keep
    /// the rest:
    ///
    /// ```swift
    /// func transferOptions(_ serviceDefaults: TransferOptions) -> TransferOptions {
    ///     var options = serviceDefaults
    ///     options.maximumResponseBytes = 256 * 1024 * 1024
    ///     return options
    /// }
    /// ```
    func transferOptions(_ serviceDefaults: TransferOptions) -> TransferOptions

    /// Whether the ``RequestAdapter``s of the service's ``ResourcePipeline`` transform this
    /// resource's requests. Default: `true`.
    ///
    /// Return `false` from a resource whose request must go out as ``urlRequest()`` built it: a
    /// login or token-refresh request must not carry the credential the adapters add. The
    /// pipeline's monitors still see its fetches.
    var usesPipelineAdapters: Bool { get }

    /// Whether the ``CredentialStore`` of the service's ``ResourcePipeline`` puts its credential
    /// on this resource's requests and replays them when the credential is rejected. Default:
    /// the same as ``usesPipelineAdapters``.
    ///
    /// A login or token-refresh resource returns `false` (from this, or from
    /// ``usesPipelineAdapters`` for both at once): it must not carry the credential it replaces,
    /// nor wait for a refresh that waits for it.
    var usesPipelineAuthenticator: Bool { get }

    /// Whether this resource's requests must carry the pipeline's credential. Default: `true`.
    ///
    /// With `true`, a fetch fails with ``ResourceError/AuthenticationFailure/noCredential``
    /// (or ``ResourceError/AuthenticationFailure/credentialRevoked(_:)``) without being sent
    /// when the ``CredentialStore`` has no credential. Return `false` for an endpoint that serves
    /// signed-in and anonymous users alike: its requests carry the credential when the store
    /// has one (waiting for a refresh in progress, and replayed after a rejection, as any
    /// other), and go out without one when it has none. A request sent without a credential is
    /// never replayed and never starts a refresh: a `401` to it is its outcome. Ignored when
    /// ``usesPipelineAuthenticator`` is `false`.
    var requiresCredential: Bool { get }

    /// The retry policy for this resource's requests, given the pipeline's.
    ///
    /// The default returns `pipelinePolicy` unchanged. Override it to let a request that is safe
    /// to repeat be retried although its method is not idempotent (a SOAP `POST` that only
    /// reads), or to retry a resource less:
    ///
    /// ```swift
    /// func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy {
    ///     var policy = pipelinePolicy
    ///     policy.retryableMethods.insert(.post)
    ///     return policy
    /// }
    /// ```
    ///
    /// Only a service made from a ``ResourcePipeline`` retries.
    func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy

    /// Builds the request. The default assembles it from the properties above.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when the request cannot be built: the
    ///   body fails to encode or cannot be sent as it declares itself (a negative length, a
    ///   multipart form that fails its checks: see ``RequestBody/makeReader()``), a header
    ///   contains CR/LF/NUL, or the URL is not HTTP(S).
    func urlRequest() throws(ResourceError) -> URLRequest

    /// What ``validate(_:data:)`` receives the response as: ``ResponseHead`` unless the
    /// resource's own `validate(_:data:)` takes an `HTTPURLResponse`.
    ///
    /// Never written by hand: Swift infers it from the parameter of the resource's
    /// `validate(_:data:)`, or takes the default, ``ResponseHead``.
    associatedtype ValidatedResponse: ValidatableResponse = ResponseHead

    /// Checks a response before its body is parsed.
    ///
    /// The default throws ``ResourceError/httpStatus(_:)`` when the status is not in
    /// ``acceptableStatusCodes``. Protocols that understand error bodies (SOAP Faults, for
    /// example) refine it.
    ///
    /// A resource that checks more implements it with either parameter type:
    ///
    /// ```swift
    /// func validate(_ response: ResponseHead, data: Data) throws(ResourceError) {
    ///     guard response.value(forHTTPHeaderField: "X-Api-Version") == "2" else {
    ///         throw .httpStatus(.init(head: response, body: data))
    ///     }
    /// }
    /// ```
    ///
    /// Taking an `HTTPURLResponse` works too: the service then makes one from every response's
    /// head. ``ResponseHead`` is cheaper, since on Linux Foundation's `HTTPURLResponse`
    /// initialiser tidies every header field name.
    func validate(_ response: ValidatedResponse, data: Data) throws(ResourceError)
}

// MARK: - Default implementations

extension NetworkResourceType {
    /// ``HTTPMethod/get``.
    public var httpMethod: HTTPMethod { .get }

    /// No header fields.
    public var headerFields: [String: String] { [:] }

    /// No query items.
    public var queryItems: [URLQueryItem] { [] }

    /// No body.
    public var body: RequestBody? { nil }

    /// `nil`: the session's timeout applies.
    public var timeoutInterval: TimeInterval? { nil }

    /// `200..<300`.
    public var acceptableStatusCodes: Range<Int> { 200..<300 }

    /// Returns `serviceDefaults` unchanged.
    public func transferOptions(_ serviceDefaults: TransferOptions) -> TransferOptions {
        serviceDefaults
    }

    /// `true`: the pipeline's adapters run.
    public var usesPipelineAdapters: Bool { true }

    /// ``usesPipelineAdapters``: a resource that opts out of the adapters opts out of the
    /// credential too.
    public var usesPipelineAuthenticator: Bool { usesPipelineAdapters }

    /// `true`: without a credential, nothing is sent.
    public var requiresCredential: Bool { true }

    /// Returns `pipelinePolicy` unchanged.
    public func retryPolicy(_ pipelinePolicy: RetryPolicy) -> RetryPolicy {
        pipelinePolicy
    }

    /// Assembles a `URLRequest` from ``url``, ``queryItems``, ``httpMethod``, ``headerFields``,
    /// ``body`` and ``timeoutInterval``.
    ///
    /// The body's content type is sent as `Content-Type` unless ``headerFields`` sets one. A
    /// body of bytes goes in `httpBody`; a streamed body (a file, a stream, a multipart form)
    /// goes in `httpBodyStream` as a ``RequestBodyInputStream``, with its `Content-Length` when
    /// known (see `URLRequest.setBody(_:)`). A streamed body that cannot be sent as it declares
    /// itself (see ``RequestBody/makeReader()``) is refused here.
    public func urlRequest() throws(ResourceError) -> URLRequest {
        var request = URLRequest(url: try Self.url(url, appending: queryItems))
        // GET is the request's default, and Foundation's setter costs a few thousand instructions.
        if httpMethod != .get {
            request.httpMethod = httpMethod.rawValue
        }
        if let timeoutInterval {
            request.timeoutInterval = timeoutInterval
        }
        for (name, value) in headerFields {
            try Self.checkHeaderField(name: name, value: value)
            request.setValue(value, forHTTPHeaderField: name)
        }
        let body: RequestBody?
        do {
            body = try self.body
        } catch {
            throw ResourceError(invalidRequestError: error)
        }
        if let body {
            // A streamed body that could not be sent as it is (a negative length, a form that
            // fails its checks) is refused here, before any request exists.
            if body.isStreamed { _ = try body.checkedLength(of: body.segments) }
            request.setBody(body)
            if let contentType = body.contentType, request.value(forHTTPHeaderField: "Content-Type") == nil {
                try Self.checkHeaderField(name: "Content-Type", value: contentType)
                request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            }
        }
        return request
    }

}

extension NetworkResourceType where ValidatedResponse == ResponseHead {
    /// Throws ``ResourceError/httpStatus(_:)`` unless the status is acceptable.
    public func validate(_ response: ResponseHead, data: Data) throws(ResourceError) {
        guard acceptableStatusCodes.contains(response.statusCode) else {
            throw .httpStatus(.init(head: response, body: data))
        }
    }

    /// Validates `response` as the ``ResponseHead`` it reads as: for callers (tests, say) that
    /// hold an `HTTPURLResponse`.
    public func validate<Response: HTTPURLResponse>(_ response: Response, data: Data) throws(ResourceError) {
        try validate(ResponseHead(response), data: data)
    }
}

// MARK: - Request building

extension NetworkResourceType {
    static func url(_ url: URL, appending queryItems: [URLQueryItem]) throws(ResourceError) -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidRequest(reason: "the URL scheme must be http or https")
        }
        guard !queryItems.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .invalidRequest(reason: "the URL cannot be split into components")
        }
        let added = PercentEncoding.encode(queryItems)
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + added
        } else {
            components.percentEncodedQuery = added
        }
        guard let result = components.url else {
            throw .invalidRequest(reason: "the query items do not form a valid URL")
        }
        return result
    }

    static func checkHeaderField(name: String, value: String) throws(ResourceError) {
        if let refusal = URLRequest.refusal(ofHeaderField: name, value: value) { throw refusal }
    }
}

extension ResourceError {
    init(invalidRequestError error: any Error) {
        if let error = error as? ResourceError {
            self = error
        } else {
            self = .invalidRequest(reason: "the body could not be encoded (\(ResourceError.summary(ofUnderlying: error)))")
        }
    }
}

extension ResourceError.HTTPStatusFailure {
    /// Creates a failure from a response and its body.
    public init(response: HTTPURLResponse, body: Data) {
        self.init(head: ResponseHead(response), body: body)
    }

    /// Creates a failure from a response head and its body.
    public init(head: ResponseHead, body: Data) {
        self.init(statusCode: head.statusCode, headerFields: head.headerFields, body: body)
    }
}
