import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Compiled into the test target (FuzzCorpusReplayTests) and into the `http-cache` libFuzzer
// harness (Fuzz/run.sh), like FuzzEntryPoints.swift: public API only, as a client.

extension FuzzEntryPoints {
    /// The `http-cache` harness: the HTTP caching rules of RFC 9111 (``CachePolicy``,
    /// ``CacheControl``) and the two stores (``DiskCacheStore``, ``MemoryCacheStore``) on one
    /// exchange read from the input.
    ///
    /// Input format. The first 4 bytes (missing ones read as 0):
    /// - byte 0: the response's status, `httpCacheStatuses[byte % count]` (200, 203, 204, 206,
    ///   300, 301, 302, 304, 307, 308, 404, 405, 410, 414, 500, 501, 503, 599);
    /// - byte 1: seconds from sending the request to receiving the response;
    /// - byte 2: time from receiving the response to "now", in units of
    ///   ``httpCacheNowUnit`` (15 minutes, so up to about 64 hours);
    /// - byte 3: flags: bit 0 the cache's mode (0 shared, 1 private); bits 1–3 the method,
    ///   `httpCacheMethods[value % 6]` (GET, HEAD, POST, PUT, DELETE, PATCH); bit 4 the request
    ///   carries `Authorization`.
    ///
    /// The rest is UTF-8 (invalid bytes replaced), split into lines at any line break; a line is
    /// - `> name: value`: a request header field;
    /// - `? value`: the request's `Cache-Control` (several such lines join with `, `);
    /// - `@ name: value`: a header field of a `304` that validates the stored response;
    /// - `u URL`: the request URL (when it does not parse, or is not `http` or `https`, the URL
    ///   is `http://example.com/resource`);
    /// - any other `name: value`: a response header field. Lines without a colon or with an
    ///   empty name are ignored; names and values are trimmed of spaces and tabs.
    ///
    /// The request is sent at ``httpCacheBaseDate`` (2026-01-01T00:00:00Z). The stored response
    /// has the status, the request URL, the response fields in order, the input after the first
    /// 4 bytes as its body, the two dates and the request fields its `Vary` names.
    ///
    /// Invariants (each violation is reported):
    /// - `CacheControl(value)` is deterministic, and every numeric directive is within
    ///   `0...CacheControl.largestDeltaSeconds` (`max-stale` without a value is `Int.max`);
    /// - `reasonNotToStore`: `.method` exactly for a method other than GET and HEAD; a GET or
    ///   HEAD response with `no-store` and without `must-understand`, to a request without
    ///   `no-store`, is `.responseNoStore`; one with `must-understand` and a status not in
    ///   `heuristicallyCacheableStatuses` is never stored; a shared cache never stores a
    ///   `private` response;
    /// - `freshnessLifetime` is finite and not negative; `heuristicFreshnessLifetime` is within
    ///   `0...heuristicLimit`; `currentAge` is finite, not negative, and not smaller ten seconds
    ///   later; `use(of:for:now:)` gives the same answer twice; `mayServeWhileRevalidating` is
    ///   false when the request or the response says `no-cache`;
    /// - `varyingFieldNames` is `nil` only when a member is `*`, else lowercased, unique,
    ///   non-empty names; `normalizedFieldValue` is idempotent; the request matches the `Vary`
    ///   of the response stored for it unless that is `*`;
    /// - `conditions(toValidate:)` takes its values from the stored response's `ETag` or
    ///   `Last-Modified`; the stored response's own head validates it (`notModified`);
    /// - `merging` with the `304` keeps the body, status and URL, takes the given dates, never
    ///   adds a field of `fieldsNeverStored` or one the `304`'s `Connection` names, keeps the
    ///   stored fields the `304` does not replace, and takes the value of each ASCII-named field
    ///   it does replace;
    /// - `invalidatedURLs` is empty for a safe method or a status outside `200..<400`, else
    ///   starts with the request URL and holds only URLs of its origin;
    /// - `key(method:url:)` is the same for the URL with and without a fragment, for the method
    ///   in any case, for the host in upper case and with the default port written out (the
    ///   fast path against the `URLComponents` path); no default port for a URL with a port
    ///   `URLComponents` cannot read, and no key check for a path that does not percent-decode
    ///   as UTF-8 (a known fault, excepted in ``checkKeys(method:url:)``);
    /// - a `DiskCacheStore` (one per process, in a temporary directory) and a
    ///   `MemoryCacheStore` give back what was stored: status, URL, fields in order, body, the
    ///   dates' bit patterns, varying fields; and nothing once it is removed.
    static func checkHTTPCache(_ data: Data) -> [String] {
        let input = HTTPCacheInput(data)
        var problems: [String] = []
        let policy = CachePolicy(mode: input.mode)
        let requestDirectives = CacheControl(input.requestCacheControl)
        let head = ResponseHead(statusCode: input.status, url: input.url, headerFields: input.responseFields)
        let responseDirectives = CacheControl(head)
        let request = input.request

        // Cache-Control.
        for value in [input.requestCacheControl, head.value(forHTTPHeaderField: "Cache-Control") ?? "",
                      ResponseHead(statusCode: 304, url: input.url, headerFields: input.notModifiedFields)
                          .value(forHTTPHeaderField: "Cache-Control") ?? ""]
        {
            problems += checkCacheControl(value)
        }
        if CacheControl(head) != CacheControl(head.value(forHTTPHeaderField: "Cache-Control") ?? "") {
            problems.append("CacheControl(head) differs from CacheControl of its field value")
        }

        // Storing.
        let hasAuthorization = request.value(forHTTPHeaderField: "Authorization") != nil
        let reason = policy.reasonNotToStore(
            method: input.method, requestDirectives: requestDirectives,
            requestHasAuthorization: hasAuthorization, response: head)
        let getOrHead = input.method == "GET" || input.method == "HEAD"
        if (reason == .method) == getOrHead {
            problems.append("reasonNotToStore \(String(describing: reason)) for method \(input.method)")
        }
        if getOrHead, !requestDirectives.noStore, responseDirectives.noStore, !responseDirectives.mustUnderstand,
            reason != .responseNoStore
        {
            problems.append("a no-store response to \(input.method): reasonNotToStore \(String(describing: reason))")
        }
        if responseDirectives.mustUnderstand, !CachePolicy.heuristicallyCacheableStatuses.contains(input.status), reason == nil {
            problems.append("a must-understand response with status \(input.status) would be stored")
        }
        if input.mode == .shared, responseDirectives.isPrivate, reason == nil {
            problems.append("a shared cache would store a private response")
        }

        // The stored response.
        let varying = CachePolicy.varyingRequestFields(of: request, for: head)
        let stored = CachedResponse(
            statusCode: input.status, url: input.url, headerFields: input.responseFields, body: input.body,
            requestDate: input.requestDate, responseDate: input.responseDate,
            varyingRequestFields: varying ?? [:])

        // Freshness and age.
        let lifetime = policy.freshnessLifetime(of: stored)
        if !lifetime.isFinite || lifetime < 0 { problems.append("freshnessLifetime \(lifetime)") }
        let heuristic = policy.heuristicFreshnessLifetime(of: stored)
        if !(0...policy.heuristicLimit).contains(heuristic) {
            problems.append("heuristicFreshnessLifetime \(heuristic) outside 0...\(policy.heuristicLimit)")
        }
        let age = policy.currentAge(of: stored, now: input.now)
        let later = policy.currentAge(of: stored, now: input.now.addingTimeInterval(10))
        if !age.isFinite || age < 0 { problems.append("currentAge \(age)") }
        if !(later >= age) { problems.append("currentAge went down from \(age) to \(later) ten seconds later") }
        let use = policy.use(of: stored, for: requestDirectives, now: input.now)
        if policy.use(of: stored, for: requestDirectives, now: input.now) != use {
            problems.append("use(of:for:now:) gave two answers")
        }
        if requestDirectives.noCache || responseDirectives.noCache,
            policy.mayServeWhileRevalidating(stored, for: requestDirectives, now: input.now)
        {
            problems.append("mayServeWhileRevalidating despite no-cache")
        }

        // Vary.
        let vary = head.value(forHTTPHeaderField: "Vary")
        problems += checkVaryingFieldNames(vary)
        for (_, value) in input.requestFields + input.responseFields {
            let normalized = CachePolicy.normalizedFieldValue(value)
            if CachePolicy.normalizedFieldValue(normalized) != normalized {
                problems.append("normalizedFieldValue is not idempotent on \(value.debugDescription)")
            }
        }
        let varyAll = CachePolicy.varyingFieldNames(vary) == nil
        if (varying == nil) != varyAll { problems.append("varyingRequestFields and varyingFieldNames disagree on *") }
        if !varyAll, !CachePolicy.request(request, matchesVaryOf: stored) {
            problems.append("the request does not match the Vary of the response stored for it")
        }

        // Validation and the 304.
        problems += checkConditions(of: stored)
        if !CachePolicy.notModified(stored.head, validates: stored) {
            problems.append("the stored response's own head does not validate it")
        }
        problems += checkMerge(stored, input: input)

        // Invalidation and keys.
        problems += checkInvalidation(input: input, head: head)
        problems += checkKeys(method: input.method, url: input.url)

        // The stores.
        let key = CachePolicy.key(method: input.method, url: input.url)
        if let disk = httpCacheDiskStore {
            problems += checkRoundTrip(of: stored, through: disk, key: key, store: "DiskCacheStore")
        } else {
            problems.append("a DiskCacheStore could not be opened")
        }
        problems += checkRoundTrip(of: stored, through: httpCacheMemoryStore, key: key, store: "MemoryCacheStore")
        return problems
    }

    /// The statuses byte 0 picks from.
    static let httpCacheStatuses = [200, 203, 204, 206, 300, 301, 302, 304, 307, 308, 404, 405, 410, 414, 500, 501, 503, 599]
    /// The methods bits 1–3 of byte 3 pick from.
    static let httpCacheMethods = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]
    /// When the request is sent: 2026-01-01T00:00:00Z.
    static let httpCacheBaseDate = Date(timeIntervalSince1970: 1_767_225_600)
    /// The seconds one unit of byte 2 stands for.
    static let httpCacheNowUnit: TimeInterval = 900
    /// The request URL when the input gives none that will do.
    static let httpCacheFallbackURL = URL(string: "http://example.com/resource")!

    /// One exchange, as the input describes it.
    struct HTTPCacheInput {
        var status: Int
        var requestDate: Date
        var responseDate: Date
        var now: Date
        var mode: CachePolicy.Mode
        var method: String
        var authorization: Bool
        var url: URL
        var requestFields: [(name: String, value: String)] = []
        var requestCacheControl = ""
        var responseFields: [(name: String, value: String)] = []
        var notModifiedFields: [(name: String, value: String)] = []
        var body: Data

        init(_ data: Data) {
            let bytes = [UInt8](data.prefix(4)) + [UInt8](repeating: 0, count: max(0, 4 - data.count))
            status = FuzzEntryPoints.httpCacheStatuses[Int(bytes[0]) % FuzzEntryPoints.httpCacheStatuses.count]
            requestDate = FuzzEntryPoints.httpCacheBaseDate
            responseDate = requestDate.addingTimeInterval(TimeInterval(bytes[1]))
            now = responseDate.addingTimeInterval(TimeInterval(bytes[2]) * FuzzEntryPoints.httpCacheNowUnit)
            mode = bytes[3] & 1 == 0 ? .shared : .private
            method = FuzzEntryPoints.httpCacheMethods[Int((bytes[3] >> 1) & 7) % FuzzEntryPoints.httpCacheMethods.count]
            authorization = bytes[3] & 0x10 != 0
            url = FuzzEntryPoints.httpCacheFallbackURL
            body = Data(data.dropFirst(4))
            var cacheControl: [String] = []
            let text = String(decoding: body, as: UTF8.self)
            for line in text.split(whereSeparator: \.isNewline) {
                switch line.first {
                case ">":
                    if let field = Self.field(line.dropFirst()) { requestFields.append(field) }
                case "?":
                    cacheControl.append(Self.trimmed(line.dropFirst()))
                case "@":
                    if let field = Self.field(line.dropFirst()) { notModifiedFields.append(field) }
                case "u" where line.hasPrefix("u "):
                    if let parsed = URL(string: Self.trimmed(line.dropFirst(2))),
                        let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https"
                    {
                        url = parsed
                    }
                default:
                    if let field = Self.field(line) { responseFields.append(field) }
                }
            }
            requestCacheControl = cacheControl.joined(separator: ", ")
        }

        /// The request: the method, the URL, the `>` fields, `Cache-Control` from the `?` lines
        /// and, with the flag, `Authorization`.
        var request: URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            for (name, value) in requestFields { request.addValue(value, forHTTPHeaderField: name) }
            if !requestCacheControl.isEmpty { request.setValue(requestCacheControl, forHTTPHeaderField: "Cache-Control") }
            if authorization { request.setValue("Bearer fuzz", forHTTPHeaderField: "Authorization") }
            return request
        }

        /// `name: value`, trimmed; `nil` without a colon or a name.
        static func field(_ line: Substring) -> (name: String, value: String)? {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = trimmed(line[..<colon])
            guard !name.isEmpty else { return nil }
            return (name, trimmed(line[line.index(after: colon)...]))
        }

        /// `text` without leading and trailing spaces and tabs.
        static func trimmed(_ text: Substring) -> String {
            var text = text
            while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
            while let last = text.last, last == " " || last == "\t" { text.removeLast() }
            return String(text)
        }
    }

    // MARK: - Checks

    /// `CacheControl(value)` is deterministic and its numbers are within range.
    static func checkCacheControl(_ value: String) -> [String] {
        let directives = CacheControl(value)
        var problems: [String] = []
        if CacheControl(value) != directives { problems.append("CacheControl(\(value.debugDescription)) differs twice") }
        let range = 0...CacheControl.largestDeltaSeconds
        let numbers: [(String, Int?)] = [
            ("max-age", directives.maxAge), ("s-maxage", directives.sharedMaxAge), ("min-fresh", directives.minFresh),
            ("stale-if-error", directives.staleIfError), ("stale-while-revalidate", directives.staleWhileRevalidate),
            ("max-stale", directives.maxStale == Int.max ? 0 : directives.maxStale),
        ]
        for (name, number) in numbers {
            if let number, !range.contains(number) {
                problems.append("\(name) \(number) outside 0...\(CacheControl.largestDeltaSeconds) in \(value.debugDescription)")
            }
        }
        return problems
    }

    /// `varyingFieldNames(vary)`: `nil` exactly when a member is `*`; else lowercased, unique,
    /// non-empty names.
    static func checkVaryingFieldNames(_ vary: String?) -> [String] {
        let names = CachePolicy.varyingFieldNames(vary)
        let members = (vary ?? "").split(separator: ",", omittingEmptySubsequences: false)
            .map { HTTPCacheInput.trimmed($0) }
        let star = members.contains("*")
        guard let names else {
            return star ? [] : ["varyingFieldNames is nil for \(String(describing: vary)), which has no *"]
        }
        var problems: [String] = []
        if star { problems.append("varyingFieldNames ignores the * in \(String(describing: vary))") }
        if Set(names).count != names.count { problems.append("varyingFieldNames repeats a name: \(names)") }
        for name in names where name.isEmpty || name != name.lowercased() {
            problems.append("varyingFieldNames gives \(name.debugDescription)")
        }
        return problems
    }

    /// `conditions(toValidate:)` is the stored `ETag` as `If-None-Match`, else its
    /// `Last-Modified` as `If-Modified-Since`, else nothing.
    static func checkConditions(of stored: CachedResponse) -> [String] {
        let conditions = CachePolicy.conditions(toValidate: stored)
        var expected: [String: String] = [:]
        if let tag = stored.value(forHTTPHeaderField: "ETag") {
            expected["If-None-Match"] = tag
        } else if let date = stored.value(forHTTPHeaderField: "Last-Modified") {
            expected["If-Modified-Since"] = date
        }
        return conditions == expected ? [] : ["conditions(toValidate:) \(conditions), expected \(expected)"]
    }

    /// Whether two field names are equal without regard to ASCII case.
    static func sameASCIIName(_ lhs: String, _ rhs: String) -> Bool {
        func folded(_ name: String) -> [UInt8] {
            name.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
        }
        return folded(lhs) == folded(rhs)
    }

    /// `merging(stored, with: 304, ...)`: the body and the given dates; no field that is never
    /// stored or that the 304's `Connection` names, unless the stored response had it; every
    /// stored field the 304 does not replace, in order; each replaced ASCII-named field with the
    /// 304's value.
    static func checkMerge(_ stored: CachedResponse, input: HTTPCacheInput) -> [String] {
        let notModified = ResponseHead(statusCode: 304, url: input.url, headerFields: input.notModifiedFields)
        let requestDate = input.now
        let responseDate = input.now.addingTimeInterval(1)
        let merged = CachePolicy.merging(stored, with: notModified, requestDate: requestDate, responseDate: responseDate)
        var problems: [String] = []
        if merged.body != stored.body { problems.append("merging changed the body") }
        if merged.statusCode != stored.statusCode { problems.append("merging changed the status") }
        if merged.url?.absoluteString != stored.url?.absoluteString { problems.append("merging changed the URL") }
        if merged.requestDate.timeIntervalSince1970.bitPattern != requestDate.timeIntervalSince1970.bitPattern
            || merged.responseDate.timeIntervalSince1970.bitPattern != responseDate.timeIntervalSince1970.bitPattern
        {
            problems.append("merging did not take the validation's dates")
        }
        let connection = (notModified.value(forHTTPHeaderField: "Connection") ?? "")
            .split(separator: ",").map { HTTPCacheInput.trimmed($0) }
        func forbidden(_ name: String) -> Bool {
            CachePolicy.fieldsNeverStored.contains { sameASCIIName($0, name) }
                || connection.contains { sameASCIIName($0, name) }
        }
        for field in merged.headerFields where forbidden(field.name) {
            if !stored.headerFields.contains(where: { $0.name == field.name && $0.value == field.value }) {
                problems.append("merging added \(field.name): \(field.value)")
            }
        }
        // The 304's fields that replace stored ones (a superset of them, for names that are not
        // ASCII: the check of kept fields stays sound).
        let replacing = notModified.headerFields.filter { name, _ in
            !forbidden(name) && !CachePolicy.fieldsKeptOnUpdate.contains { sameASCIIName($0, name) }
        }
        let kept = stored.headerFields.filter { field in !replacing.keys.contains { sameASCIIName($0, field.name) } }
        var rest = merged.headerFields[...]
        for field in kept {
            guard let index = rest.firstIndex(where: { $0.name == field.name && $0.value == field.value }) else {
                problems.append("merging dropped the stored \(field.name): \(field.value), which the 304 does not replace")
                break
            }
            rest = rest[rest.index(after: index)...]
        }
        for (name, value) in replacing where name.utf8.allSatisfy({ $0 < 0x80 }) {
            if merged.value(forHTTPHeaderField: name) != value {
                problems.append("merging gave \(name) \(String(describing: merged.value(forHTTPHeaderField: name))), the 304 \(value)")
            }
        }
        return problems
    }

    /// `invalidatedURLs`: none for a safe method or a status outside `200..<400`; otherwise the
    /// request URL first, and only URLs of its origin.
    static func checkInvalidation(input: HTTPCacheInput, head: ResponseHead) -> [String] {
        let urls = CachePolicy.invalidatedURLs(method: input.method, url: input.url, response: head)
        if CachePolicy.safeMethods.contains(input.method) || !(200..<400).contains(input.status) {
            return urls.isEmpty ? [] : ["invalidatedURLs \(urls) for \(input.method) with \(input.status)"]
        }
        guard let first = urls.first, first.absoluteString == input.url.absoluteString else {
            return ["invalidatedURLs \(urls) does not start with the request URL \(input.url)"]
        }
        func origin(_ url: URL) -> (String?, String?, Int?) {
            let scheme = url.scheme?.lowercased()
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
            return (scheme, url.host?.lowercased(), port)
        }
        let expected = origin(input.url)
        return urls.filter { origin($0) != expected }.map { "invalidatedURLs has \($0), not of the origin of \(input.url)" }
    }

    /// `key(method:url:)` is the same for the URL without or with a fragment, the method in any
    /// case, the host in upper case and the default port written out.
    static func checkKeys(method: String, url: URL) -> [String] {
        let key = CachePolicy.key(method: method, url: url)
        var problems: [String] = []
        for spelling in [method.lowercased(), String(method.enumerated().map { $0.offset % 2 == 0 ? $0.element : Character($0.element.lowercased()) })]
        where CachePolicy.key(method: spelling, url: url) != key {
            problems.append("key differs for the method spelt \(spelling)")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return problems }
        var variants: [(String, URLComponents)] = []
        var fragment = components
        fragment.fragment = components.fragment == nil ? "fragment" : nil
        variants.append(("the fragment changed", fragment))
        if let host = components.percentEncodedHost, !host.isEmpty, host.utf8.allSatisfy({ $0 < 0x80 }),
            host.uppercased() != host
        {
            var upper = components
            upper.percentEncodedHost = host.uppercased()
            variants.append(("the host in upper case", upper))
        }
        if components.port == nil, !writesPort(url), let host = components.host, !host.isEmpty,
            let port = ["http": 80, "https": 443][components.scheme?.lowercased() ?? ""]
        {
            var explicit = components
            explicit.port = port
            variants.append(("the default port written out", explicit))
        }
        for (change, variant) in variants {
            guard let other = variant.url else { continue }
            let otherKey = CachePolicy.key(method: method, url: other)
            if otherKey != key {
                problems.append("key \(key.debugDescription) for \(url.absoluteString.debugDescription) but \(otherKey.debugDescription) with \(change) (\(other.absoluteString.debugDescription))")
            }
        }
        return problems
    }

    /// Whether `url`'s authority has a port that is not empty: `URLComponents.port` is `nil`
    /// for one it cannot read as a number (`https://host:99999999999999999999/`), which is still
    /// part of the URL, so writing the default port in would make another URL.
    static func writesPort(_ url: URL) -> Bool {
        let text = url.absoluteString
        guard let separator = text.range(of: "://") else { return false }
        let authority = text[separator.upperBound...].prefix { !"/?#".contains($0) }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let afterHost = hostAndPort.lastIndex(of: "]").map { hostAndPort[$0...] } ?? hostAndPort
        guard let colon = afterHost.lastIndex(of: ":") else { return false }
        return afterHost.index(after: colon) != afterHost.endIndex
    }

    /// A store gives back what was stored under `key`, and nothing once it is removed.
    static func checkRoundTrip(of response: CachedResponse, through store: some HTTPCacheStore, key: String, store name: String) -> [String] {
        store.store(response, forKey: key)
        defer { store.removeResponse(forKey: key) }
        guard let back = store.cachedResponse(forKey: key) else { return ["\(name) lost the response under \(key.debugDescription)"] }
        var problems: [String] = []
        func same(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }
        if back.statusCode != response.statusCode { problems.append("\(name): status \(back.statusCode)") }
        if back.url?.absoluteString != response.url?.absoluteString {
            problems.append("\(name): URL \(String(describing: back.url)) for \(String(describing: response.url))")
        }
        if back.headerFields.count != response.headerFields.count
            || !zip(back.headerFields, response.headerFields).allSatisfy({ same($0.name, $1.name) && same($0.value, $1.value) })
        {
            problems.append("\(name): header fields \(back.headerFields) for \(response.headerFields)")
        }
        if back.body != response.body { problems.append("\(name): a different body") }
        if back.requestDate.timeIntervalSince1970.bitPattern != response.requestDate.timeIntervalSince1970.bitPattern
            || back.responseDate.timeIntervalSince1970.bitPattern != response.responseDate.timeIntervalSince1970.bitPattern
        {
            problems.append("\(name): different dates")
        }
        if back.varyingRequestFields.count != response.varyingRequestFields.count
            || !back.varyingRequestFields.allSatisfy({ name, value in
                response.varyingRequestFields.contains { same($0.key, name) && same($0.value, value) }
            })
        {
            problems.append("\(name): varying fields \(back.varyingRequestFields) for \(response.varyingRequestFields)")
        }
        store.removeResponse(forKey: key)
        if store.cachedResponse(forKey: key) != nil { problems.append("\(name) still has the response once removed") }
        return problems
    }

    /// The one disk store of this process, in a temporary directory removed at exit.
    static let httpCacheDiskStore: DiskCacheStore? = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("resourceloader-fuzz-http-cache-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        httpCacheDiskStoreDirectory.withLock { $0 = directory.path }
        atexit {
            if let path = FuzzEntryPoints.httpCacheDiskStoreDirectory.withLock({ $0 }) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        return try? DiskCacheStore(directory: directory, byteLimit: 1 << 30)
    }()

    /// The disk store's directory, for the clean-up at exit.
    static let httpCacheDiskStoreDirectory = HTTPCacheLocked<String?>(nil)

    /// The one memory store of this process.
    static let httpCacheMemoryStore = MemoryCacheStore(byteLimit: 1 << 30)
}

/// A value behind a lock (the harness links no test helpers).
final class HTTPCacheLocked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
