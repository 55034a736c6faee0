import Foundation

/// One test a ``HARReplayer`` applies to decide whether a recorded entry answers a request.
///
/// A rule compares the live request, as recorded (``HAR/Request``, redacted the replayer's way),
/// with an entry's request, and names the difference when they differ. An entry answers a request
/// when every rule finds no difference; the differences name the closest entry when none does.
///
/// ```swift
/// let replay = try ReplayTransport(
///     contentsOf: harFile,
///     rules: [.method, .urlIgnoringQueryOrder, .headers(["Accept"]), .body])
/// ```
public struct HARMatchingRule: Sendable, CustomStringConvertible {
    /// What the rule compares, for messages.
    public let description: String
    private let compare: @Sendable (_ live: HAR.Request, _ recorded: HAR.Request) -> String?

    /// Creates a rule from a comparison that returns `nil` when the two requests agree, or a
    /// description of how they differ.
    ///
    /// The description appears in a ``HARReplayError``; build it from the requests' (redacted)
    /// fields only.
    public init(_ description: String, difference: @escaping @Sendable (_ live: HAR.Request, _ recorded: HAR.Request) -> String?) {
        self.description = description
        self.compare = difference
    }

    /// `nil` when `live` and `recorded` agree under this rule, otherwise how they differ.
    public func difference(between live: HAR.Request, and recorded: HAR.Request) -> String? {
        compare(live, recorded)
    }

    /// ``method`` and ``url``: what a replayer matches by default.
    public static let standard: [HARMatchingRule] = [.method, .url]
}

// MARK: - Rules

extension HARMatchingRule {
    /// The same method, compared without regard to case.
    public static let method = HARMatchingRule("method") { live, recorded in
        live.method.uppercased() == recorded.method.uppercased()
            ? nil : "method: recorded \(recorded.method), requested \(live.method)"
    }

    /// The same URL, query included, in the same order.
    public static let url = HARMatchingRule("URL") { live, recorded in
        live.url == recorded.url ? nil : "URL: recorded \(recorded.url), requested \(live.url)"
    }

    /// The same URL apart from the order of its query parameters: the same scheme, host, port and
    /// path, and the same parameters (a repeated one as often).
    public static let urlIgnoringQueryOrder = HARMatchingRule("URL (query in any order)") { live, recorded in
        let (left, right) = (URLComponents(string: live.url), URLComponents(string: recorded.url))
        let sameResource = left?.scheme?.lowercased() == right?.scheme?.lowercased()
            && left?.host?.lowercased() == right?.host?.lowercased() && left?.port == right?.port
            && left?.percentEncodedPath == right?.percentEncodedPath
        func items(_ components: URLComponents?) -> [String] {
            (components?.queryItems ?? []).map { "\($0.name)=\($0.value ?? "")" }.sorted()
        }
        return sameResource && items(left) == items(right)
            ? nil : "URL (query in any order): recorded \(recorded.url), requested \(live.url)"
    }

    /// The same values of the header fields `names` (matched without regard to case; a field
    /// absent from both agrees). A redacted field compares as ``HAR/redactedValue``.
    public static func headers(_ names: [String]) -> HARMatchingRule {
        HARMatchingRule("header fields \(names.joined(separator: ", "))") { live, recorded in
            var differences: [String] = []
            for name in names {
                let (left, right) = (live.values(ofHeaderField: name), recorded.values(ofHeaderField: name))
                if left != right {
                    differences.append("header \(name): recorded \(Self.quoted(right)), requested \(Self.quoted(left))")
                }
            }
            return differences.isEmpty ? nil : differences.joined(separator: "; ")
        }
    }

    /// The same body bytes (an absent body is empty). A body whose bytes were not recorded (over
    /// the recorder's limit, or unreadable: a `bodySize` above zero with empty text) agrees only
    /// with another such body.
    public static let body = HARMatchingRule("body") { live, recorded in
        switch (live.unrecordedBodySize, recorded.unrecordedBodySize) {
        case (nil, nil): break
        case (.some, .some): return nil
        case (.some(let size), nil):
            return "body: recorded \(recorded.postData?.data?.count ?? 0) bytes, requested \(size) bytes over the limit (not compared)"
        case (nil, .some(let size)):
            return "body: recorded \(size) bytes whose bytes were not recorded, requested \(live.postData?.data?.count ?? 0) bytes"
        }
        let (left, right) = (live.postData?.data ?? Data(), recorded.postData?.data ?? Data())
        guard left != right else { return nil }
        return "body: recorded \(right.count) bytes, requested \(left.count) bytes"
            + (left.count == right.count ? " (different content)" : "")
    }

    /// A rule decided by `matches`, named `description` in messages.
    public static func custom(_ description: String, _ matches: @escaping @Sendable (_ live: HAR.Request, _ recorded: HAR.Request) -> Bool) -> HARMatchingRule {
        HARMatchingRule(description) { live, recorded in
            matches(live, recorded) ? nil : "\(description): not satisfied"
        }
    }

    private static func quoted(_ values: [String]) -> String {
        values.isEmpty ? "(absent)" : values.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

extension HAR.Request {
    /// The values of the header field `name` (matched without regard to case), in order.
    public func values(ofHeaderField name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The size of a body that was sent but whose bytes were not recorded (a `bodySize` above
    /// zero with empty body text); `nil` for a body recorded whole, or none.
    var unrecordedBodySize: Int? {
        guard bodySize > 0, let postData, postData.params?.isEmpty ?? true, postData.data?.isEmpty ?? false else { return nil }
        return bodySize
    }
}
