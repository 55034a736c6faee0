import Foundation
import ResourceLoader
import Testing

// `SeededGenerator` (SplitMix64) is the one PipelineRetryTests defines.

/// Values made at random, of every kind the encoder writes, for the round-trip property.
enum RandomValues {
    /// Characters from every corner XML cares about: markup, quotes, whitespace, non-ASCII and
    /// characters outside the Basic Multilingual Plane.
    static let alphabet: [Character] = Array("aZ09 _-.<>&\"'\t\n\r;:=/?#é€漢字🙂\u{10FFFD}\u{FFFD}\u{85}\u{2028}")

    static func string(_ g: inout SeededGenerator, maxLength: Int = 12) -> String {
        String((0..<Int.random(in: 0...maxLength, using: &g)).map { _ in alphabet.randomElement(using: &g)! })
    }

    static func decimal(_ g: inout SeededGenerator) -> Decimal {
        let digits = (0..<Int.random(in: 1...30, using: &g)).map { _ in String(Int.random(in: 0...9, using: &g)) }.joined()
        let point = Int.random(in: 0...digits.count, using: &g)
        var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
        if text.hasPrefix(".") { text = "0" + text }
        if Bool.random(using: &g) { text = "-" + text }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
    }

    static func double(_ g: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<10, using: &g) {
        case 0: return .infinity
        case 1: return -.infinity
        case 2: return 0
        default:
            let value = Double(bitPattern: g.next())
            return value.isFinite ? value : Double.random(in: -1e6...1e6, using: &g)
        }
    }

    static func date(_ g: inout SeededGenerator) -> Date {
        // Whole milliseconds between the years 0001 and 9999.
        Date(timeIntervalSince1970: Double(Int64.random(in: -62_135_596_800_000...253_402_300_799_000, using: &g)) / 1000)
    }

    static func data(_ g: inout SeededGenerator) -> Data {
        Data((0..<Int.random(in: 0...20, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) })
    }
}

/// A record that uses every construct: attributes, simple content, nillable and optional fields,
/// wrapped and unwrapped arrays, nested records, a choice, and every scalar kind.
struct Specimen: Codable, Equatable, XMLSchemaType {
    struct Part: Codable, Equatable, XMLSchemaType {
        let code: String
        let label: String?
        let weight: Double
        static let xmlSchema = XMLTypeSchema(fields: ["code": .attribute, "label": .attribute])
    }

    enum Pick: Codable, Equatable, XMLChoice {
        case part(Part)
        case note(String)
        case count(Int64)
        case nothing
    }

    /// A second choice: two properties of one choice type in a record would be ambiguous in XML.
    enum Other: Codable, Equatable, XMLChoice {
        case first(Int)
        case second(Part)
    }

    let id: String
    let flag: Bool
    let small: Int8
    let unsigned: UInt32
    let big: Int64
    let amount: Decimal
    let ratio: Double
    let single: Float
    let when: Date
    let stamp: XMLDateTime
    let day: XMLDate
    let bytes: Data
    let link: URL
    let text: String
    let optionalText: String?
    let nillable: Int?
    let parts: [Part]
    let tags: [String]
    let optionalParts: [Part]?
    let child: Part?
    let pick: Pick
    let maybePick: Other?

    static let xmlSchema = XMLTypeSchema(
        namespace: "urn:specimen",
        fields: ["id": .attribute, "nillable": .nillableElement, "parts": .wrapped(item: "part"), "optionalParts": .wrapped(item: "p")])

    static func random(_ g: inout SeededGenerator) -> Specimen {
        func part() -> Part {
            Part(code: RandomValues.string(&g), label: Bool.random(using: &g) ? RandomValues.string(&g) : nil, weight: RandomValues.double(&g))
        }
        func pick() -> Pick {
            switch Int.random(in: 0..<4, using: &g) {
            case 0: return .part(part())
            case 1: return .note(RandomValues.string(&g))
            case 2: return .count(Int64.random(in: .min ... .max, using: &g))
            default: return .nothing
            }
        }
        let offset = Int.random(in: -14 * 60...14 * 60, using: &g)
        return Specimen(
            id: RandomValues.string(&g), flag: Bool.random(using: &g), small: Int8.random(in: .min ... .max, using: &g),
            unsigned: UInt32.random(in: .min ... .max, using: &g), big: Int64.random(in: .min ... .max, using: &g),
            amount: RandomValues.decimal(&g), ratio: RandomValues.double(&g),
            single: Float(RandomValues.double(&g)), when: RandomValues.date(&g),
            stamp: XMLDateTime(RandomValues.date(&g).addingTimeInterval(0), utcOffset: Bool.random(using: &g) ? offset : nil),
            day: XMLDate(year: Int.random(in: 1...9999, using: &g), month: Int.random(in: 1...12, using: &g), day: Int.random(in: 1...28, using: &g),
                         utcOffset: Bool.random(using: &g) ? offset : nil),
            bytes: RandomValues.data(&g),
            link: URL(string: "https://example.com/\(Int.random(in: 0...999, using: &g))?q=a%20b&r=\u{00E9}".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)!,
            text: RandomValues.string(&g, maxLength: 40),
            optionalText: Bool.random(using: &g) ? RandomValues.string(&g) : nil,
            nillable: Bool.random(using: &g) ? Int.random(in: .min ... .max, using: &g) : nil,
            parts: (0..<Int.random(in: 0...3, using: &g)).map { _ in part() },
            tags: (0..<Int.random(in: 0...3, using: &g)).map { _ in RandomValues.string(&g) },
            optionalParts: Bool.random(using: &g) ? (0..<Int.random(in: 0...2, using: &g)).map { _ in part() } : nil,
            child: Bool.random(using: &g) ? part() : nil,
            pick: pick(), maybePick: Bool.random(using: &g) ? (Bool.random(using: &g) ? .first(Int.random(in: -9...9, using: &g)) : .second(part())) : nil)
    }
}

@Suite("XMLTreeEncoder round trip")
struct XMLEncoderRoundTripTests {
    @Test(arguments: [UInt64(1), 2, 3, 42, 2026])
    func whatTheEncoderWritesTheDecoderReadsBackEqual(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let encoders = [
            XMLTreeEncoder(),
            XMLTreeEncoder(elementFormDefault: .unqualified, namespacePrefixes: ["urn:specimen": "s"]),
            XMLTreeEncoder(nilEncodingStrategy: .xsiNil),
        ]
        for round in 0..<100 {
            let value = Specimen.random(&generator)
            let encoder = encoders[round % encoders.count]
            let data = try encoder.encode(value, as: XMLQualifiedName("specimen", namespaceURI: "urn:specimen"))
            let decoded = try XMLTreeDecoder().decode(Specimen.self, from: data)
            let differences = zip(Mirror(reflecting: decoded).children, Mirror(reflecting: value).children)
                .filter { "\($0.value)" != "\($1.value)" }.map { "\($0.label ?? ""): \($0.value) != \($1.value)" }
            #expect(decoded == value, "seed \(seed), round \(round): \(differences)")
            if decoded != value { return }
        }
    }

    @Test func arraysOfSpecimensRoundTripAtTheTopLevel() throws {
        var generator = SeededGenerator(seed: 7)
        let values = (0..<20).map { _ in Specimen.random(&generator) }
        let data = try XMLTreeEncoder().encode(values, as: XMLQualifiedName("specimens"))
        #expect(try XMLTreeDecoder().decode([Specimen].self, from: data) == values)
    }
}

@Suite("XMLTreeDecoder: what is not data")
struct XMLDecoderInstanceAttributeTests {
    struct Item: Decodable, Equatable {
        let name: String
        let type: String?
        let `nil`: String?
    }

    struct RequiredType: Decodable {
        let type: String
    }

    /// An element written with a simple content and an attribute.
    struct Price: Codable, Equatable, XMLSchemaType {
        let currency: String
        let amount: Decimal?
        static let xmlSchema = XMLTypeSchema(fields: ["currency": .attribute, "amount": .text])
    }

    /// Made anew for each use: a `static let` would hold its bytes until the process ends, which
    /// LeakSanitizer reports.
    static var typedItem: Data {
        Data(#"<item xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ns="urn:x" xsi:type="ns:Widget" xsi:nil="false"><name>a</name></item>"#.utf8)
    }

    @Test func xsiAttributesAreNotReadAsPropertiesOfTheirLocalName() throws {
        // GIVEN an element with xsi:type and xsi:nil, as Axis, .NET and spyne write them
        // WHEN it is decoded into a type with properties named `type` and `nil`
        let item = try XMLTreeDecoder().decode(Item.self, from: Self.typedItem)
        // THEN they are absent: the xsi attributes say how the element is read
        #expect(item == Item(name: "a", type: nil, nil: nil))
        // AND a required `type` is missing, not the xsi:type's value
        #expect(throws: DecodingError.self) { try XMLTreeDecoder().decode(RequiredType.self, from: Self.typedItem) }
        // AND a dictionary does not list them
        let entries = try XMLTreeDecoder().decode([String: String].self, from: Self.typedItem)
        #expect(Array(entries.keys) == ["name"])
    }

    @Test func aDataAttributeOfTheSameLocalNameIsStillRead() throws {
        let data = Data(
            #"<item xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="x" type="plain"><name>a</name></item>"#.utf8)
        #expect(try XMLTreeDecoder().decode(Item.self, from: data) == Item(name: "a", type: "plain", nil: nil))
    }

    @Test func aNilTextFieldRoundTrips() throws {
        // GIVEN a price without an amount, and one with
        for value in [Price(currency: "EUR", amount: nil), Price(currency: "EUR", amount: Decimal(string: "1.5"))] {
            // WHEN it is encoded and decoded
            let data = try XMLTreeEncoder().encode(value, as: XMLQualifiedName("price"))
            // THEN it reads back equal
            #expect(try XMLTreeDecoder().decode(Price.self, from: data) == value)
        }
    }
}
