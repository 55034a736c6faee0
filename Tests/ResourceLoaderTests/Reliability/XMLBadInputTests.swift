import Foundation
import ResourceLoader
import Testing

/// Bad input for the XML parser and the resources built on it: truncated documents, huge text,
/// malformed documents libxml2 would "recover", and every shape of DTD. Each must end in a typed
/// error (or, for a document that is in fact complete, the model), never a crash, a hang or a
/// partial model. `XMLParserHardeningTests` covers the basics (a DOCTYPE, XXE, billion laughs,
/// invalid UTF-8, 100,000-deep nesting, documents over 10 MB); this suite adds the rest.
@Suite("XML bad input")
struct XMLBadInputTests {

    // MARK: Truncated documents

    @Test func everyPrefixOfASOAPResponseIsTheModelOrATypedError() throws {
        // GIVEN a SOAP response, and the offset just after its root element closes
        let document = try Fixtures.data("getUserDetails-response")
        let rootEnd = try #require(document.range(of: Data("</soap:Envelope>".utf8))).upperBound
        // WHEN it is cut after every byte and read by a SOAP and an XML Decodable resource
        for length in 0...document.count {
            let prefix = Data(document.prefix(length))
            for result in [UserDetailsCall().result(from: prefix, statusCode: 200), DecodedUserResource().result(from: prefix, statusCode: 200)] {
                // THEN only a document whose root has closed makes the model, and it is whole
                switch result {
                case .success(let user):
                    #expect(length >= rootEnd, "a model from \(length) of \(document.count) bytes")
                    #expect(user == .fred)
                case .failure(let error):
                    #expect(length < rootEnd, "the complete document failed: \(error)")
                    if length == 0 {
                        #expect(error.statusCode == 200 && error.caseName == "emptyResponse")
                    } else {
                        #expect(isXMLParsingFailure(error), "\(length) bytes: \(error)")
                    }
                }
            }
        }
    }

    @Test func documentsCutAtRandomOffsetsNeverParsePartially() throws {
        // GIVEN a document with multi-byte characters, references, CDATA, comments, attributes
        // and a processing instruction, and 400 cut points from a seeded generator
        let document = Data(Self.richDocument.utf8)
        let whole = try XMLTree(data: document)
        let rootEnd = try #require(document.range(of: Data("</r:root>".utf8))).upperBound
        var generator = SplitMix64(seed: 0x5EED_F00D)
        let cuts = (0..<400).map { _ in Int.random(in: 0..<document.count, using: &generator) }
        for cut in cuts {
            // WHEN the document is cut there
            let prefix = Data(document.prefix(cut))
            let outcome = Result { () throws(XMLParsingError) in try XMLTree(data: prefix) }
            // THEN it fails with a typed error before the root closes, and after that either
            // parses to the whole tree or fails on the unfinished trailing comment
            switch outcome {
            case .success(let tree):
                #expect(cut >= rootEnd, "a tree from \(cut) of \(document.count) bytes")
                #expect(tree.root == whole.root)
            case .failure(let error):
                if cut < rootEnd {
                    #expect(Self.truncationErrors.contains(error.kind), "cut at \(cut): \(error)")
                } else {
                    #expect(error.kind == "contentAfterRoot" || error.kind == "malformed", "cut at \(cut): \(error)")
                }
            }
        }
    }

    @Test func aDocumentCutInsideAMultiByteCharacterIsInvalidUTF8() {
        let document = Data("<a>€</a>".utf8)  // "€" is E2 82 AC
        #expect(treeParsingError(document.prefix(4)) == .invalidUTF8(line: 1, column: 4))
        #expect(treeParsingError(document.prefix(5)) == .invalidUTF8(line: 1, column: 4))
        // Cut after the whole character, the document is merely unfinished.
        #expect(["truncated", "malformed"].contains(treeParsingError(document.prefix(6))?.kind))
    }

    // MARK: Huge text

    @Test func aFiftyMegabyteTextNodeParsesUnderTheDefaultLimit() throws {
        // GIVEN a 50 MB text node, below the default 64 MiB limit
        let size = 50_000_000
        let document = Data("<a>".utf8) + Data(repeating: UInt8(ascii: "x"), count: size) + Data("</a>".utf8)
        // WHEN it is parsed, THEN the text arrives whole
        let tree = try XMLTree(data: document)
        #expect(tree.root.text.utf8.count == size)
        #expect(tree.root.text.utf8.first == UInt8(ascii: "x") && tree.root.text.utf8.last == UInt8(ascii: "x"))
    }

    @Test func aFiftyMegabyteTextNodeIsTooLargeUnderALowerLimit() {
        // GIVEN the same 50 MB text node, and a resource whose limit is 16 MiB
        let document = Data("<a>".utf8) + Data(repeating: UInt8(ascii: "x"), count: 50_000_000) + Data("</a>".utf8)
        let limit = 16 * 1024 * 1024
        let resource = TreeResource(xmlParsingOptions: XMLParsingOptions(maximumDocumentSize: limit))
        // WHEN it is parsed directly and through the resource, THEN both refuse it as too large
        #expect(treeParsingError(document, options: XMLParsingOptions(maximumDocumentSize: limit)) == .tooLarge(limit: limit))
        let error = resource.result(from: document).failure
        #expect(error.flatMap(xmlParsingError) == .tooLarge(limit: limit))
    }

    // MARK: Malformed documents libxml2 would recover

    @Test(arguments: [
        ("<a><b></a></b>", "malformed"),  // mismatched tags
        ("<a><b>text</b>", "truncated"),  // root never closed
        ("<a><b>", "truncated"),  // nothing closed
        ("<a></A>", "malformed"),  // names are case-sensitive
        ("</a>", "malformed"),  // an end tag, and no start tag
        ("<a/><b/>", "contentAfterRoot"),  // two roots
        ("<a/>\n<a/>", "contentAfterRoot"),  // two roots on two lines
        ("<a/>garbage", "contentAfterRoot"),  // text after the root
        ("<a/>&amp;", "contentAfterRoot"),  // a reference after the root
        ("<a/><![CDATA[x]]>", "contentAfterRoot"),  // CDATA after the root
        ("<p:a/>", "malformed"),  // an unbound element prefix
        ("<a><p:b/></a>", "malformed"),  // an unbound prefix below the root
        ("<a p:x='1'/>", "malformed"),  // an unbound attribute prefix
        ("<a xmlns:p=''/>", "malformed"),  // a prefix bound to nothing
        ("<a b=1/>", "malformed"),  // an unquoted attribute value
        ("<a b/>", "malformed"),  // an attribute without a value
        ("<a b=\"1'/>", "truncated"),  // mismatched quotes: the value runs to the end
        ("<a b=\"<\"/>", "malformed"),  // '<' in an attribute value
        ("<a b=\"1\" b=\"2\"/>", "malformed"),  // a duplicate attribute
        ("<a xmlns:p='u' xmlns:q='u' p:b='1' q:b='2'/>", "malformed"),  // a duplicate after namespace expansion
        ("<a b=\"1\"c=\"2\"/>", "malformed"),  // no space between attributes
        ("<1a/>", "malformed"),  // a name that starts with a digit: no start tag
        ("< a/>", "malformed"),  // a space before the name: no start tag
        ("<a>]]></a>", "malformed"),  // ']]>' in text
        ("<a><!-- a -- b --></a>", "malformed"),  // '--' inside a comment
        ("<a><![CDATA[x</a>", "truncated"),  // an unterminated CDATA section
        ("<a><!-- x</a>", "truncated"),  // an unterminated comment
        (" <?xml version=\"1.0\"?><a/>", "malformed"),  // the XML declaration not first
        ("<a/><?xml version=\"1.0\"?>", "malformed"),  // an XML declaration after the root
        ("<?xml version=\"2.0\"?><a/>", "malformed"),  // an unknown version
    ])
    func malformedDocumentsAreTypedErrors(document: String, expected: String) {
        let error = treeParsingError(document)
        #expect(error?.kind == expected, "\(document.debugDescription) → \(String(describing: error))")
    }

    @Test func aMalformedDocumentNeverMakesAModelThroughAResource() {
        // GIVEN a response that libxml2 recovers into something that looks complete
        let document = Data("<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><getUserDetailsResponse><getUserDetails><userModel><city>London</city></userModel></getUserDetails></getUserDetailsResponse></soap:Body></soap:Envelope><soap:Envelope/>".utf8)
        // WHEN a SOAP resource reads it, THEN it fails with the parser's typed error
        let error = UserDetailsCall().result(from: document).failure
        #expect(error.flatMap(xmlParsingError)?.kind == "contentAfterRoot")
    }

    // MARK: DTDs

    @Test(arguments: [
        #"<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>"#,  // external subset, SYSTEM
        #"<!DOCTYPE r PUBLIC "-//X//DTD X//EN" "http://example.com/x.dtd"><r/>"#,  // external subset, PUBLIC
        #"<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>"#,  // XXE, SYSTEM
        #"<!DOCTYPE r [<!ENTITY x PUBLIC "-//X//EN" "http://example.com/x">]><r>&x;</r>"#,  // XXE, PUBLIC
        #"<!DOCTYPE r [<!ENTITY % p SYSTEM "http://example.com/p.dtd"> %p;]><r/>"#,  // an external parameter entity
        #"<!DOCTYPE r [<!ENTITY % p "<!ENTITY x 'y'>"> %p;]><r>&x;</r>"#,  // an internal parameter entity
        "<!-- first a comment --><!DOCTYPE r><r/>",  // after a comment
        "<?pi some data?><!DOCTYPE r><r/>",  // after a processing instruction
        "<?pi?><!DOCTYPE r><r/>",  // after a processing instruction without data
        "\u{FEFF}<!DOCTYPE r><r/>",  // after a byte order mark
        "<!doctype r><r/>",  // lowercase
        "<!DocType r><r/>",  // mixed case
        "<!DOCTYPE\tr\n[\n]><r/>",  // tabs and line breaks
        "<!DOCTYPE\r\nr><r/>",  // CR LF
        "<!DOCTYPEr><r/>",  // no space at all
        "<r><!DOCTYPE r></r>",  // inside the root
        "<r/><!DOCTYPE r>",  // after the root
    ])
    func everyDoctypeIsRefused(document: String) {
        #expect(treeParsingError(document) == .doctypeNotAllowed)
    }

    @Test func quadraticBlowupIsRefusedBeforeAnyExpansion() async {
        // GIVEN one 100 kB internal entity referenced 10,000 times (1 GB once expanded)
        let entity = String(repeating: "a", count: 100_000)
        let references = String(repeating: "&big;", count: 10_000)
        let document = Data(#"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY big "\#(entity)">]><r>\#(references)</r>"#.utf8)
        // WHEN it is parsed, directly and through a resource (with a generous safety net)
        let outcome = await withTimeLimit {
            (treeParsingError(document), TreeResource().result(from: document).failure)
        }
        // THEN it is refused for its DTD
        #expect(outcome?.0 == .doctypeNotAllowed)
        #expect(outcome?.1.flatMap(xmlParsingError) == .doctypeNotAllowed)
    }

    @Test func doctypeTextInsideCommentsCDATAAndInstructionsIsOnlyText() throws {
        let tree = try XMLTree(string: "<!-- <!DOCTYPE x> --><?pi <!DOCTYPE y>?><r><![CDATA[<!DOCTYPE z>]]></r>")
        #expect(tree.root.text == "<!DOCTYPE z>")
    }

    // MARK: The XML declaration

    /// Documents that once passed the preflight: it read only the first 512 bytes of the XML
    /// declaration, libxml2 read it all and decoded the rest in the encoding named past that
    /// point. In UTF-7, `+ADw-` is `<` and `+ACY-` is `&`, so the preflight saw text where libxml2
    /// saw a DTD that adds an `xmlns` default (moving the root into another namespace), an entity
    /// that silently removes text, and an external entity.
    static let smugglingDocuments: [(name: String, document: [UInt8], expected: XMLParsingError)] = {
        let padding = String(repeating: " ", count: 600)
        func declared(_ encoding: String, _ rest: String, padding: String = padding) -> [UInt8] {
            Array((#"<?xml version="1.0""# + padding + #"encoding="\#(encoding)"?>"# + rest).utf8)
        }
        let attlist = #"+ADw-!DOCTYPE r [+ADw-!ATTLIST r xmlns CDATA "urn:evil">]><r/>"#
        return [
            ("UTF-7, an xmlns default", declared("UTF-7", attlist), .unsupportedEncoding("UTF-7")),
            ("UTF-7, an entity that removes text", declared("UTF-7", #"+ADw-!DOCTYPE r [+ADw-!ENTITY e "">]><r>a+ACY-e;b</r>"#),
             .unsupportedEncoding("UTF-7")),
            ("UTF-7, an external entity",
             declared("UTF-7", #"+ADw-!DOCTYPE r [+ADw-!ENTITY x SYSTEM "file:///etc/hostname">]><r>a+ACY-x;b</r>"#),
             .unsupportedEncoding("UTF-7")),
            ("UTF-7, padded with line breaks and tabs",
             Array(("<?xml version=\"1.0\"" + String(repeating: "\n\t", count: 300) + "encoding='utf-7'?>" + attlist).utf8),
             .unsupportedEncoding("utf-7")),
            ("UTF-7, padded past the declaration's bound", declared("UTF-7", attlist, padding: String(repeating: " ", count: 5000)),
             .malformed(line: 1, column: 4097)),
            ("windows-1252, UTF-8 text that would be mis-decoded", declared("windows-1252", "<r>Zürich</r>"),
             .unsupportedEncoding("windows-1252")),
            ("windows-1252, an xmlns default", declared("windows-1252", #"<!DOCTYPE r [<!ATTLIST r xmlns CDATA "urn:evil">]><r/>"#),
             .unsupportedEncoding("windows-1252")),
            ("ISO-8859-1, an xmlns default", declared("ISO-8859-1", #"<!DOCTYPE r [<!ATTLIST r xmlns CDATA "urn:evil">]><r/>"#),
             .doctypeNotAllowed),
        ]
    }()

    @Test(arguments: smugglingDocuments.indices)
    func aLongDeclarationCannotSmuggleAnEncodingOrADTD(index: Int) throws {
        // GIVEN a document whose declaration names an encoding past the first 512 bytes
        let (name, document, expected) = Self.smugglingDocuments[index]
        // WHEN it is parsed, directly and through a resource
        let error = treeParsingError(Data(document))
        let resourceError = try #require(TreeResource().result(from: Data(document)).failure, "\(name)")
        // THEN it is refused with a typed error, never a tree
        #expect(error == expected, "\(name)")
        #expect(xmlParsingError(resourceError) == expected, "\(name)")
    }

    @Test func aLongDeclarationNamingISO88591IsReadAsISO88591() throws {
        // GIVEN ISO-8859-1 bytes for "Zürich" after a declaration padded past 512 bytes
        let document = Data((#"<?xml version="1.0""# + String(repeating: " ", count: 600) + #"encoding="ISO-8859-1"?><r>Z"#).utf8)
            + Data([0xFC]) + Data("rich</r>".utf8)
        // WHEN it is parsed, THEN the text is what ISO-8859-1 says
        #expect(try XMLTree(data: document).root.text == "Zürich")
    }

    // MARK: Processing instructions

    @Test(arguments: [
        "<?pi?><r>text</r>",
        "<r><?pi?>text</r>",
        "<r>text</r><?pi?>",
        "\u{FEFF}<?pi?><r>text</r>",
        "<?xml version=\"1.0\"?><?xml-stylesheet?><r><?a?><?b?>text</r><?c?>",
    ])
    func anInstructionWithoutDataParses(document: String) throws {
        // `<?pi?>` once crashed the process: FoundationXML read libxml2's null data pointer.
        let tree = try XMLTree(string: document)
        #expect(tree.root.name == "r")
        #expect(tree.root.text == "text")
    }

    @Test func errorsAfterAnInstructionWithoutDataAreStillTyped() {
        #expect(treeParsingError("<r><?pi?><b></r>")?.kind == "malformed")
        #expect(treeParsingError("<r/><?pi?><b/>")?.kind == "contentAfterRoot")
        #expect(treeParsingError("<r><?pi?>")?.kind == "truncated" || treeParsingError("<r><?pi?>")?.kind == "malformed")
    }

    // MARK: Helpers

    /// Every error a cut-short document can end with.
    private static let truncationErrors: Set<String> = [
        "empty", "noRoot", "truncated", "malformed", "invalidUTF8", "unsupportedEncoding", "undeclaredEntity",
    ]

    private static let richDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <?app instruction data?>
        <!-- a comment: <r> & </r> -->
        <r:root xmlns:r="urn:r" xmlns="urn:default" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
          <item id="1" r:kind='a &amp; b &#x1F600;' xsi:nil="true"/>
          <item id="2">Zürich — 東京 &lt; 😀 &#65;<![CDATA[<raw> & ]]>tail</item>
          <inner xmlns="urn:other"><deep><deeper>text</deeper></deep></inner>
          <?inner instruction?>
          <!-- inner comment -->
        </r:root>
        <!-- trailing comment -->

        """

    // MARK: Quadratic shapes

    @Test func quadraticShapesEndWithATypedError() async {
        // GIVEN the shapes that made libxml2 (and the tree builder) quadratic: one element with
        // 100,000 attributes; thousands of namespace declarations, on one element or spread over
        // nested ones, used by thousands of prefixed elements; many nested declaring elements
        var attributes = "<a"
        for index in 0..<100_000 { attributes += " a\(index)=\"\"" }
        attributes += "/>"
        var nested = ""
        for index in 0..<400 { nested += "<e xmlns:a\(index)='u' xmlns:b\(index)='v'>" }
        nested += String(repeating: "</e>", count: 400)
        let shapes: [(Data, XMLParsingError)] = [
            (Data(attributes.utf8), .tooManyAttributes(limit: 256)),
            (XMLParserLimitsTests.manyDeclarations(5_000, elements: 20_000), .tooManyNamespaceDeclarations(limit: 128)),
            (XMLParserLimitsTests.manyDeclarations(100, levels: 50, elements: 20_000), .tooManyNamespacesInScope(limit: 512)),
            (Data(nested.utf8), .tooManyNamespacesInScope(limit: 512)),
        ]
        // WHEN they are parsed, directly and through a resource (a safety net, not a timing)
        await withTimeLimit(.seconds(120)) {
            for (data, expected) in shapes {
                // THEN each ends with the typed error, at the start tag that passes the limit
                #expect(treeParsingError(data) == expected)
                let error = TreeResource().result(from: data).failure
                #expect(error.flatMap(xmlParsingError) == expected)
            }
        }
    }

    private func isXMLParsingFailure(_ error: ResourceError) -> Bool {
        xmlParsingError(error) != nil
    }

    private func xmlParsingError(_ error: ResourceError) -> XMLParsingError? {
        guard case .parsing(let failure) = error else { return nil }
        return failure.underlying as? XMLParsingError
    }
}

extension XMLParsingError {
    /// The case's name without its position, for assertions that must not depend on the
    /// columns libxml2 reports.
    fileprivate var kind: String {
        switch self {
        case .empty: "empty"
        case .tooLarge: "tooLarge"
        case .tooDeep: "tooDeep"
        case .unsupportedEncoding: "unsupportedEncoding"
        case .invalidUTF8: "invalidUTF8"
        case .invalidCharacter: "invalidCharacter"
        case .doctypeNotAllowed: "doctypeNotAllowed"
        case .undeclaredEntity: "undeclaredEntity"
        case .malformed: "malformed"
        case .contentAfterRoot: "contentAfterRoot"
        case .noRoot: "noRoot"
        case .truncated: "truncated"
        case .tagTooLong: "tagTooLong"
        case .nameTooLong: "nameTooLong"
        case .tooManyAttributes: "tooManyAttributes"
        case .tooManyNamespaceDeclarations: "tooManyNamespaceDeclarations"
        case .tooManyNamespacesInScope: "tooManyNamespacesInScope"
        case .externalEntityNotRead: "externalEntityNotRead"
        case .entityExpansionTooLarge: "entityExpansionTooLarge"
        case .entitiesNestedTooDeep: "entitiesNestedTooDeep"
        }
    }
}

/// A small, fast, seeded generator (SplitMix64), so that "random" cut points are the same on
/// every run. Shared by the bad-input tests.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
