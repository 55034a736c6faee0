import Foundation
@testable import ResourceLoader
import Testing

/// The markup `encoder` writes for `value` through a sink of `mode`; `nil` when streaming stopped
/// because the value was not written in document order.
private func sinkMarkup<T: Encodable>(
    _ value: T, as name: XMLQualifiedName, encoder: XMLTreeEncoder = XMLTreeEncoder(), mode: XMLEncodingSink.Mode
) throws -> String? {
    let sink = XMLEncodingSink(options: encoder, mode: mode)
    do {
        try encoder.encode(value, as: name, into: sink)
    } catch is XMLEncodingSink.Restart {
        #expect(sink.mustRestart)
        return nil
    }
    return try sink.finish().map { String(decoding: $0, as: UTF8.self) }
}

private struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Writes its attribute after its child element, as a hand-written `encode(to:)` may.
private struct AttributeLast: Encodable, XMLSchemaType {
    static let xmlSchema = XMLTypeSchema(fields: ["id": .attribute])
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameKey.self)
        try container.encode("x<y", forKey: NameKey("name"))
        try container.encode("7&8", forKey: NameKey("id"))
    }
}

/// Fills two nested containers in turns.
private struct Interleaved: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameKey.self)
        var first = container.nestedContainer(keyedBy: NameKey.self, forKey: NameKey("first"))
        var second = container.nestedContainer(keyedBy: NameKey.self, forKey: NameKey("second"))
        try first.encode(1, forKey: NameKey("a"))
        try second.encode(2, forKey: NameKey("a"))
        try first.encode(3, forKey: NameKey("b"))
    }
}

/// Writes its simple content after a child element.
private struct TextLast: Encodable, XMLSchemaType {
    static let xmlSchema = XMLTypeSchema(fields: ["value": .text])
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameKey.self)
        try container.encode("c", forKey: NameKey("child"))
        try container.encode("v", forKey: NameKey("value"))
    }
}

@Suite("XMLEncodingSink")
struct XMLEncodingSinkTests {
    @Test func streamingWritesWhatTheTreeWritesForEveryConstruct() throws {
        var generator = SeededGenerator(seed: 11)
        let encoders = [
            XMLTreeEncoder(),
            XMLTreeEncoder(elementFormDefault: .unqualified, namespacePrefixes: ["urn:specimen": "s", "urn:other": "o"]),
            XMLTreeEncoder(nilEncodingStrategy: .xsiNil),
        ]
        let name = XMLQualifiedName("specimen", namespaceURI: "urn:specimen")
        for round in 0..<60 {
            let value = Specimen.random(&generator)
            let encoder = encoders[round % encoders.count]
            let streamed = try sinkMarkup(value, as: name, encoder: encoder, mode: .streaming)
            let tree = try sinkMarkup(value, as: name, encoder: encoder, mode: .tree)
            #expect(streamed != nil, "round \(round): streaming stopped")
            #expect(streamed == tree, "round \(round)")
        }
        // Derived classes, choices and raw elements too.
        let pen = Pen(animal: Dog(name: "Rex", barks: true), others: [Animal(name: "Generic"), Dog(name: "Fido", barks: false)])
        #expect(try sinkMarkup(pen, as: XMLQualifiedName("pen"), mode: .streaming) == sinkMarkup(pen, as: XMLQualifiedName("pen"), mode: .tree))
        let checkout = Checkout(total: 3, payment: .card(Line(sku: "c", quantity: 1)), alternative: .pickup, after: "end")
        let checkoutName = XMLQualifiedName("checkout", namespaceURI: "urn:c")
        #expect(try sinkMarkup(checkout, as: checkoutName, mode: .streaming) == sinkMarkup(checkout, as: checkoutName, mode: .tree))
    }

    @Test func anAttributeAfterAChildIsStillOnTheElement() throws {
        #expect(try sinkMarkup(AttributeLast(), as: XMLQualifiedName("e"), mode: .streaming) == nil)
        let markup = try encodedMarkup(AttributeLast(), as: XMLQualifiedName("e"))
        #expect(markup == #"<e id="7&amp;8"><name>x&lt;y</name></e>"#)
    }

    @Test func containersFilledInTurnsKeepTheirOwnElements() throws {
        #expect(try sinkMarkup(Interleaved(), as: XMLQualifiedName("i"), mode: .streaming) == nil)
        let markup = try encodedMarkup(Interleaved(), as: XMLQualifiedName("i"))
        #expect(markup == "<i><first><a>1</a><b>3</b></first><second><a>2</a></second></i>")
    }

    @Test func simpleContentAfterAChildGoesBeforeIt() throws {
        #expect(try sinkMarkup(TextLast(), as: XMLQualifiedName("t"), mode: .streaming) == nil)
        #expect(try encodedMarkup(TextLast(), as: XMLQualifiedName("t")) == "<t>v<child>c</child></t>")
    }

    @Test func errorsFoundWhileStreamingAreTheTreesErrors() throws {
        struct Misplaced: Encodable, XMLSchemaType {
            let first: String
            let line: Line
            static let xmlSchema = XMLTypeSchema(fields: ["line": .attribute])
        }
        do {
            _ = try XMLTreeEncoder().encode(Misplaced(first: "a", line: Line(sku: "a", quantity: 1)), as: XMLQualifiedName("m"))
            Issue.record("a record was written as an attribute")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["line"])
        }
        // A character XML cannot carry, deep in an array: the path names the item.
        do {
            _ = try XMLTreeEncoder().encode([Line(sku: "a", quantity: 1), Line(sku: "b\u{1}", quantity: 2)], as: XMLQualifiedName("l"))
            Issue.record("a control character was written")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["Index 1", "sku"])
            #expect(!context.debugDescription.contains("b\u{1}"))
        }
    }

    @Test func escapingCopiesRunsAndMatchesTheWriter() throws {
        var generator = SeededGenerator(seed: 5)
        var samples = ["", "&", "plain", "&<>\"'", "a&", "&a", "a&&b", "é&é", "🙂<🙂", "\u{FFFD}", "\u{F8FF}\u{FFEE}\r\n\t",
                       String(repeating: "a", count: 4095) + "&" + String(repeating: "b", count: 4096), "end\r"]
        samples += (0..<200).map { _ in RandomValues.string(&generator, maxLength: 40) }
        for sample in samples {
            for inAttribute in [false, true] {
                var bytes: [UInt8] = [0x2A]
                #expect(XMLEscaping.escape(sample, inAttribute: inAttribute, into: &bytes))
                let expected = try XMLWriter.escape(sample, inAttribute: inAttribute, of: "e")
                #expect(bytes == [0x2A] + Array(expected.utf8), "\(sample.debugDescription)")
            }
        }
        for refused in ["\u{0}", "a\u{1}", "\u{1F}b", "\u{FFFE}", "x\u{FFFF}y", "\u{8}"] {
            var bytes: [UInt8] = []
            #expect(!XMLEscaping.escape(refused, inAttribute: false, into: &bytes), "\(refused.debugDescription)")
            #expect(throws: ResourceError.self) { try XMLWriter.escape(refused, inAttribute: false, of: "e") }
        }
    }

    @Test func integersAreWrittenInDecimal() throws {
        for value: Int64 in [0, 9, 10, -1, -10, 99, 100, .max, .min, 1_234_567_890] {
            var bytes: [UInt8] = []
            XMLEscaping.append(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
        }
        for value: UInt64 in [0, 9, 10, .max, 10_000_000_000_000_000_000] {
            var bytes: [UInt8] = []
            XMLEscaping.append(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
        }
    }

    @Test func decimalsAreWrittenAsTheirDescription() throws {
        #expect(XMLEscaping.decimalLayout != nil, "Decimal's storage is in neither layout the fast path reads")
        var generator = SeededGenerator(seed: 9)
        var values: [Decimal] = [0, 1, -1, 10, 100, Decimal(string: "12.50")!, Decimal(string: "-0.001")!, Decimal(string: "1e20")!,
                                 Decimal(string: "123456789012345678901234567890.5")!, Decimal(UInt64.max), -Decimal(UInt64.max) - 1,
                                 Decimal(sign: .minus, exponent: -30, significand: 7), Decimal(sign: .plus, exponent: 40, significand: 3)]
        values += (0..<500).map { _ in RandomValues.decimal(&generator) }
        values += (0..<200).map { Decimal($0) / 100 + 1 }
        for value in values {
            var bytes: [UInt8] = []
            #expect(XMLScalarText.decimal(value).write(inAttribute: false, into: &bytes))
            #expect(String(decoding: bytes, as: UTF8.self) == value.description)
        }
    }

    @Test func namesAreCheckedAsTheWriterChecksThemAndCachedOnlyWhenValid() throws {
        let sink = XMLEncodingSink(options: XMLTreeEncoder(), mode: .streaming)
        let names = ["a", "_a", "a-b.c9", "A_Z", "9a", "-a", ".a", "a:b", "", "é", "aé", "a b", "a\u{300}", "\u{300}a",
                     "a\u{2028}", "漢字", "a\u{0}", "x\u{B7}", "\u{B7}x", "a/b", "a\u{10000}"]
        for name in names {
            let expected = (try? XMLWriter.checkName(name, allowingPrefix: false)) != nil
            // Twice: the second answer may come from the cache, and must be the same.
            for _ in 0..<2 {
                do {
                    try sink.checkName(name, codingPath: [NameKey("field")])
                    #expect(expected, "\(name.debugDescription) was accepted")
                } catch let EncodingError.invalidValue(_, context) {
                    #expect(!expected, "\(name.debugDescription) was refused")
                    #expect(context.codingPath.map(\.stringValue) == ["field"])
                }
            }
        }
        // Through the encoder: an invalid non-ASCII key is refused in every record, not only the first.
        for _ in 0..<2 {
            #expect(throws: EncodingError.self) {
                try XMLTreeEncoder().encode([["ok": "1"], ["\u{300}bad": "2"]], as: XMLQualifiedName("d"))
            }
        }
        let valid = try XMLTreeEncoder().encode([["naïve": "1"], ["naïve": "2"]], as: XMLQualifiedName("d"))
        #expect(try XMLTreeDecoder().decode([[String: String]].self, from: valid) == [["naïve": "1"], ["naïve": "2"]])
    }
}
