import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Our HAR files read by an independent reader (Python's `jsonschema`, against a HAR 1.2 schema
/// written here from the specification), and a HAR written by a real tool (mitmproxy's `mitmdump`
/// with its `hardump` option, recording traffic to a loopback server) replayed through ours.
///
/// Skipped when the Python packages are missing (`pip install jsonschema mitmproxy`, which
/// `.ci/run` does); on CI (`CI=true`) they run regardless, so a missing install fails.
@Suite("HAR read by jsonschema", .enabled(if: PythonTool.shouldRun(check: ["python3", "-c", "import jsonschema"]),
    "python3 with jsonschema is not installed: pip install jsonschema"))
struct HARSchemaValidationTests {
    @Test func theHARWeWriteIsValidHAR12() async throws {
        let server = try RecordingAndReplayTests.makeServer()
        let recording = RecordingTransport(wrapping: URLSessionTransport())
        var upload = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
        upload.httpMethod = "POST"
        upload.httpBody = everyByte
        for request in [
            HARRedactionTests.leakyRequest(to: server.baseURL, path: "europe.json"), upload,
            URLRequest(url: server.baseURL.appendingPathComponent("image.png")),
            URLRequest(url: server.baseURL.appendingPathComponent("missing")),
        ] {
            _ = try await exchange(request, through: recording).get()
        }
        server.stop()
        let directory = try PythonTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ours.har")
        try recording.write(to: file)
        #expect(recording.har.log.entries.count == 4)

        let result = try await offTheCooperativePool { try HARSchema.validate(file, in: directory) }
        #expect(result.status == 0, "jsonschema rejected our HAR: \(result.output)")
    }

    @Test func theSchemaRejectsADocumentThatBreaksTheSpecification() async throws {
        // The validator can fail: a log without creator, an entry with a string status and an
        // unknown field that does not start with an underscore.
        let directory = try PythonTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.har")
        try Data(#"""
            {"log": {"version": "1.2", "entries": [{"startedDateTime": "yesterday", "time": 1, "cache": {},
              "timings": {"send": 0, "wait": 1, "receive": 0},
              "request": {"method": "GET", "url": "http://127.0.0.1/", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0, "extra": true},
              "response": {"status": "200", "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": 0}}]}}
            """#.utf8).write(to: file)
        let result = try await offTheCooperativePool { try HARSchema.validate(file, in: directory) }
        #expect(result.status == 1)
        #expect(result.output.contains("'creator' is a required property"))
        #expect(result.output.contains("'200' is not of type 'integer'"))
        #expect(result.output.contains("'extra' does not match any of the regexes: '^_'"))
        #expect(result.output.contains("'yesterday' does not match"))
    }
}

@Suite("HAR exported by mitmproxy", .enabled(if: PythonTool.shouldRun(check: ["mitmdump", "--version"]),
    "mitmproxy is not installed: pip install mitmproxy"))
struct MitmproxyHARTests {
    @Test func aHARExportedByMitmdumpReplaysTheSameModels() async throws {
        let server = try RecordingAndReplayTests.makeServer()
        let directory = try PythonTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("mitmproxy.har")
        let proxy = try await offTheCooperativePool {
            try MitmdumpPeer.start(reverseTo: server.baseURL, harFile: file, directory: directory)
        }

        let cities = CitiesResource(url: proxy.url.appendingPathComponent("europe.json"))
        let image = BytesResource(url: proxy.url.appendingPathComponent("image.png"))
        // HAR 1.2 has no base64 for request bodies, and mitmproxy writes them as text: the
        // upload is text.
        let posted = Data(#"{"city": "Lisbon"}"#.utf8)
        let upload = BytesResource(
            url: proxy.url.appendingPathComponent("upload"), httpMethod: .post,
            requestBody: .data(posted, contentType: "application/json"))
        let live = await withTimeLimit {
            (
                try? await ResourceService<CitiesResource>().fetch(cities),
                try? await ResourceService<BytesResource>().fetch(image),
                try? await ResourceService<BytesResource>().fetch(upload)
            )
        }
        try await offTheCooperativePool { try proxy.stop() }
        server.stop()
        #expect(live?.0 == [City(name: "Lisbon"), City(name: "Zürich")])
        #expect(live?.1 == everyByte)
        #expect(live?.2 == Data(posted.reversed()))

        let har = try HAR(contentsOf: file)
        #expect(har.log.creator.name == "mitmproxy")
        #expect(har.log.entries.count == 3)
        let binary = try #require(har.log.entries.first { $0.request.url.hasSuffix("/image.png") })
        #expect(binary.response.content.encoding == "base64")

        // mitmproxy records the upstream's URLs: replay against the server's, now stopped.
        let replay = ReplayTransport(har: har)
        let base = server.baseURL
        @Sendable func atServer(_ path: String) -> URL { base.appendingPathComponent(path) }
        let replayed = await withTimeLimit {
            (
                try? await ResourceService<CitiesResource>(session: replay).fetch(CitiesResource(url: atServer("europe.json"))),
                try? await ResourceService<BytesResource>(session: replay).fetch(BytesResource(url: atServer("image.png"))),
                try? await ResourceService<BytesResource>(session: replay).fetch(BytesResource(
                    url: atServer("upload"), httpMethod: .post, requestBody: .data(posted, contentType: "application/json")))
            )
        }
        #expect(replayed?.0 == live?.0)
        #expect(replayed?.1 == live?.1)
        #expect(replayed?.2 == live?.2)
        #expect(replay.replayer.unusedEntries.isEmpty)

        // Its request bodies are read too: the upload matches by body.
        let byBody = ReplayTransport(har: har, rules: [.method, .url, .body])
        var request = URLRequest(url: atServer("upload"))
        request.httpMethod = "POST"
        request.httpBody = posted
        #expect(try await exchange(request, through: byBody).get().0 == Data(posted.reversed()))
        request.httpBody = Data(#"{"city": "Porto"}"#.utf8)
        #expect(await exchange(request, through: byBody).failure is HARReplayError)

        // And the schema our own files pass accepts mitmproxy's, when jsonschema is there.
        if PythonTool.shouldRun(check: ["python3", "-c", "import jsonschema"]) {
            let result = try await offTheCooperativePool { try HARSchema.validate(file, in: directory) }
            #expect(result.status == 0, "jsonschema rejected mitmproxy's HAR: \(result.output)")
        }
    }
}

/// Runs Python tools for the interoperability tests.
enum PythonTool {
    /// Whether a tool is present (`check` exits 0), or this is CI, where it must be.
    static func shouldRun(check: [String]) -> Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || ((try? run(check).status) == 0)
    }

    /// Runs `arguments` through `/usr/bin/env`, and returns its status and combined output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// A running `mitmdump` in reverse-proxy mode, writing a HAR when it stops.
struct MitmdumpPeer {
    let process: Process
    let url: URL

    /// How long mitmdump may take to start listening, or to write its HAR and exit: far more than
    /// it needs (a few seconds; tens beside a busy test run), a bound against hangs only.
    static let limit = Duration.seconds(120)

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func start(reverseTo upstream: URL, harFile: URL, directory: URL) throws -> MitmdumpPeer {
        let log = directory.appendingPathComponent("mitmdump.log")
        try Data().write(to: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var target = upstream.absoluteString
        if target.hasSuffix("/") { target.removeLast() }
        // A child inherits SIGINT ignored or blocked from a background parent, and Python then
        // leaves it so; restoring the default before `exec` lets mitmdump stop (and save) on an
        // interrupt.
        let launcher = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
            + "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); os.execvp('mitmdump', sys.argv[1:])"
        process.arguments = [
            "python3", "-c", launcher, "mitmdump", "--mode", "reverse:\(target)", "--listen-host", "127.0.0.1", "--listen-port", "0",
            "--set", "hardump=\(harFile.path)", "--set", "confdir=\(directory.appendingPathComponent("conf").path)",
        ]
        // Unbuffered, so that the line naming the port reaches the log at once.
        process.environment = ProcessInfo.processInfo.environment.merging(["PYTHONUNBUFFERED": "1"]) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // It prints "… listening at 127.0.0.1:<port>." once it accepts connections.
        let deadline = ContinuousClock.now + Self.limit
        while ContinuousClock.now < deadline, process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening at 127.0.0.1:") {
                let port = text[range.upperBound...].prefix { $0.isNumber }
                if let url = URL(string: "http://127.0.0.1:\(port)/"), !port.isEmpty {
                    return MitmdumpPeer(process: process, url: url)
                }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw StartFailure(description: "mitmdump did not start: \(text.suffix(500))")
    }

    /// Interrupts mitmdump, which writes the HAR as it exits, and waits (up to ``limit``) for it.
    func stop() throws {
        kill(process.processIdentifier, SIGINT)
        let deadline = ContinuousClock.now + Self.limit
        while process.isRunning, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StartFailure(description: "mitmdump did not exit within \(Self.limit) of an interrupt")
        }
    }
}

/// A JSON Schema (draft 7) of HAR 1.2, written from the specification
/// (http://www.softwareishard.com/blog/har-12-spec/): every required field, its type, and no
/// field outside the specification unless it starts with an underscore, as the specification
/// requires of custom fields.
enum HARSchema {
    static let text = #"""
        {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "definitions": {
            "object": {"type": "object"},
            "date": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:?\\d{2})$"},
            "creator": {
              "type": "object", "required": ["name", "version"],
              "properties": {"name": {"type": "string"}, "version": {"type": "string"}, "comment": {"type": "string"}},
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "nameValue": {
              "type": "object", "required": ["name", "value"],
              "properties": {"name": {"type": "string"}, "value": {"type": "string"}, "comment": {"type": "string"}},
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "cookie": {
              "type": "object", "required": ["name", "value"],
              "properties": {
                "name": {"type": "string"}, "value": {"type": "string"}, "path": {"type": "string"},
                "domain": {"type": "string"}, "expires": {"type": ["string", "null"]}, "httpOnly": {"type": "boolean"},
                "secure": {"type": "boolean"}, "comment": {"type": "string"}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "postData": {
              "type": "object", "required": ["mimeType"],
              "properties": {
                "mimeType": {"type": "string"}, "text": {"type": "string"}, "comment": {"type": "string"},
                "params": {"type": "array", "items": {
                  "type": "object", "required": ["name"],
                  "properties": {
                    "name": {"type": "string"}, "value": {"type": "string"}, "fileName": {"type": "string"},
                    "contentType": {"type": "string"}, "comment": {"type": "string"}
                  },
                  "patternProperties": {"^_": {}}, "additionalProperties": false
                }}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "content": {
              "type": "object", "required": ["size", "mimeType"],
              "properties": {
                "size": {"type": "integer"}, "compression": {"type": "integer"}, "mimeType": {"type": "string"},
                "text": {"type": "string"}, "encoding": {"type": "string"}, "comment": {"type": "string"}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "request": {
              "type": "object",
              "required": ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"],
              "properties": {
                "method": {"type": "string"}, "url": {"type": "string", "pattern": "^[a-zA-Z][a-zA-Z0-9+.-]*://"},
                "httpVersion": {"type": "string"},
                "cookies": {"type": "array", "items": {"$ref": "#/definitions/cookie"}},
                "headers": {"type": "array", "items": {"$ref": "#/definitions/nameValue"}},
                "queryString": {"type": "array", "items": {"$ref": "#/definitions/nameValue"}},
                "postData": {"$ref": "#/definitions/postData"},
                "headersSize": {"type": "integer"}, "bodySize": {"type": "integer"}, "comment": {"type": "string"}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "response": {
              "type": "object",
              "required": ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"],
              "properties": {
                "status": {"type": "integer"}, "statusText": {"type": "string"}, "httpVersion": {"type": "string"},
                "cookies": {"type": "array", "items": {"$ref": "#/definitions/cookie"}},
                "headers": {"type": "array", "items": {"$ref": "#/definitions/nameValue"}},
                "content": {"$ref": "#/definitions/content"}, "redirectURL": {"type": "string"},
                "headersSize": {"type": "integer"}, "bodySize": {"type": "integer"}, "comment": {"type": "string"}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "timings": {
              "type": "object", "required": ["send", "wait", "receive"],
              "properties": {
                "blocked": {"type": "number", "minimum": -1}, "dns": {"type": "number", "minimum": -1},
                "connect": {"type": "number", "minimum": -1}, "send": {"type": "number", "minimum": 0},
                "wait": {"type": "number", "minimum": 0}, "receive": {"type": "number", "minimum": 0},
                "ssl": {"type": "number", "minimum": -1}, "comment": {"type": "string"}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            },
            "entry": {
              "type": "object", "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
              "properties": {
                "pageref": {"type": "string"}, "startedDateTime": {"$ref": "#/definitions/date"},
                "time": {"type": "number", "minimum": 0},
                "request": {"$ref": "#/definitions/request"}, "response": {"$ref": "#/definitions/response"},
                "cache": {"$ref": "#/definitions/object"}, "timings": {"$ref": "#/definitions/timings"},
                "serverIPAddress": {"type": "string"}, "connection": {"type": "string"}, "comment": {"type": "string"}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            }
          },
          "type": "object", "required": ["log"],
          "properties": {
            "log": {
              "type": "object", "required": ["version", "creator", "entries"],
              "properties": {
                "version": {"type": "string", "enum": ["1.1", "1.2"]},
                "creator": {"$ref": "#/definitions/creator"}, "browser": {"$ref": "#/definitions/creator"},
                "pages": {"type": "array", "items": {"type": "object", "required": ["startedDateTime", "id", "title", "pageTimings"]}},
                "entries": {"type": "array", "items": {"$ref": "#/definitions/entry"}}, "comment": {"type": "string"}
              },
              "patternProperties": {"^_": {}}, "additionalProperties": false
            }
          },
          "additionalProperties": false
        }
        """#

    static let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        document = json.load(open(sys.argv[2]))
        jsonschema.Draft7Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
        for error in errors:
            print("/".join(map(str, error.absolute_path)) + ": " + error.message)
        sys.exit(1 if errors else 0)
        """

    /// Validates the HAR file `file` with Python's `jsonschema`; status 0 when valid, 1 with one
    /// line per violation otherwise.
    static func validate(_ file: URL, in directory: URL) throws -> (status: Int32, output: String) {
        let schema = directory.appendingPathComponent("har-1.2.schema.json")
        try Data(text.utf8).write(to: schema)
        return try PythonTool.run(["python3", "-c", script, schema.path, file.path])
    }
}
