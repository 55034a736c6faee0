import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``FetchMonitor`` that logs one line per fetch, when it finishes.
///
/// ```swift
/// let pipeline = ResourcePipeline(monitors: [LoggingFetchMonitor()])
/// ```
///
/// A line reads like this (one line, wrapped here):
///
/// ```
/// ResourceLoader fetch 7 Cities: GET https://api.example.com/cities?q=REDACTED
///   status=200 bytes=5120 attempts=1 duration=41.250ms result=success
/// ```
///
/// It names the fetch, the resource type, the method and the URL, and the last response's status
/// and body size, the number of attempts, the fetch's duration and the outcome: `success`, or the
/// ``ResourceError`` case that ended it (with its code for
/// ``ResourceError/transport(_:underlying:)``). It never contains what a request or a response
/// carries: the URL keeps its scheme, host, port, path and the **names** of its query items, with
/// every query value replaced by `REDACTED` (an item without `=` is replaced whole), and loses its user, password and fragment; no header
/// value, no body and no error description is written.
public struct LoggingFetchMonitor: FetchMonitor {
    /// What query values are replaced with.
    public static let redactedValue = "REDACTED"

    /// Writes a line and a newline to the standard error.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    private let sink: @Sendable (String) -> Void

    /// Creates a monitor that hands each line to `sink`.
    ///
    /// - Parameter sink: Receives one line per fetch, without a newline, on the thread that
    ///   finishes the fetch. Default: ``standardError``. Pass your logger (`os.Logger`,
    ///   swift-log) here; the line is safe to log at any level.
    public init(sink: @escaping @Sendable (String) -> Void = LoggingFetchMonitor.standardError) {
        self.sink = sink
    }

    /// Writes the fetch's line.
    public func fetchFinished(_ event: FetchEvent.Finished) {
        sink(Self.line(for: event))
    }

    /// The line for `event`.
    static func line(for event: FetchEvent.Finished) -> String {
        var line = "ResourceLoader fetch \(event.context.fetchID) \(event.context.resourceTypeName): "
        if let request = event.request {
            line += "\(request.httpMethod ?? "GET") \(request.url.map(redacted) ?? "(no URL)")"
        } else {
            line += "(no request)"
        }
        if let statusCode = event.statusCode { line += " status=\(statusCode)" }
        if let bodyByteCount = event.bodyByteCount { line += " bytes=\(bodyByteCount)" }
        line += " attempts=\(event.attempts) duration=\(milliseconds(event.duration))ms"
        switch event.result {
        case .success: line += " result=success"
        case .failure(let error): line += " result=\(error.logName)"
        }
        return line
    }

    /// `url` as this monitor writes it: its scheme, host, port and path, and the names of its
    /// query items with every query value replaced by ``redactedValue`` (an item without `=` is
    /// replaced whole); without its user, password and fragment.
    ///
    /// Public so that other monitors (the swift-log, swift-metrics and tracing integrations, or
    /// one of your own) redact URLs by the same rules:
    /// `https://u:p@api.example.com/cities?q=paris&key=123#top` becomes
    /// `https://api.example.com/cities?q=REDACTED&key=REDACTED`. A URL without a scheme or a host
    /// becomes `(unreadable URL)`.
    public static func redacted(_ url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme, let host = components.percentEncodedHost
        else {
            return "(unreadable URL)"
        }
        var text = "\(scheme)://\(host)"
        if let port = components.port { text += ":\(port)" }
        text += components.percentEncodedPath
        if let query = components.percentEncodedQuery, !query.isEmpty {
            let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item in
                // An item without `=` may be a bare key or token: it counts as a value.
                guard let equals = item.firstIndex(of: "=") else { return redactedValue }
                return "\(item[..<equals])=\(redactedValue)"
            }
            text += "?" + items.joined(separator: "&")
        }
        return text
    }

    /// `duration` in milliseconds with three decimals.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
