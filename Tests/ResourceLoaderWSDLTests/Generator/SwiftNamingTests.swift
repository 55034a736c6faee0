@testable import ResourceLoaderWSDL
import Testing

@Suite("SwiftNaming")
struct SwiftNamingTests {
    @Test(arguments: [
        ("order_line", "OrderLine"), ("getUserResponse", "GetUserResponse"), ("First_x0020_Name", "FirstName"),
        ("3DSecure", "_3DSecure"), ("--", "Value"), ("ArrayOfstring", "ArrayOfstring"),
    ])
    func typeNames(xml: String, swift: String) {
        #expect(SwiftNaming.typeName(xml) == swift)
    }

    @Test(arguments: [
        ("UserID", "userID"), ("ID", "id"), ("URLValue", "urlValue"), ("Order_Line", "orderLine"), ("class", "class"),
        ("Ship_x0020_Date", "shipDate"), ("2", "_2"), ("next day", "nextDay"), ("é", "value"),
    ])
    func memberNames(xml: String, swift: String) {
        #expect(SwiftNaming.memberName(xml) == swift)
    }

    @Test func decodesOnlyWellFormedEscapes() {
        #expect(SwiftNaming.decodingEscapes("A_x0020_B_x002E_c") == "A B.c")
        #expect(SwiftNaming.decodingEscapes("A_x00G0_B") == "A_x00G0_B")
        #expect(SwiftNaming.decodingEscapes("A_x0020B") == "A_x0020B")
        #expect(SwiftNaming.decodingEscapes("_x") == "_x")
    }

    @Test func escapesKeywordsAndLiterals() {
        #expect(SwiftNaming.escaped("protocol") == "`protocol`")
        #expect(SwiftNaming.escaped("order") == "order")
        #expect(SwiftNaming.literal("a\"b\\c\n\u{1}\\(x)") == #""a\"b\\c\n\u{1}\\(x)""#)
    }

    @Test func writesDocumentationAsLines() {
        #expect(SwiftNaming.docComment("  First line.\n   second\n\n\n  Third. ", indent: "    ") == "    /// First line.\n    /// second\n    ///\n    /// Third.\n")
        #expect(SwiftNaming.docComment(" \n ", indent: "") == "")
        #expect(SwiftNaming.docComment(nil, indent: "") == "")
    }

    /// Names and texts beyond ASCII take the general paths, which give what the ASCII ones
    /// would for the same characters.
    @Test func nonASCIINamesAndTextsFollowTheSameRules() {
        #expect(SwiftNaming.words("naïve_name") == ["na", "ve", "name"])
        #expect(SwiftNaming.words("e\u{301}x_Y") == ["x", "Y"])
        #expect(SwiftNaming.memberName("Ünit_ID") == "nitID")
        #expect(SwiftNaming.typeName("größe_x0020_total") == "GrETotal")
        #expect(SwiftNaming.literal("Zürich \u{1F600}") == "\"Zürich \u{1F600}\"")
        #expect(SwiftNaming.literal("tab\there") == #""tab\there""#)
        // Tab and Unicode space separators are trimmed; U+0085 ends a line, as a line feed does.
        #expect(SwiftNaming.docComment("\u{3000}\tWide.\u{A0}\n\u{2003}next\u{85}", indent: "") == "/// Wide.\n/// next\n")
        // A CR LF pair is one line break, as a lone CR and a lone LF are.
        #expect(SwiftNaming.docComment("a\r\nb\nc\rd", indent: "") == "/// a\n/// b\n/// c\n/// d\n")
    }

    @Test(arguments: [
        ("abc", "abc"), ("  a b\t\r\n", "a b"), ("\n\t ", ""), ("", ""), ("\r\nx\r\n", "x"),
        ("\u{A0}x\u{A0}", "\u{A0}x\u{A0}"), (" Zürich ", "Zürich"), (" \u{1F600}", "\u{1F600}"),
        // A combining mark after a space makes one character with it, which is not white space.
        (" \u{301}abc ", " \u{301}abc"), ("abc \u{301}", "abc \u{301}"), ("abc \u{301} ", "abc \u{301}"),
    ])
    func xmlWhitespaceIsTrimmedAsCharactersAre(text: String, trimmed: String) {
        #expect(text.trimmingXMLWhitespace() == trimmed)
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        let byCharacters = text.firstIndex { !isSpace($0) }.map { start in String(text[start...text.lastIndex { !isSpace($0) }!]) } ?? ""
        #expect(byCharacters == trimmed)
    }

    @Test func asciiNamesTakeTheSameNamesInOnePass() {
        // The word-by-word rules, which every other name goes through.
        func typeNameByWords(_ name: String) -> String {
            let joined = SwiftNaming.words(name).map(SwiftNaming.capitalizingFirst).joined()
            return SwiftNaming.identifier(joined.isEmpty ? "Value" : joined)
        }
        func memberNameByWords(_ name: String) -> String {
            let parts = SwiftNaming.words(name)
            guard let first = parts.first else { return "value" }
            return SwiftNaming.identifier(SwiftNaming.lowercasingLeadingCapitals(first) + parts.dropFirst().map(SwiftNaming.capitalizingFirst).joined())
        }
        var names = [
            "", "-", "a", "A", "ID", "URLValue", "userID", "3DSecure", "3dSecure", "order_line", "ORDER_LINE", "x_", "_x",
            "getUserResponse", "A-B.c d", "ab12CD", "12", "Ab", "ABc", "__init__", "Value", "case",
        ]
        // Seeded, so that a failure repeats.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let alphabet = Array("aAbBxXzZ09_-. ".utf8)
        for _ in 0..<3_000 {
            var bytes: [UInt8] = []
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for step in 0..<Int(state >> 60) {
                bytes.append(alphabet[Int((state >> UInt64(step * 4)) & 0xF) % alphabet.count])
            }
            names.append(String(decoding: bytes, as: UTF8.self))
        }
        for name in names {
            #expect(SwiftNaming.typeName(name) == typeNameByWords(name), "typeName(\(name.debugDescription))")
            #expect(SwiftNaming.memberName(name) == memberNameByWords(name), "memberName(\(name.debugDescription))")
        }
    }

    @Test func registryResolvesCollisionsInClaimOrder() {
        var registry = NameRegistry(reserved: ["Date"])
        #expect(registry.claim("Order", suffix: "Type") == "Order")
        #expect(registry.claim("order", suffix: "Type") == "orderType")
        #expect(registry.claim("Order", suffix: "Type") == "OrderType2")
        #expect(registry.claim("Date", suffix: "Type") == "DateType")
    }
}
