import Foundation
import ResourceLoader
import Testing

#if AsyncHTTPClient
import AsyncHTTPClient
import InMemoryTracing
import ResourceLoaderAsyncHTTPClient
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transports the loopback and fault-injection suites run against: ``URLSessionTransport``,
/// a plain `URLSession` and, when the package is built with the `AsyncHTTPClient` trait,
/// `AsyncHTTPClientTransport` over a client that does not trace (AsyncHTTPClient's delegate API)
/// and over one that traces (its async API, each hop a Swift task on the client's event loop).
enum TransportUnderTest: String, CaseIterable, CustomTestStringConvertible {
    case urlSessionTransport
    case plainURLSession
    #if AsyncHTTPClient
    case asyncHTTPClientTransport
    case tracedAsyncHTTPClientTransport
    #endif

    /// A new transport of this kind.
    var session: any URLSessionType {
        switch self {
        case .urlSessionTransport: URLSessionTransport()
        case .plainURLSession: URLSession(configuration: .ephemeral)
        #if AsyncHTTPClient
        case .asyncHTTPClientTransport: AsyncHTTPClientTransport()
        case .tracedAsyncHTTPClientTransport: AsyncHTTPClientTransport(configuration: Self.tracingConfiguration)
        #endif
        }
    }

    #if AsyncHTTPClient
    /// The transport's default client configuration, with a tracer of its own.
    static var tracingConfiguration: HTTPClient.Configuration {
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.tracing.tracer = InMemoryTracer()
        return configuration
    }
    #endif

    /// Whether the transport is `AsyncHTTPClientTransport`, traced or not.
    var isAsyncHTTPClient: Bool {
        #if AsyncHTTPClient
        self == .asyncHTTPClientTransport || self == .tracedAsyncHTTPClientTransport
        #else
        false
        #endif
    }

    /// Whether the transport sends a `RequestBodyStream`: not `URLSessionTransport` on Linux,
    /// which refuses one with `invalidRequest`, as documented.
    var sendsRequestBodyStreams: Bool {
        #if canImport(FoundationNetworking)
        self != .urlSessionTransport
        #else
        true
        #endif
    }

    /// `false` for the plain `URLSession`, which enforces none of ``TransferOptions`` and
    /// follows its platform's redirect rules.
    var enforcesLimits: Bool { self != .plainURLSession }

    /// The transports that enforce the size, redirect, credential and compression rules.
    static var enforcing: [TransportUnderTest] { allCases.filter(\.enforcesLimits) }

    var testDescription: String { rawValue }
}
