import Foundation
import ResourceLoader
import Testing

/// What the parser refuses, and that it refuses it with a typed error instead of a crash, a hang
/// or a partial tree.
@Suite("XML parser hardening")
struct XMLParserHardeningTests {

    // MARK: DTDs and entities

    @Test func aDoctypeIsRefused() {
        #expect(treeParsingError("<!DOCTYPE r><r/>") == .doctypeNotAllowed)
        #expect(treeParsingError("<?xml version=\"1.0\"?>\n<!-- hi -->\n<!DOCTYPE r [<!ELEMENT r ANY>]>\n<r/>") == .doctypeNotAllowed)
    }

    @Test func anExternalEntityIsNeverRead() throws {
        // GIVEN a local file holding a secret, and a document whose entity names it
        let secret = "secret-\(UUID().uuidString)"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("xxe-\(UUID().uuidString).txt")
        try Data(secret.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY xxe SYSTEM "\(file.absoluteString)">]>
            <r>&xxe;</r>
            """
        // WHEN it is parsed, as a tree and through a resource
        let error = treeParsingError(document)
        let resourceError = try #require(TreeResource().result(from: Data(document.utf8)).failure)
        // THEN it is refused for its DTD and the secret appears nowhere
        #expect(error == .doctypeNotAllowed)
        #expect(!String(describing: error).contains(secret))
        #expect(!resourceError.description.contains(secret))
        // AND without the DTD the reference is an undeclared entity, not the file's content
        #expect(treeParsingError("<r>&xxe;</r>") == .undeclaredEntity(name: "xxe", line: 1, column: 4))
    }

    @Test func billionLaughsFailsFast() {
        var document = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            document += #"<!ENTITY lol\#(level) "\#(String(repeating: "&\(previous);", count: 10))">"#
        }
        document += "]><lolz>&lol9;</lolz>"
        #expect(treeParsingError(document) == .doctypeNotAllowed)
    }

    @Test func anUndeclaredEntityIsAnErrorNotDroppedText() {
        #expect(treeParsingError("<a>A &xxe; B</a>") == .undeclaredEntity(name: "xxe", line: 1, column: 6))
        #expect(treeParsingError("<a\n  b='&nbsp;'/>") == .undeclaredEntity(name: "nbsp", line: 2, column: 6))
    }

    @Test func aBareAmpersandIsMalformed() {
        #expect(treeParsingError("<a>fish & chips</a>") == .malformed(line: 1, column: 9))
        #expect(treeParsingError("<a>&#;</a>") == .malformed(line: 1, column: 4))
    }

    @Test func aReferenceToACharacterXMLForbidsIsRefused() {
        #expect(treeParsingError("<a>&#0;</a>") == .invalidCharacter(line: 1, column: 4))
        #expect(treeParsingError("<a>&#x1;</a>") == .invalidCharacter(line: 1, column: 4))
        #expect(treeParsingError("<a>&#x110000;</a>") == .invalidCharacter(line: 1, column: 4))
        #expect(treeParsingError("<a>&#99999999999999999999;</a>") == .invalidCharacter(line: 1, column: 4))
    }

    // MARK: Malformed documents

    @Test(arguments: [
        ("<a><b>x</b>", XMLParsingError.truncated),
        ("<a>", .truncated),
        ("<a><b></a>", .malformed(line: 1, column: 7)),
        ("<a/><b/>", .contentAfterRoot(line: 1, column: 5)),
        ("<a/>junk", .contentAfterRoot(line: 1, column: 5)),
        ("<p:a/>", .malformed(line: 1, column: 2)),
        ("<a p:x='1'/>", .malformed(line: 1, column: 2)),
        ("", .empty),
        (" \n\t\r ", .empty),
        ("<!-- only a comment -->", .noRoot),
        ("<?xml version=\"1.0\"?>", .noRoot),
        ("<a", .truncated),
    ])
    func brokenDocumentsAreTypedErrors(document: String, expected: XMLParsingError) {
        #expect(treeParsingError(document) == expected)
    }

    @Test func textOutsideAnyElementIsRefused() {
        #expect(treeParsingError("hello") != nil)
    }

    // MARK: Encodings and characters

    @Test func invalidUTF8InAnAttributeNameIsATypedErrorNotACrash() {
        // `<a x\xe8="d"/>`: these 11 bytes crash FoundationXML (SIGILL) when they reach XMLParser.
        let data = Data([0x3C, 0x61, 0x20, 0x78, 0xE8, 0x3D, 0x22, 0x64, 0x22, 0x2F, 0x3E])
        #expect(data.count == 11)
        #expect(treeParsingError(data) == .invalidUTF8(line: 1, column: 5))
    }

    @Test(arguments: [
        [UInt8]("<a>".utf8) + [0xFF] + Array("</a>".utf8),  // never valid
        [UInt8]("<a>".utf8) + [0xC0, 0xAF] + Array("</a>".utf8),  // overlong "/"
        [UInt8]("<a>".utf8) + [0xED, 0xA0, 0x80] + Array("</a>".utf8),  // a surrogate
        [UInt8]("<a>".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("</a>".utf8),  // above U+10FFFF
        [UInt8]("<a>".utf8) + [0xE2, 0x82] + Array("</a>".utf8),  // truncated sequence
        [UInt8]("<a>".utf8) + [0xE2, 0x82],  // truncated at the end
    ])
    func invalidUTF8IsRefused(bytes: [UInt8]) {
        #expect(treeParsingError(Data(bytes)) == .invalidUTF8(line: 1, column: 4))
    }

    @Test func charactersXMLForbidsAreRefused() {
        #expect(treeParsingError("<a>\u{1}</a>") == .invalidCharacter(line: 1, column: 4))
        #expect(treeParsingError("<a>\n\u{0}</a>") == .invalidCharacter(line: 2, column: 1))
        #expect(treeParsingError("<a>\u{FFFE}</a>") == .invalidCharacter(line: 1, column: 4))
        #expect(treeParsingError("<a>\u{85}\u{10FFFF}</a>") == nil)
    }

    @Test func otherEncodingsAreRefused() throws {
        let utf16 = try #require("<a>x</a>".data(using: .utf16LittleEndian))
        #expect(treeParsingError(utf16) == .unsupportedEncoding("UTF-16"))
        #expect(treeParsingError(Data([0xFF, 0xFE]) + utf16) == nil)  // with a byte order mark: transcoded
        #expect(treeParsingError(#"<?xml version="1.0" encoding="windows-1252"?><a/>"#) == .unsupportedEncoding("windows-1252"))
        #expect(treeParsingError(#"<?xml version='1.0' encoding = 'utf-8' ?><a/>"#) == nil)
    }

    // MARK: Limits

    @Test func documentsOverTheSizeLimitAreRefused() {
        let options = XMLParsingOptions(maximumDocumentSize: 100)
        #expect(treeParsingError("<a>" + String(repeating: "x", count: 93) + "</a>", options: options) == nil)
        #expect(treeParsingError("<a>" + String(repeating: "x", count: 94) + "</a>", options: options) == .tooLarge(limit: 100))
    }

    @Test func documentsOverTheDepthLimitAreRefused() {
        let options = XMLParsingOptions(maximumDepth: 3)
        #expect(treeParsingError("<a><b><c/></b></a>", options: options) == nil)
        #expect(treeParsingError("<a><b><c><d/></c></b></a>", options: options) == .tooDeep(limit: 3))
    }

    @Test func theDefaultLimits() {
        let options = XMLParsingOptions()
        #expect(options.maximumDepth == 512)
        #expect(options.maximumDocumentSize == 64 * 1024 * 1024)
    }

    @Test func veryDeepDocumentsAreRefusedByDefaultWithoutOverflowingTheStack() async {
        let depth = 100_000
        let document = Data((String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)).utf8)
        let error = await Task { treeParsingError(document) }.value
        #expect(error == .tooDeep(limit: XMLParsingOptions.defaultMaximumDepth))
    }

    @Test func veryDeepDocumentsWorkWithoutRecursionWhenAllowed() async throws {
        // GIVEN a document 100,001 elements deep, and a limit that allows it
        struct Top: Decodable { let name: String; let a: XMLTree.Element }
        struct Leaf: Decodable { let value: Int; let unit: String }
        let depth = 100_000
        let document = Data((
            "<r><name>deep</name>" + String(repeating: "<a>", count: depth)
                + #"<leaf unit="m"><value>42</value></leaf>"# + String(repeating: "</a>", count: depth) + "</r>"
        ).utf8)
        let options = XMLParsingOptions(maximumDepth: 200_000)
        // WHEN it is parsed, walked, compared, decoded and released inside a task (a small stack)
        let outcome = try await Task {
            let tree = try XMLTree(data: document, options: options)
            let other = try XMLTree(data: document, options: options)
            let path = Array(repeating: "a", count: depth) + ["leaf"]
            let leaf = try #require(tree.root.element(atPath: path))
            let top = try XMLTreeDecoder().decode(Top.self, from: tree.root)
            let decodedLeaf = try XMLTreeDecoder().decode(Leaf.self, from: document, atPath: path, options: options)
            return (
                leafText: tree.root.leafTexts(below: "leaf")?["value"],
                found: tree.root.firstDescendant(named: "value")?.text,
                depthOfLeaf: sequence(first: leaf) { $0.parent }.reduce(0) { count, _ in count + 1 },
                equal: tree.root == other.root,
                name: top.name, firstA: top.a.name,
                value: decodedLeaf.value, unit: decodedLeaf.unit
            )
        }.value
        // THEN everything works
        #expect(outcome.leafText == "42")
        #expect(outcome.found == "42")
        #expect(outcome.depthOfLeaf == depth + 2)
        #expect(outcome.equal)
        #expect(outcome.name == "deep")
        #expect(outcome.firstA == "a")
        #expect(outcome.value == 42)
        #expect(outcome.unit == "m")
    }

    @Test func documentsOverTenMegabytesParseCompletely() async throws {
        // GIVEN an 11 MB document (XMLParser(data:) stops at 10,000,000 bytes)
        var document = "<items>"
        var count = 0
        while document.utf8.count < 11_000_000 {
            document += #"<item id="\#(count)"><name>Item &amp; \#(count)</name><note><![CDATA[<raw>]]></note></item>"#
            count += 1
        }
        document += "<last>end</last></items>"
        let data = Data(document.utf8)
        #expect(data.count > 11_000_000)
        // WHEN it is parsed
        let root = try await offTheCooperativePool { try XMLTree(data: data).root }
        // THEN every element is there, up to the last one
        let items = root.children(named: "item")
        #expect(items.count == count)
        #expect(items.last?.attribute(named: "id") == "\(count - 1)")
        #expect(items.last?.child(named: "name")?.text == "Item & \(count - 1)")
        #expect(items.last?.child(named: "note")?.text == "<raw>")
        #expect(root.child(named: "last")?.text == "end")
    }

    @Test func parsingIsSafeFromManyTasksAtOnce() async throws {
        let data = try Fixtures.data("getUserDetails-response")
        let cities = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<16 {
                group.addTask { try XMLTree(data: data).root.leafTexts(below: "userModel")?["city"] }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(cities == Array(repeating: "London", count: 16))
    }
}
