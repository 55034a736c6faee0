import Foundation

/// A Python server from `Fixtures/<name>.py` on 127.0.0.1: it prints `PORT <n>` as its first line
/// and exits when its standard input closes or its lifetime ends, so reading that line ends.
struct PythonFixtureServer: Sendable {
    let process: Process
    /// Closing it stops the server.
    let input: FileHandle
    let port: Int

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `Fixtures/<name>.py` with `--lifetime` and waits, on a thread of its own rather than
    /// one of the cooperative pool, for its port; `hint` says what to install when it does not
    /// start.
    static func start(script name: String, lifetime: Int, hint: String) async throws -> PythonFixtureServer {
        try await offTheCooperativePool { try startBlocking(script: name, lifetime: lifetime, hint: hint) }
    }

    private static func startBlocking(script name: String, lifetime: Int, hint: String) throws -> PythonFixtureServer {
        guard let script = Bundle.module.url(forResource: name, withExtension: "py", subdirectory: "Fixtures") else {
            throw StartFailure(description: "Fixtures/\(name).py is missing")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--lifetime", String(lifetime)]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }) else {
            process.terminate()
            process.waitUntilExit()
            throw StartFailure(description: "\(name).py did not start (\(hint))")
        }
        return PythonFixtureServer(process: process, input: input.fileHandleForWriting, port: port)
    }

    /// Closes the server's standard input, which stops it, and reaps it on a thread of its own
    /// (terminating it if it is still running after five seconds).
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

    /// Whether `python3 -c code` exits with status 0 (a module it imports is installed).
    static func pythonRuns(_ code: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", code]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
