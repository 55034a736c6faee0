import Foundation
@testable import ResourceLoader
import Testing

/// The decoder's child look-ups from a cursor (``XMLTree/Element/firstChildIndex(named:cursor:)``)
/// give the same answer as a search from the first child, whatever the prefixes.
@Suite("XML child cursor")
struct XMLChildCursorTests {
    @Test func equalLocalNamesHaveEqualBitsWhateverTheirPrefixes() throws {
        // GIVEN one local name written with two prefixes and none, and another name
        let tree = try XMLTree(string: #"<r xmlns:a="urn:a" xmlns:b="urn:b"><a:x/><y/><x/><b:x/><b:y/></r>"#)
        let bits = tree.root.children.map { tree.storage.localNameBit(of: $0.index) }
        // THEN each spelling of `x` has x's bit, and `y`'s spellings y's
        #expect(bits[0] == bits[2] && bits[2] == bits[3])
        #expect(bits[1] == bits[4])
        #expect(bits.allSatisfy { $0.nonzeroBitCount == 1 })
        // AND the namespaces stay apart
        #expect(tree.root.children(named: "x", namespaceURI: "urn:b").count == 1)
        #expect(tree.root.children(named: "x").count == 3)
    }

    @Test func lookUpsFromACursorFindTheFirstChildLikeASearchFromTheStart() throws {
        // GIVEN elements whose children are drawn from a few names, some prefixed, some
        // repeated, and look-ups in random orders (some of names no child has)
        var generator = SplitMix64(seed: 0x5EED)
        let spellings = ["a", "b", "c", "d", "p:a", "p:b", "q:c", "e"]
        var checked = 0
        for _ in 0..<400 {
            let count = Int.random(in: 0...9, using: &generator)
            let children = (0..<count).map { _ in spellings.randomElement(using: &generator)! }
            let body = children.enumerated().map { "<\($1)>\($0)</\($1)>" }.joined()
            let tree = try XMLTree(string: #"<r xmlns:p="urn:p" xmlns:q="urn:q">"# + body + "</r>")
            let root = tree.root
            var cursor = ChildCursor()
            for _ in 0..<12 {
                let name = ["a", "b", "c", "d", "e", "f"].randomElement(using: &generator)!
                // THEN the cursor's answer is the first child with that local name, or none
                #expect(root.firstChildIndex(named: name, cursor: &cursor) == root.firstChildIndex(named: name), "\(children) \(name)")
                checked += 1
            }
        }
        #expect(checked == 4_800)
    }

    @Test func lookUpsFromACursorWorkWithMoreNamesThanBits() throws {
        // GIVEN a record of 150 children with 100 distinct local names (so many share a bit),
        // some repeated and some prefixed, and look-ups in order, backwards and at random
        let names = (0..<150).map { index in index % 3 == 0 ? "p:k\(index % 100)" : "k\(index % 100)" }
        let body = names.enumerated().map { "<\($1)>\($0)</\($1)>" }.joined()
        let record = try XMLTree(string: #"<r xmlns:p="urn:p">"# + body + "</r>").root
        var generator = SplitMix64(seed: 0xB175)
        let keys = (0..<100).map { "k\($0)" }
        let orders = [keys, keys.reversed(), (0..<300).map { _ in "k\(Int.random(in: 0..<110, using: &generator))" }]
        for order in orders {
            var cursor = ChildCursor()
            for name in order {
                // THEN each look-up is the first match, or none
                #expect(record.firstChildIndex(named: name, cursor: &cursor) == record.firstChildIndex(named: name), "\(name)")
            }
        }
    }

    @Test func decodingKeysOutOfOrderAndTwiceReadsTheFirstElementOfEachName() throws {
        // GIVEN a record whose keys are decoded in another order than the document's, one twice,
        // with a name written once with a prefix and once without
        struct Record: Decodable {
            let z: String
            let x: String
            let y: String
            let xAgain: String
            enum Keys: String, CodingKey { case x, y, z }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                z = try container.decode(String.self, forKey: .z)
                x = try container.decode(String.self, forKey: .x)
                y = try container.decode(String.self, forKey: .y)
                xAgain = try container.decode(String.self, forKey: .x)
            }
        }
        let document = #"<r xmlns:a="urn:a"><a:x>1</a:x><y>2</y><z>3</z><x>4</x></r>"#
        let record = try XMLTreeDecoder().decode(Record.self, from: try XMLTree(string: document).root)
        // THEN each key reads the first element with its local name
        #expect([record.z, record.x, record.y, record.xAgain] == ["3", "1", "2", "1"])
    }

    @Test func aDictionaryOfManyDistinctNamesDecodes() throws {
        // GIVEN a record of 50,000 children, each of its own name (far more than the cursor's
        // filter has bits)
        let count = 50_000
        let body = (0..<count).map { "<k\($0)>\($0)</k\($0)>" }.joined()
        let tree = try XMLTree(string: "<r>" + body + "</r>")
        // WHEN it is decoded as a dictionary
        let decoded = try XMLTreeDecoder().decode([String: String].self, from: tree.root)
        // THEN every entry is there
        #expect(decoded.count == count)
        #expect((0..<count).allSatisfy { decoded["k\($0)"] == "\($0)" })
    }

    @Test func lookUpsInAnyOrderPassALinearNumberOfNodes() throws {
        // GIVEN a record of 20,000 children of 10,000 distinct names, some prefixed, some
        // repeated, each with a child of its own
        let count = 20_000
        let names = (0..<count).map { $0 % 3 == 0 ? "p:k\($0 % 10_000)" : "k\($0 % 10_000)" }
        let body = names.enumerated().map { "<\($1)><v>\($0)</v></\($1)>" }.joined()
        let record = try XMLTree(string: #"<r xmlns:p="urn:p">"# + body + "</r>").root
        let nodes = record.storage.end(of: record.index) - record.index - 1
        // (the first child of each local name, found in one walk)
        var expected: [String: Int] = [:]
        for child in record.children where expected[child.name] == nil { expected[child.name] = child.index }
        let keys = (0..<10_000).map { "k\($0)" }
        var generator = SplitMix64(seed: 0x7AB1E)
        let orders = [keys, keys.reversed(), keys.shuffled(using: &generator), keys + ["absent", "k0", "k9999"]]
        for order in orders {
            // WHEN the keys are looked up from one cursor
            var cursor = ChildCursor()
            var wrong = 0
            for name in order where record.firstChildIndex(named: name, cursor: &cursor) != expected[name] {
                wrong += 1
            }
            // THEN each look-up finds the first child of its name, and all of them together pass
            // fewer than four times the record's nodes
            #expect(wrong == 0)
            #expect(cursor.passed < 4 * nodes, "\(cursor.passed) nodes passed for \(nodes)")
        }
    }
}
