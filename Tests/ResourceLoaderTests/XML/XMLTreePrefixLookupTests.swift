import Foundation
import ResourceLoader
import Testing

@Suite("XMLTree.Element prefix look-up")
struct XMLTreePrefixLookupTests {
    @Test func aPrefixResolvesToTheNearestDeclaration() throws {
        let tree = try XMLTree(string: """
            <a xmlns:p="urn:outer" xmlns="urn:default"><b xmlns:p="urn:inner"><c/></b><d xmlns=""/></a>
            """)
        let b = try #require(tree.root.child(named: "b"))
        let c = try #require(b.child(named: "c"))
        let d = try #require(tree.root.child(named: "d"))
        #expect(tree.root.namespaceURI(forPrefix: "p") == "urn:outer")
        #expect(b.namespaceURI(forPrefix: "p") == "urn:inner")
        #expect(c.namespaceURI(forPrefix: "p") == "urn:inner")
        #expect(c.namespaceURI(forPrefix: nil) == "urn:default")
        #expect(c.namespaceURI(forPrefix: "") == "urn:default")
        #expect(d.namespaceURI(forPrefix: nil) == nil)
        #expect(d.namespaceURI(forPrefix: "p") == "urn:outer")
    }

    @Test func unboundPrefixesAndTheXMLPrefix() throws {
        let root = try XMLTree(string: "<a/>").root
        #expect(root.namespaceURI(forPrefix: "q") == nil)
        #expect(root.namespaceURI(forPrefix: nil) == nil)
        #expect(root.namespaceURI(forPrefix: "xml") == "http://www.w3.org/XML/1998/namespace")
    }

    @Test func declarationsDoNotChangeEquality() throws {
        let declared = try XMLTree(string: #"<a xmlns:unused="urn:x"><b/></a>"#).root
        let plain = try XMLTree(string: "<a><b/></a>").root
        #expect(declared == plain)
    }
}
