import Foundation
@testable import ResourceLoader
import Testing

@Suite("Transfer parts: digest fields, Content-Range, SHA256Digest, progress throttling")
struct TransferPartsTests {
    static let abc = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="

    @Test func digestFieldsReadTheSHA256MemberOnly() throws {
        let abc = try #require(SHA256Digest(bytes: Data(base64Encoded: Self.abc)!))
        #expect(DigestFields.sha256(in: "sha-256=:\(Self.abc):") == abc)
        #expect(DigestFields.sha256(in: "sha-512=:AAAA:, sha-256=:\(Self.abc):") == abc)
        #expect(DigestFields.sha256(in: "sha-256=:\(Self.abc):;p=1, unixsum=:AA==:") == abc)
        #expect(DigestFields.sha256(in: "sha-512=:AAAA:") == nil)
        // Not a byte sequence, not 32 bytes, not a dictionary: the field is ignored.
        #expect(DigestFields.sha256(in: "sha-256=\(Self.abc)") == nil)
        #expect(DigestFields.sha256(in: "sha-256=:AAAA:") == nil)
        #expect(DigestFields.sha256(in: "SHA-256=:\(Self.abc):") == nil)
    }

    @Test func digestFieldsReadAnUnpaddedByteSequence() throws {
        // GIVEN a sha-256 member whose base64 leaves out its "=" padding (RFC 8941 §4.2.7)
        let abc = try #require(SHA256Digest(bytes: Data(base64Encoded: Self.abc)!))
        let unpadded = String(Self.abc.dropLast())

        // WHEN the field is read THEN the digest is found
        #expect(DigestFields.sha256(in: "sha-256=:\(unpadded):") == abc)
        #expect(DigestFields.sha256(in: "sha-512=:AAA:, sha-256=:\(unpadded):") == abc)
    }

    @Test func digestFieldsReadPastAStringHoldingACommaOrAnEscape() throws {
        // GIVEN a dictionary with a string member holding a comma, a quote and a backslash
        let abc = try #require(SHA256Digest(bytes: Data(base64Encoded: Self.abc)!))

        // WHEN the field is read THEN the sha-256 member is found before or after it
        #expect(DigestFields.sha256(in: "sha-256=:\(Self.abc):, foo=\"a,b\"") == abc)
        #expect(DigestFields.sha256(in: "foo=\"a, \\\"b\\\\\", sha-256=:\(Self.abc):") == abc)
        // An unterminated string or a bad escape: not a dictionary, the field is ignored.
        #expect(DigestFields.sha256(in: "sha-256=:\(Self.abc):, foo=\"a,b") == nil)
        #expect(DigestFields.sha256(in: "sha-256=:\(Self.abc):, foo=\"a\\n\"") == nil)
    }

    @Test func digestFieldsReadPastParametersAndEveryKindOfMember() throws {
        let abc = try #require(SHA256Digest(bytes: Data(base64Encoded: Self.abc)!))
        // GIVEN bare keys with parameters, and members of each kind RFC 8941 allows
        let fields = [
            "foo;p=1, sha-256=:\(Self.abc):",
            "foo;p=\"x,y\";q, sha-256=:\(Self.abc):;a=?0;b=tok",
            "a=?1, b=12.5, c=-3, d=tok/en:x, e=*x, f=(1 \"a,b\" :AAAA: t);g=1, h=(), sha-256=:\(Self.abc):",
            "sha-256=:AAAA:, sha-256=:\(Self.abc):",
            " sha-256=:\(Self.abc):\t,\tfoo ",
        ]

        // WHEN each is read THEN the sha-256 member is found (the last of a repeated key)
        for field in fields { #expect(DigestFields.sha256(in: field) == abc, "\(field)") }
    }

    @Test func digestFieldsIgnoreAFieldThatIsNotADictionary() {
        // GIVEN fields that RFC 8941 does not parse as a dictionary
        let fields = [
            "sha-256=:\(Self.abc):,",
            "sha-256=:\(Self.abc):, 1foo=1",
            "sha-256=:\(Self.abc):, foo=(1 2",
            "sha-256=:\(Self.abc):, foo=1234567890123456",
            "sha-256=:\(Self.abc):, foo=1.2345",
            "sha-256=:\(Self.abc):, foo=?2",
            "sha-256=:\(Self.abc):, foo=:A*A:",
            "sha-256=:\(Self.abc): foo",
            "sha-256=:\(Self.abc):, sha-256=?1",
        ]

        // WHEN each is read THEN no digest is found
        for field in fields { #expect(DigestFields.sha256(in: field) == nil, "\(field)") }
    }

    @Test func aDecodedDigestHas32BytesAndIsEncodedAsBefore() throws {
        let digest = SHA256Digest(of: Data("abc".utf8))
        let encoded = try JSONEncoder().encode(digest)
        // The encoded form: the synthesized one, its bytes as a list of numbers.
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect((object["bytes"] as? [Int])?.count == 32)
        #expect(try JSONDecoder().decode(SHA256Digest.self, from: encoded) == digest)
        for count in [0, 31, 33] {
            let bad = Data("{\"bytes\":[\((0..<count).map { _ in "1" }.joined(separator: ","))]}".utf8)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(SHA256Digest.self, from: bad) }
            do {
                _ = try JSONDecoder().decode(SHA256Digest.self, from: bad)
            } catch DecodingError.dataCorrupted {
            } catch {
                Issue.record("expected dataCorrupted for \(count) bytes, got \(error)")
            }
        }
    }

    @Test func contentRangesAreReadAsRFC9110WritesThem() {
        let full = ContentRange("bytes 10-19/100")
        #expect(full?.first == 10 && full?.last == 19 && full?.completeLength == 100)
        let unknownLength = ContentRange("bytes 10-19/*")
        #expect(unknownLength?.first == 10 && unknownLength?.last == 19 && unknownLength?.completeLength == nil)
        let unsatisfied = ContentRange("bytes */100")
        #expect(unsatisfied != nil && unsatisfied?.first == nil && unsatisfied?.completeLength == 100)
        for bad in ["bytes */*", "bytes 19-10/100", "items 0-1/2", "bytes 1-2", "bytes -1-2/3", "bytes 0-1/x", ""] {
            #expect(ContentRange(bad) == nil, "\(bad.debugDescription)")
        }
    }

    @Test func sha256DigestsAreRefusedUnlessThirtyTwoBytes() {
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(SHA256Digest(hex: hex)?.hex == hex)
        #expect(SHA256Digest(hex: hex.uppercased())?.hex == hex)
        #expect(SHA256Digest(hex: hex)?.bytes == SHA256.hash(Array("abc".utf8)))
        #expect(SHA256Digest(hex: String(hex.dropLast())) == nil)
        #expect(SHA256Digest(hex: String(hex.dropLast()) + "g") == nil)
        #expect(SHA256Digest(bytes: [UInt8](repeating: 0, count: 31)) == nil)
        #expect(SHA256Digest(of: Data("abc".utf8)).hex == hex)
    }

    @Test func progressIsThrottledByTimeAndFractionAndEndsWithTheLastValue() {
        let now = Locked(Duration.zero)
        let seen = Locked<[Int64]>([])
        let reporter = TransferProgressReporter(elapsed: { now.withLock { $0 } }) { progress in
            seen.withLock { $0.append(progress.completedBytes) }
        }
        // 10,000 pieces of 1 byte of a 10,000-byte body at one instant: only every 1% passes.
        for byte in 1...10_000 { reporter.received(Int64(byte), of: 10_000) }
        #expect(seen.withLock { $0.count } == 100)
        #expect(seen.withLock { $0.first } == 1)
        // Of an unknown total, nothing passes until 100 ms have gone by.
        seen.withLock { $0 = [] }
        for byte in 1...500 { reporter.received(Int64(byte), of: nil) }
        #expect(seen.withLock { $0 }.isEmpty)
        now.withLock { $0 = .milliseconds(100) }
        reporter.received(501, of: nil)
        reporter.received(502, of: nil)
        #expect(seen.withLock { $0 } == [501])
        reporter.finish()
        reporter.received(503, of: nil)
        reporter.finish()
        #expect(seen.withLock { $0 } == [501, 502])
    }

    @Test func theRequestBodysLastValueComesBeforeTheResponsesFirst() {
        let seen = Locked<[TransferProgress]>([])
        let reporter = TransferProgressReporter(elapsed: { .zero }) { progress in
            seen.withLock { $0.append(progress) }
        }
        // The last 50 bytes of the body are less than 1% at the same instant: throttled, until
        // the response begins.
        reporter.sent(9_950, of: 10_000)
        reporter.sent(10_000, of: 10_000)
        #expect(seen.withLock { $0.map(\.completedBytes) } == [9_950])
        reporter.received(0, of: 7)
        reporter.received(7, of: 7)
        reporter.finish()
        #expect(seen.withLock { $0 } == [
            TransferProgress(direction: .upload, completedBytes: 9_950, totalBytes: 10_000),
            TransferProgress(direction: .upload, completedBytes: 10_000, totalBytes: 10_000),
            TransferProgress(direction: .download, completedBytes: 0, totalBytes: 7),
            TransferProgress(direction: .download, completedBytes: 7, totalBytes: 7),
        ])
    }

    @Test func theFractionCompletedIsBoundedAndKnownOnlyWithATotal() {
        #expect(TransferProgress(direction: .download, completedBytes: 5, totalBytes: 10).fractionCompleted == 0.5)
        #expect(TransferProgress(direction: .download, completedBytes: 0, totalBytes: 0).fractionCompleted == 1)
        #expect(TransferProgress(direction: .upload, completedBytes: 20, totalBytes: 10).fractionCompleted == 1)
        #expect(TransferProgress(direction: .upload, completedBytes: 20, totalBytes: nil).fractionCompleted == nil)
    }
}
