import Foundation
import Testing

@testable import ResourceLoader

/// Records the tokenizer's events as text: `<q`, `@q=v`, `>`, `/`, `"text"`.
private struct RecordingSink: XMLEventSink {
    var events: [String] = []

    mutating func startElement(_ element: XMLStartElement, attributes: [XMLAttributeEvent]) throws(XMLParsingError) {
        events.append("<" + element.name.qualified + "{" + (element.namespaceURI ?? "") + "}")
        for attribute in attributes { events.append("@" + attribute.name.qualified + "=" + attribute.value) }
    }

    mutating func endElement() { events.append("/") }

    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let last = events.last, last.hasPrefix("\"") {
            events[events.count - 1] = last + text
        } else {
            events.append("\"" + text)
        }
    }

    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {}
}

/// The events of `document` read whole, or the error.
private func eventsWhole(_ document: String) -> Result<[String], XMLParsingError> {
    let bytes = Array(document.utf8)
    return bytes.withUnsafeBufferPointer { buffer in
        Result { () throws(XMLParsingError) -> [String] in
            try XMLStreamParser.parse(buffer, sink: RecordingSink(), options: XMLParsingOptions()).events
        }
    }
}

/// The events of `document` fed `chunk` bytes at a time, or the error.
private func eventsInPieces(_ document: String, chunk: Int) -> Result<[String], XMLParsingError> {
    let bytes = Array(document.utf8)
    var parser = XMLStreamParser(sink: RecordingSink(), options: XMLParsingOptions())
    return Result { () throws(XMLParsingError) -> [String] in
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            try bytes[start..<end].withUnsafeBufferPointer { piece throws(XMLParsingError) in try parser.feed(piece) }
            start = end
        }
        return try parser.finish().events
    }
}

@Suite("XML name table and tag fast paths")
struct XMLNameTableTests {
    // MARK: The table

    @Test func equalBytesGiveTheSameNameAndDistinctBytesDistinctNames() {
        let table = XMLNameTable()
        let first = table.name("soap:Envelope")
        let again = table.name("soap:Envelope")
        let other = table.name("Envelope")
        #expect(first === again)
        #expect(first.id == again.id)
        #expect(other.id != first.id)
        #expect(first.prefix == "soap")
        #expect(first.local == "Envelope")
        #expect(other.prefix == nil)
        #expect(other.local == "Envelope")
    }

    @Test func namesKeepTheirNumbersAsTheTableGrows() {
        // GIVEN far more names than the table's first slots hold
        let table = XMLNameTable()
        let spellings = (0..<2_000).map { "n\($0)" } + (0..<64).map { String(repeating: "x", count: $0 + 1) }
        let numbers = spellings.map { table.name($0).id }
        // THEN each name is numbered once, in order of first sight, and found again after the growth
        #expect(numbers == Array(0..<spellings.count))
        #expect(spellings.map { table.name($0).id } == numbers)
        #expect(table.names.map(\.qualified) == spellings)
    }

    @Test func namespaceFlagsAreWorkedOutOnce() {
        let table = XMLNameTable()
        #expect(table.name("xmlns").declaresNamespace)
        #expect(table.name("xmlns:p").declaresNamespace)
        #expect(table.name("xmlns:p").hasXMLNSPrefix)
        #expect(!table.name("xmlnsx").declaresNamespace)
        #expect(!table.name("p:xmlns").declaresNamespace)
        #expect(table.name("xml:lang").hasXMLPrefix)
        #expect(!table.name("xmllang").hasXMLPrefix)
        #expect(!table.name("a:b:c").isQualifiedName)
        #expect(!table.name("a:1b").isQualifiedName)
        #expect(table.name("a:b").isQualifiedName)
    }

    @Test func theSuccessorIsOnlyTakenWhenTheWholeNameMatches() throws {
        let table = XMLNameTable()
        let city = table.name("city")
        let email = table.name("email")
        table.setSuccessor(of: city.id, to: email.id)
        func guess(_ text: String) -> String? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { buffer in
                table.successor(of: city.id, at: buffer.baseAddress!, available: buffer.count).map {
                    "\($0.name.qualified):\($0.count)"
                }
            }
        }
        #expect(guess("email>") == "email:5")
        #expect(guess("email/>") == "email:5")
        #expect(guess("email\n a='1'>") == "email:5")
        // A longer name, another name, or the bytes ending with the name: no guess
        #expect(guess("emails>") == nil)
        #expect(guess("email:x>") == nil)
        #expect(guess("emai>") == nil)
        #expect(guess("email") == nil)
        #expect(guess("fax>") == nil)
        // No successor recorded: no guess
        #expect(table.successor(of: email.id, at: XMLCharacters.noBytes, available: 0) == nil)
    }

    // MARK: Through the tokenizer

    /// Documents whose start tags repeat in an order and then break it: each predicted name is
    /// checked against what is written.
    static let repeatingDocuments = [
        "<r><a>1</a><ab>2</ab><a>3</a><ab>4</ab><a>5</a><abc>6</abc><a>7</a><a>8</a></r>",
        "<r><rec><x/><y k='1'/></rec><rec><x/><y\tk='2'/></rec><rec><x/><yy/></rec><rec><x/><y/></rec></r>",
        "<p:r xmlns:p='urn:p'><p:a/><q:a xmlns:q='urn:q'/><p:a/><a xmlns='urn:d'/><p:a/><a/></p:r>",
        "<r><é>1</é><éé>2</é\u{E9}><é>3</é ><éé\n>4</éé\n></r>",
        "<r>\n  <city>London</city>\n  <email>a@b</email>\n</r>",
    ]

    @Test(arguments: repeatingDocuments)
    func predictedNamesGiveTheSameEventsWholeAndInPieces(_ document: String) throws {
        let whole = try eventsWhole(document).get()
        // Every start tag is there, as written
        let written = document.split(separator: "<").compactMap { piece -> String? in
            guard let first = piece.first, first != "/", first != "?" else { return nil }
            return String(piece.prefix { !" \t\n\r>/".contains($0) })
        }
        #expect(whole.filter { $0.hasPrefix("<") }.map { String($0.dropFirst().prefix { $0 != "{" }) } == written)
        for chunk in [1, 2, 3, 7] {
            #expect(try eventsInPieces(document, chunk: chunk).get() == whole)
        }
    }

    @Test func endTagsMustNameTheOpenElementExactly() throws {
        // The open element's name followed by `>` is the fast path; anything else is read in full
        for document in ["<ab></a>", "<a></ab>", "<a></a:>", "<a></a\u{E9}>", "<é></éé>", "<r><a></a></b></r>", "<a></a"] {
            #expect(throws: XMLParsingError.self, "\(document)") { try eventsWhole(document).get() }
        }
        #expect(try eventsWhole("<a></a >").get() == ["<a{}", "/"])
        #expect(try eventsWhole("<a><b></b\n></a\t>").get() == ["<a{}", "<b{}", "/", "/"])
    }

    @Test func aNameTooLongIsReportedAsSuchWhateverFollowsIt() {
        let tooLong = String(repeating: "n", count: 50_001)
        // A bad byte or an illegal name character past the limit: still the name's length
        let badUTF8 = Data("<".utf8) + Data(tooLong.utf8) + Data([0xFF]) + Data("/>".utf8)
        #expect(treeParsingError(badUTF8) == .nameTooLong(limit: 50_000))
        #expect(treeParsingError("<\(tooLong)\u{FFFF}/>") == .nameTooLong(limit: 50_000))
        // Before the limit, the byte's own error
        let shortBad = Data("<nn".utf8) + Data([0xFF]) + Data("/>".utf8)
        #expect(treeParsingError(shortBad) != nil)
        #expect(treeParsingError(shortBad) != .nameTooLong(limit: 50_000))
        // Fed in pieces, a name that passes the limit stops at the limit, not at the end
        #expect(eventsInPieces("<r><\(tooLong)/></r>", chunk: 4_096) == .failure(.nameTooLong(limit: 50_000)))
    }
}
