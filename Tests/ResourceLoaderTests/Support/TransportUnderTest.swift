import Foundation
import ResourceLoader
import Testing

#if AsyncHTTPClient
import ResourceLoaderAsyncHTTPClient
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transports the loopback and fault-injection suites run against: ``URLSessionTransport``,
/// a plain `URLSession` and, when the package is built with the `AsyncHTTPClient` trait,
/// `AsyncHTTPClientTransport`.
enum TransportUnderTest: String, CaseIterable, CustomTestStringConvertible {
    case urlSessionTransport
    case plainURLSession
    #if AsyncHTTPClient
    case asyncHTTPClientTransport
    #endif

    /// A new transport of this kind.
    var session: any URLSessionType {
        switch self {
        case .urlSessionTransport: URLSessionTransport()
        case .plainURLSession: URLSession(configuration: .ephemeral)
        #if AsyncHTTPClient
        case .asyncHTTPClientTransport: AsyncHTTPClientTransport()
        #endif
        }
    }

    /// `false` for the plain `URLSession`, which enforces none of ``TransferOptions`` and
    /// follows its platform's redirect rules.
    var enforcesLimits: Bool { self != .plainURLSession }

    /// The transports that enforce the size, redirect, credential and compression rules.
    static var enforcing: [TransportUnderTest] { allCases.filter(\.enforcesLimits) }

    var testDescription: String { rawValue }
}
