import Foundation
import ResourceLoader
import Testing

/// The body of an encoded document, without its XML declaration.
func encodedMarkup<T: Encodable>(_ value: T, as name: XMLQualifiedName, encoder: XMLTreeEncoder = XMLTreeEncoder()) throws -> String {
    let text = String(decoding: try encoder.encode(value, as: name), as: UTF8.self)
    let declaration = #"<?xml version="1.0" encoding="utf-8"?>"#
    #expect(text.hasPrefix(declaration))
    return String(text.dropFirst(declaration.count))
}

// MARK: - Types under test

struct Line: Codable, Equatable {
    let sku: String
    let quantity: Int
}

struct Money: Codable, Equatable, XMLSchemaType {
    let currency: String
    let amount: Decimal
    static let xmlSchema = XMLTypeSchema(fields: ["currency": .attribute, "amount": .text])
}

struct Order: Codable, Equatable, XMLSchemaType {
    let id: String
    let note: String?
    let comment: String?
    let lines: [Line]
    let tags: [String]
    let total: Money

    static let xmlSchema = XMLTypeSchema(
        namespace: "urn:shop",
        typeName: XMLQualifiedName("Order", namespaceURI: "urn:shop"),
        fields: ["id": .attribute, "note": .nillableElement, "lines": .wrapped(item: "line")])
}

enum Payment: Codable, Equatable, XMLChoice {
    case card(Line)
    case iban(String)
    case cash
}

enum Delivery: Codable, Equatable, XMLChoice {
    case pickup
    case courier(String)
}

struct Checkout: Codable, Equatable {
    let total: Int
    let payment: Payment
    let alternative: Delivery?
    let after: String
}

class Animal: Codable, XMLSchemaType, @unchecked Sendable {
    // Immutable: `@unchecked` only because a non-final class cannot be checked.
    let name: String
    init(name: String) { self.name = name }
    class var xmlSchema: XMLTypeSchema { XMLTypeSchema(typeName: XMLQualifiedName("Animal", namespaceURI: "urn:zoo")) }
    func isEqual(to other: Animal) -> Bool { type(of: self) == type(of: other) && name == other.name }
}

final class Dog: Animal, @unchecked Sendable {
    let barks: Bool
    init(name: String, barks: Bool) {
        self.barks = barks
        super.init(name: name)
    }
    override class var xmlSchema: XMLTypeSchema { XMLTypeSchema(typeName: XMLQualifiedName("Dog", namespaceURI: "urn:zoo")) }
    private enum CodingKeys: String, CodingKey { case barks }
    required init(from decoder: any Decoder) throws {
        barks = try decoder.container(keyedBy: CodingKeys.self).decode(Bool.self, forKey: .barks)
        try super.init(from: decoder)
    }
    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(barks, forKey: .barks)
    }
    override func isEqual(to other: Animal) -> Bool {
        super.isEqual(to: other) && barks == (other as? Dog)?.barks
    }
}

struct Pen: Codable {
    let animal: Animal
    let others: [Animal]
}

@Suite("XMLTreeEncoder")
struct XMLTreeEncoderTests {
    let encoder = XMLTreeEncoder()

    @Test func writesNamespacesAttributesWrappersAndSimpleContent() throws {
        let order = Order(
            id: "A<1>", note: nil, comment: nil, lines: [Line(sku: "x&y", quantity: 2), Line(sku: "z", quantity: 1)],
            tags: ["new", "gift"], total: Money(currency: "EUR", amount: Decimal(string: "12.50")!))
        let markup = try encodedMarkup(order, as: XMLQualifiedName("order", namespaceURI: "urn:shop"))
        // The namespace is the default one: names need no prefix.
        #expect(markup == #"<order xmlns="urn:shop" id="A&lt;1&gt;"><note xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"></note>"#
            + "<lines><line><sku>x&amp;y</sku><quantity>2</quantity></line>"
            + "<line><sku>z</sku><quantity>1</quantity></line></lines>"
            + #"<tags>new</tags><tags>gift</tags><total currency="EUR">12.5</total></order>"#)
        #expect(try XMLTreeDecoder().decode(Order.self, from: try encoder.encode(order, as: XMLQualifiedName("order"))) == order)
    }

    @Test func unqualifiedFormsAndPreferredPrefixes() throws {
        var encoder = XMLTreeEncoder(elementFormDefault: .unqualified, namespacePrefixes: ["urn:shop": "shop"])
        let markup = try encodedMarkup(Line(sku: "a", quantity: 1), as: XMLQualifiedName("line", namespaceURI: "urn:shop"), encoder: encoder)
        #expect(markup == #"<shop:line xmlns:shop="urn:shop"><sku>a</sku><quantity>1</quantity></shop:line>"#)
        // Without a preferred prefix, a made-up one: the children are in no namespace, which a
        // default namespace would make each of them undeclare.
        let madeUp = try encodedMarkup(
            Line(sku: "a", quantity: 1), as: XMLQualifiedName("line", namespaceURI: "urn:shop"),
            encoder: XMLTreeEncoder(elementFormDefault: .unqualified))
        #expect(madeUp == #"<ns1:line xmlns:ns1="urn:shop"><sku>a</sku><quantity>1</quantity></ns1:line>"#)
        encoder.namespacePrefixes = ["urn:shop": "xmlBad"]
        #expect(throws: EncodingError.self) { try encoder.encode(Line(sku: "a", quantity: 1), as: XMLQualifiedName("line")) }
    }

    @Test func aFieldCanHaveItsOwnNamespaceOrFormAndAttributesCanBeQualified() throws {
        struct Mixed: Codable, Equatable, XMLSchemaType {
            let code: String
            let lang: String
            let plain: String
            let local: String
            let external: String
            static let xmlSchema = XMLTypeSchema(
                namespace: "urn:a", attributeForm: .qualified,
                fields: [
                    "code": .attribute, "lang": XMLTypeSchema.Field(kind: .attribute, form: .unqualified),
                    "local": XMLTypeSchema.Field(form: .unqualified), "external": XMLTypeSchema.Field(namespace: "urn:b"),
                ])
        }
        let value = Mixed(code: "c", lang: "en", plain: "p", local: "l", external: "e")
        let element = try encoder.encodeElement(value, as: XMLQualifiedName("mixed", namespaceURI: "urn:a"))
        #expect(element.attributes.map { "\($0.namespaceURI ?? "-") \($0.name)" }.sorted() == ["- lang", "urn:a code"])
        #expect(element.children.map { "\($0.namespaceURI ?? "-") \($0.name)" } == ["urn:a plain", "- local", "urn:b external"])
        // A child in no namespace under a default namespace undeclares it; a qualified attribute
        // takes a prefix, as attributes never use the default namespace.
        #expect(try encodedMarkup(value, as: XMLQualifiedName("mixed", namespaceURI: "urn:a"))
            == #"<mixed xmlns="urn:a" xmlns:ns1="urn:a" ns1:code="c" lang="en"><plain>p</plain><local xmlns="">l</local>"#
            + #"<external xmlns="urn:b">e</external></mixed>"#)
        #expect(try XMLTreeDecoder().decode(Mixed.self, from: element) == value)
    }

    @Test func nilIsOmittedOrXsiNilAsTheStrategySays() throws {
        struct Optionals: Codable, Equatable { let a: Int?; let b: String? }
        let value = Optionals(a: nil, b: "x")
        #expect(try encodedMarkup(value, as: XMLQualifiedName("o")) == "<o><b>x</b></o>")
        let nilEncoder = XMLTreeEncoder(nilEncodingStrategy: .xsiNil)
        let markup = try encodedMarkup(value, as: XMLQualifiedName("o"), encoder: nilEncoder)
        #expect(markup == #"<o><a xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"></a><b>x</b></o>"#)
        #expect(try XMLTreeDecoder().decode(Optionals.self, from: try nilEncoder.encode(value, as: XMLQualifiedName("o"))) == value)
        // Nil items of an array are always xsi:nil, and read back as nil.
        let items: [Int?] = [1, nil, 3]
        #expect(try XMLTreeDecoder().decode([Int?].self, from: try encoder.encode(items, as: XMLQualifiedName("list"))) == items)
    }

    @Test func aChoiceWritesTheCasesElementInPlace() throws {
        let checkout = Checkout(total: 3, payment: .card(Line(sku: "c", quantity: 1)), alternative: .pickup, after: "end")
        let markup = try encodedMarkup(checkout, as: XMLQualifiedName("checkout"))
        #expect(markup == "<checkout><total>3</total><card><sku>c</sku><quantity>1</quantity></card><pickup></pickup><after>end</after></checkout>")
        #expect(try XMLTreeDecoder().decode(Checkout.self, from: try encoder.encode(checkout, as: XMLQualifiedName("checkout"))) == checkout)
        let other = Checkout(total: 1, payment: .iban("DE<44>"), alternative: nil, after: "")
        #expect(try encodedMarkup(other, as: XMLQualifiedName("checkout")) == "<checkout><total>1</total><iban>DE&lt;44&gt;</iban><after></after></checkout>")
        #expect(try XMLTreeDecoder().decode(Checkout.self, from: try encoder.encode(other, as: XMLQualifiedName("checkout"))) == other)
    }

    /// A choice has no element of its own: a `nil` one, or a `nil` array of them, writes nothing
    /// whatever the nil strategy says, since there is no element to mark `xsi:nil`.
    @Test func aNilChoiceWritesNoElementEvenUnderXsiNil() throws {
        struct Basket: Codable, Equatable {
            let total: Int
            let alternative: Delivery?
            let payments: [Payment]?
        }
        let nilEncoder = XMLTreeEncoder(nilEncodingStrategy: .xsiNil)
        let value = Basket(total: 2, alternative: nil, payments: nil)
        let markup = try encodedMarkup(value, as: XMLQualifiedName("basket"), encoder: nilEncoder)
        #expect(markup == "<basket><total>2</total></basket>")
        let decoded = try XMLTreeDecoder().decode(Basket.self, from: try nilEncoder.encode(value, as: XMLQualifiedName("basket")))
        #expect(decoded.total == 2 && decoded.alternative == nil && (decoded.payments ?? []).isEmpty)
        let full = Basket(total: 1, alternative: .pickup, payments: [.cash, .iban("x")])
        #expect(try encodedMarkup(full, as: XMLQualifiedName("basket"), encoder: nilEncoder)
            == "<basket><total>1</total><pickup></pickup><cash></cash><iban>x</iban></basket>")
    }

    @Test func aDerivedClassCarriesXsiTypeAndDecodesBackThroughTheRegistry() throws {
        let pen = Pen(animal: Dog(name: "Rex", barks: true), others: [Animal(name: "Generic"), Dog(name: "Fido", barks: false)])
        let markup = try encodedMarkup(pen, as: XMLQualifiedName("pen"))
        #expect(markup.contains(#"<animal xmlns:ns1="urn:zoo" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="ns1:Dog"><name>Rex</name><barks>true</barks></animal>"#))
        #expect(markup.contains("<others><name>Generic</name></others>"))
        var decoder = XMLTreeDecoder()
        decoder.registerDerivedType(Dog.self)
        let decoded = try decoder.decode(Pen.self, from: try encoder.encode(pen, as: XMLQualifiedName("pen")))
        #expect(decoded.animal.isEqual(to: pen.animal))
        #expect(decoded.others.count == 2)
        #expect(zip(decoded.others, pen.others).allSatisfy { $0.isEqual(to: $1) })
        // Without the registration, the base class is decoded.
        let plain = try XMLTreeDecoder().decode(Pen.self, from: try encoder.encode(pen, as: XMLQualifiedName("pen")))
        #expect(type(of: plain.animal) == Animal.self)
    }

    @Test func aDerivedTypeInNoNamespaceIsNamedSoUnderADefaultNamespace() throws {
        // GIVEN a type in no namespace derived from one in urn:zoo, inside an element whose
        // children are in urn:zoo as the default namespace
        final class Cat: Animal, @unchecked Sendable {
            override class var xmlSchema: XMLTypeSchema { XMLTypeSchema(typeName: XMLQualifiedName("Cat")) }
        }
        struct Keeper: Codable {
            let animal: Animal
            enum CodingKeys: String, CodingKey { case animal }
        }
        let encoder = XMLTreeEncoder()
        // WHEN it is encoded
        let data = try encoder.encode(Keeper(animal: Cat(name: "Tom")), as: XMLQualifiedName("keeper", namespaceURI: "urn:zoo"))
        // THEN its xsi:type names {}Cat: no default namespace is in scope where it is written
        let animal = try #require(try XMLTree(data: data).root.child(named: "animal"))
        #expect(animal.namespaceURI == "urn:zoo")
        #expect(animal.attribute(named: "type", namespaceURI: "http://www.w3.org/2001/XMLSchema-instance") == "Cat")
        #expect(animal.namespaceURI(forPrefix: nil) == nil)
        #expect(animal.child(named: "name")?.namespaceURI == "urn:zoo")
        // AND it decodes back as the derived type
        var decoder = XMLTreeDecoder()
        decoder.registerDerivedType(Cat.self)
        let decoded = try decoder.decode(Keeper.self, from: data)
        #expect(decoded.animal is Cat)
        #expect(decoded.animal.name == "Tom")
    }

    @Test func anElementIsWrittenAsItIs() throws {
        struct Envelope: Codable { let id: Int; let any: XMLTree.Element }
        let tree = try XMLTree(string: #"<p:any xmlns:p="urn:p" xmlns:q="urn:q" q:flag="1" kind="q:Thing">text &amp; more<p:child>c</p:child></p:any>"#)
        let markup = try encodedMarkup(Envelope(id: 1, any: tree.root), as: XMLQualifiedName("e"))
        #expect(markup == #"<e><id>1</id><p:any xmlns:p="urn:p" xmlns:q="urn:q" kind="q:Thing" q:flag="1">text &amp; more<p:child>c</p:child></p:any></e>"#)
        let decoded = try XMLTree(data: try encoder.encode(Envelope(id: 1, any: tree.root), as: XMLQualifiedName("e"))).root
        #expect(decoded.child(named: "any") == tree.root)
        #expect(decoded.child(named: "any")?.namespaceURI(forPrefix: "q") == "urn:q")
    }

    @Test func scalarsUseXMLSchemaLexicalForms() throws {
        struct Scalars: Codable, Equatable {
            let flag: Bool
            let small: Int8
            let big: UInt64
            let money: Decimal
            let tiny: Decimal
            let positive: Double
            let negative: Float
            let notANumber: Double
            let exponent: Double
            let when: Date
            let stamp: XMLDateTime
            let day: XMLDate
            let time: XMLTime
            let bytes: Data
            let link: URL
            static func == (a: Scalars, b: Scalars) -> Bool {
                a.flag == b.flag && a.small == b.small && a.big == b.big && a.money == b.money && a.tiny == b.tiny
                    && a.positive == b.positive && a.negative == b.negative && a.notANumber.isNaN == b.notANumber.isNaN
                    && a.exponent == b.exponent && a.when == b.when && a.stamp == b.stamp && a.day == b.day
                    && a.time == b.time && a.bytes == b.bytes && a.link == b.link
            }
        }
        let value = Scalars(
            flag: true, small: -128, big: .max, money: Decimal(string: "12345678901234567890.123456789")!,
            tiny: Decimal(string: "0.1")!, positive: .infinity, negative: -.infinity, notANumber: .nan, exponent: 1e-7,
            when: Date(timeIntervalSince1970: 1_767_323_045.25),
            stamp: XMLDateTime(Date(timeIntervalSince1970: 1_767_323_045), utcOffset: 330),
            day: XMLDate(year: 2026, month: 2, day: 28, utcOffset: -300),
            time: XMLTime(hour: 23, minute: 59, second: 58, millisecond: 120, utcOffset: 0),
            bytes: Data([0x00, 0xFF] + Array("<&>".utf8)), link: URL(string: "https://example.com/a?b=c&d=e")!)
        let markup = try encodedMarkup(value, as: XMLQualifiedName("s"))
        #expect(markup == "<s><flag>true</flag><small>-128</small><big>18446744073709551615</big>"
            + "<money>12345678901234567890.123456789</money><tiny>0.1</tiny><positive>INF</positive>"
            + "<negative>-INF</negative><notANumber>NaN</notANumber><exponent>1e-07</exponent>"
            + "<when>2026-01-02T03:04:05.25Z</when><stamp>2026-01-02T08:34:05+05:30</stamp>"
            + "<day>2026-02-28-05:00</day><time>23:59:58.12Z</time><bytes>AP88Jj4=</bytes>"
            + "<link>https://example.com/a?b=c&amp;d=e</link></s>")
        #expect(try XMLTreeDecoder().decode(Scalars.self, from: try encoder.encode(value, as: XMLQualifiedName("s"))) == value)
        // Hex, both ways.
        let hex = XMLTreeEncoder(dataEncodingStrategy: .hex)
        #expect(try encodedMarkup(Data([0x00, 0xAB, 0xFF]), as: XMLQualifiedName("h"), encoder: hex) == "<h>00ABFF</h>")
        var hexDecoder = XMLTreeDecoder()
        hexDecoder.dataDecodingStrategy = .hex
        #expect(try hexDecoder.decode(Data.self, from: try XMLTree(string: "<h> 00abFF </h>").root) == Data([0x00, 0xAB, 0xFF]))
    }

    @Test func theDateTimeTypesKeepTheirOffsetsAndRefuseBadText() throws {
        let stamp = try #require(XMLDateTime(lexicalForm: "2026-11-26T01:02:03.5-07:30"))
        #expect(stamp.utcOffset == -450)
        #expect(stamp.lexicalForm == "2026-11-26T01:02:03.5-07:30")
        // Checked against Foundation's own parser.
        let reference = try Date("2026-11-26T08:32:03.500Z", strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(stamp.date == reference)
        #expect(XMLDateTime(lexicalForm: "2026-11-26T01:02:03")?.utcOffset == nil)
        for bad in ["2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:01Z", "2026-01-01T00:00:00+15:00", "26-01-01T00:00:00Z", "2026-01-01T00:00:00.Z", "2026-01-01"] {
            #expect(XMLDateTime(lexicalForm: bad) == nil, "\(bad)")
        }
        #expect(XMLDate(lexicalForm: "2024-02-29") == XMLDate(year: 2024, month: 2, day: 29))
        #expect(XMLDate(lexicalForm: "2023-02-29") == nil)
        #expect(XMLTime(lexicalForm: "12:00:00+01:00") == XMLTime(hour: 12, minute: 0, second: 0, utcOffset: 60))
        #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(XMLDate(year: 0, month: 1, day: 1), as: XMLQualifiedName("d")) }
    }

    @Test func midnightWrittenAsTwentyFourIsTheFirstInstantOfTheNextDay() throws {
        // GIVEN 24:00:00 at the end of a day, a month, a leap February and a year
        let cases = [
            ("2026-01-01T24:00:00Z", "2026-01-02T00:00:00Z"), ("2026-04-30T24:00:00.000+02:00", "2026-05-01T00:00:00+02:00"),
            ("2024-02-28T24:00:00Z", "2024-02-29T00:00:00Z"), ("2024-02-29T24:00:00", "2024-03-01T00:00:00"),
            ("2026-12-31T24:00:00.0-05:00", "2027-01-01T00:00:00-05:00"),
        ]
        for (text, next) in cases {
            // THEN it is read as the next day's midnight, and written that way
            let stamp = try #require(XMLDateTime(lexicalForm: text), "\(text)")
            #expect(stamp == XMLDateTime(lexicalForm: next), "\(text)")
            #expect(stamp.lexicalForm == next, "\(text)")
        }
        #expect(XMLTime(lexicalForm: "24:00:00Z") == XMLTime(hour: 0, minute: 0, second: 0, utcOffset: 0))
        #expect(XMLTime(lexicalForm: "24:00:00.000")?.lexicalForm == "00:00:00")
        // AND 24 with anything but zeros after it, or past the last year, is not a time
        for bad in ["24:01:00", "24:00:01", "24:00:00.001", "24:00:00.0001", "25:00:00"] {
            #expect(XMLTime(lexicalForm: bad) == nil, "\(bad)")
            #expect(XMLDateTime(lexicalForm: "2026-01-01T" + bad) == nil, "\(bad)")
        }
        #expect(XMLDateTime(lexicalForm: "9999-12-31T24:00:00Z") == nil)
    }

    @Test func anOffsetBeyondFourteenHoursHasNoLexicalFormWhateverItsSize() {
        // GIVEN offsets just past ±14:00 and at the ends of Int
        let date = Date(timeIntervalSince1970: 1_767_323_045)
        for offset in [14 * 60 + 1, -14 * 60 - 1, Int.max, Int.min, Int.min + 1] {
            // THEN none of the three types has a lexical form, and each describes itself
            let stamp = XMLDateTime(date, utcOffset: offset)
            let day = XMLDate(year: 2026, month: 2, day: 28, utcOffset: offset)
            let time = XMLTime(hour: 12, minute: 0, second: 0, utcOffset: offset)
            #expect(stamp.lexicalForm == nil && day.lexicalForm == nil && time.lexicalForm == nil, "\(offset)")
            #expect(stamp.description == "(a date outside xs:dateTime's range)")
            #expect(day.description == "(not a valid xs:date)")
            #expect(time.description == "(not a valid xs:time)")
            #expect(throws: EncodingError.self) { try XMLTreeEncoder().encode(stamp, as: XMLQualifiedName("s")) }
        }
        // AND ±14:00 itself is written
        #expect(XMLDateTime(date, utcOffset: -14 * 60).lexicalForm == "2026-01-01T13:04:05-14:00")
        #expect(XMLTime(hour: 12, minute: 0, second: 0, utcOffset: 14 * 60).lexicalForm == "12:00:00+14:00")
    }

    @Test func aDateWithNoXMLFormIsRefusedWithoutQuotingIt() {
        // GIVEN dates that have no xs:dateTime form: an offset beyond ±14:00, and a year past 9999
        struct Stamp: Encodable { let at: XMLDateTime }
        struct Instant: Encodable { let at: Date }
        let date = Date(timeIntervalSince1970: 1_767_323_045)
        let failures: [(any Error)?] = [
            Self.error { try XMLTreeEncoder().encode(Stamp(at: XMLDateTime(date, utcOffset: 15 * 60)), as: XMLQualifiedName("s")) },
            Self.error { try JSONEncoder().encode(Stamp(at: XMLDateTime(date, utcOffset: 15 * 60))) },
            Self.error { try XMLTreeEncoder().encode(Instant(at: Date(timeIntervalSince1970: 1e12)), as: XMLQualifiedName("s")) },
        ]
        for failure in failures {
            // THEN encoding fails with the property's path, and no description quotes the date
            guard case EncodingError.invalidValue(let value, let context)? = failure else {
                Issue.record("expected EncodingError.invalidValue, got \(String(describing: failure))")
                continue
            }
            #expect(context.codingPath.map(\.stringValue) == ["at"])
            #expect(!(value is Date) && !(value is XMLDateTime))
            for text in ["\(value)", "\(failure!)", String(reflecting: failure!)] {
                #expect(!text.contains("2026"), "\(text)")
            }
        }
    }

    private static func error(_ body: () throws -> Any) -> (any Error)? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func anElementsTextIsWrittenBeforeItsChildren() throws {
        // GIVEN an element whose text stands before, between and after its children
        struct Holder: Encodable { let any: XMLTree.Element }
        let tree = try XMLTree(string: "<a>x<b>1</b>y<!-- note --><c/>z</a>")
        // WHEN it is written
        let markup = try encodedMarkup(Holder(any: tree.root), as: XMLQualifiedName("h"))
        // THEN all of its text comes first, then its children (the tree keeps an element's text
        // as one string), and the comment is not kept
        #expect(tree.root.text == "xyz")
        #expect(markup == #"<h><a xmlns="">xyz<b>1</b><c></c></a></h>"#)
    }

    @Test func badNamesAndCharactersAreTypedErrorsThatNameThePath() throws {
        struct Wrapper: Encodable { let inner: [String: String] }
        do {
            _ = try encoder.encode(Wrapper(inner: ["1bad": "x"]), as: XMLQualifiedName("w"))
            Issue.record("an invalid name was written")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["inner", "1bad"])
            #expect(!context.debugDescription.isEmpty)
        }
        do {
            _ = try encoder.encode(Line(sku: "secret\u{0}", quantity: 1), as: XMLQualifiedName("line"))
            Issue.record("a NUL was written")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["sku"])
            #expect(!context.debugDescription.contains("secret"))
        }
        #expect(throws: EncodingError.self) { try encoder.encode(Line(sku: "a", quantity: 1), as: XMLQualifiedName("a:b")) }
        // A record where the schema says an attribute goes.
        struct Misplaced: Encodable, XMLSchemaType {
            let line: Line
            static let xmlSchema = XMLTypeSchema(fields: ["line": .attribute])
        }
        do {
            _ = try encoder.encode(Misplaced(line: Line(sku: "a", quantity: 1)), as: XMLQualifiedName("m"))
            Issue.record("a record was written as an attribute")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["line"])
        }
        #expect(throws: EncodingError.self) { try encoder.encode(Decimal.nan, as: XMLQualifiedName("d")) }
    }

    @Test func quotesAndApostrophesAreEscapedInAttributes() throws {
        struct Tagged: Codable, Equatable, XMLSchemaType {
            let label: String
            let body: String
            static let xmlSchema = XMLTypeSchema(fields: ["label": .attribute])
        }
        let value = Tagged(label: "a\"b'c\n\t<&>", body: "\r\n'\"")
        let data = try encoder.encode(value, as: XMLQualifiedName("t"))
        #expect(try XMLTreeDecoder().decode(Tagged.self, from: data) == value)
    }
}
