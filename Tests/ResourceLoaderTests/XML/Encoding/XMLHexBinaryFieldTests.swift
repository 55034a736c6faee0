import Foundation
import ResourceLoader
import Testing

/// `xs:hexBinary` fields (``XMLTypeSchema/Field/isHexBinary``) among base64 ones, both ways:
/// elements, attributes, simple content, arrays and choices.
@Suite("XMLTypeSchema fields: hexBinary")
struct XMLHexBinaryFieldTests {
    /// hexBinary in every place a field can be, beside a base64Binary element.
    struct Digests: Codable, Equatable, XMLSchemaType {
        var seed: Data?
        var sum: Data
        var raw: Data
        var parts: [Data]
        var wrapped: [Data]
        var note: Data?

        static let xmlSchema = XMLTypeSchema(fields: [
            "seed": XMLTypeSchema.Field(kind: .attribute, isHexBinary: true),
            "sum": XMLTypeSchema.Field(isHexBinary: true),
            "parts": XMLTypeSchema.Field(isHexBinary: true),
            "wrapped": XMLTypeSchema.Field(itemName: "item", isHexBinary: true),
            "note": XMLTypeSchema.Field(isNillable: true, isHexBinary: true),
        ])
    }

    /// A `complexType` with `simpleContent` of `xs:hexBinary`.
    struct Signed: Codable, Equatable, XMLSchemaType {
        var by: String
        var value: Data

        static let xmlSchema = XMLTypeSchema(fields: [
            "by": .attribute,
            "value": XMLTypeSchema.Field(kind: .text, isHexBinary: true),
        ])
    }

    static let deadBeef = Data([0xDE, 0xAD, 0xBE, 0xEF])

    @Test func hexBinaryFieldsAreWrittenAsUpperCaseHexAndBase64OnesAsBase64() throws {
        // GIVEN a value with hexBinary fields and a base64Binary one
        let value = Digests(
            seed: Data([0x0F]), sum: Self.deadBeef, raw: Self.deadBeef, parts: [Data([0x01]), Data([0xAB, 0xCD])],
            wrapped: [Data([0xFF])], note: Data([0x10]))
        // WHEN it is encoded with the default (base64) strategy
        let markup = try encodedMarkup(value, as: XMLQualifiedName("d"))
        // THEN the hexBinary fields are hex, the base64Binary one base64
        #expect(markup == #"<d seed="0F"><sum>DEADBEEF</sum><raw>3q2+7w==</raw><parts>01</parts><parts>ABCD</parts>"#
            + "<wrapped><item>FF</item></wrapped><note>10</note></d>")
        // AND the value reads back equal
        #expect(try XMLTreeDecoder().decode(Digests.self, from: try XMLTreeEncoder().encode(value, as: XMLQualifiedName("d"))) == value)
        // AND simple content is hex too
        let signed = Signed(by: "me", value: Self.deadBeef)
        #expect(try encodedMarkup(signed, as: XMLQualifiedName("s")) == #"<s by="me">DEADBEEF</s>"#)
        #expect(try XMLTreeDecoder().decode(Signed.self, from: try XMLTreeEncoder().encode(signed, as: XMLQualifiedName("s"))) == signed)
    }

    @Test func hexBinaryFieldsReadEitherCaseAndNeverAsBase64() throws {
        // GIVEN hex text, some of it lower case and all of it valid base64 too
        let document = #"""
            <d xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" seed=" 0f ">
              <sum> deadBEEF </sum><raw>3q2+7w==</raw><parts>0a</parts><parts/><wrapped><item>Ff</item></wrapped>
              <note xsi:nil="true"/>
            </d>
            """#
        // WHEN it is decoded with the default (base64) strategy
        let value = try XMLTreeDecoder().decode(Digests.self, from: try XMLTree(string: document).root)
        // THEN the hexBinary fields are read as hex
        #expect(value == Digests(
            seed: Data([0x0F]), sum: Self.deadBeef, raw: Self.deadBeef, parts: [Data([0x0A]), Data()], wrapped: [Data([0xFF])], note: nil))
        let signed = try XMLTreeDecoder().decode(Signed.self, from: try XMLTree(string: #"<s by="me">DeadBeef</s>"#).root)
        #expect(signed == Signed(by: "me", value: Self.deadBeef))
    }

    @Test(arguments: [
        (#"<d><sum>ABC</sum><raw/></d>"#, ["sum"]),
        (#"<d><sum>DEADBEEG</sum><raw/></d>"#, ["sum"]),
        (#"<d><sum>DE AD</sum><raw/></d>"#, ["sum"]),
        (#"<d seed="F"><sum/><raw/></d>"#, ["seed"]),
        (#"<d><sum/><raw/><parts>00</parts><parts>3q2+7w==</parts></d>"#, ["parts", "Index 1"]),
        (#"<d><sum/><raw/><wrapped><item>0</item></wrapped></d>"#, ["wrapped", "Index 0"]),
    ])
    func badHexIsADataCorruptedErrorAtTheField(document: String, path: [String]) throws {
        // WHEN hex text has an odd number of digits, or a character that is not a hex digit
        let error = try #require(throws: DecodingError.self) {
            try XMLTreeDecoder().decode(Digests.self, from: try XMLTree(string: document).root)
        }
        // THEN it is a typed error at the field, never bytes made up from it
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == path)
        #expect(context.debugDescription == "The text is not hex")
    }

    @Test func badHexSimpleContentIsADataCorruptedError() throws {
        let error = try #require(throws: DecodingError.self) {
            try XMLTreeDecoder().decode(Signed.self, from: try XMLTree(string: #"<s by="me">DEADBEEG</s>"#).root)
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["value"])
        #expect(context.debugDescription == "The text is not hex")
    }

    /// A choice between a hexBinary element and a base64Binary one.
    enum Hash: Codable, Equatable, XMLChoice, XMLSchemaType {
        case md5(Data)
        case raw(Data)

        static let xmlSchema = XMLTypeSchema(fields: ["md5": XMLTypeSchema.Field(isHexBinary: true)])
    }

    struct OneHash: Codable, Equatable {
        var one: Hash
    }

    struct Hashes: Codable, Equatable {
        var many: [Hash]
    }

    @Test func aChoicesHexBinaryCaseIsHex() throws {
        // GIVEN a choice, and an array of them, whose schema marks one case hexBinary
        let one = OneHash(one: .md5(Self.deadBeef))
        let many = Hashes(many: [.raw(Self.deadBeef), .md5(Data([0x01]))])
        // WHEN they are encoded
        let oneMarkup = try encodedMarkup(one, as: XMLQualifiedName("h"))
        let manyMarkup = try encodedMarkup(many, as: XMLQualifiedName("h"))
        // THEN that case is hex and the other base64
        #expect(oneMarkup == "<h><md5>DEADBEEF</md5></h>")
        #expect(manyMarkup == "<h><raw>3q2+7w==</raw><md5>01</md5></h>")
        // AND they read back equal, hex in either case
        #expect(try XMLTreeDecoder().decode(OneHash.self, from: try XMLTree(string: oneMarkup).root) == one)
        #expect(try XMLTreeDecoder().decode(Hashes.self, from: try XMLTree(string: manyMarkup).root) == many)
        let lower = try XMLTreeDecoder().decode(Hashes.self, from: try XMLTree(string: "<h><md5>deadbeef</md5><md5>0a</md5></h>").root)
        #expect(lower == Hashes(many: [.md5(Self.deadBeef), .md5(Data([0x0A]))]))
        #expect(throws: DecodingError.self) {
            try XMLTreeDecoder().decode(OneHash.self, from: try XMLTree(string: "<h><md5>DEADBEEG</md5></h>").root)
        }
        #expect(throws: DecodingError.self) {
            try XMLTreeDecoder().decode(Hashes.self, from: try XMLTree(string: "<h><md5>ABC</md5></h>").root)
        }
    }
}
