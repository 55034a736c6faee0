import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An ``HTTPCacheStore`` in one directory: one file per response, the least recently used
/// removed first once the files pass ``byteLimit``.
///
/// How it stays consistent:
/// - **Whole entries only.** An entry is written to a temporary file (`tmp-…`) and renamed into
///   place, so a reader (or a process that crashed in between) sees the old entry or the new,
///   never half of one. Temporary files left by a crash are removed when the store opens.
/// - **Checked entries.** Each file starts with a header holding the lengths of its metadata and
///   body and a checksum (XXH64) of both; a file that is short, long or does not match its
///   checksum is a miss, and is removed. So is one whose stored key is not the one asked for.
/// - **Its own recency order.** The order of use is kept in a `journal` file (one line per
///   write, read or removal, reads written in batches of a few kilobytes with the next write or
///   removal; compacted when it grows past twice the entries), never in file
///   access times, which many file systems do not keep. On opening, the store lists the
///   directory and orders the entries it finds by the journal; entries the journal does not
///   name come first in line for eviction.
/// - **The limit after every write.** ``byteLimit`` bounds the entries' files, header included;
///   after each write the least recently used are removed until they fit. An entry larger than
///   the limit is not written. The journal and the lock file are not counted: the journal stays
///   under about 150 bytes per entry.
/// - **One process per directory.** The store holds an exclusive `flock(2)` on a `lock` file in
///   the directory for as long as it lives; opening a second store on the same directory, from
///   this process or another, throws ``OpenError/directoryInUse(_:)``. Share one store (its
///   methods are safe from any thread), or give each process a directory of its own. The
///   store's files are opened close-on-exec: a process this one starts holds none of them, nor
///   the lock.
public final class DiskCacheStore: HTTPCacheStore, @unchecked Sendable {
    /// Why a store could not be opened.
    public enum OpenError: Error, Sendable, CustomStringConvertible {
        /// Another store (in this process or another) has the directory open.
        case directoryInUse(String)
        /// The directory, or its lock file, could not be created or opened.
        case unusableDirectory(String)

        /// What went wrong, with the directory's path.
        public var description: String {
            switch self {
            case .directoryInUse(let path): "the cache directory \(path) is in use by another DiskCacheStore"
            case .unusableDirectory(let path): "the cache directory \(path) cannot be created or locked"
            }
        }
    }

    private struct Entry {
        var size: Int
        var lastUse: UInt64
    }

    /// The directory holding the entries.
    public let directory: URL
    /// The most bytes the entries' files take.
    public let byteLimit: Int
    /// ``directory``'s path, made once.
    private let directoryPath: String

    // `lock` guards every field below, and every file operation on the directory.
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var totalSize = 0
    private var useCounter: UInt64 = 0
    /// The journal's file descriptor, open for appending; `-1` when closed.
    private var journal: Int32 = -1
    private var journalLines = 0
    /// Journal lines of reads not yet written (``noteRead(_:)``).
    private var pendingReads: [UInt8] = []
    /// The most bytes of reads kept before they are written to the journal.
    private static let pendingReadLimit = 4096
    private let lockDescriptor: Int32
    private var willRenameHook: (@Sendable (String) -> Void)?

    /// A test seam, `nil` outside the crash tests: called with an entry's temporary file's path
    /// once the entry is written there whole, just before the file is renamed into place (with
    /// the store's lock held). The crash tests block a child process here and kill it.
    var willRenameTemporaryFile: (@Sendable (_ temporaryPath: String) -> Void)? {
        get { lock.withLock { willRenameHook } }
        set { lock.withLock { willRenameHook = newValue } }
    }

    /// Opens the store in `directory`, creating it if needed, and rebuilds the index from the
    /// files there.
    ///
    /// - Parameters:
    ///   - directory: A directory for this store alone.
    ///   - byteLimit: The most bytes the entries may take.
    /// - Throws: ``OpenError/directoryInUse(_:)`` when another store has the directory open;
    ///   ``OpenError/unusableDirectory(_:)`` when it cannot be created or locked.
    public init(directory: URL, byteLimit: Int) throws(OpenError) {
        self.directory = directory.standardizedFileURL
        self.byteLimit = byteLimit
        let path = self.directory.path
        directoryPath = path
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        } catch {
            throw .unusableDirectory(path)
        }
        let descriptor = open(self.directory.appendingPathComponent("lock").path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unusableDirectory(path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .directoryInUse(path)
        }
        lockDescriptor = descriptor
        lock.withLock { rebuildIndex() }
    }

    deinit {
        appendToJournal(nil)
        if journal >= 0 { close(journal) }
        flock(lockDescriptor, LOCK_UN)
        close(lockDescriptor)
    }

    /// The bytes the entries' files take.
    public var totalBytes: Int { lock.withLock { totalSize } }

    /// The number of entries.
    public var count: Int { lock.withLock { entries.count } }

    // MARK: - HTTPCacheStore

    /// The response stored under `key`, made the most recently used; `nil` (and the file removed)
    /// when its file is missing, truncated or corrupt.
    public func cachedResponse(forKey key: String) -> CachedResponse? {
        let name = Self.fileName(forKey: key)
        return lock.withLock {
            guard entries[name] != nil else { return nil }
            guard let data = Self.read(path: path(of: name), limit: byteLimit),
                let response = DiskCacheStore.decode(data, key: key)
            else {
                remove(name)
                return nil
            }
            useCounter += 1
            entries[name]?.lastUse = useCounter
            noteRead(name)
            return response
        }
    }

    /// Writes `response` under `key` (to a temporary file, renamed into place), then removes the
    /// least recently used entries until the store is within ``byteLimit``. When the entry cannot
    /// be written (a full disk, say), the old one under `key` is removed.
    public func store(_ response: CachedResponse, forKey key: String) {
        let name = Self.fileName(forKey: key)
        let data = Self.encode(response, key: key)
        lock.withLock {
            guard data.count <= byteLimit else {
                remove(name)
                return
            }
            // An entry that cannot be written leaves nothing under the key: the old response is
            // what the caller replaces.
            let temporary = directoryPath + "/tmp-\(UUID().uuidString)"
            guard Self.write(data, toPath: temporary) else {
                unlink(temporary)
                if entries[name] != nil { remove(name) }
                return
            }
            willRenameHook?(temporary)
            guard rename(temporary, path(of: name)) == 0 else {
                unlink(temporary)
                if entries[name] != nil { remove(name) }
                return
            }
            totalSize -= entries[name]?.size ?? 0
            useCounter += 1
            entries[name] = Entry(size: data.count, lastUse: useCounter)
            totalSize += data.count
            appendToJournal("W \(name) \(data.count)")
            evictToLimit()
        }
    }

    /// Removes the response stored under `key`.
    public func removeResponse(forKey key: String) {
        let name = Self.fileName(forKey: key)
        lock.withLock {
            if entries[name] != nil { remove(name) }
        }
    }

    /// Removes every response.
    public func removeAll() {
        lock.withLock {
            for name in entries.keys { try? FileManager.default.removeItem(at: url(of: name)) }
            entries = [:]
            totalSize = 0
            compactJournal()
        }
    }

    // MARK: - The index (called with `lock` held)

    private func url(of name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    private func path(of name: String) -> String {
        directoryPath + "/" + name
    }

    /// Writes `data` to a new file at `path`; `false` when it could not be written whole.
    private static func write(_ data: Data, toPath path: String) -> Bool {
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// The whole file at `path`, or `nil` when it cannot be read or is larger than `limit`.
    private static func read(path: String, limit: Int) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 0, status.st_size <= limit else { return nil }
        let size = Int(status.st_size)
        var data = Data(count: size)
        let isWhole = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < size {
                let count = systemRead(descriptor, buffer.baseAddress! + offset, size - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return isWhole ? data : nil
    }

    /// Lists the directory: removes temporary files, sizes the entries, orders them by the
    /// journal, evicts to the limit and writes a compact journal.
    private func rebuildIndex() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directoryPath)) ?? []
        var lastUse: [String: UInt64] = [:]
        if let text = try? String(contentsOf: url(of: "journal"), encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard parts.count >= 2 else { continue }
                useCounter += 1
                switch parts[0] {
                case "W", "R": lastUse[String(parts[1])] = useCounter
                case "D": lastUse[String(parts[1])] = nil
                default: break
                }
            }
        }
        for name in names.sorted() {
            if name.hasPrefix("tmp-") {
                try? FileManager.default.removeItem(at: url(of: name))
            } else if name.hasSuffix(".entry") {
                var status = stat()
                guard stat(url(of: name).path, &status) == 0 else { continue }
                let size = Int(status.st_size)
                entries[name] = Entry(size: size, lastUse: lastUse[name] ?? 0)
                totalSize += size
            }
        }
        evictToLimit()
        compactJournal()
    }

    private func evictToLimit() {
        while totalSize > byteLimit, let victim = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            remove(victim)
        }
    }

    private func remove(_ name: String) {
        unlink(path(of: name))
        if let entry = entries.removeValue(forKey: name) { totalSize -= entry.size }
        appendToJournal("D \(name)")
    }

    /// Records a read in the journal: kept with other reads, and written with the next write or
    /// removal, or once ``pendingReadLimit`` bytes of them wait (a read lost to a crash only makes
    /// its entry look older).
    private func noteRead(_ name: String) {
        pendingReads.append(contentsOf: "R \(name)\n".utf8)
        journalLines += 1
        if pendingReads.count >= Self.pendingReadLimit { appendToJournal(nil) }
    }

    /// Writes the reads waiting and then `line` (if any) to the journal, or compacts it instead
    /// once it holds more than twice the entries' lines.
    private func appendToJournal(_ line: String?) {
        if journalLines > 2 * entries.count + 256 {
            compactJournal()
            return
        }
        if journal < 0 { journal = open(path(of: "journal"), O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0o644) }
        guard journal >= 0 else { return }
        var bytes = pendingReads
        pendingReads.removeAll(keepingCapacity: true)
        if let line {
            bytes.append(contentsOf: (line + "\n").utf8)
            journalLines += 1
        }
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { systemWrite(journal, $0.baseAddress!, $0.count) }
    }

    /// Rewrites the journal as one line per entry, least recently used first (to a temporary
    /// file, renamed into place).
    private func compactJournal() {
        if journal >= 0 { close(journal) }
        journal = -1
        pendingReads.removeAll(keepingCapacity: true)
        let lines = entries.sorted { $0.value.lastUse < $1.value.lastUse }.map { "W \($0.key) \($0.value.size)\n" }
        let temporary = path(of: "tmp-journal-\(UUID().uuidString)")
        guard Self.write(Data(lines.joined().utf8), toPath: temporary), rename(temporary, path(of: "journal")) == 0 else {
            unlink(temporary)
            return
        }
        journalLines = lines.count
    }

    // MARK: - The entry format

    /// The file an entry of `key` lives in: the SHA-256 of the key, in hexadecimal.
    static func fileName(forKey key: String) -> String {
        let digest = SHA256.hash(key.utf8)
        let digits = Array("0123456789abcdef".utf8)
        let suffix = ".entry".utf8
        return String(unsafeUninitializedCapacity: digest.count * 2 + suffix.count) { name in
            for (index, byte) in digest.enumerated() {
                name[2 * index] = digits[Int(byte >> 4)]
                name[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            for (index, byte) in suffix.enumerated() { name[2 * digest.count + index] = byte }
            return digest.count * 2 + suffix.count
        }
    }

    /// `RLC2`, then the metadata's length (4 bytes), the body's (8 bytes) and the XXH64 of the
    /// metadata and body together (8 bytes), little-endian; then the metadata and the body.
    ///
    /// The metadata is binary, each integer little-endian and each string its UTF-8 length
    /// (4 bytes) then its bytes: the key; the status (8 bytes); 1 and the URL, or 0; the request
    /// and response dates (seconds since 1970 as the bits of a `Double`, 8 bytes each); the
    /// number of header fields (4 bytes), then each field's name and value; the number of
    /// varying request fields (4 bytes), then each one's name and value, by name.
    private static let magic = Array("RLC2".utf8)
    private static let headerLength = 24

    static func encode(_ response: CachedResponse, key: String) -> Data {
        var metadata = [UInt8]()
        metadata.reserveCapacity(128 + key.utf8.count + response.headerFields.count * 48)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { metadata.append(contentsOf: $0) }
        }
        func append(_ string: String) {
            append(UInt32(string.utf8.count))
            metadata.append(contentsOf: string.utf8)
        }
        append(key)
        append(Int64(response.statusCode))
        if let url = response.url {
            metadata.append(1)
            append(url.absoluteString)
        } else {
            metadata.append(0)
        }
        append(response.requestDate.timeIntervalSince1970.bitPattern)
        append(response.responseDate.timeIntervalSince1970.bitPattern)
        append(UInt32(response.headerFields.count))
        for field in response.headerFields {
            append(field.name)
            append(field.value)
        }
        append(UInt32(response.varyingRequestFields.count))
        for (name, value) in response.varyingRequestFields.sorted(by: { $0.key < $1.key }) {
            append(name)
            append(value)
        }
        var data = Data(count: headerLength + metadata.count + response.body.count)
        data.withUnsafeMutableBytes { buffer in
            let contents = UnsafeMutableRawBufferPointer(rebasing: buffer[headerLength...])
            metadata.withUnsafeBytes { contents.copyMemory(from: $0) }
            response.body.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: contents[metadata.count...]).copyMemory(from: $0)
            }
            magic.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[..<4]).copyMemory(from: $0) }
            buffer.storeBytes(of: UInt32(metadata.count).littleEndian, toByteOffset: 4, as: UInt32.self)
            buffer.storeBytes(of: UInt64(response.body.count).littleEndian, toByteOffset: 8, as: UInt64.self)
            buffer.storeBytes(of: XXH64.hash(UnsafeRawBufferPointer(contents)).littleEndian, toByteOffset: 16, as: UInt64.self)
        }
        return data
    }

    /// The response in `data`, an entry's whole file; `nil` unless it is whole, matches its
    /// checksum and was stored under `key`.
    static func decode(_ data: Data, key: String) -> CachedResponse? {
        data.withUnsafeBytes { buffer -> CachedResponse? in
            guard buffer.count >= headerLength, magic.elementsEqual(buffer.prefix(4)) else { return nil }
            let metadataLength = Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            let bodyLength = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            let checksum = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            guard bodyLength <= UInt64(Int.max - headerLength - metadataLength),
                buffer.count == headerLength + metadataLength + Int(bodyLength)
            else { return nil }
            let contents = UnsafeRawBufferPointer(rebasing: buffer[headerLength...])
            guard XXH64.hash(contents) == checksum else { return nil }
            var reader = EntryReader(bytes: UnsafeRawBufferPointer(rebasing: contents[..<metadataLength]))
            guard reader.matches(key),
                let status = reader.integer(Int64.self), let hasURL = reader.integer(UInt8.self), hasURL <= 1
            else { return nil }
            var url: URL?
            if hasURL == 1 {
                guard let string = reader.string() else { return nil }
                url = URL(string: string)
            }
            guard let requestDate = reader.integer(UInt64.self), let responseDate = reader.integer(UInt64.self),
                let fieldCount = reader.integer(UInt32.self)
            else { return nil }
            var fields: [(name: String, value: String)] = []
            fields.reserveCapacity(min(Int(fieldCount), metadataLength / 8))
            for _ in 0..<fieldCount {
                guard let name = reader.string(), let value = reader.string() else { return nil }
                fields.append((name, value))
            }
            guard let varyCount = reader.integer(UInt32.self) else { return nil }
            var vary: [String: String] = [:]
            for _ in 0..<varyCount {
                guard let name = reader.string(), let value = reader.string() else { return nil }
                vary[name] = value
            }
            guard reader.isAtEnd, let statusCode = Int(exactly: status) else { return nil }
            return CachedResponse(
                statusCode: statusCode,
                url: url,
                headerFields: fields,
                body: Data(UnsafeRawBufferPointer(rebasing: contents[metadataLength...])),
                requestDate: Date(timeIntervalSince1970: Double(bitPattern: requestDate)),
                responseDate: Date(timeIntervalSince1970: Double(bitPattern: responseDate)),
                varyingRequestFields: vary
            )
        }
    }

    /// Reads an entry's metadata, each read `nil` past its end.
    private struct EntryReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            guard bytes.count - offset >= MemoryLayout<T>.size else { return nil }
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }

        /// The next string's bytes, if they are all there.
        private mutating func stringBytes() -> UnsafeRawBufferPointer? {
            guard let length = integer(UInt32.self).map(Int.init), bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
        }

        mutating func string() -> String? {
            stringBytes().map { String(decoding: $0, as: UTF8.self) }
        }

        /// Whether the next string is `expected`.
        mutating func matches(_ expected: String) -> Bool {
            guard let bytes = stringBytes() else { return false }
            var expected = expected
            return expected.withUTF8 { $0.elementsEqual(bytes) }
        }
    }
}

/// `read(2)`, named apart from the store's own methods.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`, named apart from the store's own methods.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
