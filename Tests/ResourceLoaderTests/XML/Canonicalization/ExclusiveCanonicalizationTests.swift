import Foundation
@testable import ResourceLoader
import Testing

/// Exclusive canonicalization by the rules of W3C Canonical XML 1.0 (section 3's kinds of
/// example: PIs and comments around the root, white space, start and end tags, character
/// modifications) and of Exclusive XML Canonicalization 1.0 (section 2.2's point: an element's
/// form does not depend on the namespaces of the envelope it sits in). Each expected output is
/// written from the rules.
@Suite("Exclusive XML canonicalization: the W3C rules")
struct ExclusiveCanonicalizationTests {
    static let c14n = ExclusiveXMLCanonicalization()
    static let withComments = ExclusiveXMLCanonicalization(includesComments: true)

    static func canonical(_ text: String, _ method: ExclusiveXMLCanonicalization = c14n) throws -> String {
        String(decoding: try method.canonicalize(Data(text.utf8)), as: UTF8.self)
    }

    static func element(_ id: String, in text: String, _ method: ExclusiveXMLCanonicalization = c14n) throws -> String? {
        try XMLCanonicalDocument(data: Data(text.utf8)).canonicalizedElement(withID: id, using: method)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func processingInstructionsAndCommentsAroundTheRootStandOnLinesOfTheirOwn() throws {
        let document = """
            <?xml version="1.0"?>

            <?xml-stylesheet   href="doc.xsl"
               type="text/xsl"   ?>

            <doc>Hello, world!<!-- Comment 1 --></doc>

            <?pi-without-data     ?>

            <!-- Comment 2 -->

            <!-- Comment 3 -->
            """
        #expect(try Self.canonical(document) == """
            <?xml-stylesheet href="doc.xsl"
               type="text/xsl"   ?>
            <doc>Hello, world!</doc>
            <?pi-without-data?>
            """)
        #expect(try Self.canonical(document, Self.withComments) == """
            <?xml-stylesheet href="doc.xsl"
               type="text/xsl"   ?>
            <doc>Hello, world!<!-- Comment 1 --></doc>
            <?pi-without-data?>
            <!-- Comment 2 -->
            <!-- Comment 3 -->
            """)
    }

    @Test func whiteSpaceInContentIsKeptAndOutsideTheRootDropped() throws {
        let document = "  \n<doc>\n   <clean>   </clean>\n   <dirty>   A   B   </dirty>\n   <mixed>\n      A\n      <clean>   </clean>\n      B\n   </mixed>\n</doc>\n\n"
        #expect(try Self.canonical(document) == "<doc>\n   <clean>   </clean>\n   <dirty>   A   B   </dirty>\n   <mixed>\n      A\n      <clean>   </clean>\n      B\n   </mixed>\n</doc>")
    }

    @Test func emptyElementsAttributesAndNamespacesAreWrittenInCanonicalOrder() throws {
        let document = """
            <doc>
               <e1   />
               <e2   ></e2>
               <e3   name = "elem3"   id="elem3"   />
               <e4   name="elem4"   id="elem4"   ></e4>
               <e5 a:attr="out" b:attr="sorted" attr2="all" attr="I'm"
                  xmlns:b="http://www.ietf.org"
                  xmlns:a="http://www.w3.org"
                  xmlns="http://example.org"/>
               <e6 xmlns="" xmlns:a="http://www.w3.org">
                  <e7 xmlns="http://www.ietf.org">
                     <e8 xmlns="" xmlns:a="http://www.w3.org">
                        <e9 xmlns="" xmlns:a="http://www.ietf.org" a:attr="x"/>
                     </e8>
                  </e7>
               </e6>
            </doc>
            """
        #expect(try Self.canonical(document) == """
            <doc>
               <e1></e1>
               <e2></e2>
               <e3 id="elem3" name="elem3"></e3>
               <e4 id="elem4" name="elem4"></e4>
               <e5 xmlns="http://example.org" xmlns:a="http://www.w3.org" xmlns:b="http://www.ietf.org" attr="I'm" attr2="all" b:attr="sorted" a:attr="out"></e5>
               <e6>
                  <e7 xmlns="http://www.ietf.org">
                     <e8 xmlns="">
                        <e9 xmlns:a="http://www.ietf.org" a:attr="x"></e9>
                     </e8>
                  </e7>
               </e6>
            </doc>
            """)
    }

    @Test func charactersAndReferencesAreEscapedTheCanonicalWay() throws {
        let document = """
            <doc>
               <text>First line&#x0d;&#10;Second line</text>
               <value>&#x32;</value>
               <compute><![CDATA[value>"0" && value<"10" ?"valid":"error"]]></compute>
               <compute expr='value>"0" &amp;&amp; value&lt;"10" ?"valid":"error"'>valid</compute>
               <norm attr=' &apos;   &#x20;&#13;&#xa;&#9;   &apos; '/>
               <normNames attr='   A   &#x20;&#13;&#xa;&#9;   B   '/>
               <utf8>\u{e9}\u{1D11E}</utf8>
            </doc>
            """
        #expect(try Self.canonical(document) == """
            <doc>
               <text>First line&#xD;
            Second line</text>
               <value>2</value>
               <compute>value&gt;"0" &amp;&amp; value&lt;"10" ?"valid":"error"</compute>
               <compute expr="value>&quot;0&quot; &amp;&amp; value&lt;&quot;10&quot; ?&quot;valid&quot;:&quot;error&quot;">valid</compute>
               <norm attr=" '    &#xD;&#xA;&#x9;   ' "></norm>
               <normNames attr="   A    &#xD;&#xA;&#x9;   B   "></normNames>
               <utf8>\u{e9}\u{1D11E}</utf8>
            </doc>
            """)
    }

    @Test func lineEndsBecomeLineFeeds() throws {
        #expect(try Self.canonical("<a>x\r\ny\rz<!--c\r\n--></a>", Self.withComments) == "<a>x\ny\nz<!--c\n--></a>")
    }

    /// The point of exclusive canonicalization: the same element, in two envelopes that declare
    /// different namespaces around it, has one canonical form, with only what it utilizes.
    @Test func anElementsFormDoesNotDependOnItsEnvelope() throws {
        let first = """
            <n0:local xmlns:n0="foo:bar" xmlns:n3="ftp://example.org"><n1:elem2 xmlns:n1="http://example.net" xml:lang="en" Id="e"><n3:stuff xmlns:n3="ftp://example.org"/></n1:elem2></n0:local>
            """
        let second = """
            <n2:pdu xmlns:n1="http://example.com" xmlns:n2="http://foo.example" xml:lang="fr" xml:space="retain"><n1:elem2 xmlns:n1="http://example.net" xml:lang="en" Id="e"><n3:stuff xmlns:n3="ftp://example.org"/></n1:elem2></n2:pdu>
            """
        let expected = #"<n1:elem2 xmlns:n1="http://example.net" Id="e" xml:lang="en"><n3:stuff xmlns:n3="ftp://example.org"></n3:stuff></n1:elem2>"#
        #expect(try Self.element("e", in: first) == expected)
        #expect(try Self.element("e", in: second) == expected)
    }

    @Test func anInclusivePrefixIsDeclaredWhereverItIsInScope() throws {
        let document = """
            <n0:local xmlns:n0="foo:bar" xmlns="urn:default" xmlns:unused="urn:unused"><n1:elem2 xmlns:n1="http://example.net" Id="e"><inner/></n1:elem2></n0:local>
            """
        #expect(try Self.element("e", in: document) == #"<n1:elem2 xmlns:n1="http://example.net" Id="e"><inner xmlns="urn:default"></inner></n1:elem2>"#)
        let inclusive = ExclusiveXMLCanonicalization(inclusiveNamespacePrefixes: ["n0", "#default"])
        #expect(try Self.element("e", in: document, inclusive) == #"<n1:elem2 xmlns="urn:default" xmlns:n0="foo:bar" xmlns:n1="http://example.net" Id="e"><inner></inner></n1:elem2>"#)
    }

    @Test func anElementInNoNamespaceUndeclaresTheDefaultOnlyBelowOneThatRenderedIt() throws {
        let document = #"<r xmlns="urn:r"><a Id="a" xmlns=""><b/></a><c><d xmlns=""/></c></r>"#
        #expect(try Self.element("a", in: document) == #"<a Id="a"><b></b></a>"#)
        #expect(try Self.canonical(document) == #"<r xmlns="urn:r"><a xmlns="" Id="a"><b></b></a><c><d xmlns=""></d></c></r>"#)
    }

    @Test func commentsAndInstructionsInsideAnElementAreKeptWithoutLineEnds() throws {
        let document = #"<r><e Id="x"><!--note--><?p d?>t</e></r>"#
        #expect(try Self.element("x", in: document) == #"<e Id="x"><?p d?>t</e>"#)
        #expect(try Self.element("x", in: document, Self.withComments) == #"<e Id="x"><!--note--><?p d?>t</e>"#)
    }

    @Test func anIDThatIsMissingOrTakenTwiceSelectsNothing() throws {
        let document = #"<r xmlns:wsu="urn:wsu"><a wsu:Id="one"/><b ID="two"/><c id="two"/></r>"#
        #expect(try Self.element("one", in: document) == #"<a xmlns:wsu="urn:wsu" wsu:Id="one"></a>"#)
        #expect(try Self.element("two", in: document) == nil)
        #expect(try Self.element("three", in: document) == nil)
    }

    @Test func aDocumentTheParserRefusesIsATypedError() {
        #expect(throws: XMLParsingError.self) { try Self.canonical("<!DOCTYPE r [<!ENTITY e 'x'>]><r>&e;</r>") }
        #expect(throws: XMLParsingError.self) { try Self.canonical("<r><a></r>") }
        #expect(throws: XMLParsingError.self) { try Self.canonical("<p:r/>") }
    }

    @Test func theAlgorithmURIsAreTheRecommendations() {
        #expect(Self.c14n.algorithm == "http://www.w3.org/2001/10/xml-exc-c14n#")
        #expect(Self.withComments.algorithm == "http://www.w3.org/2001/10/xml-exc-c14n#WithComments")
    }
}
