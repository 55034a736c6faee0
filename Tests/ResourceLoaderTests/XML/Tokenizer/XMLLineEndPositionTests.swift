import Foundation
import Testing

@testable import ResourceLoader

/// Reads events and drops them: only where parsing stops matters here.
private struct DiscardingSink: XMLEventSink {
    mutating func startElement(_ element: XMLStartElement, attributes: [XMLAttributeEvent]) throws(XMLParsingError) {}
    mutating func endElement() {}
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {}
    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {}
}

/// The error for `bytes` fed `chunk` bytes at a time, or `nil` when they parse.
private func errorInPieces(_ bytes: [UInt8], chunk: Int) -> XMLParsingError? {
    var parser = XMLStreamParser(sink: DiscardingSink(), options: XMLParsingOptions())
    do throws(XMLParsingError) {
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            try bytes[start..<end].withUnsafeBufferPointer { piece throws(XMLParsingError) in try parser.feed(piece) }
            start = end
        }
        _ = try parser.finish()
        return nil
    } catch {
        return error
    }
}

/// Error positions count lines as XML 1.0 §2.11 ends them: LF, CR LF, and a lone CR.
@Suite("XML error positions and line ends")
struct XMLLineEndPositionTests {
    @Test(arguments: [
        ("<a>\r\r&x;</a>", 3, 1), ("<a>\r\n\r\n&x;</a>", 3, 1), ("<a>\n\n&x;</a>", 3, 1),
        ("<a>\r\n\r&x;</a>", 3, 1), ("<a>\r\r\n&x;</a>", 3, 1), ("<a>\n\r &x;</a>", 3, 2),
        ("<a\rb='1'>\r<c/>\r\n  &x;</a>", 4, 3),
    ])
    func aLoneCarriageReturnEndsALine(_ document: String, line: Int, column: Int) {
        let expected = XMLParsingError.undeclaredEntity(name: "x", line: line, column: column)
        // GIVEN a document whose lines end in LF, CR LF or a lone CR, with an error after them
        // WHEN it is parsed whole, or fed in pieces of every size (so that a CR LF may be cut)
        // THEN the error is on the line and column XML's line ends give
        #expect(treeParsingError(document) == expected)
        let bytes = Array(document.utf8)
        for chunk in 1...bytes.count {
            #expect(errorInPieces(bytes, chunk: chunk) == expected, "pieces of \(chunk)")
        }
    }

    @Test func positionsFoundBeforeTheTokenizerCountALoneCarriageReturnToo() {
        // GIVEN errors found while reading the declaration, checking US-ASCII and UTF-16,
        // after lines ended by lone CRs and a CR LF
        let declaration = "<?xml version='1.0'\r\r\n\rstandalone='maybe'?><a/>"
        let ascii = "<?xml version='1.0' encoding='US-ASCII'?>\r\r\n\r<a>\u{E9}</a>"
        var utf16 = Data([0xFF, 0xFE])
        utf16.append("<a>\r\r\n\r".data(using: .utf16LittleEndian)!)
        utf16.append(Data([0x00, 0xDC]))
        // THEN each is on the line and column XML's line ends give
        #expect(treeParsingError(declaration) == .malformed(line: 4, column: 13))
        #expect(treeParsingError(ascii) == .invalidCharacter(line: 4, column: 4))
        #expect(treeParsingError(utf16) == .invalidCharacter(line: 4, column: 1))
    }
}
