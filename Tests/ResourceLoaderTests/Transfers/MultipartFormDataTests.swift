import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The multipart encoder: exact bytes, the escaping of names, the boundary rules, and a declared
/// length that always equals the bytes produced.
@Suite("Multipart form data")
struct MultipartFormDataTests {
    /// Reads a body's bytes as a transport would, off the cooperative pool.
    static func bytes(of body: RequestBody) async throws -> Data {
        try await offTheCooperativePool {
            let reader = body.makeReader()
            defer { reader.close() }
            var data = Data()
            while let chunk = try reader.read(upTo: 7) { data.append(chunk) }
            return data
        }
    }

    @Test func encodesTextFieldsAndDataPartsExactly() async throws {
        // GIVEN a form with a fixed boundary, a text field and a data part with a file name
        var form = try MultipartFormData(boundary: "XyZ")
        form.append("Lisbon", named: "city")
        form.append(Data([0x00, 0xFF, 0x0D, 0x0A]), named: "blob", fileName: "b.bin", contentType: "application/octet-stream")

        // WHEN it is made a body and read
        let body = try RequestBody.multipart(form)
        let bytes = try await Self.bytes(of: body)

        // THEN the bytes are exactly RFC 7578's, and the content type names the boundary
        var expected = Data("--XyZ\r\nContent-Disposition: form-data; name=\"city\"\r\n\r\nLisbon\r\n".utf8)
        expected.append(Data("--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n".utf8))
        expected.append(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
        expected.append(Data([0x00, 0xFF, 0x0D, 0x0A]))
        expected.append(Data("\r\n--XyZ--\r\n".utf8))
        #expect(bytes == expected)
        #expect(form.encodedData == expected)
        #expect(body.contentType == "multipart/form-data; boundary=XyZ")
        #expect(body.length == Int64(expected.count))
        #expect(body.isRepeatable)
    }

    @Test func encodesAnEmptyFormAsItsClosingDelimiter() async throws {
        let form = try MultipartFormData(boundary: "b")
        #expect(try await Self.bytes(of: try .multipart(form)) == Data("--b--\r\n".utf8))
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("a\"b", "a%22b"),
        ("a\rb", "a%0Db"),
        ("a\nb", "a%0Ab"),
        ("a\r\nContent-Type: text/html", "a%0D%0AContent-Type: text/html"),
        ("a\"; filename=\"x.exe", "a%22; filename=%22x.exe"),
        ("100%", "100%"),
        ("Olá 📷", "Olá 📷"),
        // A backslash inside stays; trailing ones would pair with the closing quote for a
        // parser that reads RFC 9110 quoted pairs.
        ("C:\\dir\\f", "C:\\dir\\f"),
        ("a\\", "a%5C"),
        ("a\\\\", "a%5C%5C"),
        ("\\", "%5C"),
    ])
    func escapesNamesByTheWHATWGRule(name: String, escaped: String) async throws {
        #expect(MultipartFormData.escaped(name) == escaped)
        var form = try MultipartFormData(boundary: "B")
        form.append(Data("v".utf8), named: name, fileName: name)
        let text = String(decoding: try await Self.bytes(of: try .multipart(form)), as: UTF8.self)
        #expect(text.contains("name=\"\(escaped)\"; filename=\"\(escaped)\"\r\n"))
        // Exactly the two quoted parameters: no quote or line break of the name survives.
        let disposition = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("Content-Disposition") })
        #expect(disposition.filter { $0 == "\"" }.count == 4)
        // Read by RFC 9110's quoted pairs too, it has the two parameters, each ending where
        // its quotes do.
        #expect(Self.quotedPairParameters(of: String(disposition)).map(\.name) == ["name", "filename"])
    }

    /// The parameters of a header field value read by RFC 9110's rules: a quoted string ends at
    /// the first `"` that no backslash escapes.
    static func quotedPairParameters(of value: String) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        var rest = Substring(value)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            var text = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.popFirst(), character != "\"" {
                    text.append(character == "\\" ? rest.popFirst() ?? character : character)
                }
            } else {
                text = String(rest.prefix { $0 != ";" })
                rest = rest.drop { $0 != ";" }
            }
            parameters.append((name, text))
        }
        return parameters
    }

    @Test func sendsNonASCIINamesAsUTF8InsideTheQuotes() async throws {
        var form = try MultipartFormData(boundary: "B")
        form.append("x", named: "ñame 📷")
        let bytes = try await Self.bytes(of: try .multipart(form))
        #expect(bytes.range(of: Data("name=\"ñame 📷\"".utf8)) != nil)
    }

    @Test func drawsARandomBoundaryOfBcharsWithinSeventyCharacters() {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        let boundaries = (0..<50).map { _ in MultipartFormData().boundary }
        for boundary in boundaries {
            #expect((1...70).contains(boundary.count))
            #expect(boundary.allSatisfy { allowed.contains($0) })
            #expect(boundary.last != " ")
        }
        #expect(Set(boundaries).count == boundaries.count)
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "ends with space ", "semi;colon", "quote\"", "tab\t", "é", "abc\u{212A}"])
    func refusesAnInvalidGivenBoundary(boundary: String) {
        #expect(throws: ResourceError.self) { try MultipartFormData(boundary: boundary) }
    }

    @Test func acceptsEveryBcharInAGivenBoundary() throws {
        let form = try MultipartFormData(boundary: "09azAZ'()+_,-./:=? x")
        #expect(form.contentType == "multipart/form-data; boundary=\"09azAZ'()+_,-./:=? x\"")
        #expect(try MultipartFormData(boundary: String(repeating: "b", count: 70)).boundary.count == 70)
    }

    @Test func drawsANewBoundaryWhenTheRandomOneOccursInAPart() throws {
        // GIVEN a form whose data part contains its own random boundary
        var form = MultipartFormData()
        let first = form.boundary
        form.append(Data("before --\(first) after".utf8), named: "trap")

        // WHEN it is made a body
        let body = try RequestBody.multipart(form)

        // THEN the body's form has another boundary, which occurs in no part
        guard case .multipart(let sent) = body.content else {
            Issue.record("not a multipart body")
            return
        }
        #expect(sent.boundary != first)
        let encoded = try #require(sent.encodedData)
        #expect(body.contentType == sent.contentType)
        // The boundary occurs only in the delimiters: once per part, and the closing one.
        #expect(encoded.ranges(of: Data(sent.boundary.utf8)).count == 2)
    }

    @Test func refusesAGivenBoundaryThatOccursInAPart() throws {
        var form = try MultipartFormData(boundary: "fixed")
        form.append("a fixed value", named: "field")
        #expect(throws: ResourceError.self) { try RequestBody.multipart(form) }
    }

    /// A given boundary is refused wherever it occurs in the header lines the form writes, as
    /// text: in a field's name, in `form-data`, in `filename`, in a content type.
    static let boundariesInHeaderText: [(boundary: String, field: String, fileName: String?, contentType: String?)] = [
        ("fixed", "fixed", nil, nil),
        ("data", "field", nil, nil),
        ("name", "field", nil, nil),
        ("filename", "field", "f.txt", nil),
        ("plain", "field", "f.txt", "text/plain"),
    ]

    @Test(arguments: 0..<boundariesInHeaderText.count)
    func refusesAGivenBoundaryThatOccursInAPartsHeaderText(_ index: Int) throws {
        let (boundary, field, fileName, contentType) = Self.boundariesInHeaderText[index]
        var form = try MultipartFormData(boundary: boundary)
        form.append(Data("x".utf8), named: field, fileName: fileName, contentType: contentType)
        #expect(throws: ResourceError.self) { try RequestBody.multipart(form) }
    }

    @Test func refusesAContentTypeWithALineBreak() throws {
        var form = MultipartFormData()
        form.append(Data(), named: "f", fileName: "f", contentType: "text/plain\r\nX-Injected: 1")
        #expect(throws: ResourceError.self) { try RequestBody.multipart(form) }
    }

    @Test func declaresTheLengthOfFileAndStreamPartsAndProducesExactlyIt() async throws {
        // GIVEN a form with a field, a file and a stream of known length
        let file = try TemporaryFile(bytes: Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        defer { file.remove() }
        var form = MultipartFormData()
        form.append("v", named: "field")
        try form.appendFile(at: file.url, named: "file", contentType: "image/png")
        form.append(RequestBodyStream(Self.chunks([Data("ab".utf8), Data("cde".utf8)]), length: 5), named: "s", fileName: "s.txt")

        // WHEN it is read
        let body = try RequestBody.multipart(form)
        let bytes = try await Self.bytes(of: body)

        // THEN the declared length is the bytes produced, and the file part is its file's bytes
        #expect(body.length == Int64(bytes.count))
        #expect(!body.isRepeatable)
        #expect(bytes.range(of: try Data(contentsOf: file.url)) != nil)
        #expect(bytes.range(of: Data("filename=\"\(file.url.lastPathComponent)\"\r\nContent-Type: image/png\r\n\r\n".utf8)) != nil)
        #expect(bytes.range(of: Data("\r\n\r\nabcde\r\n".utf8)) != nil)
    }

    @Test func hasNoLengthWithAStreamPartOfUnknownLength() throws {
        var form = MultipartFormData()
        form.append(RequestBodyStream(Self.chunks([Data("x".utf8)])), named: "s")
        #expect(try RequestBody.multipart(form).length == nil)
    }

    @Test func aFormWhoseLengthDoesNotFitInSixtyFourBitsIsRefusedNotTrapped() async throws {
        // GIVEN a form whose stream part declares the largest length there is, after a header
        var form = MultipartFormData()
        form.append(RequestBodyStream(Self.chunks([Data("x".utf8)]), length: .max), named: "x")

        // WHEN its length is asked for, it is made a body, and a body of it is set and read
        let body = RequestBody(content: .multipart(form), contentType: form.contentType)
        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        request.setBody(body)

        // THEN no length is declared and the body is refused, never a trap
        #expect(form.length == nil)
        #expect(body.length == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(throws: ResourceError.self) { try RequestBody.multipart(form) }
        await Self.expectRefused(body)
    }

    @Test func aNegativePartLengthIsRefused() async throws {
        let file = try TemporaryFile(bytes: Data("file".utf8))
        defer { file.remove() }
        var streamed = MultipartFormData()
        streamed.append(RequestBodyStream(Self.chunks([]), length: -1), named: "s")
        var filed = MultipartFormData()
        filed.append(MultipartFormData.Part(name: "f", content: .file(file.url, length: -4)))
        for form in [streamed, filed] {
            let body = RequestBody(content: .multipart(form), contentType: form.contentType)
            #expect(form.length == nil)
            #expect(body.length == nil)
            #expect(throws: ResourceError.self) { try RequestBody.multipart(form) }
            await Self.expectRefused(body)
        }
        let fileBody = RequestBody(content: .file(file.url, length: -4), contentType: nil)
        #expect(fileBody.length == nil)
        await Self.expectRefused(fileBody)
    }

    /// Forms that ``RequestBody/multipart(_:)`` refuses: a given boundary that occurs in a part
    /// held in memory, and a part content type that would add a header line.
    static func formsThatMustBeRefused() throws -> [MultipartFormData] {
        var boundaryInPart = try MultipartFormData(boundary: "fixed")
        boundaryInPart.append("a fixed value", named: "field")
        var injectedHeader = MultipartFormData()
        injectedHeader.append(Data("x".utf8), named: "f", fileName: "f.txt", contentType: "text/plain\r\nX-Injected: 1")
        return [boundaryInPart, injectedHeader]
    }

    @Test(arguments: 0..<2)
    func theFormIsCheckedWhenItIsSentThroughThePublicInitialiser(_ index: Int) async throws {
        // GIVEN a form the factory refuses, made a body by the public initialiser and by
        // assigning the content
        let form = try Self.formsThatMustBeRefused()[index]
        #expect(throws: ResourceError.self) { try RequestBody.multipart(form) }
        let made = RequestBody(content: .multipart(form), contentType: form.contentType)
        var assigned = RequestBody.data(Data(), contentType: form.contentType)
        assigned.content = .multipart(form)

        for body in [made, assigned] {
            // WHEN it is sent by a resource
            let session = FakeURLSession()
            session.stub(.any, with: .status(201))
            let outcome = await upload(Upload(url: URL(string: "https://api.example.com/upload")!, upload: body), through: session)

            // THEN it is refused with a typed error and nothing is sent; a reader of it fails too
            guard case .failure(.invalidRequest)? = outcome else {
                Issue.record("expected invalidRequest, got \(String(describing: outcome))")
                continue
            }
            #expect(session.receivedRequests.isEmpty)
            await Self.expectRefused(body)
        }
    }

    @Test func aFormSetOnARequestDirectlyIsCheckedWhenATransportReadsIt() async throws {
        // GIVEN a request given a form with an injected header line by `setBody`, not by a resource
        let form = try Self.formsThatMustBeRefused()[1]
        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        request.httpMethod = "POST"
        request.setBody(RequestBody(content: .multipart(form), contentType: form.contentType))

        // WHEN a transport sends it
        let session = FakeURLSession()
        session.stub(.any, with: .status(201))
        let recorder = ProgressRecorder()
        _ = session.startTransfer(request, options: TransferOptions(), receiver: recorder)

        // THEN the transfer fails with a typed error, and nothing is sent
        let result = await recorder.result
        guard case .failure(let error) = result, case .invalidRequest? = error as? ResourceError else {
            Issue.record("expected invalidRequest, got \(result)")
            return
        }
        #expect(session.receivedRequests.isEmpty)
    }

    /// Checks that `body` can be neither turned into a request by a resource nor read.
    static func expectRefused(_ body: RequestBody, sourceLocation: SourceLocation = #_sourceLocation) async {
        let resource = Upload(url: URL(string: "https://api.example.com/upload")!, upload: body)
        #expect(throws: ResourceError.self, sourceLocation: sourceLocation) { try resource.urlRequest() }
        do {
            let bytes = try await Self.bytes(of: body)
            Issue.record("the body was read: \(bytes.count) bytes", sourceLocation: sourceLocation)
        } catch {
            #expect(error is ResourceError, sourceLocation: sourceLocation)
        }
    }

    /// An `AsyncStream` of `chunks`.
    static func chunks(_ chunks: [Data]) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
    }
}

/// A file in the temporary directory, removed by the test.
struct TemporaryFile: Sendable {
    let url: URL

    init(bytes: Data, name: String = "upload-\(UUID().uuidString).bin") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try bytes.write(to: url)
    }

    /// A file of `count` pseudo-random bytes, written a piece at a time.
    init(pseudoRandomCount count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).bin")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed
        var remaining = count
        while remaining > 0 {
            let size = min(remaining, 1 << 20)
            var bytes = [UInt8](repeating: 0, count: size)
            for index in 0..<size {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
            }
            let piece = Data(bytes)
            try handle.write(contentsOf: piece)
            remaining -= size
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
