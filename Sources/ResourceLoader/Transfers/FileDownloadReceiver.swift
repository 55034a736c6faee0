import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``TransferReceiver`` that writes a download's body to a temporary file beside its
/// destination, hashing it as it is written, within its own size limit: the file-writing
/// counterpart of ``ResponseCollector``.
///
/// The head decides where the body goes. An answer the resource accepts (a `200`, or the `206`
/// that continues a resumed partial file) goes to the file; any other answer is collected in
/// memory, within ``TransferOptions/maximumResponseBytes``, for the resource to validate and
/// report as it would any error. For a resumed download it follows RFC 9110: a `200` (the range
/// ignored, or `If-Range` failed) starts the file over, a `206` is appended only when its
/// `Content-Range` runs from where the partial file ends to the representation's last byte and
/// its validator is the partial file's, and a `416` completes a partial file that already holds
/// the whole representation or refuses the resume. A `416` that completes it stands for the `200`
/// that would have carried the whole file: the resource validates that head, and the file is
/// held to the size limit; its own body is ignored. Bytes of an answer that does not fit are
/// never written, and a `206` whose body runs past its range or ends short of it is not placed.
/// The answer to a `HEAD` has no body: its file is empty, and its `Content-Length` and digest
/// fields, which describe the body a `GET` would get, neither limit nor check it.
///
/// When the body has all arrived the file is flushed, closed and checked against the expected
/// SHA-256 and the server's `Content-Digest`/`Repr-Digest` (a file a `416` completes against
/// the expected SHA-256 alone: a `416`'s digest fields describe its own message), then left in
/// ``DownloadStaging`` for the service to place. On any failure the file is closed and removed,
/// or, when the resource keeps partial files and the answer had a validator, kept to resume.
/// The partial file being resumed is left for the next attempt, or the download's outcome, to
/// keep or remove, unless it is of another version, is shorter than its byte count, does not
/// match a digest, or belongs to a representation over the size limit.
///
/// The partial file an attempt resumes is the one the attempts before it left
/// (``DownloadStaging/resumePoint``): the resource's ``DownloadResourceType/resumeFrom`` for the
/// first; the bytes a cut `206` added, or those a cut `200` wrote under its own validator, for a
/// retry; none, and a fresh file, when an earlier attempt removed it. A head that arrives after
/// the staging was abandoned (``DownloadStaging/receiverAnswered()``) stops the transfer with
/// every file left as it is.
final class FileDownloadReceiver: TransferReceiver, BodyByteCounting {
    /// What a download's receivers share.
    struct Configuration: Sendable {
        let destination: URL
        let overwritePolicy: DownloadOverwritePolicy
        let expectedSHA256: SHA256Digest?
        let keepsPartialFile: Bool
        let maximumBytes: Int64
        let maximumErrorBodyBytes: Int
        /// Whether the resource accepts the head's status (its validation, with no body).
        let accepts: @Sendable (ResponseHead) -> Bool
        let writer: DownloadWriter
        /// Receives the bytes done so far, the total when known, and what they count, after
        /// the head and each piece: the bytes written, or for a body the transport's receiver
        /// decodes, the coded bytes received.
        let progress: (@Sendable (_ completed: Int64, _ total: Int64?, _ counting: TransferProgress.Counting) -> Void)?
    }

    private struct Writing {
        var file: DownloadFile
        let head: ResponseHead
        /// Where this answer's bytes begin in the file: the partial file's length for a `206`.
        let offset: Int64
        /// The whole file's digest, when something checks it.
        var whole: SHA256?
        /// The digest of this answer's bytes alone, for a `Content-Digest` of a `206`.
        var message: SHA256?
        let contentDigest: SHA256Digest?
        let reprDigest: SHA256Digest?
        /// The validator kept with a partial file; `nil` when it cannot be resumed.
        let validator: ResumableDownload.Validator?
        let total: Int64?
        /// Whether the body was content-coded: ``total`` is then unknown.
        let coded: Bool
        /// What the progress counts; `nil` for a coded body until it is known whether its
        /// bytes are counted on the wire or decoded.
        var counting: TransferProgress.Counting?
        /// The coded bytes received, for a body counted on the wire.
        var wire: Int64 = 0
        /// The head's `Content-Length`: the coded body's length, for a body counted on the wire.
        let declared: Int64?
        /// The size the file must reach, no more and no less: for a `206`, the end of its
        /// `Content-Range`. `nil` when the transport's framing alone says where the body ends.
        var expectedSize: Int64?

        /// The progress after the bytes so far, unless it is counted on the wire (or not known
        /// yet).
        var writtenProgress: (Int64, Int64?, TransferProgress.Counting)? {
            switch counting {
            case .bodyBytes?: (file.size, total, .bodyBytes)
            case .decodedBytes?: (file.size, nil, .decodedBytes)
            case .wireBytes?, nil: nil
            }
        }
    }

    private enum Mode {
        case waiting
        /// An answer the resource does not accept: its body, for the error.
        case collecting(ResponseHead, Data)
        case writing(Writing)
        /// A `416` to a partial file that is already whole: its body is ignored. The head
        /// received, and the `200` it stands for (`wholeFileHead(standingInFor:length:)`).
        case alreadyComplete(received: ResponseHead, standIn: ResponseHead, DownloadFile)
        case finished
    }

    private let configuration: Configuration
    private let staging: DownloadStaging
    /// The partial file this attempt continues, as the attempts before it left it; `nil` when it
    /// starts from the first byte.
    private let resumeFrom: ResumableDownload?
    /// Whether the request is a `HEAD`, whose answer's fields describe a body not sent.
    private let answersHEAD: Bool
    private let completion: @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    // `mode` is a `Locked`: its lock guards the mode and the open file in it.
    private let mode = Locked(Mode.waiting)
    // `received` is a `Locked`: its lock guards the count of the body's bytes.
    private let received = Locked(0)
    // `answered` is a `Locked`: its lock guards whether the staging let this receiver act on a
    // head (``DownloadStaging/receiverAnswered()``).
    private let answered = Locked(false)

    init(
        configuration: Configuration,
        staging: DownloadStaging,
        answersHEAD: Bool = false,
        completion: @escaping @Sendable (Result<(Data, ResponseHead), any Error>) -> Void
    ) {
        self.configuration = configuration
        self.staging = staging
        self.answersHEAD = answersHEAD
        self.completion = completion
        self.resumeFrom = staging.receiverStarted()
    }

    /// The bytes of the body received: those written to the file, or of an answer kept in
    /// memory; set before the answer is handed on.
    var bodyByteCount: Int { received.withLock { $0 } }

    /// Request-body progress is not a download's.
    func transferDidSend(_ sent: Int64, of expected: Int64?) {}

    func transferDidReceive(head: ResponseHead) -> TransferDecision {
        // After the wait for this receiver ran out, the outcome may have reported the partial
        // file it continues: it is left as it is.
        guard staging.receiverAnswered() else { return .stop(ResourceError.cancelled) }
        answered.withLock { $0 = true }
        do {
            let next = try mode(for: head)
            mode.withLock { $0 = next }
            switch next {
            case .writing(let writing):
                if let (completed, total, counting) = writing.writtenProgress { configuration.progress?(completed, total, counting) }
            case .alreadyComplete(_, _, let file):
                // The partial file holds every byte: its one value is the final one.
                configuration.progress?(file.size, file.size, .bodyBytes)
            case .waiting, .collecting, .finished:
                break
            }
            return .proceed
        } catch {
            return .stop(error)
        }
    }

    func transferDidReceive(_ chunk: Data) -> TransferDecision {
        let limit = configuration.maximumBytes
        let errorLimit = configuration.maximumErrorBodyBytes
        let writer = configuration.writer
        let outcome = mode.withLock { mode -> Result<(Int64, Int64?, TransferProgress.Counting)?, ResourceError> in
            switch mode {
            case .writing(var writing):
                guard Int64(chunk.count) <= limit - writing.file.size else {
                    return .failure(.responseTooLarge(limit: Int(clamping: limit)))
                }
                if let expected = writing.expectedSize, Int64(chunk.count) > expected - writing.file.size {
                    // A body that runs past its Content-Range: its bytes do not fit.
                    return .failure(.transport(.badServerResponse, underlying: URLError(.badServerResponse)))
                }
                mode = .waiting
                let failure = chunk.withUnsafeBytes { bytes -> ResourceError? in
                    do throws(ResourceError) {
                        try writing.file.append(bytes, with: writer)
                    } catch {
                        return error
                    }
                    writing.whole?.update(bytes)
                    writing.message?.update(bytes)
                    return nil
                }
                if writing.counting == nil { writing.counting = .decodedBytes }
                mode = .writing(writing)
                if let failure { return .failure(failure) }
                return .success(writing.writtenProgress)
            case .collecting(let head, var body):
                guard chunk.count <= errorLimit - body.count else { return .failure(.responseTooLarge(limit: errorLimit)) }
                mode = .waiting
                body.append(chunk)
                mode = .collecting(head, body)
                return .success(nil)
            case .alreadyComplete, .waiting, .finished:
                return .success(nil)
            }
        }
        switch outcome {
        case .success(let progress):
            if let (completed, total, counting) = progress { configuration.progress?(completed, total, counting) }
            return .proceed
        case .failure(let error):
            return .stop(error)
        }
    }

    /// Counts a coded body's bytes on the wire, when the transport's receiver decodes it.
    func transferDidReceive(codedByteCount: Int) {
        let progress = mode.withLock { mode -> (Int64, Int64?)? in
            guard case .writing(var writing) = mode, writing.counting == nil || writing.counting == .wireBytes else { return nil }
            writing.counting = .wireBytes
            writing.wire += Int64(codedByteCount)
            mode = .writing(writing)
            return (writing.wire, writing.declared)
        }
        if let (wire, declared) = progress { configuration.progress?(wire, declared, .wireBytes) }
    }

    func transferDidComplete(with error: (any Error)?) {
        let current = mode.withLock { mode -> Mode in
            defer { mode = .finished }
            return mode
        }
        var staged: DownloadStaging.Staged?
        var resumable: ResumableDownload?
        let answer: Result<(Data, ResponseHead), any Error>
        switch current {
        case .finished:
            return
        case .waiting:
            // Stopped at the head, or ended before one: a partial being resumed is kept or
            // removed as the resource says.
            resumable = keepOrRemoveResumedPartial(after: error)
            answer = .failure(error ?? URLError(.badServerResponse))
        case .collecting(let head, let body):
            resumable = keepOrRemoveResumedPartial(after: error)
            answer = error.map { .failure($0) } ?? .success((body, head))
        case .alreadyComplete(let head, let standIn, var file):
            file.close()
            if let error {
                resumable = keepOrRemoveResumedPartial(after: error)
                answer = .failure(error)
            } else {
                do {
                    try verifyWholeFile(file.url)
                    staged = .init(url: file.url, head: standIn, resumable: configuration.keepsPartialFile ? resumeFrom : nil)
                    answer = .success((Data(), head))
                } catch {
                    DownloadFile.remove(file.url)
                    answer = .failure(error)
                }
            }
        case .writing(var writing):
            // A coded body that ended before anything said what its bytes count: its one value.
            if error == nil, writing.counting == nil { configuration.progress?(writing.file.size, nil, .decodedBytes) }
            if let error {
                writing.file.close()
                resumable = keepOrRemove(writing, after: error)
                answer = .failure(error)
            } else if let expected = writing.expectedSize, writing.file.size != expected {
                // A body that ended short of its Content-Range: as if the connection were cut.
                writing.file.close()
                resumable = keepOrRemove(writing, after: nil)
                answer = .failure(URLError(.networkConnectionLost))
            } else {
                do {
                    try writing.file.synchronizeAndClose(with: configuration.writer)
                    try verify(writing)
                    staged = .init(url: writing.file.url, head: writing.head, resumable: configuration.keepsPartialFile ? resumableFile(of: writing) : nil)
                    answer = .success((Data(), writing.head))
                } catch {
                    writing.file.close()
                    DownloadFile.remove(writing.file.url)
                    answer = .failure(error)
                }
            }
        }
        let bodyBytes = switch current {
        case .collecting(_, let body): body.count
        case .writing(let writing): Int(clamping: writing.file.size - writing.offset)
        case .waiting, .alreadyComplete, .finished: 0
        }
        received.withLock { $0 = bodyBytes }
        staging.receiverFinished(staged: staged, resumable: resumable, answered: answered.withLock { $0 })
        completion(answer)
    }

    // MARK: - The head

    /// Where the body of the answer with `head` goes.
    private func mode(for head: ResponseHead) throws(ResourceError) -> Mode {
        if let partial = resumeFrom {
            switch head.statusCode {
            case 206:
                // Held to the resource's validation as a `200` is.
                guard configuration.accepts(head) else { return .collecting(head, Data()) }
                return try continuing(partial, with: head)
            case 416:
                return try completing(partial, with: head)
            default:
                break
            }
        } else if head.statusCode == 206 {
            throw .resumeRefused(.unexpectedContentRange(expectedStart: 0, received: head.value(forHTTPHeaderField: "Content-Range")))
        }
        guard (200..<300).contains(head.statusCode), head.statusCode != 204, configuration.accepts(head) else {
            return .collecting(head, Data())
        }
        // A HEAD's Content-Length is the length of a body not sent: its file is empty.
        let declared = answersHEAD ? 0 : head.value(forHTTPHeaderField: "Content-Length").flatMap(TransferRules.declaredContentLength)
        if let declared, declared > configuration.maximumBytes {
            // A representation over the limit: a partial file of it could never be finished.
            if let partial = resumeFrom { DownloadFile.remove(partial.partialFile) }
            throw .responseTooLarge(limit: Int(clamping: configuration.maximumBytes))
        }
        try checkDestination()
        var file: DownloadFile
        if let partial = resumeFrom {
            // A full answer to a resumed download: it starts over, in the partial file, made
            // anew when it is gone.
            file = try DownloadFile.restarting(partial.partialFile)
        } else {
            file = try DownloadFile.temporary(beside: configuration.destination)
        }
        return .writing(writing(into: file, head: head, offset: 0, total: declared))
    }

    /// The `206` answer to a resumed download: appended if it continues the partial file.
    ///
    /// `Range: bytes=N-` asks for everything from N to the end (RFC 9110 §14.1.1), so the
    /// `Content-Range` must run from N to the last byte of a representation whose length is
    /// known, from that field or from the partial file, and is the partial file's when both say
    /// it; a `Content-Length` must be the range's. Anything else is refused before a byte is
    /// written.
    private func continuing(_ partial: ResumableDownload, with head: ResponseHead) throws(ResourceError) -> Mode {
        let received = head.value(forHTTPHeaderField: "Content-Range")
        // `nil` inside for a field that is not one length (RFC 9112 §6.3: equal repeated values are).
        let declared = head.value(forHTTPHeaderField: "Content-Length").map(TransferRules.declaredContentLength)
        guard let range = received.flatMap(ContentRange.init), let first = range.first, let last = range.last,
            first == partial.byteCount,
            let total = range.completeLength ?? partial.expectedLength,
            total > 0, last == total - 1,
            partial.expectedLength.map({ $0 == total }) ?? true,
            declared.map({ $0 == last - first + 1 }) ?? true
        else {
            throw .resumeRefused(.unexpectedContentRange(expectedStart: partial.byteCount, received: received))
        }
        // Parts are combined only under the same strong validator (RFC 9110 §15.3.7.3): one
        // that is missing, weak or another is of a version the partial file may not be.
        guard partial.validator.isCarried(by: head) else {
            DownloadFile.remove(partial.partialFile)
            throw .resumeRefused(.validatorChanged)
        }
        // A coded 206's range counts coded bytes, which are decoded before they are written.
        if Self.isCoded(head) {
            throw .resumeRefused(.unexpectedContentRange(expectedStart: partial.byteCount, received: received))
        }
        if total > configuration.maximumBytes {
            // A representation over the limit: the partial file could never be finished.
            DownloadFile.remove(partial.partialFile)
            throw .responseTooLarge(limit: Int(clamping: configuration.maximumBytes))
        }
        try checkDestination()
        let file = try Self.opening(partial)
        var writing = writing(into: file, head: head, offset: partial.byteCount, total: total, validator: partial.validator)
        writing.expectedSize = total
        if writing.whole != nil {
            var whole = SHA256()
            do {
                try DownloadFile.hash(contentsOf: partial.partialFile, upTo: partial.byteCount, into: &whole)
            } catch {
                writing.file.close()
                throw error
            }
            writing.whole = whole
        }
        return .writing(writing)
    }

    /// The `416` answer to a resumed download: the partial file is whole if the representation
    /// is as long as it; otherwise it is of another version, and is removed.
    ///
    /// A whole file is then held to what the answer that carried its last bytes would have
    /// been: the resource's validation, given the `200` the `416` stands for (a refused one is
    /// collected and reported by it, as a refused `206` is), and the size limit (a file over it
    /// is removed); and it is flushed to disk.
    private func completing(_ partial: ResumableDownload, with head: ResponseHead) throws(ResourceError) -> Mode {
        let range = head.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init)
        guard let length = range?.completeLength, length == partial.byteCount,
            partial.expectedLength.map({ $0 == length }) ?? true
        else {
            DownloadFile.remove(partial.partialFile)
            throw .resumeRefused(.rangeNotSatisfiable(completeLength: range?.completeLength))
        }
        let standIn = Self.wholeFileHead(standingInFor: head, length: length)
        guard configuration.accepts(standIn) else { return .collecting(head, Data()) }
        if length > configuration.maximumBytes {
            // A representation over the limit: the partial file could never be placed.
            DownloadFile.remove(partial.partialFile)
            throw .responseTooLarge(limit: Int(clamping: configuration.maximumBytes))
        }
        try checkDestination()
        // The bytes an earlier answer wrote are flushed before the file is placed, as a body
        // that arrives whole is.
        var file = try Self.opening(partial)
        try file.synchronizeAndClose(with: configuration.writer)
        return .alreadyComplete(received: head, standIn: standIn, file)
    }

    /// The fields of a `416` that describe its own body, not the representation.
    private static let fieldsOfA416sBody = [
        "Content-Type", "Content-Encoding", "Content-Language", "Content-Length", "Content-Range",
        "Content-Digest", "Repr-Digest", "Transfer-Encoding",
    ]

    /// The `200` a `416` that completes a partial file stands for: the answer that would have
    /// carried the whole file, `length` bytes. It has the `416`'s URL and fields, but for those
    /// that describe the `416`'s own body (``fieldsOfA416sBody``), and `Content-Length: length`.
    private static func wholeFileHead(standingInFor head: ResponseHead, length: Int64) -> ResponseHead {
        let kept = head.headerFields
            .filter { field in !fieldsOfA416sBody.contains { ResponseHead.sameFieldName($0, field.key) } }
            .sorted { $0.key < $1.key }
            .map { (name: $0.key, value: $0.value) }
        return ResponseHead(statusCode: 200, url: head.url, headerFields: kept + [(name: "Content-Length", value: String(length))])
    }

    /// Opens `partial` to append after its bytes. A file shorter than its byte count is not the
    /// partial file described, and cannot be resumed: it is removed, and the error
    /// (``ResourceError/FileSystemFailure/Operation/read`` with `EINVAL`) thrown.
    private static func opening(_ partial: ResumableDownload) throws(ResourceError) -> DownloadFile {
        do {
            return try DownloadFile.resuming(partial.partialFile, at: partial.byteCount)
        } catch {
            if case .fileSystem(let failure) = error, failure.operation == .read, failure.code == EINVAL {
                DownloadFile.remove(partial.partialFile)
            }
            throw error
        }
    }

    /// Refuses, before a byte of the body is fetched, an answer whose file could not be placed: a
    /// file is already at the destination under ``DownloadOverwritePolicy/failIfExists``.
    private func checkDestination() throws(ResourceError) {
        if configuration.overwritePolicy == .failIfExists, FileManager.default.fileExists(atPath: configuration.destination.path) {
            throw .fileSystem(.init(operation: .place, url: configuration.destination, code: EEXIST))
        }
    }

    private func writing(
        into file: DownloadFile,
        head: ResponseHead,
        offset: Int64,
        total: Int64?,
        validator: ResumableDownload.Validator? = nil
    ) -> Writing {
        // A coded body is decoded before it reaches the receiver: the digests and a range
        // describe the coded bytes, so neither can be used. A HEAD's answer has no body, coded
        // or not, and its digests describe the one a GET would get.
        let coded = !answersHEAD && Self.isCoded(head)
        let digests = !coded && !answersHEAD
        let contentDigest = digests ? head.value(forHTTPHeaderField: "Content-Digest").flatMap(DigestFields.sha256(in:)) : nil
        let reprDigest = digests ? head.value(forHTTPHeaderField: "Repr-Digest").flatMap(DigestFields.sha256(in:)) : nil
        let checksWhole = configuration.expectedSHA256 != nil || reprDigest != nil || (contentDigest != nil && offset == 0)
        return Writing(
            file: file,
            head: head,
            offset: offset,
            whole: checksWhole ? SHA256() : nil,
            message: contentDigest != nil && offset > 0 ? SHA256() : nil,
            contentDigest: contentDigest,
            reprDigest: reprDigest,
            validator: coded ? nil : (validator ?? .forIfRange(head)),
            total: coded ? nil : total,
            coded: coded,
            counting: coded ? nil : .bodyBytes,
            declared: head.value(forHTTPHeaderField: "Content-Length").flatMap(TransferRules.declaredContentLength)
        )
    }

    // MARK: - The end

    /// Checks the finished file's digests.
    private func verify(_ writing: Writing) throws(ResourceError) {
        var wholeDigest: SHA256Digest?
        if var whole = writing.whole { wholeDigest = SHA256Digest(unchecked: whole.finalize()) }
        var messageDigest = wholeDigest
        if var message = writing.message { messageDigest = SHA256Digest(unchecked: message.finalize()) }
        if let expected = configuration.expectedSHA256, let actual = wholeDigest, actual != expected {
            throw .integrityMismatch(.init(source: .expectedSHA256, expected: expected, actual: actual))
        }
        if let expected = writing.reprDigest, let actual = wholeDigest, actual != expected {
            throw .integrityMismatch(.init(source: .reprDigest, expected: expected, actual: actual))
        }
        if let expected = writing.contentDigest, let actual = messageDigest, actual != expected {
            throw .integrityMismatch(.init(source: .contentDigest, expected: expected, actual: actual))
        }
    }

    /// Checks a file that arrived whole before (a `416` to a complete partial) against the
    /// expected SHA-256, reading it back. A `416`'s `Content-Digest` and `Repr-Digest` describe
    /// its own message, not the file, and are not read.
    private func verifyWholeFile(_ url: URL) throws(ResourceError) {
        guard let expected = configuration.expectedSHA256 else { return }
        var sha = SHA256()
        try DownloadFile.hash(contentsOf: url, into: &sha)
        let actual = SHA256Digest(unchecked: sha.finalize())
        if actual != expected {
            throw .integrityMismatch(.init(source: .expectedSHA256, expected: expected, actual: actual))
        }
    }

    /// Keeps the file of an interrupted download to resume, when the resource asks and it can
    /// be resumed; removes it otherwise. The partial file being resumed is left whenever it can
    /// be resumed, whatever the resource asks: a retry asks for the bytes after it and needs it,
    /// and the download's outcome keeps or removes it (``DownloadService``). A body that crossed
    /// ``TransferOptions/maximumDownloadBytes`` is never kept.
    private func keepOrRemove(_ writing: Writing, after error: (any Error)?) -> ResumableDownload? {
        let tooLarge = if case .responseTooLarge? = error as? ResourceError { true } else { false }
        let isResumedPartial = writing.file.url == resumeFrom?.partialFile
        guard !tooLarge, configuration.keepsPartialFile || isResumedPartial, let resumable = resumableFile(of: writing) else {
            DownloadFile.remove(writing.file.url)
            return nil
        }
        return resumable
    }

    /// The file of `writing` as a partial download to resume; `nil` when it has no validator or
    /// no bytes.
    private func resumableFile(of writing: Writing) -> ResumableDownload? {
        guard let validator = writing.validator, writing.file.size > 0 else { return nil }
        return ResumableDownload(
            partialFile: writing.file.url, byteCount: writing.file.size, validator: validator, expectedLength: writing.total
        )
    }

    /// The partial file being resumed, after an answer that wrote nothing to it: left as it
    /// was, whatever the resource asks, since a retry asks for the same range and needs it;
    /// the download's outcome keeps or removes it (``DownloadService``). Nothing when not
    /// resuming, or when the file is gone.
    private func keepOrRemoveResumedPartial(after error: (any Error)?) -> ResumableDownload? {
        guard let partial = resumeFrom else { return nil }
        switch error as? ResourceError {
        case .resumeRefused(.validatorChanged), .resumeRefused(.rangeNotSatisfiable):
            return nil  // Of another version: already removed.
        default:
            break
        }
        guard FileManager.default.fileExists(atPath: partial.partialFile.path) else { return nil }
        return partial
    }

    /// Whether `head` names a content coding other than `identity` (an empty one is identity, as
    /// ``TransferRules/isIdentity(_:)`` has it).
    private static func isCoded(_ head: ResponseHead) -> Bool {
        head.value(forHTTPHeaderField: "Content-Encoding").map { !TransferRules.isIdentity($0) } ?? false
    }
}

/// A `Content-Range` value (RFC 9110 §14.4): `bytes first-last/complete`, `bytes first-last/*`
/// or `bytes */complete`.
struct ContentRange: Equatable {
    let first: Int64?
    let last: Int64?
    let completeLength: Int64?

    init?(_ value: String) {
        let value = value.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            completeLength = nil
        } else {
            guard let length = Self.number(parts[1]) else { return nil }
            completeLength = length
        }
        if parts[0] == "*" {
            guard completeLength != nil else { return nil }
            first = nil
            last = nil
        } else {
            let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else { return nil }
            self.first = first
            self.last = last
        }
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(text)
    }
}
