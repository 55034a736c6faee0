import Foundation
@testable import ResourceLoader
import ResourceLoaderTesting
import Testing

/// A directory of its own under the temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("resourceloader-cache-\(UUID().uuidString)")

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// The files in the directory and their sizes.
    var files: [String: Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        var files: [String: Int] = [:]
        for name in names {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            files[name] = size
        }
        return files
    }

    var entryFiles: [String: Int] { files.filter { $0.key.hasSuffix(".entry") } }
}

private func response(_ body: String, date: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> CachedResponse {
    CachedResponse(
        statusCode: 200, url: URL(string: "http://origin.test/x"),
        headerFields: [("Cache-Control", "max-age=60"), ("ETag", "\"1\"")],
        body: Data(body.utf8), requestDate: date, responseDate: date, varyingRequestFields: ["accept": "text/html"]
    )
}

@Suite("Memory cache store: an LRU within a byte limit")
struct MemoryCacheStoreTests {
    @Test("Stores, replaces and removes")
    func storesAndRemoves() {
        let store = MemoryCacheStore(byteLimit: 10_000)
        store.store(response("one"), forKey: "a")
        #expect(store.cachedResponse(forKey: "a")?.body == Data("one".utf8))
        store.store(response("two"), forKey: "a")
        #expect(store.cachedResponse(forKey: "a")?.body == Data("two".utf8))
        #expect(store.count == 1)
        store.removeResponse(forKey: "a")
        #expect(store.cachedResponse(forKey: "a") == nil)
        #expect(store.totalBytes == 0)
    }

    @Test("Evicts the least recently used, a lookup counting as a use")
    func leastRecentlyUsed() {
        let cost = response(String(repeating: "x", count: 100)).cost
        let store = MemoryCacheStore(byteLimit: cost * 3)
        for key in ["a", "b", "c"] { store.store(response(String(repeating: "x", count: 100)), forKey: key) }
        _ = store.cachedResponse(forKey: "a")
        store.store(response(String(repeating: "x", count: 100)), forKey: "d")
        #expect(store.cachedResponse(forKey: "b") == nil)
        #expect(store.cachedResponse(forKey: "a") != nil)
        #expect(store.cachedResponse(forKey: "c") != nil)
        #expect(store.cachedResponse(forKey: "d") != nil)
        #expect(store.totalBytes <= store.byteLimit)
    }

    @Test("A response larger than the limit is not stored, and removes the old one")
    func tooLarge() {
        let store = MemoryCacheStore(byteLimit: 500)
        store.store(response("small"), forKey: "a")
        store.store(response(String(repeating: "x", count: 1000)), forKey: "a")
        #expect(store.cachedResponse(forKey: "a") == nil)
        #expect(store.count == 0)
    }

    @Test("The limit holds after 10,000 inserts of mixed sizes")
    func limitAfterManyInserts() async throws {
        let store = MemoryCacheStore(byteLimit: 20_000)
        // Off the cooperative pool: a long synchronous loop there would hold up other tests.
        let largest = try await offTheCooperativePool { () -> Int in
            var generator = SystemRandomNumberGenerator()
            var largest = 0
            for index in 0..<10_000 {
                store.store(response(String(repeating: "y", count: Int.random(in: 0..<2_000, using: &generator))), forKey: "k\(index % 700)")
                largest = max(largest, store.totalBytes)
            }
            return largest
        }
        #expect(largest <= 20_000)
        #expect(store.count > 0)
        store.removeAll()
        #expect(store.count == 0)
    }
}

@Suite("Disk cache store: whole entries, checked, LRU by journal, one process per directory")
struct DiskCacheStoreTests {
    @Test("An entry's file is named by the SHA-256 of its key, in lowercase hexadecimal")
    func fileNames() {
        // FIPS 180-2's "abc", and the empty key.
        #expect(DiskCacheStore.fileName(forKey: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.entry")
        #expect(DiskCacheStore.fileName(forKey: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.entry")
    }

    @Test("An entry survives reopening, with every field")
    func roundTrip() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
            store.store(response("hello"), forKey: "GET http://origin.test/x")
        }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        let stored = try #require(store.cachedResponse(forKey: "GET http://origin.test/x"))
        #expect(stored.body == Data("hello".utf8))
        #expect(stored.statusCode == 200)
        #expect(stored.url?.absoluteString == "http://origin.test/x")
        #expect(stored.value(forHTTPHeaderField: "etag") == "\"1\"")
        #expect(stored.requestDate == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(stored.varyingRequestFields == ["accept": "text/html"])
        #expect(store.count == 1)
    }

    @Test("Two stores on one directory: the second is refused with a typed error until the first is gone")
    func oneProcessPerDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var first: DiskCacheStore? = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        #expect(first != nil)
        #expect {
            try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        } throws: { error in
            if case .directoryInUse = error as? DiskCacheStore.OpenError { true } else { false }
        }
        first = nil
        _ = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
    }

    @Test("Crash safety: a temporary file left without its rename is no entry, and is removed on opening")
    func temporaryFileIsNoEntry() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
            store.store(response("old"), forKey: "k")
        }
        // A process killed between writing the new entry and renaming it leaves this behind.
        let name = try #require(directory.entryFiles.keys.first)
        let complete = try Data(contentsOf: directory.url.appendingPathComponent(name))
        try complete.write(to: directory.url.appendingPathComponent("tmp-\(UUID().uuidString)"))
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        #expect(store.cachedResponse(forKey: "k")?.body == Data("old".utf8))
        #expect(store.count == 1)
        #expect(!directory.files.keys.contains { $0.hasPrefix("tmp-") })
    }

    @Test("Crash safety: a truncated entry is a miss, and is removed")
    func truncatedEntry() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
            store.store(response(String(repeating: "z", count: 500)), forKey: "k")
        }
        let name = try #require(directory.entryFiles.keys.first)
        let file = directory.url.appendingPathComponent(name)
        let data = try Data(contentsOf: file)
        try data.prefix(data.count - 100).write(to: file)
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        #expect(store.cachedResponse(forKey: "k") == nil)
        #expect(directory.entryFiles.isEmpty)
        #expect(store.count == 0)
        #expect(store.totalBytes == 0)
    }

    @Test("A corrupt entry (a flipped byte: the checksum fails) is a miss, and is removed")
    func corruptEntry() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        store.store(response("precious"), forKey: "k")
        let name = try #require(directory.entryFiles.keys.first)
        let file = directory.url.appendingPathComponent(name)
        var data = try Data(contentsOf: file)
        data[data.count - 2] ^= 0x01
        try data.write(to: file)
        #expect(store.cachedResponse(forKey: "k") == nil)
        #expect(directory.entryFiles.isEmpty)
    }

    @Test("An entry in another format (another magic, or metadata that does not parse) is a miss, and is removed")
    func otherFormat() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        store.store(response("kept"), forKey: "k")
        let name = try #require(directory.entryFiles.keys.first)
        let file = directory.url.appendingPathComponent(name)
        let whole = try Data(contentsOf: file)
        var otherMagic = whole
        otherMagic[3] = UInt8(ascii: "1")
        #expect(DiskCacheStore.decode(otherMagic, key: "k") == nil)
        // The metadata's first string (the key) claims more bytes than the metadata holds; the
        // checksum is recomputed, so only the metadata's own checks can refuse it.
        var overlong = whole
        overlong.replaceSubrange(24..<28, with: [0xFF, 0xFF, 0, 0])
        let checksum = overlong.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[24...])) }
        withUnsafeBytes(of: checksum.littleEndian) { overlong.replaceSubrange(16..<24, with: $0) }
        #expect(DiskCacheStore.decode(overlong, key: "k") == nil)
        #expect(DiskCacheStore.decode(whole, key: "k")?.body == Data("kept".utf8))
        #expect(DiskCacheStore.decode(whole, key: "other") == nil)
        try otherMagic.write(to: file)
        #expect(store.cachedResponse(forKey: "k") == nil)
        #expect(directory.entryFiles.isEmpty)
    }

    @Test("Evicts the least recently used, in the order the journal kept across reopening (not access times)")
    func lruAcrossReopening() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let body = String(repeating: "x", count: 300)
        let size: Int
        do {
            let probe = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
            probe.store(response(body), forKey: "a")
            size = probe.totalBytes
            probe.removeAll()
        }
        do {
            let store = try DiskCacheStore(directory: directory.url, byteLimit: size * 3)
            for key in ["a", "b", "c"] { store.store(response(body), forKey: key) }
            _ = store.cachedResponse(forKey: "a")
        }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: size * 3)
        store.store(response(body), forKey: "d")
        #expect(store.cachedResponse(forKey: "b") == nil)
        #expect(store.cachedResponse(forKey: "a") != nil)
        #expect(store.cachedResponse(forKey: "c") != nil)
        #expect(store.cachedResponse(forKey: "d") != nil)
    }

    @Test("An entry larger than the limit is not written, and removes the old one under its key")
    func tooLargeForTheDisk() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 2_000)
        store.store(response("small"), forKey: "k")
        #expect(store.cachedResponse(forKey: "k") != nil)
        store.store(response(String(repeating: "x", count: 5_000)), forKey: "k")
        #expect(store.cachedResponse(forKey: "k") == nil)
        #expect(directory.entryFiles.isEmpty)
        #expect(store.count == 0 && store.totalBytes == 0)
        #expect(!directory.files.keys.contains { $0.hasPrefix("tmp-") })
    }

    @Test("An entry that cannot be put in place leaves nothing under its key, not the old response")
    func aFailedWriteRemovesTheOldEntry() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        store.store(response("old"), forKey: "k")
        // The temporary file disappears before its rename, as on a file system that fails it.
        store.willRenameTemporaryFile = { path in _ = unlink(path) }
        store.store(response("new"), forKey: "k")
        store.willRenameTemporaryFile = nil
        #expect(store.cachedResponse(forKey: "k") == nil)
        #expect(directory.entryFiles.isEmpty)
        #expect(store.count == 0 && store.totalBytes == 0)
    }

    @Test("On opening, an entry file the journal does not name is the first evicted")
    func entriesTheJournalDoesNotNameGoFirst() throws {
        let directory = TemporaryDirectory()
        let elsewhere = TemporaryDirectory()
        defer {
            directory.remove()
            elsewhere.remove()
        }
        let body = String(repeating: "x", count: 300)
        let size: Int
        do {
            // An entry written by a store whose journal is elsewhere.
            let other = try DiskCacheStore(directory: elsewhere.url, byteLimit: 1 << 20)
            other.store(response(body), forKey: "stray")
            size = other.totalBytes
        }
        do {
            let store = try DiskCacheStore(directory: directory.url, byteLimit: size * 3)
            for key in ["a", "b", "c"] { store.store(response(body), forKey: key) }
        }
        let stray = DiskCacheStore.fileName(forKey: "stray")
        try FileManager.default.copyItem(
            at: elsewhere.url.appendingPathComponent(stray), to: directory.url.appendingPathComponent(stray))
        let store = try DiskCacheStore(directory: directory.url, byteLimit: size * 3)
        #expect(store.count == 3)
        #expect(store.cachedResponse(forKey: "stray") == nil)
        for key in ["a", "b", "c"] { #expect(store.cachedResponse(forKey: key) != nil) }
        #expect(directory.entryFiles[stray] == nil)
    }

    @Test("A store opened with a smaller limit evicts down to it at once")
    func smallerLimitOnOpening() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
            for index in 0..<20 { store.store(response(String(repeating: "q", count: 1000)), forKey: "k\(index)") }
        }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 5_000)
        #expect(store.totalBytes <= 5_000)
        #expect(directory.entryFiles.values.reduce(0, +) <= 5_000)
        #expect(store.cachedResponse(forKey: "k19") != nil)
    }

    @Test("The byte limit holds after every one of 10,000 inserts of mixed sizes; the directory stays small")
    func limitAfterTenThousandInserts() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let limit = 64 * 1024
        let store = try DiskCacheStore(directory: directory.url, byteLimit: limit)
        // Off the cooperative pool: ten thousand file writes there would hold up other tests.
        let overLimit = try await offTheCooperativePool { () -> [Int] in
            var generator = SystemRandomNumberGenerator()
            var overLimit: [Int] = []
            for index in 0..<10_000 {
                let size = [16, 200, 1_500, 6_000][index % 4] + Int.random(in: 0..<100, using: &generator)
                store.store(response(String(repeating: "d", count: size)), forKey: "key-\(index % 1_000)")
                if store.totalBytes > limit { overLimit.append(index) }
                if index % 2_000 == 0 { _ = store.cachedResponse(forKey: "key-\(index % 1_000)") }
            }
            return overLimit
        }
        #expect(overLimit.isEmpty, "over the limit after inserts \(overLimit.prefix(5))")
        let files = directory.files
        let entries = files.filter { $0.key.hasSuffix(".entry") }.values.reduce(0, +)
        #expect(entries <= limit)
        #expect(entries == store.totalBytes)
        // The journal is compacted: at most a line per entry twice over, plus a margin.
        #expect((files["journal"] ?? 0) <= (2 * store.count + 260) * 80)
        #expect(!files.keys.contains { $0.hasPrefix("tmp-") })
    }

    @Test("The wrong key stored under a file's name is a miss")
    func keyMismatch() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        store.store(response("a"), forKey: "k1")
        let files = directory.entryFiles.keys.sorted()
        store.store(response("b"), forKey: "k2")
        let second = try #require(directory.entryFiles.keys.first { !files.contains($0) })
        // Put k2's entry in k1's file.
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent(files[0]))
        try FileManager.default.copyItem(at: directory.url.appendingPathComponent(second), to: directory.url.appendingPathComponent(files[0]))
        #expect(store.cachedResponse(forKey: "k1") == nil)
        #expect(store.cachedResponse(forKey: "k2")?.body == Data("b".utf8))
    }
}

@Suite("Tiered cache store: memory in front of disk")
struct TieredCacheStoreTests {
    @Test("A response is stored in both tiers; once memory has lost it, disk answers and memory has it again")
    func diskAnswersWhatMemoryLost() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let memory = MemoryCacheStore(byteLimit: 1 << 20)
        let disk = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        let store = TieredCacheStore(memory: memory, disk: disk)
        store.store(response("hello"), forKey: "k")
        #expect(memory.cachedResponse(forKey: "k")?.body == Data("hello".utf8))
        #expect(disk.cachedResponse(forKey: "k")?.body == Data("hello".utf8))
        // WHEN memory loses it
        memory.removeAll()
        // THEN disk answers, and memory holds it again
        #expect(store.cachedResponse(forKey: "k")?.body == Data("hello".utf8))
        #expect(memory.count == 1)
    }

    @Test("Responses memory evicts by its smaller limit are still answered from disk")
    func memoryLimitSmallerThanDisk() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let memory = MemoryCacheStore(byteLimit: 2_000)
        let store = TieredCacheStore(memory: memory, disk: try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20))
        let body = String(repeating: "x", count: 800)
        for index in 0..<10 { store.store(response(body + "\(index)"), forKey: "k\(index)") }
        #expect(memory.count < 10)
        for index in 0..<10 {
            #expect(store.cachedResponse(forKey: "k\(index)")?.body == Data((body + "\(index)").utf8))
        }
    }

    @Test("After a restart (a new store on the same directory), disk answers")
    func survivesARestart() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = TieredCacheStore(memory: MemoryCacheStore(byteLimit: 1 << 20), disk: try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20))
            store.store(response("kept"), forKey: "k")
        }
        let store = TieredCacheStore(memory: MemoryCacheStore(byteLimit: 1 << 20), disk: try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20))
        #expect(store.cachedResponse(forKey: "k")?.body == Data("kept".utf8))
    }

    @Test("A removal clears both tiers, and a lookup racing with it never puts the response back")
    func removalClearsBothTiers() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let memory = MemoryCacheStore(byteLimit: 1 << 20)
        let disk = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        let store = TieredCacheStore(memory: memory, disk: disk)
        for round in 0..<200 {
            let key = "k\(round)"
            store.store(response("r\(round)"), forKey: key)
            memory.removeResponse(forKey: key)  // so that lookups read disk and put it back
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index == 0 { store.removeResponse(forKey: key) } else { _ = store.cachedResponse(forKey: key) }
            }
            #expect(store.cachedResponse(forKey: key) == nil, "round \(round)")
            #expect(memory.cachedResponse(forKey: key) == nil && disk.cachedResponse(forKey: key) == nil)
        }
        store.store(response("a"), forKey: "a")
        store.removeAll()
        #expect(memory.count == 0 && disk.count == 0)
    }

    @Test("A resource adopting ReusableModelResource gets the model kept in the memory tier")
    func modelsAreKeptInTheMemoryTier() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let counter = ParseCounter()
        let session = FakeURLSession()
        session.stub(.any, with: .status(200, headers: ReusableModelTests.fresh, body: Data(ReusableModelTests.body.utf8)))
        let store = TieredCacheStore(memory: MemoryCacheStore(byteLimit: 1 << 20), disk: try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20))
        let service = ResourceService<CountedCities>(session: CachingTransport(wrapping: session, cache: HTTPCache(store: store)))
        let resource = CountedCities(url: ReusableModelTests.url, counter: counter)
        for _ in 0..<3 { #expect(try await service.fetch(resource) == ReusableModelTests.cities) }
        // The miss parses, the first hit parses and keeps the model, the second hit reuses it.
        #expect(counter.parses == 2)
        #expect(session.receivedRequests.count == 1)
    }
}

@Suite("Disk cache store: one process per directory")
struct DiskCacheStoreProcessTests {
    @Test("A directory whose lock another process holds is refused with directoryInUse")
    func anotherProcessHoldingTheLockIsRefused() async throws {
        guard PythonFixtureServer.pythonRuns("import fcntl") else {
            try #require(ProcessInfo.processInfo.environment["CI"] != "true", "python3 is needed under CI=true")
            return
        }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        // GIVEN another process holding flock(2) on the directory's lock file until told to stop
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('locked', flush=True); sys.stdin.read()",
            directory.url.appendingPathComponent("lock").path,
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        let line = try await offTheCooperativePool { output.fileHandleForReading.availableData }
        try #require(String(decoding: line, as: UTF8.self).hasPrefix("locked"))
        // THEN a store on the directory is refused
        #expect {
            try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        } throws: { error in
            if case .directoryInUse = error as? DiskCacheStore.OpenError { true } else { false }
        }
        // AND once that process has ended, it opens
        try input.fileHandleForWriting.close()
        try await offTheCooperativePool { process.waitUntilExit() }
        _ = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
    }

    #if os(Linux)
    @Test("A process started while a store is open inherits none of its descriptors (a crash of this one would leave it the lock)")
    func aSpawnedProcessInheritsNoDescriptor() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var store: DiskCacheStore? = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        store?.store(response("kept"), forKey: "a")
        _ = store?.cachedResponse(forKey: "a")
        // GIVEN a child spawned the plain way (posix_spawn keeps every descriptor without
        // close-on-exec), while the store has its lock and journal open
        var pid: pid_t = 0
        let arguments: [String] = ["/bin/sleep", "60"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        // THEN the child holds nothing in the store's directory
        let inherited = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }.filter { $0.hasPrefix(directory.url.path) }
        #expect(inherited == [])
        // AND once the store is gone, the directory opens again while the child still runs
        store = nil
        let reopened = try DiskCacheStore(directory: directory.url, byteLimit: 1 << 20)
        #expect(reopened.cachedResponse(forKey: "a")?.body == Data("kept".utf8))
    }
    #endif
}
