import Foundation
@testable import ResourceLoader
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A process running `DiskCacheStore` is killed with SIGKILL — between writing an entry's
// temporary file and renaming it, in the middle of writing it, and at random moments while it
// stores entry after entry — and a store opened afterwards on the same directory is checked.
//
// The child is this test binary, run again with `CrashChild.roleVariable` set: Swift Testing
// then runs only `DiskCacheStoreCrashChildRole`, which is enabled in that process alone. The
// child says where it is with lines on its standard output; the parent reads them with a time
// limit, kills the child with `kill(2)` and reaps it.

@Suite("Disk cache store: a process killed with SIGKILL leaves whole entries or none")
struct DiskCacheStoreCrashTests {
    @Test(
        "Killed after writing an entry's temporary file, before renaming it: the temporary file is removed, the key keeps its previous whole version",
        .enabled(if: CrashChild.canRun, CrashChild.cannotRunReason)
    )
    func killedBeforeTheRename() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // GIVEN a child that stored a1 and b1, then wrote a2 to its temporary file whole and stopped
        let child = try CrashChild(role: .stopBeforeRename, directory: directory.url)
        defer { child.killAndReap() }
        let line = try await offTheCooperativePool { child.waitForLine(startingWith: "before-rename ", within: CrashChild.startLimit) }
        let announcement = try #require(line, "the child never reached the rename\(child.diagnostics)")
        let temporaryPath = String(announcement.dropFirst("before-rename ".count))
        let written = try Data(contentsOf: URL(fileURLWithPath: temporaryPath))
        #expect(CrashTestBody.generation(in: DiskCacheStore.decode(written, key: "a"), key: "a") == 2, "the temporary file holds a2 whole")
        // WHEN it is killed there
        let ending = try await offTheCooperativePool { child.killAndReap() }
        #expect(ending.wasKilled, "the child ended otherwise: \(ending)\(child.diagnostics)")
        #expect(directory.files.keys.contains { $0.hasPrefix("tmp-") }, "the killed child left its temporary file")
        // THEN a store opens on the directory, without the temporary file, with a1 and b1 whole
        try expectReopensWithFirstVersions(directory)
    }

    @Test(
        "Killed in the middle of writing an entry's temporary file: the truncated file is removed, the key keeps its previous whole version",
        .enabled(if: CrashChild.canRun, CrashChild.cannotRunReason)
    )
    func killedMidWrite() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // GIVEN a child that stored a1 and b1, then stopped part way through writing a2, a file
        // larger than its RLIMIT_FSIZE (the kernel writes up to the limit, then raises SIGXFSZ,
        // whose handler stops the child)
        let child = try CrashChild(role: .stopMidWrite, directory: directory.url)
        defer { child.killAndReap() }
        let line = try await offTheCooperativePool { child.waitForLine(startingWith: "mid-write", within: CrashChild.startLimit) }
        try #require(line != nil, "the child never stopped mid-write\(child.diagnostics)")
        let temporary = directory.files.filter { $0.key.hasPrefix("tmp-") }
        let whole = DiskCacheStore.encode(CrashTestBody.response(key: "a", generation: 2, length: CrashChild.largeVersionLength), key: "a")
        #expect(temporary.count == 1)
        #expect(temporary.values.allSatisfy { $0 == CrashChild.fileSizeLimit && $0 < whole.count }, "\(temporary)")
        // WHEN it is killed there
        let ending = try await offTheCooperativePool { child.killAndReap() }
        #expect(ending.wasKilled, "the child ended otherwise: \(ending)\(child.diagnostics)")
        // THEN a store opens on the directory, without the truncated file, with a1 and b1 whole
        try expectReopensWithFirstVersions(directory)
    }

    @Test(
        "Killed at 20 random moments while replacing entries under a few keys: every entry left is whole, and no older than the last write that returned",
        .enabled(if: CrashChild.canRun, CrashChild.cannotRunReason)
    )
    func killedAtRandomMoments() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // The newest generation of each key whose `store` returned (the child said so).
        var acknowledged: [String: Int] = [:]
        for round in 1...20 {
            // GIVEN a child storing entries continuously, from generation `first` on
            let first = round * 1_000_000
            let child = try CrashChild(role: .storeContinuously, directory: directory.url, firstGeneration: first)
            defer { child.killAndReap() }
            let line = try await offTheCooperativePool { child.waitForLine(startingWith: "storing", within: CrashChild.startLimit) }
            try #require(line != nil, "the child never started storing\(child.diagnostics)")
            // WHEN it is killed after a random 0–30 ms (its output read meanwhile)
            let delay = Duration.microseconds(Int.random(in: 0...30_000))
            let ending = try await offTheCooperativePool {
                child.readLines(for: delay)
                return child.killAndReap()
            }
            #expect(ending.wasKilled, "the child ended otherwise: \(ending)\(child.diagnostics)")
            var last = first - 1
            for line in child.lines where line.hasPrefix("stored ") {
                guard let generation = Int(line.dropFirst("stored ".count)) else { continue }
                acknowledged[CrashChild.key(forGeneration: generation)] = generation
                last = generation
            }
            // THEN a store opens on the directory, without temporary files, within its limit
            let store = try DiskCacheStore(directory: directory.url, byteLimit: CrashChild.continuousByteLimit)
            #expect(!directory.files.keys.contains { $0.hasPrefix("tmp-") }, "round \(round)")
            expectWithinLimit(store, directory: directory)
            // AND every entry in it is whole: its body is the one the child wrote for its key and
            // generation, a generation the child had started and no older than the last it saw
            // stored under that key
            let entries = store.count
            var found = store.cachedResponse(forKey: "after") == nil ? 0 : 1
            for key in CrashChild.keys {
                guard let response = store.cachedResponse(forKey: key) else { continue }
                found += 1
                let generation = try #require(CrashTestBody.generation(in: response, key: key), "round \(round): \(key) holds a body that is not whole")
                #expect(generation <= last + 1, "round \(round): \(key) holds generation \(generation), after the last started")
                #expect(generation >= acknowledged[key] ?? 0, "round \(round): \(key) went back from \(acknowledged[key] ?? 0) to \(generation)")
            }
            #expect(found == entries, "round \(round): \(entries - found) entry files were not whole")
            // AND it keeps working
            expectStillWorks(store)
        }
    }

    /// Expects a store to open on `directory` without a temporary file, holding a1 and b1 whole
    /// (what a deterministic child stored before it was stopped), within its limit and working.
    private func expectReopensWithFirstVersions(_ directory: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try DiskCacheStore(directory: directory.url, byteLimit: CrashChild.deterministicByteLimit)
        #expect(!directory.files.keys.contains { $0.hasPrefix("tmp-") }, sourceLocation: sourceLocation)
        #expect(CrashTestBody.generation(in: store.cachedResponse(forKey: "a"), key: "a") == 1, sourceLocation: sourceLocation)
        #expect(CrashTestBody.generation(in: store.cachedResponse(forKey: "b"), key: "b") == 1, sourceLocation: sourceLocation)
        #expect(store.count == 2, sourceLocation: sourceLocation)
        expectWithinLimit(store, directory: directory, sourceLocation: sourceLocation)
        expectStillWorks(store, sourceLocation: sourceLocation)
    }

    /// Expects the store's entries, as it counts them and as their files on disk take, within
    /// its limit.
    private func expectWithinLimit(_ store: DiskCacheStore, directory: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(store.totalBytes <= store.byteLimit, sourceLocation: sourceLocation)
        #expect(directory.entryFiles.values.reduce(0, +) <= store.byteLimit, sourceLocation: sourceLocation)
        #expect(directory.entryFiles.count == store.count, sourceLocation: sourceLocation)
    }

    /// Expects a response stored now to be read back whole.
    private func expectStillWorks(_ store: DiskCacheStore, sourceLocation: SourceLocation = #_sourceLocation) {
        let response = CrashTestBody.response(key: "after", generation: 7, length: 2_000)
        store.store(response, forKey: "after")
        #expect(store.cachedResponse(forKey: "after")?.body == response.body, sourceLocation: sourceLocation)
    }
}

/// The role a crash test's child process plays; enabled only in that process.
@Suite("Disk cache store: the role of the process the crash tests kill")
struct DiskCacheStoreCrashChildRole {
    @Test(
        "Stores entries as its parent asked, and says where it stopped",
        .enabled(if: CrashChild.roleInThisProcess != nil, "runs only in a child process a crash test started")
    )
    func playTheChild() throws {
        let environment = ProcessInfo.processInfo.environment
        let role = try #require(CrashChild.roleInThisProcess)
        let directory = URL(fileURLWithPath: try #require(environment[CrashChild.directoryVariable]))
        switch role {
        case .stopBeforeRename:
            let store = try DiskCacheStore(directory: directory, byteLimit: CrashChild.deterministicByteLimit)
            store.store(CrashTestBody.response(key: "a", generation: 1, length: 3_000), forKey: "a")
            store.store(CrashTestBody.response(key: "b", generation: 1, length: 3_000), forKey: "b")
            store.willRenameTemporaryFile = { path in
                CrashChild.announce("before-rename \(path)")
                CrashChild.waitForTheParentToEnd()
            }
            store.store(CrashTestBody.response(key: "a", generation: 2, length: CrashChild.secondVersionLength), forKey: "a")
            Issue.record("the store renamed the entry: the parent did not kill this process")
        case .stopMidWrite:
            let store = try DiskCacheStore(directory: directory, byteLimit: CrashChild.deterministicByteLimit)
            store.store(CrashTestBody.response(key: "a", generation: 1, length: 3_000), forKey: "a")
            store.store(CrashTestBody.response(key: "b", generation: 1, length: 3_000), forKey: "b")
            let large = CrashTestBody.response(key: "a", generation: 2, length: CrashChild.largeVersionLength)
            // A write past RLIMIT_FSIZE stops at the limit; the next raises SIGXFSZ, whose handler
            // says so and waits to be killed, inside the store's write. The signal is unblocked on
            // this thread (the thread pool's threads block it).
            signal(SIGXFSZ) { _ in
                let message: StaticString = "mid-write\n"
                _ = write(STDOUT_FILENO, message.utf8Start, message.utf8CodeUnitCount)
                var byte: UInt8 = 0
                while read(STDIN_FILENO, &byte, 1) > 0 {}
                _exit(EXIT_FAILURE)
            }
            var limit = rlimit()
            try #require(getrlimit(CrashChild.fileSizeResource, &limit) == 0)
            limit.rlim_cur = rlim_t(CrashChild.fileSizeLimit)
            try #require(setrlimit(CrashChild.fileSizeResource, &limit) == 0)
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGXFSZ)
            try #require(pthread_sigmask(SIG_UNBLOCK, &signals, nil) == 0)
            store.store(large, forKey: "a")
            Issue.record("the store wrote the entry past RLIMIT_FSIZE")
        case .storeContinuously:
            let first = try #require(environment[CrashChild.firstGenerationVariable].flatMap { Int($0) })
            let store = try DiskCacheStore(directory: directory, byteLimit: CrashChild.continuousByteLimit)
            CrashChild.announce("storing")
            let deadline = ContinuousClock.now + CrashChild.startLimit
            var generation = first
            // Until killed; the deadline and a closed pipe end a child whose parent is gone.
            while ContinuousClock.now < deadline {
                let key = CrashChild.key(forGeneration: generation)
                store.store(CrashTestBody.response(key: key, generation: generation), forKey: key)
                guard CrashChild.announce("stored \(generation)") else { return }
                generation += 1
            }
            Issue.record("the parent did not kill this process")
        }
    }
}

/// A crash test's child process: this test binary, run again in one of the roles of
/// `DiskCacheStoreCrashChildRole`, its standard output read line by line.
final class CrashChild: @unchecked Sendable {
    /// What the child does before it is killed.
    enum Role: String {
        /// Stores a1 and b1, then blocks after writing a2's temporary file, before the rename.
        case stopBeforeRename
        /// Stores a1 and b1, then blocks part way through writing a2's temporary file.
        case stopMidWrite
        /// Stores generation after generation under `keys`, saying `stored <generation>` after each.
        case storeContinuously
    }

    /// The environment variable naming the child's role.
    static let roleVariable = "RESOURCELOADER_CACHE_CRASH_CHILD"
    /// The environment variable holding the cache directory's path.
    static let directoryVariable = "RESOURCELOADER_CACHE_CRASH_DIRECTORY"
    /// The environment variable holding the first generation a continuous child stores.
    static let firstGenerationVariable = "RESOURCELOADER_CACHE_CRASH_FIRST_GENERATION"

    /// This process's role, when a crash test started it.
    static var roleInThisProcess: Role? {
        ProcessInfo.processInfo.environment[roleVariable].flatMap(Role.init(rawValue:))
    }

    /// Whether the tests can run this binary again as a child: on Linux, where `swift test` runs
    /// Swift Testing in the test executable itself. (On Apple platforms the tests are a bundle
    /// loaded by a host process, which these tests do not drive.)
    static var canRun: Bool {
        #if os(Linux)
        roleInThisProcess == nil
        #else
        false
        #endif
    }

    /// Why `canRun` is false.
    static var cannotRunReason: Comment {
        roleInThisProcess == nil
            ? "the crash tests run the test executable again, as `swift test` runs it on Linux"
            : "this process is a crash test's child"
    }

    /// How long a child may take to start and reach its stopping point: far more than it needs
    /// (well under a second; seconds under a sanitizer), a bound against hangs only.
    static let startLimit = Duration.seconds(120)
    /// The deterministic tests' store limit.
    static let deterministicByteLimit = 4 << 20
    /// The continuous test's store limit: less than `keys` entries of the mean body length, so
    /// that writes evict.
    static let continuousByteLimit = 3 << 20
    /// The body length of a2 in the stop-before-rename role.
    static let secondVersionLength = 5_000
    /// The body length of a2 in the mid-write role: larger than `fileSizeLimit`.
    static let largeVersionLength = 1 << 20
    /// The child's RLIMIT_FSIZE in the mid-write role, where its temporary file stops.
    static let fileSizeLimit = 64 << 10
    /// `RLIMIT_FSIZE`, as `getrlimit` and `setrlimit` take it.
    #if canImport(Glibc)
    static var fileSizeResource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_FSIZE.rawValue) }
    #else
    static var fileSizeResource: Int32 { RLIMIT_FSIZE }
    #endif
    /// The keys a continuous child stores under, one after another.
    static var keys: [String] { (0..<8).map { "key-\($0)" } }

    /// The key a continuous child stores `generation` under.
    static func key(forGeneration generation: Int) -> String {
        keys[generation % keys.count]
    }

    /// Writes `line` to standard output at once; `false` when nobody reads it any more.
    @discardableResult
    static func announce(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Blocks until the parent closes the child's standard input (it kills the child first), then
    /// ends the process.
    static func waitForTheParentToEnd() -> Never {
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) > 0 {}
        _exit(EXIT_FAILURE)
    }

    /// How a child ended.
    struct Ending: Sendable, CustomStringConvertible {
        var reason: Process.TerminationReason
        var status: Int32

        /// Whether SIGKILL ended it.
        var wasKilled: Bool { reason == .uncaughtSignal && status == SIGKILL }

        var description: String { reason == .exit ? "exit status \(status)" : "signal \(status)" }
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errorLog: URL

    // `lock` guards `buffer`, `readLines`, `isAtEnd` and `ending`.
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private var readLines: [String] = []
    private var isAtEnd = false
    private var ending: Ending?

    /// Starts the child in `role` on `directory`; its standard error goes to a file beside it.
    init(role: Role, directory: URL, firstGeneration: Int = 0) throws {
        errorLog = directory.deletingLastPathComponent().appendingPathComponent(directory.lastPathComponent + "-child-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", "DiskCacheStoreCrashChildRole"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.roleVariable] = role.rawValue
        environment[Self.directoryVariable] = directory.path
        environment[Self.firstGenerationVariable] = String(firstGeneration)
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        try process.run()
    }

    deinit {
        if process.processIdentifier > 0 { killAndReap() }
        try? FileManager.default.removeItem(at: errorLog)
    }

    /// The lines the child wrote that have been read.
    var lines: [String] { lock.withLock { readLines } }

    /// The end of the child's standard error, to explain a failure.
    var diagnostics: String {
        let text = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        return text.isEmpty ? "" : "; its standard error ends:\n" + text.suffix(4_000)
    }

    /// Reads the child's output until a line starting with `prefix` (returned), its end or
    /// `limit` (`nil`). Blocks: call it off the cooperative pool.
    func waitForLine(startingWith prefix: String, within limit: Duration) -> String? {
        let deadline = ContinuousClock.now + limit
        var seen = lines.count
        while true {
            let now = lines
            if let line = now[seen...].first(where: { $0.hasPrefix(prefix) }) { return line }
            seen = now.count
            guard ContinuousClock.now < deadline, readOnce(until: deadline) else { return nil }
        }
    }

    /// Reads the child's output for `duration`, or until its end. Blocks.
    func readLines(for duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline, readOnce(until: deadline) {}
    }

    /// Kills the child with SIGKILL (unless it has ended already), reaps it, reads the rest of its
    /// output and closes its standard input. Blocks until the child has ended; SIGKILL cannot
    /// be caught.
    @discardableResult
    func killAndReap() -> Ending {
        if let ended = lock.withLock({ self.ending }) { return ended }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        while readOnce(until: ContinuousClock.now + .seconds(10)) {}
        try? input.fileHandleForWriting.close()
        let ending = Ending(reason: process.terminationReason, status: process.terminationStatus)
        lock.withLock { self.ending = ending }
        return ending
    }

    /// Waits for output until `deadline`, then reads what is there into `lines`; `false` at its
    /// end, or when the deadline passed with nothing to read.
    private func readOnce(until deadline: ContinuousClock.Instant) -> Bool {
        if lock.withLock({ isAtEnd }) { return false }
        let descriptor = output.fileHandleForReading.fileDescriptor
        let remaining = max(deadline - ContinuousClock.now, .zero)
        let milliseconds = Int32(clamping: remaining.components.seconds * 1_000 + remaining.components.attoseconds / 1_000_000_000_000_000)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        guard ready > 0 else { return ready < 0 && errno == EINTR }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
        let interrupted = count < 0 && errno == EINTR
        return lock.withLock {
            guard count > 0 else {
                isAtEnd = !interrupted
                return !isAtEnd
            }
            buffer += chunk[0..<count]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                readLines.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
            return true
        }
    }
}

/// The crash tests' bodies: each names its key, generation and length, and is filled with bytes
/// derived from its key and generation, so that a body can be told whole — and whose it is — by
/// itself.
enum CrashTestBody {
    /// The body of `key`'s `generation`, `length` bytes long (at least 64; derived from both
    /// when `nil`: 64 bytes to 1 MiB): a line naming the three, then a 64-bit pattern derived
    /// from the key and generation, repeated.
    static func make(key: String, generation: Int, length: Int? = nil) -> Data {
        var seed: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(key)/\(generation)".utf8 {
            seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let length = max(64, length ?? (64 + Int(seed % ((1 << 20) - 64))))
        let header = Array("\(key) \(generation) \(length)\n".utf8)
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { buffer in
            buffer.copyBytes(from: header)
            // The pattern, then the filled part copied after itself until the body is full: a
            // few copies rather than a loop over every byte, so that the child spends its time
            // in the store.
            withUnsafeBytes(of: seed) { pattern in
                UnsafeMutableRawBufferPointer(rebasing: buffer[header.count...]).copyBytes(from: pattern.prefix(length - header.count))
            }
            var filled = min(header.count + 8, length)
            while filled < length {
                let count = min(filled - header.count, length - filled)
                buffer.baseAddress!.advanced(by: filled).copyMemory(from: buffer.baseAddress!.advanced(by: header.count), byteCount: count)
                filled += count
            }
        }
        return Data(bytes)
    }

    /// A response whose body is `make(key:generation:length:)`'s.
    static func response(key: String, generation: Int, length: Int? = nil) -> CachedResponse {
        CachedResponse(
            statusCode: 200, url: URL(string: "http://origin.test/\(key)"), headerFields: [("ETag", "\"\(generation)\"")],
            body: make(key: key, generation: generation, length: length),
            requestDate: Date(timeIntervalSince1970: 1_700_000_000), responseDate: Date(timeIntervalSince1970: 1_700_000_000)
        )
    }

    /// The generation `response` holds for `key`; `nil` when there is none, or its body is not
    /// exactly the body of that key and generation.
    static func generation(in response: CachedResponse?, key: String) -> Int? {
        guard let body = response?.body, let newline = body.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let fields = String(decoding: body[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 3, fields[0] == key, let generation = Int(fields[1]), let length = Int(fields[2]),
            body == make(key: key, generation: generation, length: length),
            response?.value(forHTTPHeaderField: "ETag") == "\"\(generation)\""
        else { return nil }
        return generation
    }
}
