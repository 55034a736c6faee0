import Foundation
@testable import ResourceLoader
import Testing

/// Namespace scopes as elements open and close: the fast path for elements that declare
/// nothing, and the scopes of those that do.
@Suite("XML namespace scopes")
struct XMLNamespaceResolverTests {
    @Test func declarationsEndWithTheirElementWhateverTheSiblingsAndDepths() throws {
        // GIVEN default and prefixed declarations at several depths, between elements that declare none
        let document = #"<a xmlns="u1"><b><c xmlns="u2"><d/><d2></d2></c><e/></b><f xmlns:p="u3"><p:g/><h/></f><i/></a>"#
        let tree = try XMLTree(string: document)
        var namespaces: [String: String?] = [:]
        var pending = [tree.root]
        while let element = pending.popLast() {
            namespaces[element.name] = element.namespaceURI
            pending += element.children
        }
        // THEN each element is in the namespace in scope where it is
        let expected: [String: String?] = [
            "a": "u1", "b": "u1", "c": "u2", "d": "u2", "d2": "u2", "e": "u1", "f": "u1", "g": "u3", "h": "u1", "i": "u1",
        ]
        #expect(namespaces == expected)
    }

    @Test func aPrefixIsUnboundAfterItsElementEnds() {
        // GIVEN a prefix used after the element that declared it has ended
        for document in [#"<r><f xmlns:p="u"/><p:g/></r>"#, #"<r><f xmlns:p="u"><x/></f><y><p:g/></y></r>"#] {
            // THEN the document is refused
            #expect(throws: XMLParsingError.self, "\(document)") { try XMLTree(string: document) }
        }
        // and used inside it, it is bound
        #expect(throws: Never.self) { try XMLTree(string: #"<r><f xmlns:p="u"><x><p:g/></x></f></r>"#) }
    }

    @Test func theDefaultNamespaceIsRestoredAfterAnUndeclaration() throws {
        // GIVEN `xmlns=""` on an inner element
        let tree = try XMLTree(string: #"<a xmlns="u"><b xmlns=""><c/></b><d/></a>"#)
        // THEN its subtree is in no namespace, and its siblings are back in the default one
        #expect(tree.root.child(named: "b")?.namespaceURI == nil)
        #expect(tree.root.firstDescendant(named: "c")?.namespaceURI == nil)
        #expect(tree.root.child(named: "d")?.namespaceURI == "u")
    }
}
