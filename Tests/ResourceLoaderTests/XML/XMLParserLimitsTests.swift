import Foundation
import ResourceLoader
import Testing

/// Documents near libxml2's own limits, and the limits that keep parsing time linear: what
/// parses (namespace names that are not URIs, CDATA sections, comments and processing
/// instructions over 10,000,000 bytes) and what is refused with a typed error naming the limit
/// (over-long tags and names, too many attributes or namespace declarations).
@Suite("XML parser limits")
struct XMLParserLimitsTests {

    // MARK: Namespace names that are not absolute URIs

    @Test(arguments: ["MyNamespace", "tempuri", "my namespace", "urn:ok but spaced", "../relative"])
    func aDefaultNamespaceThatIsNotAnAbsoluteURIParses(namespace: String) throws {
        // GIVEN documents putting elements in that namespace as the default and with a prefix
        let asDefault = #"<a xmlns="\#(namespace)"><b>x</b></a>"#
        let withPrefix = #"<p:a xmlns:p="\#(namespace)"><p:b>x</p:b></p:a>"#
        for document in [asDefault, withPrefix] {
            // WHEN they are parsed
            let root = try XMLTree(string: document).root
            // THEN the namespace is the string as written, on the root and its child
            #expect(root.namespaceURI == namespace)
            #expect(root.child(named: "b", namespaceURI: namespace)?.text == "x")
        }
    }

    @Test func aSOAPEnvelopeWithARelativeOperationNamespaceRoundTrips() throws {
        // GIVEN an envelope as our own writer makes it, for a service whose namespace is "tempuri"
        let envelope = SOAPEnvelope(operation: "GetUser", operationNamespace: "tempuri", parameters: ["id": "7"])
        // WHEN our parser reads it back
        let root = try XMLTree(data: envelope.data()).root
        // THEN the operation and its parameter are in that namespace
        let operation = try #require(root.child(named: "Body")?.child(named: "GetUser", namespaceURI: "tempuri"))
        #expect(operation.child(named: "id", namespaceURI: "tempuri")?.text == "7")
    }

    @Test func anXMLSpaceValueLibxml2WarnsAboutIsAnAttribute() throws {
        let root = try XMLTree(string: #"<a xml:space="keep">x</a>"#).root
        #expect(root.attribute(named: "space", namespaceURI: "http://www.w3.org/XML/1998/namespace") == "keep")
    }

    @Test(arguments: [
        #"<a xmlns="x"><b></a>"#,
        #"<a:b:c xmlns:a="tempuri"/>"#,
        #"<a xmlns:p=""/>"#,
        #"<a xmlns="tempuri" b="1" b="2"/>"#,
        #"<p:a xmlns:q="tempuri"/>"#,
        #"<a xmlns="tempuri"></b>"#,
        #"<a xmlns="tempuri"/><b/>"#,
    ])
    func malformedDocumentsWithSuchNamespacesStillFail(document: String) {
        #expect(treeParsingError(document) != nil)
    }

    // MARK: Long CDATA sections, comments and processing instructions

    /// An element `<a>` holding `opener`, `length` bytes made of `pattern`, and `closer`.
    private static func document(opener: String, pattern: String, length: Int, closer: String) -> (Data, payload: Data) {
        let unit = Data(pattern.utf8)
        var payload = Data(capacity: length + unit.count)
        while payload.count < length { payload.append(unit) }
        var document = Data("<a>\(opener)".utf8)
        document.append(payload)
        document.append(Data("\(closer)<b>after</b></a>".utf8))
        return (document, payload)
    }

    @Test func aCDATASectionOverTenMegabytesParses() async throws {
        // GIVEN an 11 MB CDATA section of base64-like text with multi-byte characters, line
        // breaks (CRLF included) and lone `]`, so that cuts fall on awkward bytes
        let (data, payload) = Self.document(
            opener: "<![CDATA[", pattern: "QUJD+/0=] é 東京 😀\r\nxy]]", length: 11_000_000, closer: "]]>")
        // WHEN it is parsed
        let root = try await offTheCooperativePool { try XMLTree(data: data).root }
        // THEN the text is all of it, its line ends normalised as XML requires everywhere (CRLF
        // became LF; FoundationXML handed CDATA over with CRLF as written), and parsing went on
        let expected = Data(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").utf8)
        #expect(root.text.utf8.count == expected.count)
        // Compared as one Bool: a failing `==` of two 11 MB values would make Swift Testing diff them.
        let isWhole = Data(root.text.utf8) == expected
        #expect(isWhole)
        #expect(root.child(named: "b")?.text == "after")
    }

    @Test(arguments: [("<!--", "-x- é\r\n", "-->"), ("<?instruction ", "?x? é\r\n", "?>")])
    func aCommentOrInstructionOverTenMegabytesParses(opener: String, pattern: String, closer: String) async throws {
        let (data, _) = Self.document(opener: opener, pattern: pattern, length: 11_000_000, closer: closer)
        let root = try await offTheCooperativePool { try XMLTree(data: data).root }
        #expect(root.text == "")
        #expect(root.child(named: "b")?.text == "after")
    }

    @Test func textOverTenMegabytesParses() async throws {
        let (data, payload) = Self.document(opener: "", pattern: "text &amp; more ", length: 11_000_000, closer: "")
        let (text, expected) = try await offTheCooperativePool {
            (try XMLTree(data: data).root.text, String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "&amp;", with: "&"))
        }
        let isWhole = text == expected
        #expect(isWhole)
    }

    // MARK: Tags and names libxml2 cannot hold

    @Test func anAttributeValueOverTheTagLimitIsATypedError() async throws {
        let limit = 8 * 1024 * 1024
        let errors = try await offTheCooperativePool { () -> [XMLParsingError?] in
            let value = String(repeating: "v", count: 11_000_000)
            // Many attributes that together pass it, and whitespace in a start or end tag, which
            // libxml2 holds too, and an unfinished tag.
            let many = (0..<20).map { " a\($0)='\(String(repeating: "v", count: 500_000))'" }.joined()
            let spaces = String(repeating: " ", count: 11_000_000)
            return [
                "<a b='\(value)'/>", "<r><a b=\"\(value)\">x</a></r>", "<a\(many)/>", "<a\(spaces)/>",
                "<a></a\(spaces)>", "<a b='\(value)",
            ].map { treeParsingError($0) }
        }
        #expect(errors == Array(repeating: .tagTooLong(limit: limit), count: 6))
    }

    @Test func anAttributeValueJustUnderTheTagLimitParses() throws {
        let value = String(repeating: "v", count: 8 * 1024 * 1024 - 20)
        let root = try XMLTree(string: "<a b='\(value)'/>").root
        #expect(root.attribute(named: "b")?.utf8.count == value.utf8.count)
    }

    @Test func startAndEndTagsAtTheTagLimitParseAndOneByteMoreIsRefused() async throws {
        let limit = 8 * 1024 * 1024
        // GIVEN a start tag and an end tag padded with white space to exactly the limit,
        // `<` to `>` included, and each one byte longer
        let errors = try await offTheCooperativePool { () -> [XMLParsingError?] in
            func spaces(_ count: Int) -> String { String(repeating: " ", count: count) }
            // WHEN they are parsed
            return [
                "<a\(spaces(limit - 3))></a>", "<a></a\(spaces(limit - 4))>",
                "<a\(spaces(limit - 2))></a>", "<a></a\(spaces(limit - 3))>",
            ].map { treeParsingError($0) }
        }
        // THEN the tags at the limit parse, and those one byte over are refused alike
        #expect(errors == [nil, nil, .tagTooLong(limit: limit), .tagTooLong(limit: limit)])
    }

    @Test func namesOverFiftyThousandBytesAreATypedError() throws {
        let longest = String(repeating: "n", count: 50_000)
        let tooLong = longest + "n"
        // Names at the limit parse...
        #expect(try XMLTree(string: "<\(longest)/>").root.name == longest)
        #expect(try XMLTree(string: "<a \(longest)='1'/>").root.attribute(named: longest) == "1")
        // ...one byte more is refused, for elements, attributes and instruction targets
        for document in [
            "<\(tooLong)/>", "<\(tooLong)>x</\(tooLong)>", "<\(tooLong) a='1'/>", "<\(tooLong)\n/>",
            "<a \(tooLong)='1'/>", "<a x='1'\n \(tooLong) = '1'/>", "<a><?\(tooLong) data?></a>",
        ] {
            #expect(treeParsingError(document) == .nameTooLong(limit: 50_000))
        }
    }

    // MARK: Attributes and namespace declarations

    @Test func elementsOverTheAttributeLimitAreRefused() {
        let options = XMLParsingOptions(maximumAttributesPerElement: 4)
        let four = (0..<4).map { " a\($0)='\($0)'" }.joined()
        // Namespace declarations are not attributes, and quoted `>`, `=` and `/>` are values
        #expect(treeParsingError("<r xmlns='u' xmlns:p='v'\(four)><x a='>=/>\"' b=\"'>\"/></r>", options: options) == nil)
        #expect(treeParsingError("<r\(four) a4='4'/>", options: options) == .tooManyAttributes(limit: 4))
        #expect(treeParsingError("<r><x\(four)\n\ta4 = \"4\"></x></r>", options: options) == .tooManyAttributes(limit: 4))
    }

    @Test func elementsOverTheDeclarationLimitAreRefused() {
        let options = XMLParsingOptions(maximumNamespaceDeclarationsPerElement: 3)
        #expect(treeParsingError("<r xmlns='u' xmlns:a='a' xmlns:b='b'/>", options: options) == nil)
        #expect(
            treeParsingError("<r xmlns='u' xmlns:a='a' xmlns:b='b' xmlns:c='c'/>", options: options)
                == .tooManyNamespaceDeclarations(limit: 3))
        // An attribute merely named like a declaration is an attribute
        #expect(treeParsingError("<r xmlnsa='1' xmlns:a='a' xmlns:b='b' xmlns:c='c'/>", options: options) == nil)
    }

    @Test func declarationsInScopeOverTheLimitAreRefused() {
        let options = XMLParsingOptions(maximumNamespaceDeclarationsInScope: 4)
        // Siblings' declarations end with them; self-closing elements' too
        let siblings = "<r xmlns:a='a' xmlns:b='b'><x xmlns:c='c' xmlns:d='d'/><y xmlns:c='c' xmlns:d='d'></y><z xmlns:e='e'/></r>"
        #expect(treeParsingError(siblings, options: options) == nil)
        // Nested ones add up, redeclarations included
        let nested = "<r xmlns='a'><x xmlns='b'><y xmlns='c'><z xmlns='d'><w xmlns='e'/></z></y></x></r>"
        #expect(treeParsingError(nested, options: options) == .tooManyNamespacesInScope(limit: 4))
        // Declarations inside comments, CDATA sections and values do not count
        let hidden = "<r xmlns='a' xmlns:b='b' xmlns:c='c' xmlns:d='d' v=\"&lt;x xmlns:e='e'>\"><!-- <x xmlns:e='e'> --><![CDATA[ xmlns:e='e' ]]></r>"
        #expect(treeParsingError(hidden, options: options) == nil)
    }

    @Test func prefixesResolveToTheInnermostBindingWithManyInScope() throws {
        // GIVEN 30 nested elements, each declaring its own prefix and redeclaring `q` and the
        // default namespace (more bindings than the builder compares one by one), and elements
        // after the inner ones close, where the outer bindings apply again
        var document = ""
        for level in 0..<30 {
            document += "<e xmlns='urn:d\(level)' xmlns:q='urn:q\(level)' xmlns:p\(level)='urn:p\(level)' q:a='\(level)'>"
            document += "<p0:x q:b='\(level)'/>"
        }
        for level in (0..<30).reversed() {
            document += "<after q:c='\(level)'/></e>"
        }
        // WHEN it is parsed
        var element = try XMLTree(string: document).root
        // THEN every name resolves to the binding in scope where it is written
        for level in 0..<30 {
            #expect(element.namespaceURI == "urn:d\(level)")
            #expect(element.attribute(named: "a", namespaceURI: "urn:q\(level)") == "\(level)")
            let x = try #require(element.child(named: "x", namespaceURI: "urn:p0"))
            #expect(x.attribute(named: "b", namespaceURI: "urn:q\(level)") == "\(level)")
            let after = try #require(element.child(named: "after", namespaceURI: "urn:d\(level)"))
            #expect(after.attribute(named: "c", namespaceURI: "urn:q\(level)") == "\(level)")
            guard level < 29 else { break }
            element = try #require(element.child(named: "e"))
        }
    }

    @Test func theAttributeAndNamespaceLimitsCountExactlyWhatTheDocumentHolds() throws {
        // GIVEN 300 seeded random documents: nested elements with attributes and namespace
        // declarations, written with every kind of whitespace around `=`, both quotes, values
        // holding `>`, `/>`, `=`, the other quote and references, self-closing and not, with
        // comments, CDATA sections and instructions holding fake tags, and the true counts
        var generator = SplitMix64(seed: 0xA77_0C0DE)
        var checked = (attributes: 0, declarations: 0, inScope: 0)
        for _ in 0..<300 {
            var document = RandomDocument()
            document.element(depth: 0, using: &generator)
            let text = document.text
            // WHEN each is parsed with limits at the true counts, and one below each
            // THEN it parses at them, and fails with the matching error one below
            let exact = XMLParsingOptions(
                maximumAttributesPerElement: document.mostAttributes,
                maximumNamespaceDeclarationsPerElement: document.mostDeclarations,
                maximumNamespaceDeclarationsInScope: document.mostInScope)
            #expect(treeParsingError(text, options: exact) == nil, "\(text)")
            if document.mostAttributes > 0 {
                var options = exact
                options.maximumAttributesPerElement -= 1
                checked.attributes += 1
                #expect(treeParsingError(text, options: options) == .tooManyAttributes(limit: options.maximumAttributesPerElement), "\(text)")
            }
            if document.mostDeclarations > 0 {
                var options = exact
                options.maximumNamespaceDeclarationsPerElement -= 1
                checked.declarations += 1
                #expect(
                    treeParsingError(text, options: options) == .tooManyNamespaceDeclarations(limit: options.maximumNamespaceDeclarationsPerElement),
                    "\(text)")
            }
            if document.mostInScope > document.mostDeclarations {
                var options = exact
                options.maximumNamespaceDeclarationsInScope -= 1
                checked.inScope += 1
                #expect(treeParsingError(text, options: options) == .tooManyNamespacesInScope(limit: options.maximumNamespaceDeclarationsInScope), "\(text)")
            }
        }
        // AND each limit was exercised many times
        #expect(checked.attributes > 200 && checked.declarations > 200 && checked.inScope > 50, "\(checked)")
    }

    @Test func theDefaultLimits() {
        let options = XMLParsingOptions()
        #expect(options.maximumAttributesPerElement == 256)
        #expect(options.maximumNamespaceDeclarationsPerElement == 128)
        #expect(options.maximumNamespaceDeclarationsInScope == 512)
    }

    // MARK: Time linear in the size (the hostile shapes are in XMLBadInputTests)

    /// `declarations` prefixes declared on each of `levels` nested elements, then `elements`
    /// elements using the outermost first prefix, the one libxml2 finds last.
    static func manyDeclarations(_ declarations: Int, levels: Int = 1, elements: Int) -> Data {
        var text = ""
        for level in 0..<levels {
            text += "<r"
            for index in 0..<declarations { text += " xmlns:p\(level)x\(index)=\"urn:\(index)\"" }
            text += ">"
        }
        for _ in 0..<elements { text += "<p0x0:e p0x0:a=\"1\"/>" }
        return Data((text + String(repeating: "</r>", count: levels)).utf8)
    }

    @Test func documentsAtTheLimitsParseInTimeLinearInTheirSize() async throws {
        // GIVEN documents just under the limits, the worst shapes for libxml2 and the builder,
        // and versions of them twice as long
        let attributeLimit = XMLParsingOptions.defaultMaximumAttributesPerElement
        @Sendable func elementsAtTheAttributeLimit(_ count: Int) -> Data {
            var text = "<r>"
            let attributes = (0..<attributeLimit).map { " a\($0)=''" }.joined()
            for _ in 0..<count { text += "<e\(attributes)/>" }
            return Data((text + "</r>").utf8)
        }
        let declarations = XMLParsingOptions.defaultMaximumNamespaceDeclarationsPerElement
        let levels = XMLParsingOptions.defaultMaximumNamespaceDeclarationsInScope / declarations
        // WHEN they are parsed
        let outcome = await withTimeLimit(.seconds(120)) { () -> [Int]? in
            var counts: [Int] = []
            for data in [
                elementsAtTheAttributeLimit(250), elementsAtTheAttributeLimit(500),
                Self.manyDeclarations(declarations, levels: levels, elements: 12_500),
                Self.manyDeclarations(declarations, levels: levels, elements: 25_000),
            ] {
                guard var element = try? await offTheCooperativePool({ try XMLTree(data: data).root }) else { return nil }
                while element.name == "r", let child = element.children.first, child.name == "r" { element = child }
                counts.append(element.children.count)
            }
            return counts
        }
        // THEN they all parse, well inside a generous bound
        #expect(outcome == [250, 500, 12_500, 25_000])
    }
}

/// A random well-formed document, and the most attributes, declarations per element and
/// declarations in scope any of its elements has.
private struct RandomDocument {
    var text = ""
    var mostAttributes = 0
    var mostDeclarations = 0
    var mostInScope = 0
    private var inScope = 0

    private static let spaces = ["", " ", "\n", "\t", "\r\n", "  \n "]
    private static let values = ["", "x", ">", "/>", "a=b", "'", "&lt;&amp;&#62;", "é 東京", "<!-- -->".replacingOccurrences(of: "<", with: "&lt;")]
    private static let fillers = [
        "<!-- <x a='1' xmlns:z='z'> -->", "<![CDATA[ <x a='1' xmlns:z='z'/> ]]>", "<?pi <x a='1'> ?>", "text &gt; more", "\n  ",
    ]

    mutating func element<G: RandomNumberGenerator>(depth: Int, using generator: inout G) {
        let name = ["e", "item", "p:e", "é"].randomElement(using: &generator)!
        let declarations = Int.random(in: 0...3, using: &generator)
        let attributes = Int.random(in: 0...5, using: &generator)
        // `p` is declared at the root, so `p:e` is always bound
        let declared = depth == 0 ? max(declarations, 1) : declarations
        text += "<\(name)"
        for index in 0..<declared {
            let prefix = depth == 0 && index == 0 ? "xmlns:p" : index == 1 ? "xmlns" : "xmlns:d\(index)"
            text += " \(prefix)\(Self.spaces.randomElement(using: &generator)!)=\(Self.spaces.randomElement(using: &generator)!)'urn:\(index)'"
        }
        for index in 0..<attributes {
            let quote = Bool.random(using: &generator) ? "\"" : "'"
            var value = Self.values.randomElement(using: &generator)!
            if value == quote { value = "" }
            let attributeName = index == 0 ? "xmlnsx" : index == 1 ? "p:a" : "a\(index)"
            let gap = Self.spaces.randomElement(using: &generator)!
            text += "\(gap.isEmpty ? " " : gap)\(attributeName)"
            text += "\(Self.spaces.randomElement(using: &generator)!)=\(Self.spaces.randomElement(using: &generator)!)\(quote)\(value)\(quote)"
        }
        text += Self.spaces.randomElement(using: &generator)!
        mostAttributes = max(mostAttributes, attributes)
        mostDeclarations = max(mostDeclarations, declared)
        mostInScope = max(mostInScope, inScope + declared)
        if depth >= 4 || Int.random(in: 0..<3, using: &generator) == 0 {
            text += "/>"
            return
        }
        text += ">"
        inScope += declared
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            text += Self.fillers.randomElement(using: &generator)!
            element(depth: depth + 1, using: &generator)
        }
        inScope -= declared
        text += "</\(name)\(Self.spaces.randomElement(using: &generator)!)>"
    }
}
