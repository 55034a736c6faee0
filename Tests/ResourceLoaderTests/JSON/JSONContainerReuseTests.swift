import Foundation
@testable import ResourceLoader
import Testing

/// The decoder hands a keyed container out again once nothing holds it: these models hold
/// containers in every way `init(from:)` can, and must read what `JSONDecoder` reads.
@Suite("JSONValueDecoder reusing keyed containers")
struct JSONContainerReuseTests {
    /// Keys by name, shared by several types so that their containers have one key type.
    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A tree: each node's container is held while its children are decoded.
    struct Node: Decodable, Equatable {
        let name: String
        let children: [Node]
        let size: Int?
    }

    /// Reads `first`, decodes `inner` (whose container has the same key type), then reads
    /// `last` from its own container.
    struct Outer: Decodable, Equatable {
        let first: String
        let inner: Inner
        let last: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            first = try container.decode(String.self, forKey: AnyKey("first"))
            inner = try container.decode(Inner.self, forKey: AnyKey("inner"))
            last = try container.decode(String.self, forKey: AnyKey("last"))
        }
    }

    struct Inner: Decodable, Equatable {
        let first: String
        let last: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            first = try container.decode(String.self, forKey: AnyKey("first"))
            last = try container.decode(String.self, forKey: AnyKey("last"))
        }
    }

    /// Keeps its container after `init(from:)` and reads from it later.
    struct Keeper: Decodable {
        let container: KeyedDecodingContainer<AnyKey>

        init(from decoder: any Decoder) throws {
            container = try decoder.container(keyedBy: AnyKey.self)
        }

        func name() throws -> String { try container.decode(String.self, forKey: AnyKey("name")) }
    }

    /// Keeps the decoder it was decoded with, weakly, and decodes a nested container.
    final class DecoderProbe: Decodable {
        weak var decoder: AnyObject?
        let inner: Inner

        init(from decoder: any Decoder) throws {
            self.decoder = decoder as AnyObject
            let container = try decoder.container(keyedBy: AnyKey.self)
            inner = try container.decode(Inner.self, forKey: AnyKey("inner"))
            _ = try container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("inner"))
        }
    }

    /// Decodes its member `base` through a super decoder.
    struct SuperUser: Decodable, Equatable {
        let base: Inner

        enum CodingKeys: String, CodingKey { case base }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            base = try Inner(from: container.superDecoder(forKey: .base))
        }
    }

    @Test("a tree decodes as JSONDecoder decodes it, each node read from its own object")
    func tree() throws {
        let text = """
            {"name":"root","size":1,"children":[
              {"name":"a","children":[{"name":"a1","children":[],"size":3},{"name":"a2","children":[]}]},
              {"name":"b","size":2,"children":[{"name":"b1","children":[{"name":"b11","children":[]}]}]}
            ]}
            """
        let ours = try JSONValueDecoderTests.decode(Node.self, text)
        #expect(ours == (try JSONDecoder().decode(Node.self, from: Data(text.utf8))))
        #expect(ours.children[1].children[0].children[0].name == "b11")
    }

    @Test("an error deep in a tree has JSONDecoder's coding path")
    func treeError() {
        JSONValueDecoderTests.expectSame(
            Node.self,
            #"{"name":"root","children":[{"name":"a","children":[]},{"name":"b","children":[{"name":7,"children":[]}]}]}"#)
        JSONValueDecoderTests.expectSame(
            Node.self,
            #"{"name":"root","children":[{"name":"a","children":[]},{"name":"b","children":[{"children":[]}]}]}"#)
    }

    @Test("a container held while a value with the same key type is decoded keeps its object")
    func heldWhileNestedDecodes() throws {
        let text = #"{"first":"outer 1","inner":{"first":"inner 1","last":"inner 2"},"last":"outer 2"}"#
        let outer = try JSONValueDecoderTests.decode(Outer.self, text)
        #expect(outer.first == "outer 1")
        #expect(outer.inner == (try JSONValueDecoderTests.decode(Inner.self, #"{"first":"inner 1","last":"inner 2"}"#)))
        #expect(outer.last == "outer 2")
        let many = try JSONValueDecoderTests.decode([Outer].self, "[\(text),\(text)]")
        #expect(many == [outer, outer])
    }

    @Test("containers kept past init(from:) go on reading their own objects")
    func keptContainers() throws {
        let names = (0..<40).map { "city \($0)" }
        let text = "[" + names.map { #"{"name":"\#($0)"}"# }.joined(separator: ",") + "]"
        let keepers = try JSONValueDecoderTests.decode([Keeper].self, text)
        #expect(try keepers.map { try $0.name() } == names)
    }

    @Test("the decoder is let go once the decode ends, and a super decoder keeps no containers")
    func noCycle() throws {
        weak var decoder: AnyObject?
        do {
            let probe = try JSONValueDecoderTests.decode(DecoderProbe.self, #"{"inner":{"first":"1","last":"2"}}"#)
            decoder = probe.decoder
            #expect(probe.inner.last == "2")
        }
        #expect(decoder == nil)
        let superUser = try JSONValueDecoderTests.decode(SuperUser.self, #"{"base":{"first":"1","last":"2"}}"#)
        #expect(superUser.base.first == "1")
        weak var superDecoder: AnyObject?
        do {
            let tree = try JSONParser.parse(Data(#"{"base":{"inner":{"first":"1","last":"2"}}}"#.utf8), options: .decoding)
            let outer = JSONValueDecoder(tree: tree, options: JSONDecodingOptions(), node: 0, path: [])
            let container = try outer.container(keyedBy: AnyKey.self)
            let probe = try DecoderProbe(from: container.superDecoder(forKey: AnyKey("base")))
            superDecoder = probe.decoder
            #expect(probe.inner.first == "1")
        }
        #expect(superDecoder == nil)
    }
}
