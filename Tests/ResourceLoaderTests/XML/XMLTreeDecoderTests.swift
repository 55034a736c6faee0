import Foundation
import ResourceLoader
import Testing

@Suite("XMLTreeDecoder")
struct XMLTreeDecoderTests {
    let decoder = XMLTreeDecoder()

    private func root(_ text: String) throws -> XMLTree.Element {
        try XMLTree(string: text).root
    }

    private func codingPath(of error: any Error) -> String? {
        ResourceError.ParsingFailure(context: "test", underlying: error).codingPath
    }

    @Test func decodesTheSeedUser() throws {
        let user = try decoder.decode(
            SeedUser.self, from: try Fixtures.data("getUserDetails-response"),
            atPath: ["Body", "getUserDetailsResponse", "getUserDetails", "userModel"])
        #expect(user == .fred)
    }

    @Test func decodesNestedStructsArraysAndScalars() throws {
        struct Order: Decodable {
            struct Line: Decodable { let sku: String; let quantity: Int; let price: Decimal }
            struct Customer: Decodable { let name: String; let vip: Bool }
            let id: UInt64
            let customer: Customer
            let line: [Line]
            let tag: [String]
            let note: [String]
            let weight: Double
            let ratio: Float
            let delta: Int8
            let homepage: URL
        }
        let order = try decoder.decode(Order.self, from: try root("""
            <order>
              <id> 18446744073709551615 </id>
              <customer><name> Ada </name><vip>1</vip></customer>
              <line><sku>A-1</sku><quantity>2</quantity><price>9.99</price></line>
              <line><sku>B-2</sku><quantity>1</quantity><price>-0.5</price></line>
              <tag>new</tag><tag>gift</tag>
              <weight>1.5e3</weight><ratio>0.25</ratio><delta>-128</delta>
              <homepage> https://example.com/a?b=c </homepage>
            </order>
            """))
        #expect(order.id == .max)
        #expect(order.customer.name == " Ada ")  // strings are kept exactly
        #expect(order.customer.vip)
        #expect(order.line.map(\.sku) == ["A-1", "B-2"])
        #expect(order.line.map(\.quantity) == [2, 1])
        #expect(order.line.map(\.price) == [Decimal(string: "9.99"), Decimal(string: "-0.5")])
        #expect(order.tag == ["new", "gift"])
        #expect(order.note.isEmpty)  // no <note> elements: an empty array
        #expect(order.weight == 1500)
        #expect(order.ratio == 0.25)
        #expect(order.delta == -128)
        #expect(order.homepage == URL(string: "https://example.com/a?b=c"))
    }

    @Test func aKeyFindsTheFirstChildWithItsLocalNameWhateverThePrefix() throws {
        // GIVEN one local name written with a prefix and without (two entries in the name table),
        // after a sibling with another name, and a key that no element has
        struct Record: Decodable { let name: [String]; let first: String; let missing: String? }
        let record = try decoder.decode(Record.self, from: try root(
            #"<r xmlns:p="urn:p"><other/><p:name>1</p:name><name>2</name><first>a</first></r>"#))
        // THEN both spellings match, the first in document order wins, and a missing key is nil
        #expect(record.name == ["1", "2"])
        #expect(record.first == "a")
        #expect(record.missing == nil)
    }

    @Test func keysAreFoundInADocumentWithMoreThanSixtyFourNames() throws {
        // GIVEN 80 distinct element names before the record's fields (past the name-number path)
        struct Record: Decodable { let city: String; let zip: String? }
        let noise = (0 ..< 80).map { "<n\($0)/>" }.joined()
        let record = try decoder.decode(Record.self, from: try root("<r>\(noise)<zip>1</zip><city>x</city></r>"))
        // THEN look-ups still find them by name
        #expect(record.city == "x")
        #expect(record.zip == "1")
    }

    @Test func anEmptyURLElementIsCorruptDataNotAnEmptyOrMissingURL() throws {
        struct Page: Decodable {
            let homepage: URL
        }
        struct OptionalPage: Decodable {
            let homepage: URL?
        }
        let empty = try root("<page><homepage/></page>")
        #expect(throws: DecodingError.self) { try decoder.decode(Page.self, from: empty) }
        // Present but empty is not absent: an optional URL fails the same way.
        do {
            _ = try decoder.decode(OptionalPage.self, from: empty)
            Issue.record("an empty optional URL decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["homepage"])
        }
        #expect(try decoder.decode(OptionalPage.self, from: root("<page/>")).homepage == nil)
        #expect(try decoder.decode(Page.self, from: root("<page><homepage>https://example.com/a</homepage></page>")).homepage == URL(string: "https://example.com/a"))
    }

    @Test func optionalsAreNilWhenMissingOrXSINil() throws {
        struct Person: Decodable { let name: String?; let age: Int?; let email: String?; let nick: String? }
        let person = try decoder.decode(Person.self, from: try root("""
            <p xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
              <name>Ada</name><age xsi:nil="true"/><nick></nick>
            </p>
            """))
        #expect(person.name == "Ada")
        #expect(person.age == nil)
        #expect(person.email == nil)
        #expect(person.nick == "")  // present but empty is an empty string, not nil
    }

    @Test func xsiNilOnARequiredValueIsValueNotFound() throws {
        struct Person: Decodable { let age: Int }
        let error = #expect(throws: DecodingError.self) {
            try decoder.decode(Person.self, from: try root(#"<p xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><age i:nil="1"/></p>"#))
        }
        guard case .valueNotFound = error else {
            Issue.record("expected valueNotFound, got \(String(describing: error))")
            return
        }
        #expect(codingPath(of: try #require(error)) == "age")
    }

    @Test func attributesAreReachableByKey() throws {
        struct Item: Decodable { let id: Int; let name: String; let kind: String? }
        let item = try decoder.decode(Item.self, from: try root(#"<item id=" 7 " kind="a"><name>Pen</name><kind>b</kind></item>"#))
        #expect(item.id == 7)
        #expect(item.name == "Pen")
        #expect(item.kind == "b")  // a child element wins over an attribute
    }

    @Test func anArrayDecodedFromAnElementIsItsChildren() throws {
        struct City: Decodable, Equatable { let name: String }
        let cities = try decoder.decode([City].self, from: try root("<cities><city><name>Oslo</name></city><city><name>Rome</name></city></cities>"))
        #expect(cities == [City(name: "Oslo"), City(name: "Rome")])
        let matrix = try decoder.decode([[Int]].self, from: try root("<m><r><c>1</c><c>2</c></r><r><c>3</c></r></m>"))
        #expect(matrix == [[1, 2], [3]])
    }

    @Test func arraysDecodeLikeTheStandardLibrarysArrayInitFromDecoder() throws {
        // Arrays are decoded into storage reserved for all their items (XMLDecodableArray): the
        // same items, in the same order, with the same errors, as `Array.init(from:)` gives.
        struct Row: Decodable, Equatable { let n: [Int]; let label: String? }
        struct Table: Decodable { let row: [Row]; let empty: [Row]; let word: [String] }
        var document = "<t>"
        for index in 0..<300 {
            document += "<row><label>r\(index)</label>" + (0..<(index % 4)).map { "<n> \($0 + index) </n>" }.joined() + "</row>"
            if index % 100 == 0 { document += "<word>w\(index)</word><other/>" }
        }
        document += "</t>"
        let table = try decoder.decode(Table.self, from: try root(document))
        #expect(table.row == (0..<300).map { index in Row(n: (0..<(index % 4)).map { $0 + index }, label: "r\(index)") })
        #expect(table.empty.isEmpty)
        #expect(table.word == ["w0", "w100", "w200"])
        // The children of a top-level element, whatever their names, in order.
        #expect(try decoder.decode([String].self, from: try root("<l><a>1</a><b>2</b><a>3</a></l>")) == ["1", "2", "3"])
        #expect(try decoder.decode([[String]].self, from: try root("<l><a/><b><c>x</c><d>y</d></b></l>")) == [[], ["x", "y"]])
        // An item that does not decode stops the array with its position in the path.
        let error = #expect(throws: DecodingError.self) {
            try decoder.decode(Table.self, from: try root("<t><row><n>1</n></row><row><n>x</n></row></t>"))
        }
        #expect(codingPath(of: try #require(error)) == "row[1].n[0]")
    }

    @Test func scalarsAreTrimmedOnlyWhenThereIsWhiteSpace() throws {
        struct Reading: Decodable { let a: Int; let b: Int; let c: Double; let d: String; let e: Bool }
        let reading = try decoder.decode(Reading.self, from: try root("<r><a>12</a><b>\n\t12 </b><c> 2.5</c><d> x </d><e>true\r\n</e></r>"))
        #expect(reading.a == 12)
        #expect(reading.b == 12)
        #expect(reading.c == 2.5)
        #expect(reading.d == " x ")
        #expect(reading.e)
        #expect(throws: DecodingError.self) { try decoder.decode(Reading.self, from: try root("<r><a> </a><b>1</b><c>1</c><d/><e>1</e></r>")) }
    }

    @Test func aDictionaryCollectsChildrenAndAttributes() throws {
        let fields = try decoder.decode([String: String].self, from: try root(#"<r id="1"><a>x</a><b>y</b></r>"#))
        #expect(fields == ["id": "1", "a": "x", "b": "y"])
    }

    @Test func anElementPropertyReceivesTheElement() throws {
        struct Envelope: Decodable { let code: Int; let extra: XMLTree.Element }
        let envelope = try decoder.decode(Envelope.self, from: try root("<e><code>3</code><extra><any>thing</any></extra></e>"))
        #expect(envelope.code == 3)
        #expect(envelope.extra.child(named: "any")?.text == "thing")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(XMLTree.Element.self, from: Data("{}".utf8)) }
    }

    @Test(arguments: [
        ("2026-01-02T03:04:05Z", 1_767_323_045.0),
        ("2026-01-02T04:04:05+01:00", 1_767_323_045.0),
        (" 2026-01-02T03:04:05.250Z ", 1_767_323_045.25),
        // Offsets written without a colon, as ISO 8601 allows.
        ("2026-01-02T04:04:05+0100", 1_767_323_045.0),
        ("2026-01-02T01:34:05.5-0130", 1_767_323_045.5),
        ("2026-01-02T04:04:05+01", 1_767_323_045.0),
    ])
    func datesAreISO8601ByDefault(text: String, seconds: Double) throws {
        struct Event: Decodable { let at: Date }
        let event = try decoder.decode(Event.self, from: try root("<e><at>\(text)</at></e>"))
        #expect(abs(event.at.timeIntervalSince1970 - seconds) < 0.001)
    }

    @Test(arguments: [
        "2026-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-02T25:00:00Z", "2026-01-02T03:61:00Z",
        "2026-01-02T03:04:61Z", "2026-01-02T03:04:05+01:60", "2026-01-02T03:04:05+15:00", "2026-1-2T03:04:05Z",
        "2026-01-02T03:04:05GMT",
    ])
    func aDateOrTimeThatDoesNotExistIsRefusedNotMovedToAnother(text: String) throws {
        struct Event: Decodable { let at: Date }
        let error = #expect(throws: DecodingError.self) { try decoder.decode(Event.self, from: try root("<e><at>\(text)</at></e>")) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["at"])
    }

    @Test func dateStrategies() throws {
        struct Event: Decodable { let at: Date }
        let seconds = XMLTreeDecoder(dateDecodingStrategy: .secondsSince1970)
        #expect(try seconds.decode(Event.self, from: try root("<e><at>86400</at></e>")).at == Date(timeIntervalSince1970: 86_400))
        let milliseconds = XMLTreeDecoder(dateDecodingStrategy: .millisecondsSince1970)
        #expect(try milliseconds.decode(Event.self, from: try root("<e><at>1500</at></e>")).at == Date(timeIntervalSince1970: 1.5))
        struct Unreadable: Error {}
        let custom = XMLTreeDecoder(dateDecodingStrategy: .custom { text in
            guard text == "epoch" else { throw Unreadable() }
            return Date(timeIntervalSince1970: 0)
        })
        #expect(try custom.decode(Event.self, from: try root("<e><at>epoch</at></e>")).at == Date(timeIntervalSince1970: 0))
        #expect(throws: DecodingError.self) { try custom.decode(Event.self, from: try root("<e><at>later</at></e>")) }
        #expect(throws: DecodingError.self) { try decoder.decode(Event.self, from: try root("<e><at>2026-01-02</at></e>")) }
    }

    @Test func aMissingElementIsKeyNotFoundWithItsPath() throws {
        struct Line: Decodable { let sku: String; let quantity: Int }
        struct Order: Decodable { let line: [Line] }
        let error = #expect(throws: DecodingError.self) {
            try decoder.decode(Order.self, from: try root("<o><line><sku>a</sku><quantity>1</quantity></line><line><sku>b</sku></line></o>"))
        }
        guard case .keyNotFound(let key, _) = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(key.stringValue == "quantity")
        #expect(codingPath(of: try #require(error)) == "line[1].quantity")
    }

    @Test(arguments: [
        ("<o><n>twelve</n></o>", "n"),
        ("<o><n>300</n></o>", "n"),
        ("<o><n>1.5</n></o>", "n"),
        ("<o><n></n></o>", "n"),
    ])
    func unreadableIntegersAreDataCorruptedWithTheirPath(document: String, path: String) throws {
        struct Value: Decodable { let n: UInt8 }
        let error = #expect(throws: DecodingError.self) { try decoder.decode(Value.self, from: try root(document)) }
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
        #expect(codingPath(of: try #require(error)) == path)
    }

    @Test func unreadableValuesAreErrors() throws {
        struct Flag: Decodable { let on: Bool }
        struct Link: Decodable { let url: URL }
        struct Amount: Decodable { let value: Decimal }
        #expect(throws: DecodingError.self) { try decoder.decode(Flag.self, from: try root("<f><on>yes</on></f>")) }
        #expect(throws: DecodingError.self) { try decoder.decode(Link.self, from: try root("<l><url> </url></l>")) }
        #expect(throws: DecodingError.self) { try decoder.decode(Amount.self, from: try root("<a><value>1.2.3</value></a>")) }
        #expect(throws: DecodingError.self) { try decoder.decode(Amount.self, from: try root("<a><value>12abc</value></a>")) }
    }

    @Test func arrayItemsKeepTheirOwnCodingPathsEvenWhenTheyHoldTheirDecoder() throws {
        // The decoder reuses one item decoder while nobody else holds it: an item that keeps
        // its decoder (or a container) must not see it change under it.
        struct Item: Decodable {
            let name: String
            let path: [String]
            let kept: any Decoder
            init(from decoder: any Decoder) throws {
                name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
                path = decoder.codingPath.map(\.stringValue)
                kept = decoder
            }
            enum CodingKeys: String, CodingKey { case name }
        }
        struct Plain: Decodable { let name: String }
        struct List: Decodable { let item: [Item]; let plain: [Plain] }
        let list = try decoder.decode(List.self, from: try root("""
            <l><item><name>a</name></item><plain><name>x</name></plain><item><name>b</name></item>\
            <plain><name>y</name></plain><item><name>c</name></item></l>
            """))
        #expect(list.item.map(\.name) == ["a", "b", "c"])
        #expect(list.plain.map(\.name) == ["x", "y"])
        #expect(list.item.map(\.path) == [["item", "Index 0"], ["item", "Index 1"], ["item", "Index 2"]])
        #expect(list.item.map { $0.kept.codingPath.map(\.stringValue) } == list.item.map(\.path))
    }

    @Test func aPathThatLeadsNowhereIsKeyNotFound() throws {
        let error = #expect(throws: DecodingError.self) {
            try decoder.decode(String.self, from: Data("<a><b><c>x</c></b></a>".utf8), atPath: ["b", "missing"])
        }
        #expect(codingPath(of: try #require(error)) == "b.missing")
        #expect(try decoder.decode(String.self, from: Data("<a><b><c>x</c></b></a>".utf8), atPath: ["b", "c"]) == "x")
    }

    @Test func userInfoReachesTheModel() throws {
        let key = try #require(CodingUserInfoKey(rawValue: "unit"))
        struct Reading: Decodable {
            let label: String
            init(from decoder: any Decoder) throws {
                label = "\(try decoder.singleValueContainer().decode(String.self)) \(decoder.userInfo[CodingUserInfoKey(rawValue: "unit")!] as? String ?? "")"
            }
        }
        let decoder = XMLTreeDecoder(userInfo: [key: "kg"])
        #expect(try decoder.decode(Reading.self, from: try root("<r>5</r>")).label == "5 kg")
    }
}
