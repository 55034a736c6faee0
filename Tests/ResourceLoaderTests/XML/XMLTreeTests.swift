import Foundation
import ResourceLoader
import Testing

@Suite("XMLTree")
struct XMLTreeTests {
    let soapNamespace = "http://schemas.xmlsoap.org/soap/envelope/"

    @Test func parsesTheSeedResponse() throws {
        // GIVEN the seed's getUserDetails response
        let tree = try XMLTree(data: try Fixtures.data("getUserDetails-response"))
        // THEN the envelope, its namespace and the user's fields are all there
        #expect(tree.root.name == "Envelope")
        #expect(tree.root.prefix == "soap")
        #expect(tree.root.qualifiedName == "soap:Envelope")
        #expect(tree.root.namespaceURI == soapNamespace)
        let model = try #require(tree.root.element(atPath: ["Body", "getUserDetailsResponse", "getUserDetails", "userModel"]))
        #expect(model.children.map(\.name) == [
            "city", "email", "faxNumber", "firstName", "lastName", "phoneNumber", "postCode", "street1", "street2",
        ])
        #expect(model.child(named: "postCode")?.text == "IG1 1YT")
        #expect(model.parent?.name == "getUserDetails")
        #expect(tree.root.parent == nil)
    }

    @Test func leafTextsCollectsAFlatRecord() throws {
        let tree = try XMLTree(data: try Fixtures.data("getUserDetails-response"))
        let fields = try #require(tree.root.leafTexts(below: "getUserDetails"))
        #expect(fields.count == 9)
        #expect(fields["city"] == "London")
        #expect(fields["email"] == "fred.jones@example.com")
        #expect(fields["street2"] == "street2")
        #expect(tree.root.leafTexts(below: "noSuchElement") == nil)
    }

    @Test func lookUpsIgnoreWhateverPrefixTheDocumentUses() throws {
        // GIVEN the same envelope with three different prefix choices
        let documents = [
            #"<soap:Envelope xmlns:soap="\#(soapNamespace)"><soap:Body><r>1</r></soap:Body></soap:Envelope>"#,
            #"<S:Envelope xmlns:S="\#(soapNamespace)"><S:Body><r>1</r></S:Body></S:Envelope>"#,
            #"<Envelope xmlns="\#(soapNamespace)"><Body><r xmlns="">1</r></Body></Envelope>"#,
        ]
        let roots = try documents.map { try XMLTree(string: $0).root }
        for root in roots {
            // THEN each finds Body by local name and by namespace
            let body = try #require(root.child(named: "Body", namespaceURI: soapNamespace))
            #expect(body.namespaceURI == soapNamespace)
            #expect(body.child(named: "r")?.namespaceURI == nil)
            #expect(root.child(named: "Body", namespaceURI: "urn:other") == nil)
        }
        #expect(roots.map(\.qualifiedName) == ["soap:Envelope", "S:Envelope", "Envelope"])
        // AND the trees are equal: prefixes do not count
        #expect(roots[0] == roots[1])
        #expect(roots[1] == roots[2])
        #expect(roots[0].hashValue == roots[2].hashValue)
    }

    @Test func attributesCarryTheirNamespaces() throws {
        let root = try XMLTree(string: """
            <a xmlns:p="urn:outer" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="7" p:kind="x" xml:lang="en" xsi:nil="false">
              <b xmlns:p="urn:inner" p:kind="y"/>
              <c p:kind="z"/>
            </a>
            """).root
        #expect(root.attribute(named: "id") == "7")
        #expect(root.attributes.first { $0.name == "id" }?.namespaceURI == nil)
        #expect(root.attribute(named: "kind", namespaceURI: "urn:outer") == "x")
        #expect(root.attribute(named: "lang", namespaceURI: "http://www.w3.org/XML/1998/namespace") == "en")
        #expect(root.attribute(named: "nil", namespaceURI: "http://www.w3.org/2001/XMLSchema-instance") == "false")
        // Namespace declarations are not attributes.
        #expect(root.attributes.map(\.name).sorted() == ["id", "kind", "lang", "nil"])
        // A redeclared prefix applies inside its element only.
        #expect(root.child(named: "b")?.attribute(named: "kind", namespaceURI: "urn:inner") == "y")
        #expect(root.child(named: "b")?.attribute(named: "kind", namespaceURI: "urn:outer") == nil)
        #expect(root.child(named: "c")?.attribute(named: "kind", namespaceURI: "urn:outer") == "z")
    }

    @Test func lookUpsCompareNamespaceNamesAndPrefixesAsWritten() throws {
        // GIVEN an element in a namespace whose name has `é` as one code point (U+00E9), and a
        // look-up with the same name written as `e` and a combining accent (U+0065 U+0301):
        // equal as Swift strings, but a different namespace name
        let composed = "urn:caf\u{E9}"
        let decomposed = "urn:cafe\u{301}"
        let root = try XMLTree(data: Data(#"""
            <r xmlns:p="\#(composed)" xmlns:\#u{E9}="\#(composed)"><p:b p:k="v"><p:leaf>1</p:leaf></p:b></r>
            """#.utf8)).root
        // THEN only the name as written finds the element, its attribute and its descendants
        #expect(root.child(named: "b", namespaceURI: composed) != nil)
        #expect(root.child(named: "b", namespaceURI: decomposed) == nil)
        #expect(root.children(named: "b", namespaceURI: decomposed).isEmpty)
        #expect(root.firstDescendant(named: "leaf", namespaceURI: decomposed) == nil)
        #expect(root.leafTexts(below: "b", namespaceURI: decomposed) == nil)
        #expect(root.leafTexts(below: "b", namespaceURI: composed) == ["leaf": "1"])
        #expect(root.child(named: "b")?.attribute(named: "k", namespaceURI: composed) == "v")
        #expect(root.child(named: "b")?.attribute(named: "k", namespaceURI: decomposed) == nil)
        // AND a prefix resolves only as written
        #expect(root.namespaceURI(forPrefix: "\u{E9}") == composed)
        #expect(root.namespaceURI(forPrefix: "e\u{301}") == nil)
    }

    @Test func textDecodesReferencesAndIncludesCDATA() throws {
        let root = try XMLTree(string: """
            <t><e>&lt;&gt;&amp;&apos;&quot; &#65;&#x42; &#x1F600;</e><c>a <![CDATA[<b>&amp;</b> ]]]]><![CDATA[>]]> z</c></t>
            """).root
        #expect(root.child(named: "e")?.text == "<>&'\" AB 😀")
        #expect(root.child(named: "c")?.text == "a <b>&amp;</b> ]]> z")
    }

    @Test func textIsTheElementsOwnCharacterData() throws {
        let root = try XMLTree(string: "<p>Hello <b>bold</b> world</p>").root
        #expect(root.text == "Hello  world")
        #expect(root.child(named: "b")?.text == "bold")
        #expect(root.hasChildren)
        #expect(root.child(named: "b")?.hasChildren == false)
    }

    @Test func childrenKeepDocumentOrder() throws {
        let root = try XMLTree(string: "<r><x>1</x><y><x>nested</x></y><x>2</x><z/><x>3</x></r>").root
        #expect(root.children.map(\.name) == ["x", "y", "x", "z", "x"])
        #expect(root.children(named: "x").map(\.text) == ["1", "2", "3"])
        #expect(root.child(named: "x")?.text == "1")
        #expect(root.firstDescendant(named: "x")?.text == "1")
        #expect(root.child(named: "y")?.firstDescendant(named: "x")?.text == "nested")
        #expect(root.element(atPath: ["y", "x"])?.text == "nested")
        #expect(root.element(atPath: ["y", "nope"]) == nil)
        #expect(root.element(atPath: []) == root)
    }

    @Test func aUTF8ByteOrderMarkIsAccepted() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(#"<?xml version="1.0" encoding="UTF-8"?><a>é</a>"#.utf8)
        #expect(try XMLTree(data: data).root.text == "é")
    }

    @Test func commentsAndProcessingInstructionsAreSkipped() throws {
        let root = try XMLTree(string: "<?xml version='1.0'?><!-- a & b --><?pi x?><r><!-- <!DOCTYPE x> &foo; -->t<?pi y?></r><!-- end -->").root
        #expect(root.name == "r")
        #expect(root.text == "t")
        #expect(!root.hasChildren)
    }

    @Test func equalityComparesContent() throws {
        let a = try XMLTree(string: #"<r k="1" j="2"><x>1</x></r>"#).root
        let b = try XMLTree(string: #"<r j="2" k="1"><x>1</x></r>"#).root
        let c = try XMLTree(string: #"<r k="1" j="2"><x>2</x></r>"#).root
        let d = try XMLTree(string: #"<r k="1" j="2"><x>1</x><x/></r>"#).root
        #expect(a == b)
        #expect(a != c)
        #expect(a != d)
        #expect(a.description == "<r> (1 child)")
    }
}
