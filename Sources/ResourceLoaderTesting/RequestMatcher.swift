import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides which requests a ``FakeURLSession`` stub answers.
///
/// ```swift
/// session.stub(.url("https://api.example.com/europe.json"), with: .json("{}"))
/// session.stub(.method(.post).and(.path("/users")), with: .status(201))
/// session.stub(.matching("has a token") { $0.value(forHTTPHeaderField: "Authorization") != nil },
///              with: .status(200))
/// ```
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// What the matcher accepts, for messages.
    public let description: String
    private let predicate: @Sendable (URLRequest) -> Bool

    /// Creates a matcher from a predicate and a description of it.
    public init(_ description: String, _ predicate: @escaping @Sendable (URLRequest) -> Bool) {
        self.description = description
        self.predicate = predicate
    }

    /// Whether the matcher accepts `request`.
    public func matches(_ request: URLRequest) -> Bool {
        predicate(request)
    }

    /// Accepts requests that both this matcher and `other` accept.
    public func and(_ other: RequestMatcher) -> RequestMatcher {
        RequestMatcher("\(description) and \(other.description)") { self.matches($0) && other.matches($0) }
    }
}

// MARK: - Factories

extension RequestMatcher {
    /// Accepts every request.
    public static let any = RequestMatcher("any request") { _ in true }

    /// Accepts requests whose URL is exactly `url`, query included.
    public static func url(_ url: URL) -> RequestMatcher {
        RequestMatcher("URL \(url.absoluteString)") { $0.url?.absoluteString == url.absoluteString }
    }

    /// Accepts requests whose URL is exactly `url`, query included.
    public static func url(_ url: String) -> RequestMatcher {
        RequestMatcher("URL \(url)") { $0.url?.absoluteString == url }
    }

    /// Accepts requests whose URL path is `path`, whatever the host and query.
    public static func path(_ path: String) -> RequestMatcher {
        RequestMatcher("path \(path)") { $0.url?.path == path }
    }

    /// Accepts requests sent with `method`.
    public static func method(_ method: HTTPMethod) -> RequestMatcher {
        RequestMatcher("method \(method)") { ($0.httpMethod ?? "GET") == method.rawValue }
    }

    /// Accepts requests for which `predicate` returns `true`.
    public static func matching(
        _ description: String,
        _ predicate: @escaping @Sendable (URLRequest) -> Bool
    ) -> RequestMatcher {
        RequestMatcher(description, predicate)
    }
}
