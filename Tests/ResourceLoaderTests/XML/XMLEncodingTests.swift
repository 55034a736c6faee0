import Foundation
import ResourceLoader
import Testing

/// The XML declaration, read whole and strictly, and the encodings the parser accepts: UTF-8,
/// US-ASCII, ISO-8859-1 and UTF-16 (transcoded), and nothing else.
@Suite("XML declarations and encodings")
struct XMLEncodingTests {

    // MARK: The declaration

    @Test(arguments: [
        #"<?xml version="1.0"?><a>x</a>"#,
        #"<?xml version='1.0' encoding='UTF-8' standalone='yes'?><a>x</a>"#,
        #"<?xml version="1.0" standalone="no" ?><a>x</a>"#,
        "<?xml\n version = '1.0'\tencoding\n=\n\"utf8\"\r\n?><a>x</a>",
        #"<?xml version="1.0""# + String(repeating: " ", count: 3000) + #"encoding="UTF-8"?><a>x</a>"#,
        "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?><a>x</a>",
        #"<?xml version="1.0"?><?xml-stylesheet href="a"?><a>x</a>"#,
    ])
    func wellFormedDeclarationsParse(document: String) throws {
        #expect(try XMLTree(data: Data(document.utf8)).root.text == "x")
    }

    @Test(arguments: [
        #"<?xml version="1.0" foo="bar"?><a/>"#,  // an unknown pseudo-attribute
        #"<?xml encoding="UTF-8" version="1.0"?><a/>"#,  // version not first
        #"<?xml version="1.0" standalone="yes" encoding="UTF-8"?><a/>"#,  // encoding after standalone
        #"<?xml version="1.0" encoding="UTF-8" encoding="UTF-8"?><a/>"#,  // a repeated encoding
        #"<?xml version="1.0" version="1.0"?><a/>"#,  // a repeated version
        #"<?xml version="1.0" standalone="yes" standalone="yes"?><a/>"#,  // a repeated standalone
        #"<?xml version="1.0"encoding="UTF-8"?><a/>"#,  // no space before encoding
        #"<?xml version="1.0" encoding="UTF-8"<a/>"#,  // unterminated
        #"<?xml version="1.0""#,  // cut short
        #"<?xml  ?><a/>"#,  // no version
        #"<?xml version="2.0"?><a/>"#,  // not 1.x
        #"<?xml version="1."?><a/>"#,  // no minor version
        #"<?xml version='1.0"?><a/>"#,  // mismatched quotes
        #"<?xml version=1.0?><a/>"#,  // unquoted
        #"<?xml version="1.0" standalone="maybe"?><a/>"#,  // standalone neither yes nor no
        #"<?xml version="1.0" encoding=""?><a/>"#,  // an empty encoding name
        #"<?xml version="1.0" encoding="8bit"?><a/>"#,  // a name not starting with a letter
        #"<?xml version="1.0" encoding="UTF 8"?><a/>"#,  // a space in the name
        #"<?xml version="1.0" ? ><a/>"#,  // a space inside '?>'
        #"<?xml version="1.0""# + String(repeating: " ", count: 5000) + "?><a/>",  // longer than the bound
        "<?xml?><a/>",  // the reserved name without a declaration
        #"<?XML version="1.0"?><a/>"#,  // the reserved name in another case
        #"<a/><?xml version="1.0" encoding="UTF-7"?>"#,  // a declaration after the root
        #"<a><?xml version="1.0" encoding="ISO-8859-1"?></a>"#,  // a declaration inside the root
        #"<!-- c --><?xml version="1.0" encoding="UTF-7"?><a/>"#,  // a declaration after a comment
        #"<?xml version="1.0"?><?xml version="1.0" encoding="UTF-7"?><a/>"#,  // a second declaration
        #"<?pi?><?Xml version="1.0"?><a/>"#,  // after a processing instruction
    ])
    func everyOtherDeclarationIsMalformed(document: String) {
        let error = treeParsingError(document)
        guard case .malformed = error else {
            Issue.record("\(document.prefix(80).debugDescription) → \(String(describing: error))")
            return
        }
    }

    @Test func aMalformedDeclarationIsReportedWhereItGoesWrong() {
        #expect(treeParsingError(#"<?xml version="1.0" foo="bar"?><a/>"#) == .malformed(line: 1, column: 21))
        #expect(treeParsingError("<?xml version=\"1.0\"\n  encoding='UTF 8'?><a/>") == .malformed(line: 2, column: 16))
        #expect(treeParsingError("<a/>\n<?xml version=\"1.0\"?>") == .malformed(line: 2, column: 1))
    }

    // MARK: Encodings refused

    @Test(arguments: ["windows-1252", "UTF-7", "Shift_JIS", "UTF-32", "ISO-8859-2", "EBCDIC-US", "UTF-16", "x-unknown"])
    func otherDeclaredEncodingsAreRefused(name: String) {
        let document = #"<?xml version="1.0" encoding="\#(name)"?><a>x</a>"#
        #expect(treeParsingError(document) == .unsupportedEncoding(name))
    }

    @Test func otherEncodingsRecognisedFromTheFirstBytesAreRefused() throws {
        let utf16 = try #require("<a>x</a>".data(using: .utf16LittleEndian))
        #expect(treeParsingError(utf16) == .unsupportedEncoding("UTF-16"))  // no byte order mark, no declaration
        #expect(treeParsingError(Data([0x00, 0x00, 0xFE, 0xFF, 0, 0, 0, 0x3C])) == .unsupportedEncoding("UTF-32"))
        #expect(treeParsingError(Data([0xFF, 0xFE, 0x00, 0x00, 0x3C, 0, 0, 0])) == .unsupportedEncoding("UTF-32"))
        #expect(treeParsingError(Data([0x3C, 0, 0, 0, 0x61, 0, 0, 0])) == .unsupportedEncoding("UTF-32"))
        // `<?xm` in EBCDIC
        #expect(treeParsingError(Data([0x4C, 0x6F, 0xA7, 0x94, 0x93])) == .unsupportedEncoding("EBCDIC"))
    }

    @Test func aByteOrderMarkAndADeclarationThatDisagreeAreRefused() throws {
        let bigEndian = try #require(#"<?xml version="1.0" encoding="UTF-8"?><a/>"#.data(using: .utf16BigEndian))
        #expect(treeParsingError(Data([0xFE, 0xFF]) + bigEndian) == .unsupportedEncoding("UTF-8"))
        let swapped = try #require(#"<?xml version="1.0" encoding="UTF-16LE"?><a/>"#.data(using: .utf16BigEndian))
        #expect(treeParsingError(Data([0xFE, 0xFF]) + swapped) == .unsupportedEncoding("UTF-16LE"))
        let latin1 = "\u{FEFF}<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>"
        #expect(treeParsingError(latin1) == .unsupportedEncoding("ISO-8859-1"))
    }

    // MARK: US-ASCII

    @Test func httpbinsUSASCIIDocumentParses() throws {
        // GIVEN the start of what httpbin.org/xml serves
        let document = """
            <?xml version='1.0' encoding='us-ascii'?>

            <!--  A SAMPLE set of slides  -->

            <slideshow
                title="Sample Slide Show"
                date="Date of publication"
                author="Yours Truly"
                >
                <slide type="all">
                  <title>Wake up to WonderWidgets!</title>
                </slide>
            </slideshow>
            """
        // WHEN it is parsed, THEN it is the tree it says
        let tree = try XMLTree(string: document)
        #expect(tree.root.name == "slideshow")
        #expect(tree.root.attribute(named: "author") == "Yours Truly")
        #expect(tree.root.firstDescendant(named: "title")?.text == "Wake up to WonderWidgets!")
    }

    @Test func textIsNeverSniffedForAnEncodingAndANULIsAnInvalidCharacter() {
        func error(_ text: String) -> XMLParsingError? {
            do {
                _ = try XMLTree(string: text)
                return nil
            } catch {
                return error
            }
        }
        // GIVEN text whose UTF-8 would read as UTF-16 or UTF-32 bytes (NULs among its first
        // four bytes), WHEN it is parsed, THEN it is UTF-8, and the NUL is the error
        #expect(error("<\0") == .invalidCharacter(line: 1, column: 2))
        #expect(error("<\0?\0x\0m\0l\0 \0v\0") == .invalidCharacter(line: 1, column: 2))
        #expect(error("\0<\0?\0x\0m\0l\0") == .invalidCharacter(line: 1, column: 1))
        #expect(error("\0\0\0<a/>") == .invalidCharacter(line: 1, column: 1))
        #expect(error("<a>\0</a>") == .invalidCharacter(line: 1, column: 4))
    }

    @Test func usASCIIIsCheckedBytewise() throws {
        for name in ["US-ASCII", "ascii", "ANSI_X3.4-1968", "us"] {
            #expect(treeParsingError(#"<?xml version="1.0" encoding="\#(name)"?><a>x</a>"#) == nil, "\(name)")
        }
        // A byte above 0x7F is not US-ASCII, even when it would be valid UTF-8
        #expect(treeParsingError("<?xml version=\"1.0\" encoding=\"US-ASCII\"?>\n<a>Zürich</a>") == .invalidCharacter(line: 2, column: 5))
        let latin1Byte = Data(#"<?xml version="1.0" encoding="us-ascii"?><a>"#.utf8) + Data([0xE9]) + Data("</a>".utf8)
        #expect(treeParsingError(latin1Byte) == .invalidCharacter(line: 1, column: 45))
    }

    // MARK: ISO-8859-1

    @Test(arguments: ["ISO-8859-1", "iso-8859-1", "latin1", "ISO_8859-1", "L1", "iso8859-1", "IBM819", "csISOLatin1"])
    func iso88591IsTranscoded(name: String) throws {
        // GIVEN a document in ISO-8859-1, with non-ASCII text and attribute values
        let document = Data(#"<?xml version="1.0" encoding="\#(name)"?><a b=""#.utf8) + Data([0xE9])
            + Data(#"">Z"#.utf8) + Data([0xFC]) + Data("rich \u{7F}".utf8) + Data([0xA0, 0xFF]) + Data("</a>".utf8)
        // WHEN it is parsed, THEN every byte is the character ISO-8859-1 says
        let tree = try XMLTree(data: document)
        #expect(tree.root.text == "Zürich \u{7F}\u{A0}ÿ")
        #expect(tree.root.attribute(named: "b") == "é")
    }

    @Test func iso88591IsCheckedAfterTranscoding() {
        // Control characters stay forbidden, and errors are still typed
        let control = Data(#"<?xml version="1.0" encoding="latin1"?><a>"#.utf8) + Data([0xE9, 0x01]) + Data("</a>".utf8)
        #expect(treeParsingError(control) == .invalidCharacter(line: 1, column: 45))
        let doctype = Data(#"<?xml version="1.0" encoding="latin1"?><!DOCTYPE a><a/>"#.utf8)
        #expect(treeParsingError(doctype) == .doctypeNotAllowed)
        #expect(treeParsingError(#"<?xml version="1.0" encoding="latin1"?><a>&e;</a>"#)
            == .undeclaredEntity(name: "e", line: 1, column: 43))
    }

    @Test func theSizeLimitAppliesToTheTranscodedDocument() {
        // GIVEN a 100-byte limit, and ISO-8859-1 documents of 100 bytes: one all ASCII, one with
        // a byte that takes two in UTF-8
        let options = XMLParsingOptions(maximumDocumentSize: 100)
        let head = #"<?xml version="1.0" encoding="latin1"?><a>"#
        let ascii = Data((head + String(repeating: "x", count: 100 - head.utf8.count - 4) + "</a>").utf8)
        var accented = ascii
        accented[head.utf8.count] = 0xE9
        #expect(ascii.count == 100 && accented.count == 100)
        // THEN the first parses and the second is too large once transcoded
        #expect(treeParsingError(ascii, options: options) == nil)
        #expect(treeParsingError(accented, options: options) == .tooLarge(limit: 100))
    }

    // MARK: UTF-16

    @Test func utf16WithAByteOrderMarkIsTranscoded() throws {
        let text = #"<a b="é">Zürich 東京 😀</a>"#
        for declaration in ["", #"<?xml version="1.0"?>"#, #"<?xml version="1.0" encoding="UTF-16"?>"#] {
            let little = try #require((declaration + text).data(using: .utf16LittleEndian))
            let big = try #require((declaration + text).data(using: .utf16BigEndian))
            for document in [Data([0xFF, 0xFE]) + little, Data([0xFE, 0xFF]) + big] {
                let tree = try XMLTree(data: document)
                #expect(tree.root.text == "Zürich 東京 😀")
                #expect(tree.root.attribute(named: "b") == "é")
            }
        }
        let matching = try #require(#"<?xml version="1.0" encoding="utf-16le"?><a>x</a>"#.data(using: .utf16LittleEndian))
        #expect(try XMLTree(data: Data([0xFF, 0xFE]) + matching).root.text == "x")
    }

    @Test func utf16WithoutAByteOrderMarkNeedsADeclarationOfItsByteOrder() throws {
        let little = try #require(#"<?xml version="1.0" encoding="UTF-16LE"?><a>é</a>"#.data(using: .utf16LittleEndian))
        #expect(try XMLTree(data: little).root.text == "é")
        let big = try #require(#"<?xml version="1.0" encoding="UTF-16BE"?><a>é</a>"#.data(using: .utf16BigEndian))
        #expect(try XMLTree(data: big).root.text == "é")
        // XML requires a byte order mark for "UTF-16"
        let unmarked = try #require(#"<?xml version="1.0" encoding="UTF-16"?><a/>"#.data(using: .utf16LittleEndian))
        #expect(treeParsingError(unmarked) == .unsupportedEncoding("UTF-16"))
        let wrongOrder = try #require(#"<?xml version="1.0" encoding="UTF-16BE"?><a/>"#.data(using: .utf16LittleEndian))
        #expect(treeParsingError(wrongOrder) == .unsupportedEncoding("UTF-16BE"))
        let undeclared = try #require(#"<?xml version="1.0"?><a/>"#.data(using: .utf16LittleEndian))
        #expect(treeParsingError(undeclared) == .unsupportedEncoding("UTF-16"))
        let instruction = try #require(#"<?pi encoding="UTF-16LE"?><a/>"#.data(using: .utf16LittleEndian))
        #expect(treeParsingError(instruction) == .unsupportedEncoding("UTF-16"))
    }

    @Test func brokenUTF16IsATypedError() throws {
        let head = try #require("<a>\n  x".data(using: .utf16LittleEndian))
        let tail = try #require("</a>".data(using: .utf16LittleEndian))
        let mark = Data([0xFF, 0xFE])
        // A lone high surrogate, a lone low surrogate, a high surrogate at the very end
        #expect(treeParsingError(mark + head + Data([0x3D, 0xD8, 0x41, 0x00]) + tail) == .invalidCharacter(line: 2, column: 4))
        #expect(treeParsingError(mark + head + Data([0x00, 0xDE]) + tail) == .invalidCharacter(line: 2, column: 4))
        #expect(treeParsingError(mark + head + Data([0x3D, 0xD8])) == .invalidCharacter(line: 2, column: 4))
        // An odd number of bytes
        #expect(treeParsingError(mark + head + tail + Data([0x20])) == .invalidCharacter(line: 2, column: 8))
        // U+FEFF after the byte order mark is no second byte order mark (found by the xml-tree fuzzer)
        #expect(treeParsingError(Data([0xFE, 0xFF, 0xFE, 0xFF])) == .malformed(line: 1, column: 1))
        #expect(treeParsingError(Data([0xFF, 0xFE, 0xFF, 0xFE, 0x3C, 0x00, 0x61, 0x00, 0x2F, 0x00, 0x3E, 0x00])) == .malformed(line: 1, column: 1))
        // The declaration must be well-formed in UTF-16 too
        let malformed = try #require(#"<?xml version="1.0" foo="1"?><a/>"#.data(using: .utf16LittleEndian))
        #expect(treeParsingError(mark + malformed) == .malformed(line: 1, column: 21))
    }

    @Test func utf16IsMeasuredAfterTranscoding() throws {
        // 40 CJK characters in tags: 96 bytes in UTF-16 with its byte order mark, 127 in UTF-8
        let text = "<a>" + String(repeating: "東", count: 40) + "</a>"
        let document = Data([0xFF, 0xFE]) + (try #require(text.data(using: .utf16LittleEndian)))
        #expect(document.count == 96)
        #expect(treeParsingError(document, options: XMLParsingOptions(maximumDocumentSize: 127)) == nil)
        #expect(treeParsingError(document, options: XMLParsingOptions(maximumDocumentSize: 126)) == .tooLarge(limit: 126))
    }

    // MARK: Text

    @Test func textIsAlreadyDecodedWhateverItsDeclarationSays() throws {
        // A string's declared encoding describes bytes it no longer has: it is UTF-8 to the parser.
        let tree = try XMLTree(string: #"<?xml version="1.0" encoding="ISO-8859-1"?><a>é</a>"#)
        #expect(tree.root.text == "é")
        #expect(try XMLTree(string: #"<?xml version="1.0" encoding="UTF-7"?><a>+ADw-</a>"#).root.text == "+ADw-")
        #expect(treeParsingError(#"<?xml version="1.0" encoding="UTF-7" foo="1"?><a/>"#) == .malformed(line: 1, column: 38))
    }
}
