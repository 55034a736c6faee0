import Foundation
@testable import ResourceLoader
import Testing

/// The tree's compact storage: text kept as byte ranges (document slices or the arena), names
/// by number, attributes as ranges of one shared array, and the node reservation.
@Suite("XML tree storage")
struct XMLTreeSinkTests {
    @Test func textInOnePieceIsCopiedOnceIntoTheArena() throws {
        // GIVEN elements whose text is written verbatim, one piece each
        let tree = try XMLTree(string: "<r><a>plain</a><b>caf\u{E9} \u{1F600}</b><c/></r>")
        // THEN the arena holds exactly their bytes, in the order the elements end
        #expect(tree.storage.arena.allBytes == Array("plaincaf\u{E9} \u{1F600}".utf8))
        #expect(tree.root.child(named: "a")?.text == "plain")
        #expect(tree.root.child(named: "b")?.text == "caf\u{E9} \u{1F600}")
        #expect(tree.root.child(named: "c")?.text == "")
        #expect(tree.root.text == "")
    }

    @Test func textInSeveralPiecesIsGatheredWhole() throws {
        // GIVEN text split by references, CDATA, a carriage return and child elements, nested
        let document = "<r>1<a>x&amp;y</a>2<b><![CDATA[<c>]]>tail</b>3<d>line\r\nend</d><e>&#233;</e>4</r>"
        let tree = try XMLTree(data: Data(document.utf8))
        // THEN each element's own text is whole and in document order, the children's apart
        #expect(tree.root.text == "1234")
        #expect(tree.root.child(named: "a")?.text == "x&y")
        #expect(tree.root.child(named: "b")?.text == "<c>tail")
        #expect(tree.root.child(named: "d")?.text == "line\nend")
        #expect(tree.root.child(named: "e")?.text == "\u{E9}")
        // and each text is in the arena once: nothing is left there from a first piece
        #expect(tree.storage.arena.count == "x&y<c>tailline\nend\u{E9}1234".utf8.count)
    }

    @Test func textSurvivesTheInputsRelease() throws {
        // GIVEN a tree parsed from a document that is then dropped
        var tree: XMLTree?
        do {
            let data = Data(("<r>" + String(repeating: "<v>value number one</v>", count: 1_000) + "</r>").utf8)
            tree = try XMLTree(data: data)
        }
        // THEN the text is still there (the storage keeps the bytes)
        let values = try #require(tree).root.children.map(\.text)
        #expect(values.count == 1_000 && values.allSatisfy { $0 == "value number one" })
    }

    @Test func attributesAreRangesOfOneArrayInDocumentOrder() throws {
        // GIVEN elements with none, one and several attributes, and namespace declarations
        let document = #"<r xmlns:p="urn:p" z="1" a="2"><e/><f p:k="3" b="4" xmlns="urn:d"/><g/></r>"#
        let tree = try XMLTree(string: document)
        let root = tree.root
        // THEN each element sees exactly its own, sorted by prefix then name
        #expect(root.attributes.map(\.name) == ["a", "z"])
        #expect(root.child(named: "e")?.attributes == [])
        #expect(root.child(named: "f")?.attributes.map(\.name) == ["b", "k"])
        #expect(root.child(named: "f")?.attribute(named: "k", namespaceURI: "urn:p") == "3")
        #expect(root.child(named: "g")?.attributes.isEmpty == true)
        #expect(tree.storage.attributes.count == 4)
    }

    @Test func namesAreSharedByNumber() throws {
        // GIVEN many elements with few distinct names, under two prefixes of one namespace
        let record = "<p:item><name>n</name><value>v</value></p:item><q:item><name>m</name></q:item>"
        let tree = try XMLTree(string: #"<r xmlns:p="urn:x" xmlns:q="urn:x">"# + String(repeating: record, count: 50) + "</r>")
        // THEN each distinct name is stored once per prefix, and look-ups still match by local name
        #expect(Set(tree.storage.nodes.allNodes.map(\.name)).count <= 5)
        #expect(tree.root.children(named: "item").count == 100)
        #expect(tree.root.children(named: "item", namespaceURI: "urn:x").count == 100)
        #expect(tree.root.firstDescendant(named: "value")?.text == "v")
        #expect(tree.root.children(named: "name").isEmpty)
    }

    @Test func theNodeReservationCoversTheDocument() {
        // GIVEN documents of repeated records, small and large
        func document(records: Int) -> [UInt8] {
            Array(("<r>" + String(repeating: "<!-- c --><a x=\"1\"><b>text</b><?pi?><c/></a>\n", count: records) + "</r>").utf8)
        }
        for records in [0, 10, 5_000, 40_000] {
            let bytes = document(records: records)
            let elements = 1 + 3 * records
            bytes.withUnsafeBufferPointer { buffer in
                // THEN the exact count skips end tags, comments and PIs
                #expect(XMLTreeSink.startTagCount(buffer) == elements)
                // and the estimate is at least the count, and not far above it
                let estimate = XMLTreeSink.expectedNodes(buffer)
                #expect(estimate >= elements)
                #expect(estimate <= max(elements + elements / 8, bytes.count / 16 + 16))
            }
        }
    }

    @Test func theNodeReservationIsBoundedByWhatTheBytesCanHold() async throws {
        // GIVEN a large document whose only element holds a comment of 8 MiB of `<`, each of
        // which the sample would count as a start tag
        let bytes = try await offTheCooperativePool {
            Array("<r><!--".utf8) + [UInt8](repeating: UInt8(ascii: "<"), count: 8 << 20) + Array("--></r>".utf8)
        }
        let (estimate, nodes) = try await offTheCooperativePool {
            try bytes.withUnsafeBufferPointer { buffer in
                // WHEN the reservation is estimated, and the document parsed
                (XMLTreeSink.expectedNodes(buffer), try XMLTree(data: Data(buffer)).storage.nodes.count)
            }
        }
        // THEN no more nodes are reserved than the smallest elements (`<a/>`, 4 bytes) could
        // fill, and the tree has its one node
        #expect(estimate <= bytes.count / 4 + 16)
        #expect(nodes == 1)
    }

    @Test func startTagsAreCountedAtEveryAlignment() {
        // GIVEN a start tag at each offset of an 8-byte word, and a `<` as the last byte
        for offset in 0 ..< 17 {
            let bytes = Array(String(repeating: " ", count: offset).utf8) + Array("<a></a><!x<?y<".utf8)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(XMLTreeSink.startTagCount(buffer) == 1, "offset \(offset)")
            }
        }
    }

    @Test func largeTreesStillCompareAndDecode() throws {
        // GIVEN two equal documents of 20,000 records, one with its text
        // in several pieces
        let plain = "<r>" + String(repeating: "<u><n>name</n><m>mail@example.com</m></u>", count: 20_000) + "</r>"
        let split = "<r>" + String(repeating: "<u><n>na<![CDATA[me]]></n><m>mail&#64;example.com</m></u>", count: 20_000) + "</r>"
        let left = try XMLTree(string: plain)
        let right = try XMLTree(string: split)
        // THEN they are equal, hash alike, and decode alike
        #expect(left.root == right.root)
        #expect(left.root.hashValue == right.root.hashValue)
        struct Record: Decodable, Equatable { let n: String; let m: String }
        struct Root: Decodable { let u: [Record] }
        let decoded = try XMLTreeDecoder().decode(Root.self, from: left.root)
        #expect(decoded.u.count == 20_000)
        #expect(decoded.u == (try XMLTreeDecoder().decode(Root.self, from: right.root)).u)
        #expect(decoded.u.last == Record(n: "name", m: "mail@example.com"))
    }
}
