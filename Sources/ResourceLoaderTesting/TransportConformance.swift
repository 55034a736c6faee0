import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks that an ``ResourceLoader/HTTPTransport`` keeps the contract and the transfer rules,
/// against real servers on `127.0.0.1` (``LoopbackHTTPServer``).
///
/// Run every check against a transport of your own, or against a transport that wraps another:
///
/// ```swift
/// @Test(arguments: TransportConformance.Check.allCases)
/// func myTransportConforms(_ check: TransportConformance.Check) async throws {
///     try await TransportConformance { MyTransport() }.verify(check)
/// }
/// ```
///
/// Each check starts its own servers, makes a transport with the closure, sends one or two
/// requests and throws a ``Failure`` that says what the transport did wrong. Every check is
/// bounded by ``timeLimit``. What they hold a transport to:
/// - the order of the receiver's calls (the head, the body's pieces, one completion), that they
///   never overlap, and that only the completion follows a call the receiver answered with stop;
/// - a body as it is sent, whole, chunked, or in pieces handed over as they arrive;
/// - a receiver that stops the transfer at the head or in the body;
/// - the redirect rules of ``ResourceLoader/TransferRules``: the limit, schemes other than
///   `http` and `https`, credentials only to the original origin, `307` sending the body again
///   to the same origin and refused to another one, `303` turning into a `GET`;
/// - a content coding that was not asked for, and conflicting `Content-Length` fields, refused;
/// - a repeated header field read as its values joined with `", "`;
/// - `gzip` that the transport asked for itself decoded exactly, and refused when cut short,
///   corrupt or a bomb;
/// - the size limit of ``ResourceLoader/ResponseCollector``, with and without a `Content-Length`;
/// - cancellation in the middle of the body: one completion, and nothing after it;
/// - the idle timeout of `URLRequest.timeoutInterval` against a server that goes silent;
/// - the request body, as bytes or a stream, and its progress;
/// - streamed request bodies (`URLRequest.streamedBody`): a file and a stream of unknown length
///   arrive whole, framed by a correct `Content-Length` or chunked, with their progress reported
///   before the head and ending at their length; or, for a transport that does not send
///   ``ResourceLoader/RequestBodyStream``s (``sendsRequestBodyStreams``), a stream refused with
///   ``ResourceLoader/ResourceError/invalidRequest(reason:)`` without being read.
public struct TransportConformance: Sendable {
    /// One thing a transport must do.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        /// A body with a `Content-Length` arrives whole, then one completion.
        case wholeBody
        /// A chunked body (`Transfer-Encoding: chunked`) arrives whole, without its framing.
        case chunkedBody
        /// A body sent in two writes with a pause between them reaches the receiver in at least
        /// two pieces, the first before the transfer completes.
        case bodyInPiecesAsItArrives
        /// A ``ResourceLoader/ResponseCollector`` refuses a declared `Content-Length` over its
        /// limit at the head, and a chunked body as soon as it crosses the limit.
        case sizeLimit
        /// A receiver that stops at the head gets no body, and its error as the completion.
        case receiverStopsAtTheHead
        /// A receiver that stops after the first piece gets nothing more, and its error.
        case receiverStopsInTheBody
        /// One redirect more than ``ResourceLoader/TransferOptions/maximumRedirects`` is refused.
        case redirectLimit
        /// A redirect to a scheme other than `http` or `https` is refused.
        case redirectToAnotherScheme
        /// `Authorization`, `Proxy-Authorization` and `Cookie` do not follow a redirect to
        /// another origin; other fields do.
        case credentialsStayWithTheirOrigin
        /// A `307` sends the same method and body again.
        case temporaryRedirectSendsTheBodyAgain
        /// A `307` to another origin that would send the request body again is refused with
        /// ``ResourceLoader/ResourceError/RedirectRefusal/bodyToAnotherOrigin``, and the other
        /// origin receives nothing; with ``ResourceLoader/TransferOptions/sendsBodyToAnotherOrigin``
        /// it receives the same method and body.
        case bodyStaysWithItsOrigin
        /// A `303` continues with a `GET`, without the body.
        case seeOtherContinuesWithAGet
        /// A `Content-Encoding` answering a request that asked for `identity` is refused.
        case contentCodingNotAskedForIsRefused
        /// A transport that asks for `gzip` when a request names no `Accept-Encoding` decodes it
        /// itself, checked and bounded: a whole body decodes exactly, one cut short or with a
        /// broken checksum fails with `URLError.Code.cannotDecodeContentData`, and a bomb fails
        /// with ``ResourceLoader/ResourceError/responseTooLarge(limit:)``. (A transport that asks
        /// for no coding passes by asking for none.) It reports the coded bytes as they arrive
        /// (``ResourceLoader/TransferReceiver/transferDidReceive(codedByteCount:)``): they add up
        /// to the body's length on the wire.
        case contentCodingsAreVerified
        /// `Content-Length` fields that disagree are refused.
        case conflictingContentLengthsAreRefused
        /// A response with both `Content-Length` and `Transfer-Encoding: chunked` is refused
        /// with `URLError.Code.badServerResponse` (RFC 9112, section 6.3), never read by either
        /// framing.
        case contentLengthWithTransferEncodingIsRefused
        /// A header field received more than once reads as its values joined with `", "`, in the
        /// order received, and is found whatever the case of the name asked for: one rule for
        /// every transport. (Linux's `URLSession` keeps only the first value of a field repeated
        /// with its name in another case, so the check repeats one spelling.)
        case repeatedHeaderFieldsAreJoined
        /// Cancelling in the middle of the body completes the transfer once, with nothing after.
        case cancellationInTheBody
        /// A connection that closes before the declared `Content-Length` has arrived ends the
        /// transfer with an error, never as a whole body.
        case bodyCutShortIsAnError
        /// The request body's progress is reported, up to its whole length.
        case requestBodyProgress
        /// A body given as an `httpBodyStream` reaches the server whole.
        case requestBodyStream
        /// A file body (``ResourceLoader/RequestBody/file(_:contentType:)``) reaches the server
        /// whole, with a `Content-Length` of its size or chunked (never both), and its progress is
        /// reported before the head and ends at its size.
        case streamedFileBody
        /// A ``ResourceLoader/RequestBodyStream`` of unknown length reaches the server whole,
        /// chunked (or, from a transport that reads a stream whole before sending it, with a
        /// `Content-Length` of the bytes it produced; never both), and its progress is reported
        /// before the head and ends at the bytes it produced. A transport that does not send streams must instead complete with
        /// ``ResourceLoader/ResourceError/invalidRequest(reason:)``, send nothing, and leave the
        /// stream unread; ``sendsRequestBodyStreams`` says which of the two is required.
        case streamedBodyOfUnknownLength
        /// A server that sends the head and then nothing ends the transfer with
        /// `URLError(.timedOut)` once `URLRequest.timeoutInterval` passes without a byte.
        case idleTimeout

        /// The check's name.
        public var description: String { rawValue }
    }

    /// Why a transport failed a check.
    public struct Failure: Error, CustomStringConvertible {
        /// The check that failed.
        public let check: Check
        /// What the transport did.
        public let reason: String

        /// Names the check and what went wrong.
        public var description: String { "\(check): \(reason)" }
    }

    /// Makes the transport under test; called once per check.
    public let makeTransport: @Sendable () -> any HTTPTransport
    /// How long a check may wait for the transport before it fails. Default: 30 seconds.
    public var timeLimit: Duration = .seconds(30)
    /// Whether the transport sends a ``ResourceLoader/RequestBodyStream``: `true` holds it to
    /// sending one whole, `false` (a transport documented to refuse them, such as
    /// `URLSessionTransport` on Linux) to refusing one properly, and `nil` accepts either. See
    /// ``Check/streamedBodyOfUnknownLength``. Default: `nil`.
    public var sendsRequestBodyStreams: Bool?

    /// Creates the suite for the transports `makeTransport` makes.
    public init(_ makeTransport: @escaping @Sendable () -> any HTTPTransport) {
        self.makeTransport = makeTransport
    }

    /// Runs `check` against a new transport.
    ///
    /// - Throws: ``Failure`` if the transport does not do what the check requires, or if a
    ///   server cannot be started.
    public func verify(_ check: Check) async throws(Failure) {
        let run = Run(check: check, transport: makeTransport(), timeLimit: timeLimit, sendsRequestBodyStreams: sendsRequestBodyStreams)
        do {
            try await run.perform()
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(check: check, reason: "the check could not run: \(error)")
        }
    }
}

// MARK: - The checks

extension TransportConformance {
    /// One check against one transport.
    private struct Run {
        let check: Check
        let transport: any HTTPTransport
        let timeLimit: Duration
        let sendsRequestBodyStreams: Bool?

        func perform() async throws {
            switch check {
            case .wholeBody: try await wholeBody()
            case .chunkedBody: try await chunkedBody()
            case .bodyInPiecesAsItArrives: try await bodyInPieces()
            case .receiverStopsAtTheHead: try await receiverStops(atHead: true)
            case .receiverStopsInTheBody: try await receiverStops(atHead: false)
            case .redirectLimit: try await redirectLimit()
            case .redirectToAnotherScheme: try await redirectToAnotherScheme()
            case .credentialsStayWithTheirOrigin: try await credentialsStayWithTheirOrigin()
            case .temporaryRedirectSendsTheBodyAgain: try await redirect(307, keepsBody: true)
            case .bodyStaysWithItsOrigin: try await bodyStaysWithItsOrigin()
            case .seeOtherContinuesWithAGet: try await redirect(303, keepsBody: false)
            case .contentCodingNotAskedForIsRefused: try await contentCodingNotAskedFor()
            case .contentCodingsAreVerified: try await contentCodingsAreVerified()
            case .conflictingContentLengthsAreRefused: try await conflictingContentLengths()
            case .repeatedHeaderFieldsAreJoined: try await repeatedHeaderFields()
            case .cancellationInTheBody: try await cancellationInTheBody()
            case .bodyCutShortIsAnError: try await bodyCutShort()
            case .contentLengthWithTransferEncodingIsRefused: try await contentLengthWithTransferEncoding()
            case .requestBodyProgress: try await requestBodyProgress()
            case .sizeLimit: try await sizeLimit()
            case .requestBodyStream: try await requestBodyStream()
            case .streamedFileBody: try await streamedFileBody()
            case .streamedBodyOfUnknownLength: try await streamedBodyOfUnknownLength()
            case .idleTimeout: try await idleTimeout()
            }
        }

        /// Stops `server` on a thread of its own: stopping waits for its connection threads (up to
        /// five seconds for a connection a transport keeps open), which would hold a thread of
        /// Swift's cooperative pool, and with it every other task waiting for one.
        private func stopWithoutWaiting(_ server: LoopbackHTTPServer) {
            Thread.detachNewThread { server.stop() }
        }

        private func fail(_ reason: String) -> Failure {
            Failure(check: check, reason: reason)
        }

        /// Sends `request` and waits for the completion; fails if none comes within the time
        /// limit, or if the calls broke the contract.
        private func transfer(
            _ request: URLRequest,
            options: TransferOptions = TransferOptions(),
            receiver: Receiver = Receiver()
        ) async throws(Failure) -> Receiver.Record {
            let handle = transport.startTransfer(request, options: options, receiver: receiver)
            guard await receiver.completion(within: timeLimit) else {
                handle.cancel()
                throw fail("no completion within \(timeLimit); by then \(receiver.record.progress)")
            }
            return try await settled(receiver)
        }

        /// The receiver's record once a moment has passed after the completion, for late calls
        /// to show; fails on calls out of order, overlapping or after the completion.
        private func settled(_ receiver: Receiver) async throws(Failure) -> Receiver.Record {
            try? await Task.sleep(for: .milliseconds(50))
            let record = receiver.record
            if let violation = record.violation { throw fail(violation) }
            return record
        }

        private func expectSuccess(_ record: Receiver.Record, body expected: Data, statusCode: Int = 200) throws(Failure) {
            if let error = record.error { throw fail("completed with \(error)") }
            guard record.statusCode == statusCode else { throw fail("status \(record.statusCode.map(String.init) ?? "none"), expected \(statusCode)") }
            guard record.body == expected else { throw fail("a body of \(record.body.count) bytes, expected \(expected.count)") }
        }

        private func expectError(_ record: Receiver.Record, _ matches: (ResourceError) -> Bool, _ what: String) throws(Failure) {
            guard let error = record.error else { throw fail("completed without an error, expected \(what)") }
            guard matches(ResourceError(transportError: error)) else { throw fail("completed with \(error), expected \(what)") }
        }

        private func server(_ handler: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response) throws(Failure) -> LoopbackHTTPServer {
            do {
                return try LoopbackHTTPServer(handler: handler)
            } catch {
                throw fail("the server could not start: \(error)")
            }
        }

        private static func head(_ lines: [String]) -> Data {
            Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        }

        private static var sampleBody: Data { Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }) }

        private func wholeBody() async throws(Failure) {
            let server = try server { _ in .status(200, headers: ["Content-Type": "application/octet-stream"], body: Self.sampleBody) }
            defer { stopWithoutWaiting(server) }
            try expectSuccess(await transfer(URLRequest(url: server.baseURL)), body: Self.sampleBody)
        }

        private func chunkedBody() async throws(Failure) {
            let server = try server { _ in
                .script([
                    .write(Self.head(["HTTP/1.1 200 OK", "Transfer-Encoding: chunked"])),
                    .write(Data("5\r\nhello\r\n".utf8)), .pause(.milliseconds(50)),
                    .write(Data("6\r\n world\r\n0\r\n\r\n".utf8)),
                ])
            }
            defer { stopWithoutWaiting(server) }
            try expectSuccess(await transfer(URLRequest(url: server.baseURL)), body: Data("hello world".utf8))
        }

        private func bodyInPieces() async throws(Failure) {
            let server = try server { _ in
                .script([
                    .write(Self.head(["HTTP/1.1 200 OK", "Content-Length: 10"]) + Data("first".utf8)),
                    .pause(.milliseconds(300)), .write(Data("later".utf8)),
                ])
            }
            defer { stopWithoutWaiting(server) }
            let record = try await transfer(URLRequest(url: server.baseURL))
            try expectSuccess(record, body: Data("firstlater".utf8))
            guard record.chunkCount >= 2 else { throw fail("the body arrived in one piece: pieces are not handed over as they arrive") }
        }

        private func receiverStops(atHead: Bool) async throws(Failure) {
            let server = try server { _ in
                .script([
                    .write(Self.head(["HTTP/1.1 200 OK", "Content-Length: 10"]) + Data("first".utf8)),
                    .pause(.milliseconds(300)), .write(Data("later".utf8)),
                ])
            }
            defer { stopWithoutWaiting(server) }
            let receiver = Receiver(stopsAtHead: atHead, stopsAfterChunks: atHead ? nil : 1)
            let record = try await transfer(URLRequest(url: server.baseURL), receiver: receiver)
            try expectError(record, { if case .invalidRequest(reason: Receiver.stopReason) = $0 { true } else { false } }, "the receiver's own error")
            let expectedChunks = atHead ? 0 : 1
            guard record.chunkCount == expectedChunks else {
                throw fail("\(record.chunkCount) pieces after the receiver stopped, expected \(expectedChunks)")
            }
        }

        private func redirectLimit() async throws(Failure) {
            let server = try server { request in
                let hop = Int(request.path.dropFirst()) ?? 0
                return .status(302, headers: ["Location": "/\(hop + 1)"])
            }
            defer { stopWithoutWaiting(server) }
            let record = try await transfer(URLRequest(url: server.baseURL.appendingPathComponent("0")), options: TransferOptions(maximumRedirects: 3))
            try expectError(record, { if case .redirectRefused(.tooManyRedirects(limit: 3)) = $0 { true } else { false } }, "tooManyRedirects(limit: 3)")
            guard server.requestCount == 4 else { throw fail("\(server.requestCount) requests for a limit of 3 redirects, expected 4") }
        }

        private func redirectToAnotherScheme() async throws(Failure) {
            let server = try server { _ in .status(302, headers: ["Location": "file:///etc/passwd"]) }
            defer { stopWithoutWaiting(server) }
            let record = try await transfer(URLRequest(url: server.baseURL))
            try expectError(record, { if case .redirectRefused(.unsupportedScheme) = $0 { true } else { false } }, "unsupportedScheme")
            guard server.requestCount == 1 else { throw fail("\(server.requestCount) requests, expected 1") }
        }

        private func credentialsStayWithTheirOrigin() async throws(Failure) {
            let seen = Locked<[String: String]>([:])
            let other = try server { request in
                seen.withLock { seen in
                    for name in TransferRules.credentialHeaderFields + ["X-Trace"] {
                        seen[name] = request.value(forHeaderField: name) ?? "-"
                    }
                }
                return .status(200, body: Data("landed".utf8))
            }
            defer { stopWithoutWaiting(other) }
            let first = try server { _ in .status(302, headers: ["Location": other.baseURL.appendingPathComponent("landed").absoluteString]) }
            defer { stopWithoutWaiting(first) }
            var request = URLRequest(url: first.baseURL)
            for name in TransferRules.credentialHeaderFields { request.setValue("secret", forHTTPHeaderField: name) }
            request.setValue("t-1", forHTTPHeaderField: "X-Trace")
            try expectSuccess(await transfer(request), body: Data("landed".utf8))
            let fields = seen.withLock { $0 }
            for name in TransferRules.credentialHeaderFields where fields[name] != "-" {
                throw fail("\(name) reached another origin")
            }
            guard fields["X-Trace"] == "t-1" else { throw fail("X-Trace did not follow the redirect") }
        }

        private func bodyStaysWithItsOrigin() async throws(Failure) {
            let landed = Locked<(method: String, body: Data)?>(nil)
            let other = try server { request in
                landed.withLock { $0 = (request.method, request.body) }
                return .status(200, body: Data("landed".utf8))
            }
            defer { stopWithoutWaiting(other) }
            let first = try server { _ in .status(307, headers: ["Location": other.baseURL.appendingPathComponent("landed").absoluteString]) }
            defer { stopWithoutWaiting(first) }
            var request = URLRequest(url: first.baseURL.appendingPathComponent("login"))
            request.httpMethod = "POST"
            request.httpBody = Data("password=secret".utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            let refused = try await transfer(request)
            try expectError(refused, { if case .redirectRefused(.bodyToAnotherOrigin) = $0 { true } else { false } }, "bodyToAnotherOrigin")
            guard other.requestCount == 0 else { throw fail("the body followed a 307 to another origin") }
            try expectSuccess(await transfer(request, options: TransferOptions(sendsBodyToAnotherOrigin: true)), body: Data("landed".utf8))
            guard let (method, body) = landed.withLock({ $0 }), method == "POST", body == request.httpBody else {
                throw fail("with sendsBodyToAnotherOrigin, the 307 did not send the same method and body to the other origin")
            }
        }

        private func redirect(_ status: Int, keepsBody: Bool) async throws(Failure) {
            let landed = Locked<(method: String, body: Data)?>(nil)
            let server = try server { request in
                guard request.path == "/landed" else { return .status(status, headers: ["Location": "/landed"]) }
                landed.withLock { $0 = (request.method, request.body) }
                return .status(200, body: Data("landed".utf8))
            }
            defer { stopWithoutWaiting(server) }
            var request = URLRequest(url: server.baseURL.appendingPathComponent("form"))
            request.httpMethod = "POST"
            request.httpBody = Data("name=value".utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            try expectSuccess(await transfer(request), body: Data("landed".utf8))
            guard let (method, body) = landed.withLock({ $0 }) else { throw fail("the redirect was not followed") }
            let expected = keepsBody ? ("POST", Data("name=value".utf8)) : ("GET", Data())
            guard method == expected.0, body == expected.1 else {
                throw fail("a \(status) continued with \(method) and \(body.count) body bytes, expected \(expected.0) and \(expected.1.count)")
            }
        }

        private func contentCodingNotAskedFor() async throws(Failure) {
            let server = try server { _ in .status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08, 0x00])) }
            defer { stopWithoutWaiting(server) }
            var request = URLRequest(url: server.baseURL)
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            let record = try await transfer(request)
            try expectError(record, { if case .transport(.cannotDecodeContentData, _) = $0 { true } else { false } }, "cannotDecodeContentData")
        }

        private func contentCodingsAreVerified() async throws(Failure) {
            let text = Array(String(repeating: "<city name=\"Lisbon\"/>", count: 2_000).utf8)
            let whole = Compressor.compress(text, .gzip)
            var broken = whole
            broken[broken.count - 6] ^= 0xFF  // a byte of the CRC-32
            let bodies: [String: [UInt8]] = [
                "/whole": whole, "/truncated": Array(whole.dropLast(12)), "/broken": broken,
                "/bomb": Compressor.zeros(mebibytes: 8, .gzip),
            ]
            let askedForGzip = Locked(false)
            let server = try server { request in
                let accepted = request.value(forHeaderField: "Accept-Encoding") ?? "identity"
                guard TransferRules.accepts(accepted, coding: "gzip") else { return .status(200, body: Data(text)) }
                askedForGzip.withLock { $0 = true }
                return .status(200, headers: ["Content-Encoding": "gzip"], body: Data(bodies[request.path] ?? []))
            }
            defer { stopWithoutWaiting(server) }
            func fetch(_ path: String) async throws(Failure) -> (Receiver.Record, Result<(Data, ResponseHead), any Error>?) {
                let answer = Locked<Result<(Data, ResponseHead), any Error>?>(nil)
                let receiver = Receiver(forwardingTo: ResponseCollector(maximumBytes: 1 << 20) { result in answer.withLock { $0 = result } })
                let record = try await transfer(URLRequest(url: server.baseURL.appendingPathComponent(String(path.dropFirst()))), receiver: receiver)
                return (record, answer.withLock { $0 })
            }
            let (wholeRecord, decoded) = try await fetch("/whole")
            guard case .success(let (body, _))? = decoded, body == Data(text) else {
                throw fail("a whole gzip body did not decode to its text: \(String(describing: decoded))")
            }
            guard askedForGzip.withLock({ $0 }) else { return }
            guard wholeRecord.codedByteCount == whole.count else {
                let reported = wholeRecord.codedByteCount.map { "\($0)" } ?? "none"
                throw fail("the coded bytes reported were \(reported), expected the body's \(whole.count) bytes on the wire")
            }
            for path in ["/truncated", "/broken"] {
                let (record, _) = try await fetch(path)
                try expectError(record, { if case .transport(.cannotDecodeContentData, _) = $0 { true } else { false } }, "cannotDecodeContentData for \(path)")
            }
            let (bomb, _) = try await fetch("/bomb")
            try expectError(bomb, { if case .responseTooLarge(limit: 1 << 20) = $0 { true } else { false } }, "responseTooLarge for a bomb")
        }

        private func repeatedHeaderFields() async throws(Failure) {
            let server = try server { _ in
                .script([.write(Self.head(["HTTP/1.1 200 OK", "X-Repeated: one", "Content-Length: 2", "X-Repeated: two", "Connection: close"]) + Data("ok".utf8))])
            }
            defer { stopWithoutWaiting(server) }
            let record = try await transfer(URLRequest(url: server.baseURL))
            try expectSuccess(record, body: Data("ok".utf8))
            let value = record.head?.value(forHTTPHeaderField: "X-REPEATED")
            guard value == "one, two" else { throw fail("a repeated field reads as \(value ?? "nothing"), expected \"one, two\"") }
        }

        private func conflictingContentLengths() async throws(Failure) {
            let server = try server { _ in
                .script([.write(Self.head(["HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 6"]) + Data("hello!".utf8))])
            }
            defer { stopWithoutWaiting(server) }
            let record = try await transfer(URLRequest(url: server.baseURL))
            try expectError(record, { if case .transport(.badServerResponse, _) = $0 { true } else { false } }, "badServerResponse")
        }

        private func contentLengthWithTransferEncoding() async throws(Failure) {
            let server = try server { _ in
                .script([
                    .write(Self.head(["HTTP/1.1 200 OK", "Content-Length: 100", "Transfer-Encoding: chunked"]) + Data("a\r\n0123456789\r\n0\r\n\r\n".utf8)),
                    .close,
                ])
            }
            defer { stopWithoutWaiting(server) }
            let record = try await transfer(URLRequest(url: server.baseURL))
            try expectError(record, { if case .transport(.badServerResponse, _) = $0 { true } else { false } }, "badServerResponse")
            guard record.chunkCount == 0 else { throw fail("\(record.chunkCount) pieces of the body were handed over before the refusal") }
        }

        private func cancellationInTheBody() async throws(Failure) {
            let server = try server { _ in
                .script([
                    .write(Self.head(["HTTP/1.1 200 OK", "Content-Length: 10"]) + Data("first".utf8)),
                    .pause(.seconds(60)), .write(Data("later".utf8)),
                ])
            }
            defer { stopWithoutWaiting(server) }
            let receiver = Receiver()
            let handle = transport.startTransfer(URLRequest(url: server.baseURL), options: TransferOptions(), receiver: receiver)
            guard await receiver.firstChunk(within: timeLimit) else {
                handle.cancel()
                throw fail("no piece of the body within \(timeLimit)")
            }
            handle.cancel()
            guard await receiver.completion(within: timeLimit) else {
                throw fail("no completion within \(timeLimit) of the cancellation; by then \(receiver.record.progress)")
            }
            let record = try await settled(receiver)
            // Only a body that had all arrived before the cancellation (on a machine slow enough
            // to hand over its first piece after the pause) may complete without an error.
            guard record.error != nil || record.body == Data("firstlater".utf8) else {
                throw fail("a transfer cancelled after \(record.body.count) of 10 bytes completed without an error")
            }
        }

        private func sizeLimit() async throws(Failure) {
            let server = try server { request in
                if request.path == "/declared" {
                    return .status(200, body: Data(repeating: 0x61, count: 5_000))
                }
                let piece = Data("3E8\r\n".utf8) + Data(repeating: 0x61, count: 1_000) + Data("\r\n".utf8)
                return .script(
                    [.write(Self.head(["HTTP/1.1 200 OK", "Transfer-Encoding: chunked"]))]
                        + Array(repeating: LoopbackHTTPServer.Step.write(piece), count: 5) + [.write(Data("0\r\n\r\n".utf8))])
            }
            defer { stopWithoutWaiting(server) }
            for path in ["declared", "chunked"] {
                let answer = Locked<Result<(Data, ResponseHead), any Error>?>(nil)
                let receiver = Receiver(forwardingTo: ResponseCollector(maximumBytes: 1_500) { result in answer.withLock { $0 = result } })
                let record = try await transfer(URLRequest(url: server.baseURL.appendingPathComponent(path)), receiver: receiver)
                guard case .failure(let error)? = answer.withLock({ $0 }) else { throw fail("a \(path) body over the limit was collected") }
                guard case .responseTooLarge(limit: 1_500) = ResourceError(transportError: error) else {
                    throw fail("a \(path) body over the limit ended with \(error), expected responseTooLarge(limit: 1500)")
                }
                if path == "declared", record.body.count > 0 { throw fail("a declared length over the limit still handed over \(record.body.count) bytes") }
            }
        }

        private func bodyCutShort() async throws(Failure) {
            let server = try server { _ in
                .script([.write(Self.head(["HTTP/1.1 200 OK", "Content-Length: 10"]) + Data("first".utf8)), .close])
            }
            defer { stopWithoutWaiting(server) }
            let record = try await transfer(URLRequest(url: server.baseURL))
            guard record.error != nil else { throw fail("a body cut short after 5 of 10 bytes completed without an error") }
        }

        private func requestBodyStream() async throws(Failure) {
            let arrived = Locked<Int?>(nil)
            let server = try server { request in
                arrived.withLock { $0 = request.body.count }
                return .status(200, body: request.body)
            }
            defer { stopWithoutWaiting(server) }
            let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
            var request = URLRequest(url: server.baseURL)
            request.httpMethod = "PUT"
            request.httpBodyStream = InputStream(data: body)
            request.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
            let record: Receiver.Record
            do {
                record = try await transfer(request)
            } catch {
                let serverSide = arrived.withLock { $0 }.map { "the server had read the request, with \($0) body bytes" }
                throw fail("\(error.reason); \(serverSide ?? "the server had not read the whole request")")
            }
            try expectSuccess(record, body: body)
        }

        private func idleTimeout() async throws(Failure) {
            let server = try server { _ in
                .script([.write(Self.head(["HTTP/1.1 200 OK", "Content-Length: 10"]) + Data("first".utf8)), .pause(.seconds(30))])
            }
            defer { stopWithoutWaiting(server) }
            var request = URLRequest(url: server.baseURL)
            request.timeoutInterval = 1
            let record = try await transfer(request)
            try expectError(record, { if case .timedOut = $0 { true } else { false } }, "timedOut")
        }

        private func streamedFileBody() async throws(Failure) {
            let body = Self.sampleBody + Self.sampleBody + Self.sampleBody
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString).bin")
            do {
                try body.write(to: file)
            } catch {
                throw fail("the body file could not be written: \(error)")
            }
            defer { try? FileManager.default.removeItem(at: file) }
            let received = Locked<LoopbackHTTPServer.Request?>(nil)
            let server = try server { request in
                received.withLock { $0 = request }
                return .status(200, body: Data(String(request.body.count).utf8))
            }
            defer { stopWithoutWaiting(server) }
            var request = URLRequest(url: server.baseURL)
            request.httpMethod = "PUT"
            do {
                request.setBody(try .file(file))
            } catch {
                throw fail("the file body could not be made: \(error)")
            }
            let record = try await transfer(request)
            try expectSuccess(record, body: Data(String(body.count).utf8))
            guard let arrived = received.withLock({ $0 }) else { throw fail("the request did not reach the server") }
            guard arrived.body == body else { throw fail("the server received \(arrived.body.count) bytes that are not the file's \(body.count)") }
            try expectFraming(of: arrived, length: body.count)
            try expectProgress(record, endingAt: Int64(body.count))
        }

        private func streamedBodyOfUnknownLength() async throws(Failure) {
            let body = Self.sampleBody
            let pieces = stride(from: 0, to: body.count, by: 7_000).map { body.subdata(in: $0..<min($0 + 7_000, body.count)) }
            let chunks = AsyncStream<Data> { continuation in
                for piece in pieces { continuation.yield(piece) }
                continuation.finish()
            }
            let stream = RequestBodyStream(chunks)
            let received = Locked<LoopbackHTTPServer.Request?>(nil)
            let server = try server { request in
                received.withLock { $0 = request }
                return .status(200, body: Data(String(request.body.count).utf8))
            }
            defer { stopWithoutWaiting(server) }
            var request = URLRequest(url: server.baseURL)
            request.httpMethod = "PUT"
            request.setBody(.stream(stream))
            let record = try await transfer(request)
            let refused = record.error.map { error in
                if case .invalidRequest = ResourceError(transportError: error) { true } else { false }
            } ?? false
            if sendsRequestBodyStreams == false || (refused && sendsRequestBodyStreams == nil) {
                try expectError(record, { if case .invalidRequest = $0 { true } else { false } }, "invalidRequest for a transport that does not send streams")
                guard received.withLock({ $0 }) == nil else { throw fail("a request reached the server although the stream was refused") }
                guard !stream.isConsumed else { throw fail("the refused stream was read") }
                return
            }
            try expectSuccess(record, body: Data(String(body.count).utf8))
            guard let arrived = received.withLock({ $0 }) else { throw fail("the request did not reach the server") }
            guard arrived.body == body else { throw fail("the server received \(arrived.body.count) bytes that are not the stream's \(body.count)") }
            // Chunked, as a stream is sent; or, by a transport that reads a stream whole before it
            // sends it, with the length of what it produced.
            try expectFraming(of: arrived, length: body.count)
            try expectProgress(record, endingAt: Int64(body.count))
        }

        /// A streamed body of `length` bytes is framed by a `Content-Length` of that length or
        /// chunked, never both.
        private func expectFraming(of request: LoopbackHTTPServer.Request, length: Int) throws(Failure) {
            let declared = request.value(forHeaderField: "Content-Length")
            let chunked = request.value(forHeaderField: "Transfer-Encoding")?.lowercased() == "chunked"
            if (declared == String(length) && !chunked) || (declared == nil && chunked) { return }
            throw fail("the body was framed with Content-Length \(declared ?? "none") and chunked \(chunked), expected one of Content-Length: \(length) or chunked")
        }

        /// The request body's progress was reported, never went backwards and ended at `length`
        /// (the receiver flags progress reported after the head).
        private func expectProgress(_ record: Receiver.Record, endingAt length: Int64) throws(Failure) {
            guard let last = record.sent.last else { throw fail("no progress of the request body was reported") }
            guard record.sent == record.sent.sorted() else { throw fail("the progress went backwards: \(record.sent)") }
            guard last == length else { throw fail("the progress ended at \(last) bytes, expected \(length)") }
        }

        private func requestBodyProgress() async throws(Failure) {
            let length = 1 << 20
            let server = try server { request in .status(200, body: Data(String(request.body.count).utf8)) }
            defer { stopWithoutWaiting(server) }
            var request = URLRequest(url: server.baseURL)
            request.httpMethod = "PUT"
            request.httpBody = Data(repeating: 0x61, count: length)
            let record = try await transfer(request)
            try expectSuccess(record, body: Data(String(length).utf8))
            guard let last = record.sent.last else { throw fail("no progress of the request body was reported") }
            guard last == Int64(length) else { throw fail("the progress ended at \(last) bytes, expected \(length)") }
            guard record.sent == record.sent.sorted() else { throw fail("the progress went backwards: \(record.sent)") }
        }
    }
}

// MARK: - The receiver

extension TransportConformance {
    /// Records every call a transport makes, and the ways they break the contract; passes each
    /// call on to `next`, when there is one, and answers with its decision.
    fileprivate final class Receiver: TransferReceiver, @unchecked Sendable {
        /// The reason of the error a receiver stops with.
        static let stopReason = "stopped by the conformance receiver"

        struct Record {
            var sent: [Int64] = []
            var statusCode: Int?
            var head: ResponseHead?
            var body = Data()
            var chunkCount = 0
            /// The coded bytes reported with `transferDidReceive(codedByteCount:)`, or `nil`
            /// when none was.
            var codedByteCount: Int?
            var completions = 0
            var error: (any Error)?
            var violation: String?

            /// How far the transfer got, for a failure that ends it by the time limit.
            var progress: String {
                let sentPart = sent.last.map { "\($0) bytes of the request body were reported sent" } ?? "no request body progress was reported"
                let headPart = statusCode.map { "the head (\($0)) and \(body.count) bytes of the body arrived" } ?? "no head arrived"
                return "\(sentPart), \(headPart)"
            }
        }

        private let stopsAtHead: Bool
        private let stopsAfterChunks: Int?
        private let next: (any TransferReceiver)?
        // `lock` guards `state`, `callsRunning` and `stopped`.
        private let lock = NSLock()
        private var state = Record()
        /// The calls that have started and not yet returned: more than one at a time is an
        /// overlap.
        private var callsRunning = 0
        /// Whether a call was answered with `.stop`, after which only the completion may come.
        private var stopped = false
        private let completed = DispatchSemaphore(value: 0)
        private let firstChunkArrived = DispatchSemaphore(value: 0)

        init(stopsAtHead: Bool = false, stopsAfterChunks: Int? = nil, forwardingTo next: (any TransferReceiver)? = nil) {
            self.stopsAtHead = stopsAtHead
            self.stopsAfterChunks = stopsAfterChunks
            self.next = next
        }

        var record: Record { lock.withLock { state } }

        /// Notes the start of a call, which runs until ``exit(_:)``: one that starts while
        /// another runs, or after a stop or the completion, is a violation.
        private func enter(_ name: String) {
            lock.withLock {
                if callsRunning > 0 { violate("\(name) was called while another call was running") }
                if state.completions > 0 { violate("\(name) was called after the completion") }
                if stopped { violate("\(name) was called after the receiver answered stop") }
                callsRunning += 1
            }
        }

        /// Notes the end of a call, and the decision it answered with.
        private func exit(_ decision: TransferDecision = .proceed) {
            lock.withLock {
                callsRunning -= 1
                if case .stop = decision { stopped = true }
            }
        }

        // Called with `lock` held.
        private func violate(_ reason: String) {
            if state.violation == nil { state.violation = reason }
        }

        func transferDidSend(_ sent: Int64, of expected: Int64?) {
            enter("transferDidSend")
            lock.withLock {
                if state.statusCode != nil { violate("progress of the request body was reported after the head") }
                state.sent.append(sent)
            }
            next?.transferDidSend(sent, of: expected)
            exit()
        }

        func transferDidReceive(head: ResponseHead) -> TransferDecision {
            enter("transferDidReceive(head:)")
            let own = lock.withLock { () -> TransferDecision in
                if state.statusCode != nil { violate("a second head arrived") }
                state.statusCode = head.statusCode
                state.head = head
                return stopsAtHead ? .stop(.invalidRequest(reason: Self.stopReason)) : .proceed
            }
            let decision = next?.transferDidReceive(head: head) ?? own
            exit(decision)
            return decision
        }

        func transferDidReceive(_ chunk: Data) -> TransferDecision {
            enter("transferDidReceive(_:)")
            let own = lock.withLock { () -> TransferDecision in
                if state.statusCode == nil { violate("a piece of the body arrived before the head") }
                if chunk.isEmpty { violate("an empty piece of the body was handed over") }
                state.body.append(chunk)
                state.chunkCount += 1
                if let stopsAfterChunks, state.chunkCount >= stopsAfterChunks { return .stop(.invalidRequest(reason: Self.stopReason)) }
                return .proceed
            }
            let decision = next?.transferDidReceive(chunk) ?? own
            exit(decision)
            firstChunkArrived.signal()
            return decision
        }

        func transferDidReceive(codedByteCount: Int) {
            enter("transferDidReceive(codedByteCount:)")
            lock.withLock {
                if state.statusCode == nil { violate("coded bytes were reported before the head") }
                if codedByteCount < 0 { violate("a negative count of coded bytes was reported") }
                state.codedByteCount = (state.codedByteCount ?? 0) + codedByteCount
            }
            next?.transferDidReceive(codedByteCount: codedByteCount)
            exit()
        }

        func transferDidComplete(with error: (any Error)?) {
            let first = lock.withLock { () -> Bool in
                if state.completions > 0 { violate("the transfer completed more than once") }
                if callsRunning > 0 { violate("the completion overlapped another call") }
                callsRunning += 1
                state.completions += 1
                if state.completions == 1 { state.error = error }
                if error == nil, state.statusCode == nil { violate("the transfer completed without an error and without a head") }
                return state.completions == 1
            }
            next?.transferDidComplete(with: error)
            lock.withLock { callsRunning -= 1 }
            if first { completed.signal() }
        }

        /// Waits, off the caller's thread, until the transfer completes or `limit` passes.
        func completion(within limit: Duration) async -> Bool {
            await Self.wait(for: completed, within: limit)
        }

        /// Waits until the first piece of the body arrives or `limit` passes.
        func firstChunk(within limit: Duration) async -> Bool {
            await Self.wait(for: firstChunkArrived, within: limit)
        }

        /// Waits for `semaphore` on a thread of its own, so that a transport that answers on the
        /// cooperative pool is never starved by the wait.
        private static func wait(for semaphore: DispatchSemaphore, within limit: Duration) async -> Bool {
            let (seconds, attoseconds) = limit.components
            let interval = Double(seconds) + Double(attoseconds) / 1e18
            return await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: semaphore.wait(timeout: .now() + interval) == .success)
                }
            }
        }
    }
}

/// A value behind a lock, for the checks' servers.
private final class Locked<Value>: @unchecked Sendable {
    // `lock` guards `value`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
