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

/// The number `table` gives `name`.
private func number(_ table: XMLNameTable, _ name: String) -> Int {
    Array(name.utf8).withUnsafeBufferPointer { table.id($0, 0..<$0.count) }
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
        #expect(number(table, "soap:Envelope") == number(table, "soap:Envelope"))
        #expect(number(table, "Envelope") != number(table, "soap:Envelope"))
        #expect(other !== first)
        #expect(first.prefix == "soap")
        #expect(first.local == "Envelope")
        #expect(other.prefix == nil)
        #expect(other.local == "Envelope")
    }

    @Test func namesKeepTheirNumbersAsTheTableGrows() {
        // GIVEN far more names than the table's first slots hold
        let table = XMLNameTable()
        let spellings = (0..<2_000).map { "n\($0)" } + (0..<64).map { String(repeating: "x", count: $0 + 1) }
        let numbers = spellings.map { number(table, $0) }
        // THEN each name is numbered once, in order of first sight, and found again after the growth
        #expect(numbers == Array(0..<spellings.count))
        #expect(spellings.map { number(table, $0) } == numbers)
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
        let city = number(table, "city")
        let email = number(table, "email")
        table.setSuccessor(of: city, to: email)
        func guess(_ text: String) -> String? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { buffer in
                table.successor(of: city, at: buffer.baseAddress!, available: buffer.count).map {
                    "\(table.names[$0.id].qualified):\($0.count)"
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
        #expect(table.successor(of: email, at: XMLCharacters.noBytes, available: 0) == nil)
    }

    @Test func documentsShareTheNamesOfEarlierOnes() {
        // GIVEN two documents' tables
        let first = XMLNameTable()
        let second = XMLNameTable()
        // THEN a short name is one object for both, made once for the process, unless the
        // process's table was already full (other suites in this process parse thousands of
        // names): then each document makes its own
        let shared = first.name("p:sharedAcrossDocuments") === second.name("p:sharedAcrossDocuments")
        #expect(shared || XMLSharedNames.sharedCount == XMLSharedNames.capacity)
        #expect(second.name("p:sharedAcrossDocuments").local == "sharedAcrossDocuments")
        // AND a name over the shared table's limit is made per document, with the same parts
        let long = "q:" + String(repeating: "l", count: XMLSharedNames.longestName)
        #expect(first.name(long) !== second.name(long))
        #expect(first.name(long).local == second.name(long).local)
        #expect(first.name(long) === first.name(long))
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

    // MARK: Text a word at a time

    @Test func theFirstTextStopOfAWordIsExact() {
        // GIVEN words of plain bytes with one byte to look at somewhere, and then anything above it
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        func isStop(_ byte: UInt8) -> Bool { byte < 0x20 || byte >= 0x80 || byte == 0x3C || byte == 0x26 || byte == 0x5D }
        let plain = Array("abc XYZ 019 .,;:=?!/>'\"#-_+*()[{}|~".utf8)
        var checked = 0
        for round in 0..<20_000 {
            var bytes = (0..<8).map { _ in plain[Int(next() % UInt64(plain.count))] }
            // Most words get stops: a random byte at a random place, sometimes two
            for _ in 0..<(round % 3) { bytes[Int(next() % 8)] = UInt8(truncatingIfNeeded: next()) }
            let word = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            let stops = XMLTokenizer<RecordingSink>.textStops(word)
            let expected = bytes.firstIndex(where: isStop)
            // THEN the lowest mark is the first such byte, and no mark means none
            #expect(stops == 0 ? expected == nil : stops.trailingZeroBitCount / 8 == expected, "\(bytes)")
            checked += expected == nil ? 0 : 1
        }
        #expect(checked > 5_000)
    }

    @Test func textWithAStopAtEachPlaceOfAWordReadsTheSame() throws {
        // GIVEN texts of 24 bytes with a character that needs a look at every offset
        let stops = ["\n", "\r\n", "\t", "\r", "é", "€", "𝄞", "&amp;", "&#x3C;", "]", "]]"]
        for stop in stops {
            for offset in 0..<12 {
                let text = String(repeating: "a", count: offset) + stop + String(repeating: "b", count: 24 - offset)
                let document = "<r>\(text)<x/>\(text)</r>"
                let expectedText = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                    .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#x3C;", with: "<")
                // THEN the text is whole, normalised, and the same fed in pieces
                let whole = try eventsWhole(document).get()
                #expect(whole == ["<r{}", "\"" + expectedText, "<x{}", "/", "\"" + expectedText, "/"], "\(document)")
                #expect(try eventsInPieces(document, chunk: 5).get() == whole)
            }
        }
        // AND the bytes XML forbids in text are refused wherever they stand in a word
        for offset in 0..<12 {
            let prefix = Data(repeating: UInt8(ascii: "a"), count: offset)
            for bad in [Data([0x01]), Data([0xFF]), Data([0xC3]), Data("]]>".utf8), Data([0xEF, 0xBF, 0xBF])] {
                let document = Data("<r>".utf8) + prefix + bad + Data(repeating: UInt8(ascii: "b"), count: 16) + Data("</r>".utf8)
                #expect(treeParsingError(document) != nil, "\(offset) \(Array(bad))")
            }
        }
    }

    // MARK: The pool

    @Test func aTableThatGrewPastThePoolsBoundIsNotKept() {
        // GIVEN a table from the pool that has taken more names than a pooled table may hold
        let large = XMLNameTable.checkOut()
        for index in 0...XMLNameTable.largestPooledTable { _ = large.name("pool-bound-\(index)") }
        #expect(large.count > XMLNameTable.largestPooledTable)
        large.checkIn()
        // THEN no later check-out hands it out again (the pool never holds more than its bound)
        let taken = (0...XMLNameTable.pooledTables).map { _ in XMLNameTable.checkOut() }
        #expect(!taken.contains { $0 === large })
        #expect(XMLNameTable.pooledTableCount <= XMLNameTable.pooledTables)
        for table in taken { table.checkIn() }
        #expect(XMLNameTable.pooledTableCount <= XMLNameTable.pooledTables)
    }

    @Test func tablesKeptFromEarlierDocumentsReadOtherDocumentsRight() throws {
        // GIVEN documents whose names overlap and whose start tags follow one another in
        // different orders (so a reused table's successors guess wrong), read again and again
        let documents = [
            "<r><a>1</a><b>2</b><c>3</c></r>",
            "<r><c>3</c><a>1</a><b x='1'>2</b></r>",
            "<r><ab>1</ab><a>2</a><abc/><b/></r>",
            "<p:r xmlns:p='urn:p'><p:a>1</p:a><a>2</a><p:b/></p:r>",
            "<a><a><a/></a><r/></a>",
        ]
        let expected = try documents.map { try eventsWhole($0).get() }
        for round in 0..<40 {
            for (index, document) in documents.enumerated().shuffled() {
                // THEN every reading gives the same events, whole or in pieces
                #expect(try eventsWhole(document).get() == expected[index], "round \(round): \(document)")
                #expect(try eventsInPieces(document, chunk: 3).get() == expected[index], "round \(round): \(document)")
            }
        }
        // AND an end tag that names an element the table knows from earlier documents still fails
        #expect(throws: XMLParsingError.self) { try eventsWhole("<r><a></b></r>").get() }
    }

    @Test func concurrentParsesShareThePoolSafely() async throws {
        // GIVEN many documents parsed at once on several threads (the thread sanitizer run
        // checks that a table is only ever used by one tokenizer at a time)
        let documents = (0..<8).map { worker in
            "<r\(worker)>" + (0..<20).map { "<f\(($0 * 7 + worker) % 20)>\(worker)</f\(($0 * 7 + worker) % 20)>" }.joined()
                + "</r\(worker)>"
        }
        let expected = try documents.map { try XMLTree(string: $0).root.children.map(\.name) }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<100 {
                        let index = (worker + round) % documents.count
                        let names = (try? XMLTree(string: documents[index]))?.root.children.map(\.name)
                        if names != expected[index] { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        // THEN every tree is right
        #expect(mismatches == 0)
        #expect(XMLNameTable.pooledTableCount <= XMLNameTable.pooledTables)
    }

    @Test func theSharedNamesKeepAtMostTheirBound() {
        // GIVEN a shared-names table of its own (the process's one is shared by every test),
        // offered more distinct names than it may keep, and names longer than it keeps
        var shared = XMLSharedNames()
        func name(_ text: String) -> XMLName {
            Array(text.utf8).withUnsafeBufferPointer { bytes in
                shared.name(bytes, 0..<bytes.count, hash: XMLNameTable.hash(bytes.baseAddress!, bytes.count, seed: XMLNameTable.processSeed))
            }
        }
        let first = (0..<XMLSharedNames.capacity).map { name("kept\($0)") }
        let extra = (0..<100).map { name("over\($0)") }
        // THEN it holds exactly its capacity: the first names are found again as the same
        // objects, the ones past the bound are made afresh each time, with the right parts
        #expect(shared.count == XMLSharedNames.capacity)
        #expect(zip(first, (0..<XMLSharedNames.capacity).map { name("kept\($0)") }).allSatisfy { $0 === $1 })
        #expect(zip(extra, (0..<100).map { name("over\($0)") }).allSatisfy { $0 !== $1 })
        #expect(name("over7").qualified == "over7")
        #expect(shared.count == XMLSharedNames.capacity)
        // AND a name over the length bound is never kept, even with room
        var roomy = XMLSharedNames()
        let long = Array(String(repeating: "n", count: XMLSharedNames.longestName + 1).utf8)
        let longNames = (0..<2).map { _ in long.withUnsafeBufferPointer { roomy.name($0, 0..<$0.count, hash: 1) } }
        #expect(roomy.count == 0)
        #expect(longNames[0] !== longNames[1])
        let atBound = Array(String(repeating: "n", count: XMLSharedNames.longestName).utf8)
        let boundNames = (0..<2).map { _ in atBound.withUnsafeBufferPointer { roomy.name($0, 0..<$0.count, hash: 2) } }
        #expect(roomy.count == 1)
        #expect(boundNames[0] === boundNames[1])
    }
}

/// The inline byte comparison names are matched with (start tags predicted, end tags checked).
@Suite("XML name bytes")
struct XMLNameBytesTests {
    @Test func runsAreEqualExactlyWhenEveryByteIs() {
        // GIVEN runs of 0 to 40 bytes, and copies differing in one byte at each position
        for count in 0...40 {
            let first = (0..<count).map { UInt8(truncatingIfNeeded: 0x41 + $0) }
            first.withUnsafeBufferPointer { a in
                let start = a.baseAddress ?? XMLCharacters.noBytes
                // THEN a run equals its copy
                let copy = first
                copy.withUnsafeBufferPointer { b in
                    #expect(XMLNameTable.equal(start, b.baseAddress ?? XMLCharacters.noBytes, count: count))
                }
                // and differs from every copy with one byte changed
                for position in 0..<count {
                    var changed = first
                    changed[position] ^= 0x20
                    changed.withUnsafeBufferPointer { b in
                        #expect(!XMLNameTable.equal(start, b.baseAddress!, count: count), "count \(count) position \(position)")
                    }
                }
            }
        }
    }

    @Test func endTagsDifferingInOneByteAreRefused() throws {
        // GIVEN names of 1 to 20 bytes, closed by an end tag with one byte changed
        for count in 1...20 {
            let name = String(repeating: "n", count: count)
            #expect(throws: Never.self) { try XMLTree(string: "<\(name)></\(name)>") }
            for position in 0..<count {
                var bytes = Array(name.utf8)
                bytes[position] = UInt8(ascii: "m")
                let other = String(decoding: bytes, as: UTF8.self)
                // THEN each is refused, whichever byte differs
                #expect(throws: XMLParsingError.self, "\(count) \(position)") {
                    try XMLTree(string: "<r><\(name)></\(other)></r>")
                }
            }
        }
    }
}
