import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a download's bytes reach its file and are flushed to disk: `write(2)` and `fsync(2)`, or
/// stand-ins that tests inject (a disk that fills up after so many bytes, a flush that fails).
///
/// `write` answers like `write(2)`, but with the error in the result: the count written (maybe
/// fewer than asked), or `-errno`. `synchronize` answers like `fsync(2)`, the same way: `0`, or
/// `-errno`.
struct DownloadWriter: Sendable {
    let write: @Sendable (_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int
    /// `fsync(2)` unless a test sets another.
    var synchronize: @Sendable (_ descriptor: Int32) -> Int32 = { descriptor in
        fsync(descriptor) == 0 ? 0 : -errno
    }

    /// `write(2)`.
    static let system = DownloadWriter { descriptor, bytes, count in
        #if canImport(Darwin)
        let written = Darwin.write(descriptor, bytes, count)
        #elseif canImport(Musl)
        let written = Musl.write(descriptor, bytes, count)
        #else
        let written = Glibc.write(descriptor, bytes, count)
        #endif
        return written < 0 ? -Int(errno) : written
    }
}

/// The file a download is written to: a temporary file beside its destination (same directory,
/// so the final rename is atomic), or a partial file being resumed.
///
/// Every step is a POSIX call whose failure becomes ``ResourceError/fileSystem(_:)``: nothing
/// traps. The descriptor is closed by ``close()`` or ``synchronizeAndClose(with:)``, whichever
/// comes first; the owner (``FileDownloadReceiver``) calls one of them on every path.
struct DownloadFile {
    /// Where the file is.
    let url: URL
    /// The open descriptor, or `-1` once closed.
    private(set) var descriptor: Int32
    /// The bytes in the file.
    private(set) var size: Int64

    /// The longest file name, in bytes (`NAME_MAX` on Linux and Apple platforms).
    static let maximumNameBytes = 255

    /// Creates an empty temporary file in the destination's directory, creating the directories
    /// that are missing. Its name is `.name.UUID.download`, with as much of the destination's name
    /// as keeps it within ``maximumNameBytes`` (whole characters).
    static func temporary(beside destination: URL) throws(ResourceError) -> DownloadFile {
        let directory = destination.deletingLastPathComponent()
        try createDirectories(directory)
        let suffix = ".\(UUID().uuidString).download"
        let name = prefix(of: destination.lastPathComponent, fittingIn: maximumNameBytes - 1 - suffix.utf8.count)
        let url = directory.appendingPathComponent(".\(name)\(suffix)")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(.open, url) }
        return DownloadFile(url: url, descriptor: descriptor, size: 0)
    }

    /// The longest prefix of `name`, in whole characters, whose UTF-8 form has at most `bytes`
    /// bytes.
    static func prefix(of name: String, fittingIn bytes: Int) -> Substring {
        var used = 0
        var end = name.startIndex
        for index in name.indices {
            used += name[index].utf8.count
            guard used <= bytes else { break }
            end = name.index(after: index)
        }
        return name[..<end]
    }

    /// Opens the partial file of a download being resumed, for appending after its first
    /// `byteCount` bytes (a longer file is cut back to them). A file shorter than `byteCount` is
    /// ``ResourceError/FileSystemFailure/Operation/read`` with `EINVAL`: it is not the partial
    /// file described.
    static func resuming(_ url: URL, at byteCount: Int64) throws(ResourceError) -> DownloadFile {
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(.open, url) }
        var file = DownloadFile(url: url, descriptor: descriptor, size: 0)
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else {
            let error = failure(.read, url)
            file.close()
            throw error
        }
        guard Int64(end) >= byteCount else {
            file.close()
            throw .fileSystem(.init(operation: .read, url: url, code: EINVAL))
        }
        if Int64(end) > byteCount, ftruncate(descriptor, off_t(byteCount)) != 0 {
            let error = failure(.write, url)
            file.close()
            throw error
        }
        guard lseek(descriptor, off_t(byteCount), SEEK_SET) >= 0 else {
            let error = failure(.write, url)
            file.close()
            throw error
        }
        file.size = byteCount
        return file
    }

    /// Opens the partial file of a download that starts over, emptied; creates it (and its
    /// missing directories) when it is gone.
    static func restarting(_ url: URL) throws(ResourceError) -> DownloadFile {
        try createDirectories(url.deletingLastPathComponent())
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(.open, url) }
        return DownloadFile(url: url, descriptor: descriptor, size: 0)
    }

    /// Appends `bytes`, going on after a short write and after `EINTR`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, with writer: DownloadWriter) throws(ResourceError) {
        guard var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = writer.write(descriptor, next, remaining)
            if written == -Int(EINTR) { continue }
            guard written > 0 else {
                throw .fileSystem(.init(operation: .write, url: url, code: written < 0 ? Int32(-written) : EIO))
            }
            next += written
            remaining -= written
            size += Int64(written)
        }
    }

    /// Flushes the file to disk with `writer` and closes it; closes it even when the flush fails.
    mutating func synchronizeAndClose(with writer: DownloadWriter) throws(ResourceError) {
        let result = writer.synchronize(descriptor)
        let error = result == 0 ? nil : ResourceError.fileSystem(.init(operation: .synchronize, url: url, code: -result))
        close()
        if let error { throw error }
    }

    /// Closes the file, if it is open.
    mutating func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
        descriptor = -1
    }

    /// Removes the file at `url`, if there is one.
    static func remove(_ url: URL) {
        _ = unlink(url.path)
    }

    /// Moves the finished file at `source` to `destination`, atomically, as `policy` says; then
    /// flushes the directory, so the new name survives a crash.
    ///
    /// ``DownloadOverwritePolicy/failIfExists`` links the file to its new name, which fails with
    /// `EEXIST` if a file is there, then removes the old name; where the file system has no hard
    /// links it renames without replacing (``renameExclusively(_:to:)``).
    /// ``DownloadOverwritePolicy/replace`` renames.
    static func place(_ source: URL, at destination: URL, policy: DownloadOverwritePolicy) throws(ResourceError) {
        try createDirectories(destination.deletingLastPathComponent())
        switch policy {
        case .replace:
            guard rename(source.path, destination.path) == 0 else { throw failure(.place, destination) }
        case .failIfExists:
            if link(source.path, destination.path) == 0 {
                _ = unlink(source.path)
            } else {
                let code = errno
                guard code != EEXIST else { throw .fileSystem(.init(operation: .place, url: destination, code: EEXIST)) }
                try renameExclusively(source, to: destination)
            }
        }
        let directory = open(destination.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            var handle = DownloadFile(url: destination, descriptor: directory, size: 0)
            handle.close()
        }
    }

    /// Renames `source` to `destination` unless a file is there (`EEXIST`), in one step:
    /// `renameat2` with `RENAME_NOREPLACE` on Linux with glibc (looked up at run time: Swift's
    /// `Glibc` module does not import it), `renamex_np` with `RENAME_EXCL` on Apple platforms.
    /// Only where that call is missing or the file system refuses it (`EINVAL`, `ENOSYS`,
    /// `ENOTSUP`) does it check that the destination is free, then rename: a file created
    /// between the two would be replaced.
    static func renameExclusively(_ source: URL, to destination: URL) throws(ResourceError) {
        #if canImport(Darwin)
        let result: Int32? = renamex_np(source.path, destination.path, UInt32(RENAME_EXCL))
        #elseif canImport(Glibc)
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
        let renameNoReplace: UInt32 = 1  // RENAME_NOREPLACE, from <linux/fs.h>
        let result: Int32? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2").map { symbol in
            unsafeBitCast(symbol, to: RenameAt2.self)(AT_FDCWD, source.path, AT_FDCWD, destination.path, renameNoReplace)
        }
        #else
        let result: Int32? = nil
        #endif
        if let result {
            if result == 0 { return }
            let code = errno
            guard code == EINVAL || code == ENOSYS || code == ENOTSUP else { throw .fileSystem(.init(operation: .place, url: destination, code: code)) }
        }
        guard access(destination.path, F_OK) != 0 else { throw .fileSystem(.init(operation: .place, url: destination, code: EEXIST)) }
        guard rename(source.path, destination.path) == 0 else { throw failure(.place, destination) }
    }

    /// Hashes the first `byteCount` bytes of the file at `url` (all of it when `nil`) into `sha`,
    /// a MiB at a time.
    static func hash(contentsOf url: URL, upTo byteCount: Int64? = nil, into sha: inout SHA256) throws(ResourceError) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(.read, url) }
        var handle = DownloadFile(url: url, descriptor: descriptor, size: 0)
        defer { handle.close() }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var remaining = byteCount ?? .max
        while remaining > 0 {
            let count = read(descriptor, buffer.baseAddress, Int(min(Int64(chunk), remaining)))
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(.read, url) }
            if count == 0 { break }
            sha.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            remaining -= Int64(count)
        }
    }

    /// Creates `directory` and its missing parents.
    static func createDirectories(_ directory: URL) throws(ResourceError) {
        var missing: [URL] = []
        var current = directory.standardizedFileURL
        while access(current.path, F_OK) != 0, current.path != "/" {
            missing.append(current)
            current = current.deletingLastPathComponent()
        }
        for url in missing.reversed() {
            guard mkdir(url.path, 0o755) == 0 || errno == EEXIST else { throw failure(.createDirectory, url) }
        }
    }

    /// The failure of `operation` on `url`, with the current `errno`.
    private static func failure(_ operation: ResourceError.FileSystemFailure.Operation, _ url: URL) -> ResourceError {
        .fileSystem(.init(operation: operation, url: url, code: errno))
    }
}
