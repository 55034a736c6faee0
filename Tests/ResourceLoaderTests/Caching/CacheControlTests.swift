import Foundation
import ResourceLoader
import Testing

@Suite("Cache-Control: directives parsed robustly (RFC 9111, section 5.2)")
struct CacheControlTests {
    @Test("§5.2: names are case-insensitive, values tokens or quoted strings")
    func namesAndValues() {
        let directives = CacheControl(#"Max-Age=60, PUBLIC, s-maxage="120", no-cache="Set-Cookie, Via", Private"#)
        #expect(directives.maxAge == 60)
        #expect(directives.sharedMaxAge == 120)
        #expect(directives.isPublic)
        #expect(directives.noCache)
        #expect(directives.isPrivate)
        #expect(!directives.noStore)
    }

    @Test("§5.2: a quoted string with an escaped quote and a comma is one value")
    func quotedStringWithEscapes() {
        let members = CacheControl.members(of: #"private="a\"b, c", max-age=5"#)
        #expect(members.count == 2)
        #expect(members[0].name == "private")
        #expect(members[0].value == #"a"b, c"#)
        #expect(CacheControl(#"private="a\"b, c", max-age=5"#).maxAge == 5)
    }

    @Test("§4.2.1: duplicated max-age keeps the most restrictive (smallest) value")
    func duplicatesPickTheMostRestrictive() {
        #expect(CacheControl("max-age=600, max-age=60").maxAge == 60)
        #expect(CacheControl("max-age=60, max-age=600").maxAge == 60)
        #expect(CacheControl("min-fresh=5, min-fresh=50").minFresh == 50)
        #expect(CacheControl("max-stale, max-stale=10").maxStale == 10)
    }

    @Test("§4.2.1: an invalid or negative max-age reads as 0 (stale)")
    func invalidMaxAgeIsStale() {
        #expect(CacheControl("max-age=abc").maxAge == 0)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("max-age=").maxAge == 0)
        #expect(CacheControl("s-maxage=1.5").sharedMaxAge == 0)
    }

    @Test("§1.2.2: a delta-seconds too large is read as 2147483648")
    func overflowIsCapped() {
        #expect(CacheControl("max-age=99999999999999999999999999").maxAge == CacheControl.largestDeltaSeconds)
    }

    @Test("§5.2.1.2: max-stale without a value accepts any staleness")
    func maxStaleWithoutValue() {
        #expect(CacheControl("max-stale").maxStale == Int.max)
        #expect(CacheControl("max-stale=30").maxStale == 30)
        #expect(CacheControl("max-stale=x").maxStale == nil)
    }

    @Test("§5.2.2.3: must-understand is read without regard to case")
    func mustUnderstand() {
        #expect(CacheControl("Must-Understand, no-store").mustUnderstand)
        #expect(CacheControl("no-store").mustUnderstand == false)
    }

    @Test("§5.2: empty members, unknown directives and stray white space are skipped")
    func lenient() {
        let directives = CacheControl(" ,, no-store ,  foo=bar ,\tonly-if-cached, min-fresh=20 , immutable, stale-if-error=300")
        #expect(directives.noStore)
        #expect(directives.onlyIfCached)
        #expect(directives.minFresh == 20)
        #expect(directives.isImmutable)
        #expect(directives.staleIfError == 300)
        #expect(CacheControl("") == CacheControl())
        #expect(CacheControl(#"private="unterminated"#).isPrivate)
    }

    @Test("RFC 5861: stale-while-revalidate is read like stale-if-error: the smallest number wins, a non-number is ignored")
    func staleWhileRevalidate() {
        #expect(CacheControl("max-age=0, stale-while-revalidate=3600").staleWhileRevalidate == 3600)
        #expect(CacheControl("Stale-While-Revalidate=60, stale-while-revalidate=30").staleWhileRevalidate == 30)
        #expect(CacheControl("stale-while-revalidate=soon").staleWhileRevalidate == nil)
        #expect(CacheControl("stale-while-revalidate").staleWhileRevalidate == nil)
    }

    @Test("§5.2: several Cache-Control fields read as one list")
    func severalFields() {
        let head = CacheTesting.head(headers: ["Cache-Control": "max-age=10"])
        #expect(CacheControl(head).maxAge == 10)
        let joined = ResponseHead(statusCode: 200, url: nil, headerFields: [("Cache-Control", "public"), ("cache-control", "max-age=5")])
        let directives = CacheControl(joined)
        #expect(directives.isPublic)
        #expect(directives.maxAge == 5)
    }

    @Test("§5.2 grammar: no white space around `=` (cache-tests freshness-max-age-space-before-equals and -after-equals)")
    func noWhiteSpaceAroundEquals() {
        #expect(CacheControl("max-age =3600").maxAge == 0)
        #expect(CacheControl("max-age= 3600").maxAge == 0)
        #expect(CacheControl("min-fresh = 20").minFresh == nil)
    }
}
