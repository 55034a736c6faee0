import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Multipart bodies parsed back by an independent parser: `Fixtures/multipart-peer.py`, a Python
/// server on 127.0.0.1 over the `multipart` package from PyPI, which answers with JSON of what it
/// parsed. Skipped where `multipart` is missing; fails under `CI=true`.
@Suite("Multipart uploads against an independent parser", .enabled(if: MultipartPeer.shouldRun))
struct MultipartPeerTests {
    struct Parsed: Decodable {
        struct Part: Decodable {
            let name: String
            let filename: String?
            let content_type: String?
            let size: Int
            let sha256: String
            let value: String?
        }
        let parts: [Part]
        let content_length: String?
        let transfer_encoding: String?
    }

    private static func send(_ form: MultipartFormData, to url: URL, transport: UploadTransport) async throws -> Parsed {
        let body = try RequestBody.multipart(form)
        let data = try #require(await upload(Upload(url: url, upload: body), through: transport.transport, limit: .seconds(120))).get()
        return try JSONDecoder().decode(Parsed.self, from: data)
    }

    @Test(arguments: UploadTransport.allCases)
    func hostileNamesArriveAsOneFieldEachWithTheLiteralName(transport: UploadTransport) async throws {
        let peer = try await MultipartPeer.start()
        defer { peer.stop() }
        // GIVEN names that would rewrite the part's headers if quoted as they are
        let names = ["a\"; filename=\"x.exe", "b\r\nContent-Type: text/html", "c\nX-Injected: 1", "d\r", "emoji 📷 ñ", "plain"]
        var form = MultipartFormData()
        for (index, name) in names.enumerated() {
            form.append("value \(index)", named: name)
        }
        form.append(Data("file".utf8), named: "upload", fileName: "evil\"; name=\"other\r\n.txt", contentType: "text/plain")

        // WHEN the form is parsed by the peer
        let parsed = try await Self.send(form, to: peer.url("form"), transport: transport)

        // THEN each field arrives once, with the literal name (the peer undoes the WHATWG
        // escaping, as browsers' servers do) and its value, and no file appears from a name
        #expect(parsed.parts.count == names.count + 1)
        for (index, name) in names.enumerated() {
            let part = parsed.parts[index]
            #expect(part.name == name)
            #expect(part.value == "value \(index)")
            #expect(part.filename == nil)
        }
        #expect(parsed.parts.filter { $0.filename != nil }.count == 1)
        #expect(parsed.parts.last?.filename == "evil\"; name=\"other\r\n.txt")
        #expect(parsed.parts.last?.name == "upload")
        #expect(parsed.parts.last?.content_type == "text/plain")
        #expect(parsed.parts[4].name == "emoji 📷 ñ")
    }

    @Test(arguments: UploadTransport.allCases)
    func aNameEndingInABackslashCannotTakeTheFileNameAsParameters(transport: UploadTransport) async throws {
        let peer = try await MultipartPeer.start()
        defer { peer.stop() }
        // GIVEN a name whose last backslash, sent as it is, pairs with its closing quote for a
        // parser of RFC 9110 quoted strings, and a file name that then reads as parameters
        var form = MultipartFormData()
        form.append(Data("file".utf8), named: "a\\", fileName: "; name=admin; x=", contentType: "text/plain")
        form.append("v", named: "b\\\\")

        let parsed = try await Self.send(form, to: peer.url("form"), transport: transport)

        // THEN each part keeps its name and file name: the trailing backslashes went as %5C
        #expect(parsed.parts.map(\.name) == ["a%5C", "b%5C%5C"])
        #expect(parsed.parts.first?.filename == "; name=admin; x=")
    }

    @Test(arguments: UploadTransport.allCases)
    func aFileOfSomeMebibytesArrivesWithItsSHA256Intact(transport: UploadTransport) async throws {
        let peer = try await MultipartPeer.start()
        defer { peer.stop() }
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 5 << 20) }
        defer { file.remove() }
        let digest = try #require(try await sha256Hex(of: file.url), "sha256sum is missing")
        var form = MultipartFormData()
        form.append("Holiday", named: "album")
        try form.appendFile(at: file.url, named: "photo", fileName: "photo.jpg", contentType: "image/jpeg")
        form.append(Data([0, 1, 2, 255]), named: "thumb", fileName: "t.bin")

        let parsed = try await Self.send(form, to: peer.url("form"), transport: transport)

        #expect(parsed.parts.map(\.name) == ["album", "photo", "thumb"])
        #expect(parsed.parts[0].value == "Holiday")
        #expect(parsed.parts[1].filename == "photo.jpg")
        #expect(parsed.parts[1].content_type == "image/jpeg")
        #expect(parsed.parts[1].size == 5 << 20)
        #expect(parsed.parts[1].sha256 == digest)
        #expect(parsed.parts[2].size == 4)
        let length = try #require(try RequestBody.multipart(form).length)
        if transport.declaresStreamedLength {
            #expect(parsed.content_length == String(length))
        } else {
            #expect(parsed.transfer_encoding?.lowercased() == "chunked")
        }
    }

    @Test(arguments: UploadTransport.allCases, [307, 308])
    func aRedirectResendsAFormWithAFilePart(transport: UploadTransport, status: Int) async throws {
        let peer = try await MultipartPeer.start()
        defer { peer.stop() }
        let file = try await offTheCooperativePool { try TemporaryFile(pseudoRandomCount: 700_000) }
        defer { file.remove() }
        let digest = try #require(try await sha256Hex(of: file.url), "sha256sum is missing")
        var form = MultipartFormData()
        try form.appendFile(at: file.url, named: "file")

        let parsed = try await Self.send(form, to: peer.url("redirect/\(status)"), transport: transport)

        #expect(parsed.parts.count == 1)
        #expect(parsed.parts.first?.sha256 == digest)
    }
}

/// A running `Fixtures/multipart-peer.py`.
struct MultipartPeer: Sendable {
    let server: PythonFixtureServer
    var port: Int { server.port }

    /// Whether the tests run: python3 with `multipart` is there, or this is CI, where it must be.
    static let shouldRun: Bool = ProcessInfo.processInfo.environment["CI"] == "true" || PythonFixtureServer.pythonRuns("import multipart")

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Starts the peer and waits, off the cooperative pool, for the port it prints.
    static func start() async throws -> MultipartPeer {
        let server = try await PythonFixtureServer.start(script: "multipart-peer", lifetime: 300, hint: "pip install multipart==2.0.1")
        return MultipartPeer(server: server)
    }

    /// Stops the peer without waiting for it.
    func stop() { server.stop() }
}
