import Foundation
@testable import ResourceLoader
import Testing

/// The text arena's appends, short runs copied inline and long ones by `memcpy`.
@Suite("XML byte arena")
struct XMLByteArenaTests {
    @Test func runsOfEveryLengthAreCopiedExactlyAndNoFurther() {
        // GIVEN runs of 0 to 40 bytes, copied between guard bytes
        for count in 0...40 {
            let source = (0..<count).map { UInt8(truncatingIfNeeded: 1 + $0 * 7) }
            var target = [UInt8](repeating: 0xEE, count: count + 32)
            source.withUnsafeBufferPointer { from in
                target.withUnsafeMutableBufferPointer { to in
                    XMLByteArena.copy(from.baseAddress ?? XMLCharacters.noBytes, to: to.baseAddress! + 16, count: count)
                }
            }
            // THEN the run is there, and the bytes either side are untouched
            #expect(Array(target[16 ..< 16 + count]) == source, "count \(count)")
            #expect(target[..<16].allSatisfy { $0 == 0xEE } && target[(16 + count)...].allSatisfy { $0 == 0xEE }, "count \(count)")
        }
    }

    @Test func appendsAccumulateAcrossGrowth() {
        // GIVEN an arena appended to in runs of 0 to 40 bytes, growing many times
        let arena = XMLByteArena()
        var expected: [UInt8] = []
        for round in 0..<200 {
            let run = (0 ..< round % 41).map { UInt8(truncatingIfNeeded: round &+ $0) }
            run.withUnsafeBufferPointer { arena.append($0) }
            expected += run
        }
        // THEN it holds every byte in order; removing from the top forgets the last ones
        #expect(arena.allBytes == expected)
        arena.removeLast(10)
        #expect(arena.allBytes == Array(expected.dropLast(10)))
    }
}
