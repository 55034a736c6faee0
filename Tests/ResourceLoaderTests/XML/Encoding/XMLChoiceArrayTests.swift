import Foundation
import ResourceLoader
import Testing

/// Arrays of ``XMLChoice``s: each item written as its case's element in place of the property,
/// and read back from the holder's children in document order.
@Suite("XMLChoice arrays")
struct XMLChoiceArrayTests {
    struct Card: Codable, Hashable {
        let number: String
    }

    enum Payment: Codable, Hashable, XMLChoice {
        case card(Card)
        case iban(String)
        case cash
    }

    struct Wallet: Codable, Hashable {
        let owner: String
        let payments: [Payment]
        let note: String?
    }

    static func text(_ value: some Encodable) throws -> String {
        String(decoding: try XMLTreeEncoder().encode(value, as: XMLQualifiedName("wallet")), as: UTF8.self)
    }

    @Test func itemsAreWrittenInOrderAsTheirCasesElements() throws {
        // GIVEN a wallet whose payments mix every case, one case twice and apart
        let wallet = Wallet(owner: "Ada", payments: [.iban("DE44"), .card(Card(number: "4111")), .cash, .iban("FR76")], note: "n")
        // WHEN it is encoded
        let xml = try Self.text(wallet)
        // THEN each item is its case's element, in order, with no element for the property
        #expect(xml.contains("<owner>Ada</owner><iban>DE44</iban><card><number>4111</number></card><cash></cash><iban>FR76</iban><note>n</note>"))
        #expect(!xml.contains("payments"))
    }

    @Test func itemsAreReadInDocumentOrderAmongTheHoldersOtherChildren() throws {
        // GIVEN a holder whose choice elements are interleaved with its other children
        let xml = """
            <wallet><iban>DE44</iban><owner>Ada</owner><cash/><note>n</note><card><number>4111</number></card><iban>FR76</iban></wallet>
            """
        // WHEN it is decoded
        let wallet = try XMLTreeDecoder().decode(Wallet.self, from: Data(xml.utf8))
        // THEN the payments are every choice element, in document order, and the rest is read too
        #expect(wallet == Wallet(owner: "Ada", payments: [.iban("DE44"), .cash, .card(Card(number: "4111")), .iban("FR76")], note: "n"))
    }

    @Test func anEmptyArrayWritesNothingAndNoElementReadsEmpty() throws {
        let wallet = Wallet(owner: "Ada", payments: [], note: nil)
        let xml = try Self.text(wallet)
        #expect(xml.hasSuffix("<wallet><owner>Ada</owner></wallet>"))
        #expect(try XMLTreeDecoder().decode(Wallet.self, from: Data(xml.utf8)) == wallet)
    }

    @Test func valuesRoundTrip() throws {
        var generator = SeededGenerator(seed: 28)
        for _ in 0..<50 {
            let payments = (0..<Int.random(in: 0...6, using: &generator)).map { _ -> Payment in
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: .card(Card(number: RandomValues.string(&generator)))
                case 1: .iban(RandomValues.string(&generator))
                default: .cash
                }
            }
            let wallet = Wallet(owner: RandomValues.string(&generator), payments: payments, note: Bool.random(using: &generator) ? "x" : nil)
            let data = try XMLTreeEncoder().encode(wallet, as: XMLQualifiedName("wallet"))
            #expect(try XMLTreeDecoder().decode(Wallet.self, from: data) == wallet)
        }
    }

    @Test func aBadItemIsAnErrorNotAShorterArray() throws {
        // GIVEN a card without its number between two good items
        let xml = "<wallet><owner>Ada</owner><cash/><card><nothing/></card><cash/></wallet>"
        // THEN decoding fails rather than stopping at the bad item
        #expect(throws: DecodingError.self) { try XMLTreeDecoder().decode(Wallet.self, from: Data(xml.utf8)) }
    }
}
