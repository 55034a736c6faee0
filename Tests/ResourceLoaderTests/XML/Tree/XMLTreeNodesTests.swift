import Foundation
@testable import ResourceLoader
import Testing

/// The tree's node list (a block grown with `realloc`), the open elements found through their
/// parents, and text read back whatever its length and characters.
@Suite("XML tree nodes")
struct XMLTreeNodesTests {
    private static func node(_ number: Int) -> XMLTree.Node {
        XMLTree.Node(
            name: UInt32(number), scope: 0, parent: Int32(number - 1), end: UInt32(number + 1),
            attributeStart: 0, textOffset: UInt32(number * 3), textCount: UInt32(number % 7))
    }

    @Test(arguments: [0, 1, 5])
    func nodesSurviveGrowingAndChanging(_ reserved: Int) {
        // GIVEN a list reserved small, then appended to well past it
        let nodes = XMLTreeNodes(capacity: reserved)
        #expect(nodes.isEmpty)
        for number in 0..<10_000 { nodes.append(Self.node(number)) }
        // WHEN some nodes are changed in place
        for number in stride(from: 0, to: 10_000, by: 3) { nodes[number].end = 7 }
        // THEN every node reads back as written, the changed ones changed
        #expect(nodes.count == 10_000)
        var wrong = 0
        for number in 0..<10_000 {
            var expected = Self.node(number)
            if number % 3 == 0 { expected.end = 7 }
            let node = nodes[number]
            if node.name != expected.name || node.parent != expected.parent || node.end != expected.end
                || node.textOffset != expected.textOffset || node.textCount != expected.textCount
            {
                wrong += 1
            }
        }
        #expect(wrong == 0)
        #expect(nodes.allNodes.count == 10_000)
    }

    @Test(arguments: [Int.max, 1 << 50])
    func aReservationThatCannotBeMadeIsLeftToGrowing(_ reserved: Int) {
        // GIVEN a list asked to reserve more than a tree can index (or even count in bytes),
        // which is never asked of the allocator (a sanitizer's stops the process on a request
        // it cannot meet)
        let nodes = XMLTreeNodes(capacity: reserved)
        // WHEN nodes are appended
        for number in 0..<100 { nodes.append(Self.node(number)) }
        // THEN it did not trap, and grew as needed
        #expect(nodes.count == 100)
        #expect(nodes[99].name == 99)
    }

    @Test func parentsAndEndsFollowTheDocumentsNesting() throws {
        // GIVEN elements nested and side by side, some empty, with text around them
        let tree = try XMLTree(string: "<r>a<b><c/>t<d><e>x</e></d></b>m<f/>z<g>y</g></r>")
        let nodes = tree.storage.nodes.allNodes
        // THEN each node's parent and end say where it is (r b c d e f g, in document order)
        #expect(nodes.map(\.parent) == [-1, 0, 1, 1, 3, 0, 0])
        #expect(nodes.map(\.end) == [7, 5, 3, 5, 5, 6, 7])
        // and text goes to the element it is in, the parent again after a child ended
        #expect(tree.root.text == "amz")
        #expect(tree.root.child(named: "b")?.text == "t")
        #expect(tree.root.firstDescendant(named: "e")?.text == "x")
        #expect(tree.root.child(named: "g")?.text == "y")
    }

    @Test func aDocumentCutShortInsideNestedElementsIsRefused() {
        // GIVEN documents that end with elements still open, at several depths
        for document in ["<r>", "<r><a>", "<r><a></a>", "<r><a><b/></a><c>text"] {
            // THEN each is refused as truncated: no partial tree
            #expect(throws: XMLParsingError.truncated, "\(document)") { try XMLTree(string: document) }
        }
    }

    @Test func textOfEveryLengthReadsBackAsWritten() throws {
        // GIVEN texts of 1 to 40 bytes, ASCII and not, around the 15 bytes a string keeps inline
        var texts: [String] = []
        for length in 1...40 {
            texts.append(String(repeating: "a", count: length))
            texts.append(String(repeating: "a", count: length - 1) + "\u{E9}")
            texts.append(String(repeating: "\u{1F600}", count: (length + 3) / 4))
        }
        let document = "<r>" + texts.map { "<t>\($0)</t>" }.joined() + "</r>"
        let tree = try XMLTree(string: document)
        // THEN each element's text is its string exactly
        #expect(tree.root.children(named: "t").map(\.text) == texts)
    }
}
