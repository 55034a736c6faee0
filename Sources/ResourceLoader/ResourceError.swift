import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one error type ResourceLoader reports.
///
/// Each case is a different kind of failure, so callers can `switch` on what went wrong:
///
/// | Case | Raised when |
/// | --- | --- |
/// | ``invalidRequest(reason:)`` | The resource could not be turned into a valid `URLRequest`. |
/// | ``requestAdaptationFailed(_:)`` | A ``RequestAdapter`` of the service's ``ResourcePipeline`` threw. |
/// | ``authenticationFailed(_:)`` | The pipeline's ``CredentialStore`` had no credential, refreshing it failed, or its credential was revoked. |
/// | ``transport(_:underlying:)`` | The transport failed: no connection, DNS, TLS, a non-HTTP response… |
/// | ``timedOut`` | The request did not complete in time. |
/// | ``responseTooLarge(limit:)`` | The response body was larger than ``TransferOptions/maximumResponseBytes``. |
/// | ``redirectRefused(_:)`` | A redirect broke the redirect rules (too many, `https` to `http`, not to `http` or `https`, a body that cannot be sent again). |
/// | ``cancelled`` | The caller cancelled the fetch. |
/// | ``httpStatus(_:)`` | The server answered with a status code the resource does not accept. |
/// | ``serviceLevel(_:)`` | The transport succeeded but the body reports an error (see ``DataResourceType/serviceError(in:)``). |
/// | ``emptyResponse(statusCode:)`` | The body was empty where a model was expected. |
/// | ``parsing(_:)`` | The body could not be turned into the model. |
/// | ``soapFault(_:)`` | A SOAP service answered with a Fault. |
/// | ``notCached`` | A request said `only-if-cached` and the ``HTTPCache`` had no response it could use. |
/// | ``fileSystem(_:)`` | A download could not be written, moved into place or read back. |
/// | ``integrityMismatch(_:)`` | A downloaded file's SHA-256 is not the one expected or declared. |
/// | ``resumeRefused(_:)`` | The server's answer to a resumed download does not continue its partial file. |
/// | ``downloadInterrupted(_:underlying:)`` | A download stopped early and its partial file was kept to resume. |
///
/// Descriptions name the kind of failure and never quote what the server sent (bodies, header
/// values, SOAP Fault text, names declared in a document, dictionary keys) nor the request's
/// header values and body, so an error can be logged without leaking credentials or personal
/// data. The server's text stays on the associated values; an error carried inside is quoted
/// only when it is a ``ContentFreeDescription``.
public enum ResourceError: Error, Sendable {
    /// The resource could not be turned into a request; `reason` says why.
    case invalidRequest(reason: String)
    /// A ``RequestAdapter`` threw while preparing the request; the value is the error it threw.
    /// Nothing was sent.
    case requestAdaptationFailed(any Error)
    /// The ``ResourcePipeline``'s ``CredentialStore`` could not give the request a credential:
    /// it had none, refreshing it failed, or a permanent refresh failure signed it out. The
    /// value says which and keeps the refresh's error.
    case authenticationFailed(AuthenticationFailure)
    /// The transport failed with the given `URLError` code; `underlying` is the original error.
    case transport(URLError.Code, underlying: any Error)
    /// The request did not complete before its timeout or deadline.
    case timedOut
    /// The response body is larger than `limit` bytes, the
    /// ``TransferOptions/maximumResponseBytes`` that applied to the request.
    case responseTooLarge(limit: Int)
    /// A redirect was refused; the value says which rule it broke. Only ``URLSessionTransport``
    /// enforces these rules.
    case redirectRefused(RedirectRefusal)
    /// The fetch was cancelled by the caller.
    case cancelled
    /// The response's status code is not one the resource accepts.
    case httpStatus(HTTPStatusFailure)
    /// The response arrived with an acceptable status but its body reports a service-level error.
    case serviceLevel(any Error)
    /// The response body was empty where the resource expected a model.
    case emptyResponse(statusCode: Int?)
    /// The response body could not be parsed into the resource's model.
    case parsing(ParsingFailure)
    /// A SOAP service answered with a Fault.
    case soapFault(SOAPFault)
    /// The request's `Cache-Control` said `only-if-cached` and the ``HTTPCache`` had no stored
    /// response that could answer it. Nothing was sent.
    case notCached
    /// A download could not be written to disk, moved into place or read back; the value says
    /// which operation failed, on which file, with which `errno`. Nothing was placed.
    case fileSystem(FileSystemFailure)
    /// A downloaded file's SHA-256 is not the one the resource expected or the server declared
    /// (`Content-Digest`, `Repr-Digest`); the value has both digests. Nothing was placed.
    case integrityMismatch(IntegrityFailure)
    /// A resumed download's answer does not continue its partial file (RFC 9110 §14.4, §15.5.17):
    /// the value says how. No byte of that answer was written.
    case resumeRefused(ResumeRefusal)
    /// A download failed, and its partial file was kept (see
    /// ``DownloadResourceType/keepsPartialFile``): resume it with the value. `underlying` is
    /// why it failed: it stopped early (``cancelled``, ``timedOut``,
    /// ``transport(_:underlying:)``…), a resumed answer was refused (``resumeRefused(_:)``), the
    /// last attempt answered an error status (``httpStatus(_:)``) after an earlier one kept the
    /// file, or the finished file could not be placed (``fileSystem(_:)``).
    indirect case downloadInterrupted(ResumableDownload, underlying: ResourceError)
}

// MARK: - Context types

extension ResourceError {
    /// Why a ``CredentialStore`` could not give a request a credential.
    public enum AuthenticationFailure: Sendable {
        /// The store holds no credential: nobody has logged in, or the app removed it with
        /// ``CredentialStore/setCredential(_:)``. Nothing was sent.
        case noCredential
        /// ``Authenticator/refresh(_:through:)`` threw this error. Every request that waited for that
        /// refresh fails with the same error.
        case refreshFailed(any Error)
        /// The store is signed out because a refresh failed in a way its authenticator calls
        /// permanent (``Authenticator/isPermanentRefreshFailure(_:)``): a revoked refresh token,
        /// say. The value is that refresh's error. Every request fails with it, without being
        /// sent, until the app sets a new credential with
        /// ``CredentialStore/setCredential(_:)``.
        case credentialRevoked(any Error)
    }

    /// Why ``URLSessionTransport`` refused to follow a redirect.
    public enum RedirectRefusal: Sendable, Hashable {
        /// The request had already followed `limit` redirects, its
        /// ``TransferOptions/maximumRedirects``.
        case tooManyRedirects(limit: Int)
        /// The redirect led from an `https` URL to an `http` one.
        case insecureDowngrade
        /// The redirect's `Location` is not an `http` or `https` URL with a host: `file:`,
        /// `ftp:`, `data:` or `javascript:`, for example. (Linux's `URLSession` would request
        /// such a location as a path on the current server.)
        case unsupportedScheme
        /// The redirect asks for the request body to be sent again (a `307` or `308`, or a `301`
        /// or `302` answering a method other than `POST`), and the body is an `httpBodyStream`,
        /// which cannot be read twice. Give the request an `httpBody` instead.
        case unrepeatableBody
        /// The redirect leads to an origin (scheme, host and port) other than the original
        /// request's and asks for the request body to be sent again (a `307` or `308`, or a
        /// `301` or `302` answering a method other than `POST`). A body can carry credentials (a
        /// password or token in a form, a WS-Security `UsernameToken` or signature), so it stays
        /// with the origin it was written for; a resource whose body may follow sets
        /// ``TransferOptions/sendsBodyToAnotherOrigin``.
        case bodyToAnotherOrigin
    }

    /// What is known about a response whose status code was not acceptable.
    public struct HTTPStatusFailure: Sendable {
        /// The most bytes of the body that ``bodyPrefix`` keeps.
        public static let bodyPrefixLimit = 4096

        /// The HTTP status code.
        public let statusCode: Int
        /// The response's header fields. Read with ``value(forHeaderField:)``: servers and
        /// platforms differ in how they case header names.
        public let headerFields: [String: String]
        /// The first ``bodyPrefixLimit`` bytes of the response body, for diagnostics.
        public let bodyPrefix: Data

        /// Creates a failure value, keeping at most ``bodyPrefixLimit`` bytes of `body`.
        public init(statusCode: Int, headerFields: [String: String] = [:], body: Data = Data()) {
            self.statusCode = statusCode
            self.headerFields = headerFields
            self.bodyPrefix = Data(body.prefix(Self.bodyPrefixLimit))
        }

        /// Returns the value of a header field, matching its name case-insensitively.
        public func value(forHeaderField name: String) -> String? {
            if let exact = headerFields[name] { return exact }
            return headerFields.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What went wrong while turning a response body into a model.
    public struct ParsingFailure: Sendable {
        /// What the parser was doing, for example `"decoding City from JSON"`.
        public let context: String
        /// The error the parser raised, if there was one.
        public let underlying: (any Error)?

        /// Creates a parsing failure.
        public init(context: String, underlying: (any Error)? = nil) {
            self.context = context
            self.underlying = underlying
        }

        /// The coding path of the underlying `DecodingError`, as a dotted string, if there is one.
        public var codingPath: String? {
            formattedCodingPath { $0.stringValue }
        }

        /// The coding path of the underlying `DecodingError`, array indices as `[n]` and every
        /// other key as `name(key)`, joined with dots; `nil` without a `DecodingError`.
        func formattedCodingPath(_ name: (any CodingKey) -> String) -> String? {
            guard let decodingError = underlying as? DecodingError else { return nil }
            let path: [any CodingKey]
            switch decodingError {
            case .typeMismatch(_, let context), .valueNotFound(_, let context),
                .dataCorrupted(let context):
                path = context.codingPath
            case .keyNotFound(let key, let context):
                path = context.codingPath + [key]
            @unknown default:
                return nil
            }
            return path.map { key in Self.arrayIndex(key).map { "[\($0)]" } ?? name(key) }
                .joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }

        /// `key`'s position when it is an array index: a key with an integer whose string is
        /// `Index n`, as the JSON and XML decoders' own and Foundation's are. A dictionary's key
        /// that reads as an integer (the standard library gives it that integer) is not one.
        static func arrayIndex(_ key: any CodingKey) -> Int? {
            guard let index = key.intValue, key.stringValue == "Index \(index)" else { return nil }
            return index
        }
    }
}

// MARK: - Conveniences

extension ResourceError {
    /// Wraps any error raised while fetching into a `ResourceError`.
    ///
    /// A `ResourceError` passes through unchanged; `CancellationError` and `URLError.cancelled`
    /// become ``cancelled``; `URLError.timedOut` becomes ``timedOut``; any other `URLError`
    /// becomes ``transport(_:underlying:)``; anything else is treated as a transport failure
    /// with code `.unknown`.
    public init(transportError error: any Error) {
        switch error {
        case let error as ResourceError:
            self = error
        case is CancellationError:
            self = .cancelled
        case let error as URLError where error.code == .cancelled:
            self = .cancelled
        case let error as URLError where error.code == .timedOut:
            self = .timedOut
        case let error as URLError:
            self = .transport(error.code, underlying: error)
        default:
            self = .transport(.unknown, underlying: error)
        }
    }

    /// Wraps an error raised while parsing into ``parsing(_:)``, unless it is already a
    /// `ResourceError`.
    public init(parsingError error: any Error, context: String) {
        if let error = error as? ResourceError {
            self = error
        } else {
            self = .parsing(ParsingFailure(context: context, underlying: error))
        }
    }

    /// The case's name and, for ``transport(_:underlying:)``, its code, as in `"httpStatus"` or
    /// `"transport(-1004)"`: words that carry nothing from the request or the response.
    ///
    /// What ``LoggingFetchMonitor`` writes for a failed fetch; public so that logs, metrics and
    /// traces can name an error without its description. For
    /// ``authenticationFailed(_:)`` it names the reason too, as in
    /// `"authenticationFailed(noCredential)"`.
    public var logName: String {
        switch self {
        case .invalidRequest: "invalidRequest"
        case .requestAdaptationFailed: "requestAdaptationFailed"
        case .authenticationFailed(.noCredential): "authenticationFailed(noCredential)"
        case .authenticationFailed(.refreshFailed): "authenticationFailed(refreshFailed)"
        case .authenticationFailed(.credentialRevoked): "authenticationFailed(credentialRevoked)"
        case .transport(let code, _): "transport(\(code.rawValue))"
        case .timedOut: "timedOut"
        case .responseTooLarge: "responseTooLarge"
        case .redirectRefused: "redirectRefused"
        case .cancelled: "cancelled"
        case .httpStatus: "httpStatus"
        case .serviceLevel: "serviceLevel"
        case .emptyResponse: "emptyResponse"
        case .parsing: "parsing"
        case .soapFault: "soapFault"
        case .notCached: "notCached"
        case .fileSystem: "fileSystem"
        case .integrityMismatch: "integrityMismatch"
        case .resumeRefused: "resumeRefused"
        case .downloadInterrupted(_, let underlying): "downloadInterrupted(\(underlying.logName))"
        }
    }

    /// `true` for ``cancelled``, and for a ``downloadInterrupted(_:underlying:)`` that a
    /// cancellation stopped.
    public var isCancelled: Bool {
        switch self {
        case .cancelled: true
        case .downloadInterrupted(_, let underlying): underlying.isCancelled
        default: false
        }
    }

    /// The HTTP status code this error carries, if any; for a
    /// ``downloadInterrupted(_:underlying:)``, its underlying error's.
    public var statusCode: Int? {
        switch self {
        case .httpStatus(let failure): failure.statusCode
        case .emptyResponse(let statusCode): statusCode
        case .downloadInterrupted(_, let underlying): underlying.statusCode
        default: nil
        }
    }
}

extension ResourceError: CustomStringConvertible {
    /// A one-line description that names the kind of failure and never quotes what the server
    /// sent or the request carried.
    ///
    /// Header values, bodies, a SOAP Fault's code and reason, declared encoding and entity names,
    /// dictionary keys from the response and the text of errors from other sources (a custom
    /// transport, a ``serviceLevel(_:)`` error) are left out: they may hold credentials or
    /// personal data, and descriptions end up in logs. They stay available on the associated
    /// values for callers who want them.
    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            return "Invalid request: \(reason)"
        case .transport(let code, let underlying):
            let detail = underlying is URLError ? "" : " (\(Self.summary(ofUnderlying: underlying)))"
            let summary = Self.summary(of: code).map { "\($0) " } ?? ""
            return "Transport error: \(summary)(URLError code \(code.rawValue))\(detail)"
        case .requestAdaptationFailed(let error):
            return "A request adapter failed (\(Self.summary(ofUnderlying: error)))"
        case .authenticationFailed(.noCredential):
            return "Authentication failed: there is no credential to send"
        case .authenticationFailed(.refreshFailed(let error)):
            return "Authentication failed: refreshing the credential failed (\(Self.summary(ofUnderlying: error)))"
        case .authenticationFailed(.credentialRevoked(let error)):
            return "Authentication failed: the credential was revoked and the store is signed out (\(Self.summary(ofUnderlying: error)))"
        case .timedOut:
            return "The request timed out"
        case .responseTooLarge(let limit):
            return "The response body is larger than the limit of \(limit) bytes"
        case .redirectRefused(.tooManyRedirects(let limit)):
            return "Redirect refused: more than \(limit) redirects"
        case .redirectRefused(.insecureDowngrade):
            return "Redirect refused: it leads from https to http"
        case .redirectRefused(.unsupportedScheme):
            return "Redirect refused: it leads to a URL that is not http or https"
        case .redirectRefused(.unrepeatableBody):
            return "Redirect refused: it needs the request body again, and a body stream cannot be sent twice"
        case .redirectRefused(.bodyToAnotherOrigin):
            return "Redirect refused: it would send the request body to another origin"
        case .cancelled:
            return "The request was cancelled"
        case .httpStatus(let failure):
            return "HTTP status \(failure.statusCode) is not acceptable"
                + " (\(failure.bodyPrefix.count) body bytes kept)"
        case .serviceLevel(let error):
            return "The service reported an error (\(Self.summary(ofUnderlying: error)))"
        case .emptyResponse(let statusCode):
            return "The response body was empty"
                + (statusCode.map { " (HTTP status \($0))" } ?? "")
        case .parsing(let failure):
            var text = "Parsing failed while \(failure.context)"
            if let path = failure.redactedCodingPath, !path.isEmpty { text += " at \(path)" }
            if let underlying = failure.underlying { text += ": \(Self.summary(ofUnderlying: underlying))" }
            return text
        case .soapFault(let fault):
            return fault.description
        case .notCached:
            return "The request asked for a cached response only (only-if-cached), and the cache has none it can use"
        case .fileSystem(let failure):
            return failure.description
        case .integrityMismatch(let failure):
            return failure.description
        case .resumeRefused(let refusal):
            return refusal.description
        case .downloadInterrupted(let partial, let underlying):
            return "The download stopped after \(partial.byteCount) bytes, kept to resume: \(underlying)"
        }
    }
}

/// An error whose `description` contains nothing a server sent (no body, header value, document
/// text or declared name), so that ``ResourceError/description`` may quote it.
///
/// ``ResourceError`` describes any other error it carries (a ``ResourceError/serviceLevel(_:)``
/// error, a custom transport's error) by its type name only. Conform an error type of your own
/// when its description is safe to log:
///
/// ```swift
/// struct QuotaExceeded: Error, ContentFreeDescription {
///     var description: String { "The daily quota is used up" }
/// }
/// ```
public protocol ContentFreeDescription: Error, CustomStringConvertible {}

extension ResourceError: ContentFreeDescription {}

extension ResourceError {
    /// Words for an error carried inside another: its own description when it is a
    /// ``ContentFreeDescription``, otherwise only its kind (a `DecodingError`'s case, an `NSError`'s
    /// domain and code, or any other error's type).
    package static func summary(ofUnderlying error: any Error) -> String {
        switch error {
        case let error as any ContentFreeDescription:
            return error.description
        case let error as DecodingError:
            switch error {
            case .typeMismatch(let type, _):
                return "a value is not of the expected type \(type)"
            case .valueNotFound(let type, _):
                return "a value of type \(type) is missing"
            case .keyNotFound(let key, _):
                let name = ParsingFailure.isSafeToQuote(key) ? "\"\(key.stringValue)\"" : "a key"
                return "\(name) is missing"
            case .dataCorrupted:
                return "the data is not valid"
            @unknown default:
                return "DecodingError"
            }
        default:
            // Foundation's own errors (JSONSerialization's, for one) put document text in their
            // user info; their domain and code do not.
            if Swift.type(of: error) is NSError.Type {
                let error = error as NSError
                return "\(error.domain) error \(error.code)"
            }
            return String(describing: Swift.type(of: error))
        }
    }
}

extension ResourceError.ParsingFailure {
    /// ``codingPath`` with every key that may come from the response replaced by `*`.
    ///
    /// A key is quoted only when it cannot hold response text: an index, a key the model declared
    /// as a payload-free enum case (such as synthesised `CodingKeys`), or a name from the
    /// resource's own element path. Dictionary keys, which the response chooses, are not.
    var redactedCodingPath: String? {
        formattedCodingPath { Self.isSafeToQuote($0) ? $0.stringValue : "*" }
    }

    /// Whether `key` cannot hold response text: see ``redactedCodingPath``.
    static func isSafeToQuote(_ key: any CodingKey) -> Bool {
        if key is XMLCodingKey { return true }
        let mirror = Mirror(reflecting: key)
        return mirror.displayStyle == .enum && mirror.children.isEmpty
    }
}

extension ResourceError {
    /// Plain words for the transport failures people meet most.
    static func summary(of code: URLError.Code) -> String? {
        switch code {
        case .cannotConnectToHost: "could not connect to the server"
        case .cannotFindHost, .dnsLookupFailed: "could not find the server"
        case .notConnectedToInternet: "not connected to the internet"
        case .networkConnectionLost: "the connection was lost"
        case .badServerResponse: "the server's response was not valid HTTP"
        case .cannotDecodeContentData: "the response's content coding was not asked for or could not be decoded"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
            "a secure connection could not be made"
        case .badURL, .unsupportedURL: "the URL is not supported"
        case .fileDoesNotExist: "the file does not exist"
        case .cannotOpenFile: "the file could not be read"
        case .dataLengthExceedsMaximum: "the response is too large"
        case .httpTooManyRedirects: "too many redirects"
        default: nil
        }
    }
}

extension ResourceError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
