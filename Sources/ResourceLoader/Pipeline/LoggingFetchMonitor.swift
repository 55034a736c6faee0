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
/// every query value replaced by `REDACTED` (an item without `=` is replaced whole), and loses
/// its user, password and fragment; no header value, no body and no error description is
/// written. A method that is not an HTTP token (which no transport sends: the fetch fails with
/// ``ResourceError/invalidRequest(reason:)``) is written `(invalid method)`, so the line stays
/// one line whatever a resource built.
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
            line += "\(method(of: request)) \(request.url.map(redacted) ?? "(no URL)")"
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

    /// `request`'s method as the line writes it: `GET` when it names none, and
    /// `(invalid method)` when it is not an HTTP token (a request no transport sends, refused
    /// with ``ResourceError/invalidRequest(reason:)``), so that what a resource put there can
    /// neither end the line nor add one.
    static func method(of request: URLRequest) -> String {
        guard let method = request.httpMethod else { return "GET" }
        return HTTPMethod(rawValue: method) == nil ? "(invalid method)" : method
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
        if url.baseURL == nil, let text = redactedPlainHTTP(url.absoluteString) { return text }
        return redactedByComponents(url)
    }

    /// ``redacted(_:)`` by `URLComponents`, for any URL.
    static func redactedByComponents(_ url: URL) -> String {
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

    /// ``redacted(_:)`` of the URL written `string`, read byte by byte, or `nil` unless it is an
    /// ASCII `http` or `https` URL without user information, with a registered-name or IPv4 host
    /// and a port, if any, of one to five digits without a leading zero: the URLs that fetches
    /// name, for which reading the string gives what `URLComponents` gives, without its cost.
    static func redactedPlainHTTP(_ string: String) -> String? {
        var string = string
        return string.withUTF8 { bytes -> String? in
            let schemeLength: Int
            if bytes.starts(with: "http://".utf8) {
                schemeLength = 7
            } else if bytes.starts(with: "https://".utf8) {
                schemeLength = 8
            } else {
                return nil
            }
            // The authority: a host, and a port after `:`.
            var index = schemeLength
            var portStart: Int?
            authority: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): break authority
                case UInt8(ascii: ":") where portStart == nil: portStart = index + 1
                case UInt8(ascii: "0")...UInt8(ascii: "9"): break
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    if portStart != nil { return nil }
                default: return nil  // user information, an IP literal, percent-encoding, not ASCII
                }
                index += 1
            }
            let hostEnd = portStart.map { $0 - 1 } ?? index
            guard hostEnd > schemeLength else { return nil }
            if let portStart {
                let digits = index - portStart
                guard (1...5).contains(digits), digits == 1 || bytes[portStart] != UInt8(ascii: "0"),
                      let port = Int(String(decoding: UnsafeBufferPointer(rebasing: bytes[portStart..<index]), as: UTF8.self)),
                      port <= 65535
                else { return nil }
            }
            // The path, up to the query or the fragment.
            let pathEnd = bytes[index...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
            for byte in bytes[index..<pathEnd] where byte >= 0x80 { return nil }
            var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<pathEnd]), as: UTF8.self)
            guard pathEnd < bytes.count, bytes[pathEnd] == UInt8(ascii: "?") else { return text }
            let queryEnd = bytes[pathEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            let query = UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)..<queryEnd])
            guard !query.isEmpty else { return text }
            for byte in query where byte >= 0x80 { return nil }
            text.reserveCapacity(text.utf8.count + query.count + 16)
            text += "?"
            var first = true
            for item in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                if !first { text += "&" }
                first = false
                // An item without `=` may be a bare key or token: it counts as a value.
                if let equals = item.firstIndex(of: UInt8(ascii: "=")) {
                    text += String(decoding: UnsafeBufferPointer(rebasing: item[..<equals]), as: UTF8.self)
                    text += "="
                }
                text += redactedValue
            }
            return text
        }
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
