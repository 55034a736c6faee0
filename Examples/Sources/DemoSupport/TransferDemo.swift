import ExampleResources
import Foundation
import ResourceLoader

/// The `transfers` demo's flow: uploads a file as `multipart/form-data`, then downloads a file
/// with a progress bar, resuming it after an interruption the demo injects, and verifies it.
///
/// 1. The file is sent as the `file` part of a ``FileUpload`` form; the server answers with the
///    ``UploadReceipt`` of what it parsed back, whose SHA-256 must be the file's.
/// 2. The published SHA-256 of `downloads/sample.bin` is read (``ChecksumFile``).
/// 3. The file is downloaded with the query item `cut-after=N`, which makes the fixture server
///    close the connection after N bytes of the body. The download keeps its partial file and
///    fails with ``ResourceError/downloadInterrupted(_:underlying:)``.
/// 4. The download is made again from the ``ResumableDownload`` it carried: the request has
///    `Range: bytes=<kept>-` and `If-Range`, and the `206` answer is appended to the partial
///    file. The placed file is checked against the published SHA-256 (and the server's
///    `Repr-Digest`) by the service, and hashed once more here.
public struct TransferDemo: Sendable {
    /// What the demo did.
    public struct Report: Sendable, CustomStringConvertible {
        /// The file uploaded.
        public var uploadedFile: URL
        /// Its size.
        public var uploadedByteCount: Int64
        /// Its SHA-256, computed here.
        public var uploadedDigest: SHA256Digest
        /// What the server received.
        public var receipt: UploadReceipt
        /// The partial download kept when the connection was cut, or `nil` when the server did
        /// not cut it (a server that ignores `cut-after`).
        public var interruption: ResumableDownload?
        /// The placed file.
        public var downloadedFile: URL
        /// Its size.
        public var downloadedByteCount: Int64
        /// Its SHA-256, computed here once it was placed.
        public var downloadedDigest: SHA256Digest
        /// The SHA-256 the server published for it.
        public var publishedDigest: SHA256Digest

        /// What the demo prints.
        public var description: String {
            var lines = ["Uploaded \(uploadedFile.lastPathComponent) (\(uploadedByteCount) bytes) as multipart/form-data; the server received (\(receipt.framing)):"]
            for part in receipt.parts {
                var text = "  • \(part.name)"
                if let fileName = part.fileName { text += ", file \(fileName)" }
                if let contentType = part.contentType { text += ", \(contentType)" }
                text += ", \(part.byteCount) bytes, SHA-256 \(part.sha256.prefix(16))…"
                lines.append(text)
            }
            lines.append("  the file part's SHA-256 matches the file sent: \(uploadedDigest.hex)")
            if let interruption {
                lines.append("Download cut by the server after \(interruption.byteCount) bytes; the partial file was kept")
                lines.append("Resumed with Range: bytes=\(interruption.byteCount)- and If-Range: \(interruption.validator.ifRangeValue)")
            } else {
                lines.append("Download was not interrupted (the server ignored cut-after)")
            }
            lines.append("Downloaded \(downloadedByteCount) bytes to \(downloadedFile.path)")
            lines.append("SHA-256 \(downloadedDigest.hex) matches the published one")
            return lines.joined(separator: "\n")
        }
    }

    /// A check of the demo's that failed.
    public struct Mismatch: Error, CustomStringConvertible {
        /// What did not match.
        public let description: String

        /// Creates the failure.
        public init(_ description: String) {
            self.description = description
        }
    }

    /// Where the services live.
    public var endpoints: WorldDirectory.Endpoints
    /// The transport every request goes through.
    public var transport: any HTTPTransport
    /// Where the generated upload and the download go; created when missing.
    public var workDirectory: URL
    /// After how many bytes of the first download the server is asked to cut the connection.
    public var cutAfter: Int
    /// Makes the progress bar for one transfer, from its label.
    public var progressBar: @Sendable (String) -> ProgressBar

    /// The default ``cutAfter``: a little over 1 MiB, in the middle of a slice.
    public static let defaultCutAfter = 1024 * 1024 + 54_321

    /// Creates the demo.
    ///
    /// - Parameters:
    ///   - endpoints: Where the services live.
    ///   - transport: The transport every request goes through.
    ///   - workDirectory: Where the generated upload and the download go.
    ///   - cutAfter: After how many bytes the first download is cut. Default: ``defaultCutAfter``.
    ///   - progressBar: Makes each transfer's bar. Default: a ``ProgressBar`` on the standard error.
    public init(
        endpoints: WorldDirectory.Endpoints,
        transport: any HTTPTransport,
        workDirectory: URL,
        cutAfter: Int = TransferDemo.defaultCutAfter,
        progressBar: @escaping @Sendable (String) -> ProgressBar = { ProgressBar(label: $0) }
    ) {
        self.endpoints = endpoints
        self.transport = transport
        self.workDirectory = workDirectory
        self.cutAfter = cutAfter
        self.progressBar = progressBar
    }

    /// Runs the demo, uploading `file` or, when it is `nil`, a generated file of 1,234,567
    /// bytes.
    public func run(uploading file: URL? = nil) async throws -> Report {
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let upload = try file ?? generatedUpload()
        let uploadedDigest = try SHA256Digest(ofFileAt: upload)
        let uploadedByteCount = try Int64(FileManager.default.attributesOfItem(atPath: upload.path)[.size] as? Int ?? 0)

        // 1. The upload, with its request body's progress.
        let uploadBar = progressBar("upload  ")
        let receipt = try await ResourceService<FileUpload>(session: transport, options: TransferOptions(deadline: .seconds(120)))
            .fetch(
                FileUpload(url: endpoints.uploads, file: upload, caption: "Sent by the transfers demo"),
                progressQueue: DispatchQueue(label: "upload progress")
            ) { progress in
                if progress.direction == .upload { uploadBar.report(progress) }
            }
        uploadBar.finish()
        guard let part = receipt.part(named: "file"), part.sha256 == uploadedDigest.hex, Int64(part.byteCount) == uploadedByteCount else {
            throw Mismatch("the server did not receive the file intact: \(receipt)")
        }

        // 2. The published digest.
        let sample = endpoints.downloads.appendingPathComponent("sample.bin")
        let published = try await ResourceService<ChecksumFile>(session: transport)
            .fetch(ChecksumFile(url: endpoints.downloads.appendingPathComponent("sample.bin.sha256")))

        // 3. The download, cut on purpose.
        let service = DownloadService<SampleDownload>(session: transport, options: TransferOptions(deadline: .seconds(120)))
        let destination = workDirectory.appendingPathComponent("sample.bin")
        var components = URLComponents(url: sample, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "cut-after", value: String(cutAfter))]
        var resource = SampleDownload(url: components?.url ?? sample, destination: destination, expectedSHA256: published)
        var interruption: ResumableDownload?
        var placed: URL?
        let firstBar = progressBar("download")
        let firstResource = resource
        let first = await Self.outcome { () async throws(ResourceError) -> URL in
            try await service.fetch(firstResource, progressQueue: DispatchQueue(label: "download progress")) { firstBar.report($0) }
        }
        firstBar.finish()
        switch first {
        case .success(let url):
            placed = url
        case .failure(let error):
            guard let partial = Self.resumable(error) else { throw error }
            interruption = partial
        }

        // 4. The rest, from the partial file.
        if let partial = interruption {
            resource.url = sample
            resource.resumeFrom = partial
            let resumedBar = progressBar("resume  ")
            // The service counts the partial file's bytes as done, and the whole file as the total.
            placed = try await service.fetch(resource, progressQueue: DispatchQueue(label: "resume progress")) { resumedBar.report($0) }
            resumedBar.finish()
        }
        guard let placed else { throw Mismatch("the download placed no file") }
        let downloadedDigest = try SHA256Digest(ofFileAt: placed)
        guard downloadedDigest == published else {
            throw Mismatch("the downloaded file's SHA-256 \(downloadedDigest) is not the published \(published)")
        }
        let downloadedByteCount = try Int64(FileManager.default.attributesOfItem(atPath: placed.path)[.size] as? Int ?? 0)
        return Report(
            uploadedFile: upload, uploadedByteCount: uploadedByteCount, uploadedDigest: uploadedDigest, receipt: receipt,
            interruption: interruption, downloadedFile: placed, downloadedByteCount: downloadedByteCount,
            downloadedDigest: downloadedDigest, publishedDigest: published)
    }

    /// The outcome of `body` as a value.
    private static func outcome<Value>(_ body: () async throws(ResourceError) -> Value) async -> Result<Value, ResourceError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// The partial download an interruption (not a cancellation) kept, if `error` is one.
    private static func resumable(_ error: ResourceError) -> ResumableDownload? {
        guard case .downloadInterrupted(let partial, let underlying) = error, !underlying.isCancelled else { return nil }
        return partial
    }

    /// Writes the generated file to upload: 1,234,567 bytes that differ from byte to byte.
    private func generatedUpload() throws -> URL {
        let url = workDirectory.appendingPathComponent("upload-sample.bin")
        let bytes = Data((0..<1_234_567).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        try bytes.write(to: url)
        return url
    }
}
