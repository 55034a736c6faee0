import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running `Fixtures/spyne-generated-service.py`: the spyne service the checked-in code in
/// `Generated/` was generated from, on 127.0.0.1.
struct SpyneWarehouse: Sendable {
    let process: Process
    let input: FileHandle
    /// The SOAP 1.1 endpoint, `http://127.0.0.1:<port>/soap11`.
    let url: URL

    /// The address the checked-in code was generated with: the WSDL's `soap:address` with its
    /// port, which the system picks anew for each run, set to 8080.
    static let generatedAddress = "http://127.0.0.1:8080/soap11"

    /// Whether the tests should run: spyne and lxml are importable, or this is CI, where they must.
    static let shouldRun: Bool = ProcessInfo.processInfo.environment["CI"] == "true" || canImport("spyne, lxml")

    /// Whether zeep can be used as well.
    static let zeepShouldRun: Bool = ProcessInfo.processInfo.environment["CI"] == "true" || canImport("spyne, lxml, zeep")

    private static func canImport(_ modules: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import \(modules)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The path of a fixture script.
    static func fixture(_ name: String) throws -> URL {
        guard let script = Bundle.module.url(forResource: name, withExtension: "py", subdirectory: "Fixtures") else {
            throw Failure(description: "Fixtures/\(name).py is missing")
        }
        return script
    }

    /// Starts the service and waits, on a thread of its own, for the port it prints.
    static func start() async throws -> SpyneWarehouse {
        let script = try fixture("spyne-generated-service")
        return try await onThread { try startWaiting(script: script) }
    }

    /// ``start()``'s work, blocking the calling thread.
    private static func startWaiting(script: URL) throws -> SpyneWarehouse {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--lifetime", "300"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is "PORT <n>"; the server exits within its lifetime, so this read ends.
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }),
            let url = URL(string: "http://127.0.0.1:\(port)/soap11")
        else {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "spyne-generated-service.py did not start (is spyne installed? pip install spyne lxml)")
        }
        return SpyneWarehouse(process: process, input: input.fileHandleForWriting, url: url)
    }

    /// The WSDL the service publishes at `?wsdl`, its `soap:address` port set to 8080 as in
    /// ``generatedAddress``.
    func wsdl() async throws -> Data {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.query = "wsdl"
        let (data, response) = try await URLSession.shared.data(from: try #require(components.url))
        try #require((response as? HTTPURLResponse)?.statusCode == 200)
        let text = String(decoding: data, as: UTF8.self)
        let published = "location=\"\(url.absoluteString)\""
        #expect(text.contains(published), "the WSDL's soap:address is not \(url)")
        return Data(text.replacingOccurrences(of: published, with: "location=\"\(Self.generatedAddress)\"").utf8)
    }

    /// Closes the service's standard input, which stops it, and waits for it to exit on a thread
    /// of its own (terminating it after five seconds), never on a thread of Swift's cooperative
    /// pool: a service slow to exit would otherwise hold one for up to its whole lifetime.
    func stop() {
        try? input.close()
        let process = process
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// Runs `Fixtures/zeep-generated-client.py` against the service, on a thread of its own, and
    /// returns the JSON object it prints.
    func zeepResults() async throws -> [String: Any] {
        let script = try Self.fixture("zeep-generated-client")
        let wsdlURL = url.absoluteString + "?wsdl"
        let output = try await Self.onThread { () throws -> Data in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, wsdlURL]
            let stdout = Pipe()
            process.standardOutput = stdout
            process.standardError = stdout
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let output = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return output
        }
        let object = try? JSONSerialization.jsonObject(with: output)
        return try #require(object as? [String: Any], "zeep printed: \(String(decoding: output, as: UTF8.self))")
    }

    /// Runs blocking `work` on a thread of its own, never on a thread of Swift's cooperative
    /// pool, which has one thread per core here.
    static func onThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "SpyneWarehouse"
            thread.start()
        }
    }
}
