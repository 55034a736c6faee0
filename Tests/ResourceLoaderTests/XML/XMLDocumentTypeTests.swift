import Foundation
import Testing

@testable import ResourceLoader

/// The DTDs the old `XMLParser`-based builder had to catch from libxml2's declaration callbacks
/// (and two it could not: an internal entity, whose text FoundationXML silently dropped, and a
/// notation without a public identifier, which crashed FoundationXML). On our own parser each is
/// refused with `doctypeNotAllowed` by default and, with the internal subset opted in, parses to
/// the tree the DTD describes.
@Suite("XML document type declarations")
struct XMLDocumentTypeTests {
    static let internalSubset: XMLParsingOptions = {
        var options = XMLParsingOptions()
        options.documentTypeDeclarations = .parseInternalSubset
        return options
    }()

    @Test(arguments: [
        #"<!DOCTYPE r [<!ATTLIST r xmlns CDATA "urn:evil">]><r/>"#,
        #"<!DOCTYPE r [<!ATTLIST r a CDATA "added">]><r/>"#,
        "<!DOCTYPE r [<!ELEMENT r ANY>]><r/>",
        #"<!DOCTYPE r [<!NOTATION n PUBLIC "-//N//EN" "urn:n">]><r/>"#,
        #"<!DOCTYPE r [<!NOTATION n SYSTEM "urn:n">]><r/>"#,
        #"<!DOCTYPE r [<!ENTITY e "text">]><r>a&e;b</r>"#,
    ])
    func aDoctypeIsRefusedByDefault(document: String) {
        #expect(treeParsingError(document) == .doctypeNotAllowed, "\(document.debugDescription)")
    }

    @Test func anUndeclaredEntityIsRefusedWithoutADoctype() {
        #expect(treeParsingError("<r>a&undeclared;b</r>") == .undeclaredEntity(name: "undeclared", line: 1, column: 5))
    }

    @Test func withTheInternalSubsetOptedInTheDeclarationsTakeEffect() throws {
        // An attribute default puts the root in the namespace the DTD names.
        let namespaced = try XMLTree(
            string: #"<!DOCTYPE r [<!ATTLIST r xmlns CDATA "urn:d">]><r/>"#, options: Self.internalSubset)
        #expect(namespaced.root.namespaceURI == "urn:d")
        let defaulted = try XMLTree(
            string: #"<!DOCTYPE r [<!ATTLIST r a CDATA "added">]><r/>"#, options: Self.internalSubset)
        #expect(defaulted.root.attribute(named: "a") == "added")
        // An internal entity's text is kept (FoundationXML dropped it).
        let entity = try XMLTree(
            string: #"<!DOCTYPE r [<!ENTITY e "text">]><r>a&e;b</r>"#, options: Self.internalSubset)
        #expect(entity.root.text == "atextb")
        // Element and notation declarations (a notation without a public identifier crashed
        // FoundationXML) are read and change nothing in the tree.
        for document in [
            "<!DOCTYPE r [<!ELEMENT r ANY>]><r/>", #"<!DOCTYPE r [<!NOTATION n SYSTEM "urn:n">]><r/>"#,
        ] {
            let tree = try XMLTree(string: document, options: Self.internalSubset)
            #expect(tree.root.name == "r" && tree.root.attributes.isEmpty && !tree.root.hasChildren)
        }
    }

    @Test func deeplyNestedContentModelsDoNotOverflowTheStack() async {
        // GIVEN an element declaration whose content model nests 150,000 groups, read inside a
        // task (a small stack)
        let depth = 150_000
        let document = Data((
            "<!DOCTYPE r [<!ELEMENT r " + String(repeating: "(", count: depth) + "a"
                + String(repeating: ")", count: depth) + ">]><r/>").utf8)
        var allowing = Self.internalSubset
        allowing.maximumDepth = 200_000
        let (allowed, refused) = await Task {
            (treeParsingError(document, options: allowing), treeParsingError(document, options: Self.internalSubset))
        }.value
        // THEN a depth limit that allows it reads it, and the default one refuses it
        #expect(allowed == nil)
        #expect(refused == .tooDeep(limit: XMLParsingOptions.defaultMaximumDepth))
    }

    @Test(arguments: [
        ("(a)", true), ("(a,b)*", true), ("((a,b)|c)+", true), ("(a?,(b|(c,d)*)+,e)", true),
        ("( ( a , b ) | c )", true), ("((a,b)|c,d)", false), ("(a|b,c)", false), ("((a)", false),
        ("(a))", false), ("()", false), ("(a,)", false), ("((a,b)", false), ("(a|(b,c|d))", false),
    ])
    func contentModelsAreCheckedAtEveryLevel(model: String, isWellFormed: Bool) {
        let error = treeParsingError("<!DOCTYPE r [<!ELEMENT r \(model)>]><r/>", options: Self.internalSubset)
        #expect((error == nil) == isWellFormed, "\(model): \(String(describing: error))")
    }
}
