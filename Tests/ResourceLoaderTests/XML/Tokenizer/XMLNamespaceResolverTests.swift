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

    // MARK: Names compared as written

    /// `é` written as one code point (U+00E9) and as `e` and a combining acute accent
    /// (U+0065 U+0301): equal as Swift strings, different names to Namespaces in XML.
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test func aPrefixIsDeclaredOnlyAsWritten() throws {
        // GIVEN a prefix declared in one form and used in the other
        let document = Data("<a xmlns:\(Self.composed)=\"urn:x\"><\(Self.decomposed):b/></a>".utf8)
        // THEN the prefix used is undeclared, and the document is refused
        let error = treeParsingError(document)
        #expect(error.map { if case .malformed = $0 { true } else { false } } == true, "\(String(describing: error))")
        // AND in the same form, it is declared
        let tree = try XMLTree(data: Data("<a xmlns:\(Self.composed)=\"urn:x\"><\(Self.composed):b/></a>".utf8))
        #expect(tree.root.children.first?.namespaceURI == "urn:x")
    }

    @Test func namespaceNamesThatDifferAsWrittenMakeDifferentAttributeNames() throws {
        // GIVEN two prefixes bound to namespace names that differ only in normalization, each
        // naming an attribute `x`; and two attributes in one namespace whose local names differ so
        let uris = ["urn:\(Self.composed)", "urn:\(Self.decomposed)"]
        let documents = [
            #"<a xmlns:p="\#(uris[0])" xmlns:q="\#(uris[1])" p:x="1" q:x="2"/>"#,
            #"<a xmlns:p="urn:x" xmlns:q="urn:x" p:\#(Self.composed)="1" q:\#(Self.decomposed)="2"/>"#,
        ]
        // AND the same with more prefixed attributes than the pairwise check takes
        let others = (0..<20).map { #" p:o\#($0)="\#($0)""# }.joined()
        for document in documents + documents.map({ $0.replacingOccurrences(of: "/>", with: others + "/>") }) {
            // THEN the attribute names are distinct: the document is accepted
            #expect(throws: Never.self, "\(document)") { try XMLTree(data: Data(document.utf8)) }
        }
        let root = try XMLTree(data: Data(documents[0].utf8)).root
        #expect(root.attribute(named: "x", namespaceURI: uris[0]) == "1")
        #expect(root.attribute(named: "x", namespaceURI: uris[1]) == "2")
        // AND the same namespace name written the same way twice is still a repeated attribute
        let repeated = #"<a xmlns:p="\#(uris[1])" xmlns:q="\#(uris[1])" p:x="1" q:x="2"/>"#
        #expect(treeParsingError(repeated) != nil)
        #expect(treeParsingError(repeated.replacingOccurrences(of: "/>", with: others + "/>")) != nil)
    }
}
