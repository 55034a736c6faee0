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
/// `AsyncHTTPClientTransport` over a client that does not trace (AsyncHTTPClient's delegate API).
///
/// `tracedAsyncHTTPClientTransport` (a client that traces, so AsyncHTTPClient's async API) passes
/// both suites run on their own, but is left out of ``allCases``: each of its hops is a Swift
/// task, and in the one test process, where CPU-heavy suites hold the cooperative pool's threads
/// (two on a 2-core machine), a hop can wait past its test's short deadline for a thread, so its
/// timing-bound tests fail by starvation, not by a fault of the transport. Run them over it with
/// `RESOURCELOADER_TEST_TRACED_TRANSPORT=1`; `AsyncHTTPClientTracingTests` covers the path always.
enum TransportUnderTest: String, CaseIterable, CustomTestStringConvertible {
    case urlSessionTransport
    case plainURLSession
    #if AsyncHTTPClient
    case asyncHTTPClientTransport
    case tracedAsyncHTTPClientTransport
    #endif

    /// The transports the suites run against (see the type's documentation).
    static var allCases: [TransportUnderTest] {
        #if AsyncHTTPClient
        let traced = ProcessInfo.processInfo.environment["RESOURCELOADER_TEST_TRACED_TRANSPORT"] == "1"
        return [.urlSessionTransport, .plainURLSession, .asyncHTTPClientTransport]
            + (traced ? [.tracedAsyncHTTPClientTransport] : [])
        #else
        return [.urlSessionTransport, .plainURLSession]
        #endif
    }

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

    /// `false` for the plain `URLSession`, which enforces none of ``TransferOptions`` and
    /// follows its platform's redirect rules.
    var enforcesLimits: Bool { self != .plainURLSession }

    /// The transports that enforce the size, redirect, credential and compression rules.
    static var enforcing: [TransportUnderTest] { allCases.filter(\.enforcesLimits) }

    var testDescription: String { rawValue }
}
