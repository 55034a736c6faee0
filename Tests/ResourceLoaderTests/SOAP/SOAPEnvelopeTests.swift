import Foundation
import ResourceLoader
import Testing

@Suite("SOAPEnvelope")
struct SOAPEnvelopeTests {
    /// Every element as `depth name namespace text`, whitespace-only text dropped: the structure
    /// of a document without its formatting or prefixes.
    private func outline(_ root: XMLTree.Element) -> [String] {
        var lines: [String] = []
        var stack: [(XMLTree.Element, Int)] = [(root, 0)]
        while let (element, depth) = stack.popLast() {
            let text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
            lines.append("\(depth) \(element.name) \(element.namespaceURI ?? "-") \(text)")
            stack += element.children.reversed().map { ($0, depth + 1) }
        }
        return lines
    }

    private func parse(_ envelope: SOAPEnvelope) throws -> XMLTree.Element {
        try XMLTree(data: try envelope.data()).root
    }

    @Test func writesTheSeedRequest() throws {
        // GIVEN the seeds' getUserDetails call
        let envelope = SOAPEnvelope(operation: "getUserDetails", parameters: ["userID": "12345"])
        // THEN it has the structure of the seeds' request document
        let expected = try XMLTree(data: try Fixtures.data("getUserDetails-request")).root
        #expect(outline(try parse(envelope)) == outline(expected))
        #expect(String(decoding: try envelope.data(), as: UTF8.self) == #"""
            <?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getUserDetails><userID>12345</userID></getUserDetails></soap:Body></soap:Envelope>
            """#)
    }

    @Test(arguments: [
        "</userID><admin>1</admin><userID>",
        "]]>",
        "&",
        "&amp; &lt; &#0;",
        #"<"quoted" & 'apostrophes'>"#,
        "line 1\r\nline 2\ttab\n",
        "  spaced  ",
        "emoji 😀 and é",
        "",
    ])
    func valuesAreEscapedAndRoundTrip(value: String) throws {
        // GIVEN a hostile or awkward value
        let envelope = SOAPEnvelope(operation: "getUserDetails", parameters: ["userID": .text(value)])
        // WHEN the envelope is re-parsed
        let root = try parse(envelope)
        // THEN the structure is intact and the value comes back exactly
        let operation = try #require(root.element(atPath: ["Body", "getUserDetails"]))
        #expect(operation.children.map(\.name) == ["userID"])
        #expect(operation.child(named: "userID")?.text == value)
        #expect(root.firstDescendant(named: "admin") == nil)
    }

    @Test(arguments: ["\u{0}", "a\u{1}b", "\u{FFFE}", "\u{1B}[31m"])
    func charactersXMLCannotCarryAreInvalidRequests(value: String) {
        let envelope = SOAPEnvelope(operation: "op", parameters: ["p": .text(value)])
        #expect(throws: ResourceError.self) { try envelope.data() }
        do {
            _ = try envelope.data()
        } catch {
            #expect(error.caseName == "invalidRequest")
        }
    }

    @Test(arguments: ["", "user id", "1abc", "a:b", "<x>", "a>b", "-x", "x\u{0}"])
    func invalidNamesAreInvalidRequests(name: String) {
        let asOperation = SOAPEnvelope(operation: name)
        let asParameter = SOAPEnvelope(operation: "op", parameters: [name: "v"])
        let asNested = SOAPEnvelope(operation: "op", parameters: ["p": [name: "v"]])
        for envelope in [asOperation, asParameter, asNested] {
            do {
                _ = try envelope.data()
                Issue.record("\(name.debugDescription) was accepted")
            } catch {
                #expect(error.caseName == "invalidRequest")
            }
        }
    }

    @Test func unusualValidNamesAreAccepted() throws {
        let envelope = SOAPEnvelope(operation: "_op-1.x", parameters: ["élément": "1", "x·y": "2"])
        let operation = try #require(try parse(envelope).element(atPath: ["Body", "_op-1.x"]))
        #expect(operation.children.map(\.name) == ["élément", "x·y"])
    }

    @Test func nestedParametersKeepTheirOrder() throws {
        var parameters: SOAPParameters = [
            "user": ["name": "Fred", "address": ["street": "1 High St", "city": "London"], "id": "7"],
            "flag": "true",
        ]
        parameters.append("tag", "a")
        parameters.append("tag", "b")
        let operation = try #require(try parse(SOAPEnvelope(operation: "save", parameters: parameters)).element(atPath: ["Body", "save"]))
        #expect(operation.children.map(\.name) == ["user", "flag", "tag", "tag"])
        #expect(operation.children(named: "tag").map(\.text) == ["a", "b"])
        #expect(operation.child(named: "user")?.children.map(\.name) == ["name", "address", "id"])
        #expect(operation.element(atPath: ["user", "address", "city"])?.text == "London")
    }

    @Test func theOperationNamespaceIsTheDefaultNamespace() throws {
        let envelope = SOAPEnvelope(operation: "getUserDetails", operationNamespace: "http://example.com/users?a=1&b=2", parameters: ["userID": "1"])
        let operation = try #require(try parse(envelope).element(atPath: ["Body", "getUserDetails"]))
        #expect(operation.namespaceURI == "http://example.com/users?a=1&b=2")
        #expect(operation.child(named: "userID")?.namespaceURI == "http://example.com/users?a=1&b=2")
    }

    @Test(arguments: ["http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/"], [SOAPBinding.documentLiteralWrapped, .documentLiteralBare, .rpcLiteral])
    func anOperationNamespaceNamespacesInXMLReservesIsAnInvalidRequest(namespace: String, binding: SOAPBinding) {
        // No element can be in either namespace, and neither can be bound to another prefix: the
        // envelope would be one no parser reads, ResourceLoader's own included.
        struct Body: Encodable { let p: String }
        let withParameters = SOAPEnvelope(operation: "op", operationNamespace: namespace, parameters: ["p": "v"], binding: binding)
        do {
            let data = try withParameters.data()
            Issue.record("an envelope was written: \(String(decoding: data, as: UTF8.self))")
        } catch {
            #expect(error.caseName == "invalidRequest")
        }
        do {
            _ = try SOAPEnvelope(operation: "op", operationNamespace: namespace, body: Body(p: "v"), binding: binding).data()
            Issue.record("a typed envelope was written")
        } catch {
            #expect(error.caseName == "invalidRequest")
        }
    }

    @Test(arguments: SOAPVersion.allCases)
    func theEnvelopeIsInTheVersionsNamespace(version: SOAPVersion) throws {
        let root = try parse(SOAPEnvelope(version: version, operation: "op"))
        #expect(root.name == "Envelope")
        #expect(root.namespaceURI == version.envelopeNamespace)
        #expect(root.child(named: "Body")?.namespaceURI == version.envelopeNamespace)
        #expect(SOAPVersion(envelopeNamespace: version.envelopeNamespace) == version)
    }

    @Test func deeplyNestedParametersAreWrittenWithoutRecursion() async throws {
        var value: SOAPValue = "bottom"
        for _ in 0..<10_000 { value = ["n": value] }
        let envelope = SOAPEnvelope(operation: "op", parameters: ["n": value])
        let data = try await Task { try envelope.data() }.value
        #expect(try XMLTree(data: data, options: XMLParsingOptions(maximumDepth: 20_000)).root.firstDescendant(named: "n") != nil)
    }
}
