import Foundation
import MallocCounter

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Clocks and counters

/// Monotonic time in nanoseconds.
@inline(__always)
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// User plus system CPU time of the whole process, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Allocation counters of the whole process (see the `MallocCounter` target).
struct AllocationCount {
    var allocations: UInt64
    var bytes: UInt64

    static var isAvailable: Bool { malloc_counter_available() != 0 }
    static var current: AllocationCount {
        AllocationCount(allocations: malloc_counter_allocations(), bytes: malloc_counter_bytes())
    }
}

/// Reads `VmHWM` (peak resident set size) from `/proc/self/status`, in bytes; `nil` where there
/// is no procfs.
func peakResidentBytes() -> Int? { procStatusField("VmHWM") }

/// Restarts `VmHWM` from the current resident size (Linux 4.0 and later: `5` written to
/// `/proc/self/clear_refs`); elsewhere the peak keeps counting from the process's start.
///
/// Without it, a memory child's baseline is the peak of building the input, which holds the
/// generator's 32 MB text beside the 32 MB `Data`: a parse could then use up to 32 MB without
/// raising the peak at all, and "peak above the input" would undercount it.
func resetPeakResident() {
    guard let file = fopen("/proc/self/clear_refs", "w") else { return }
    fputs("5", file)
    fclose(file)
}

/// Reads `VmRSS` (current resident set size), in bytes.
func residentBytes() -> Int? { procStatusField("VmRSS") }

private func procStatusField(_ name: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
        let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }
    return nil
}

/// Keeps results alive so the optimiser cannot drop the work that made them.
nonisolated(unsafe) var sink = 0
@inline(never)
func consume(_ value: Int) { sink &+= value }

// MARK: - Statistics

func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty)
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The value below which `fraction` of `sorted` lies (nearest rank).
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// How much faster `a` ran than `b`, given each one's seconds per unit of work in every round.
///
/// `ratio` is the median over rounds of the ratio within each round, `b`'s time divided by `a`'s.
/// A round runs every contender back to back, so a slow stretch on this shared machine slows
/// both sides of a round alike and drops out of the ratio, where a ratio of two separately taken
/// medians would keep it. `spread` gives the lowest and highest round, for the report: how far
/// one round can stray.
func pairedSpeedRatio(_ a: [Double], _ b: [Double]) -> (ratio: Double, spread: String) {
    summarize(zip(a, b).map { $1 / $0 }, labelled: "per-round")
}

/// The speed of `a` relative to `b` from turns run in alternating order: `a[i]` and `b[i]` are
/// the times of one turn, `a` first in even turns and `b` first in odd ones.
///
/// Whichever of two back-to-back clients runs second can come out a few percent faster or slower
/// (one run's log put the async pair at 1.008 in one order and 0.951 in the other, at concurrency
/// 32; the cause is not known), so each pair of turns, one in either order, gives one ratio, the
/// geometric mean of its two: the order's effect cancels within the pair. `ratio` is the median
/// of those. A median over single turns would not cancel it: when the two orders' ratios sit a
/// few percent apart, the median can land anywhere between them.
func balancedSpeedRatio(_ a: [Double], _ b: [Double]) -> (ratio: Double, spread: String) {
    precondition(a.count == b.count && a.count % 2 == 0 && !a.isEmpty)
    let ratios = stride(from: 0, to: a.count, by: 2).map { turn -> Double in
        let first: Double = b[turn] / a[turn]
        let second: Double = b[turn + 1] / a[turn + 1]
        return (first * second).squareRoot()
    }
    return summarize(ratios, labelled: "per pair")
}

/// The median of `ratios`, and their lowest and highest for the report ("per-round 0.91–1.08").
private func summarize(_ ratios: [Double], labelled label: String) -> (ratio: Double, spread: String) {
    (median(ratios), label + String(format: " %.2f–%.2f", ratios.min() ?? Double.nan, ratios.max() ?? Double.nan))
}

// MARK: - Interleaved timing

/// A seeded generator (SplitMix64) for the order in which contenders run: the same sequence of
/// orders in every run of the suite. A fixed rotation would keep each contender behind the same
/// neighbour every time, and a neighbour's leftovers (a heap full of freed blocks, a busy event
/// loop winding down) then favour or handicap the same contender in every round.
struct Shuffler: RandomNumberGenerator {
    private var state: UInt64 = 0x5EED_0F_BE_4C_4D_41

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One thing being timed: a closure doing one unit of work and returning something to consume.
struct Contender {
    let name: String
    let run: () throws -> Int
}

/// What the interleaved timer found for one contender.
struct Timing {
    /// Median seconds per unit of work, over the rounds.
    var secondsPerIteration: Double
    /// Every round's seconds per unit of work.
    var samples: [Double]
    /// Allocations per unit of work, from one run with the counters on.
    var allocations: Double?
    /// Bytes allocated per unit of work.
    var allocatedBytes: Double?
}

/// Times contenders side by side: a warm-up run each, then `rounds` rounds. In a round every
/// contender takes one sample, repeating the work enough times to last about `sampleSeconds`,
/// and the samples are cut into `slicesPerSample` slices run in turn, in a shuffled order
/// (``Shuffler``). Reports medians, so a burst of noise from the other engineers' builds spoils one
/// sample, not the comparison, and targets compare the rounds pairwise
/// (``pairedSpeedRatio(_:_:)``).
///
/// The process keeps the memory it frees (`malloc_counter_keep_memory()`, called at start-up),
/// so timed runs take no page faults: with glibc's defaults, the JSONSerialization contenders
/// (300 MB of small allocations per parse) ran at 5.6 to 13 MB/s depending on their neighbours.
func interleave(_ contenders: [Contender], rounds: Int, sampleSeconds: Double, slicesPerSample: Int = 8) throws -> [String: Timing] {
    var iterations: [String: Int] = [:]
    var result: [String: Timing] = [:]
    for contender in contenders {
        // Warm-up, also measuring allocations and calibrating the repeat count.
        let before = AllocationCount.current
        let start = now()
        consume(try contender.run())
        let elapsed = Double(now() - start) / 1e9
        let after = AllocationCount.current
        iterations[contender.name] = max(1, Int(sampleSeconds / max(elapsed, 1e-7)))
        result[contender.name] = Timing(
            secondsPerIteration: .nan, samples: [],
            allocations: AllocationCount.isAvailable ? Double(after.allocations - before.allocations) : nil,
            allocatedBytes: AllocationCount.isAvailable ? Double(after.bytes - before.bytes) : nil)
    }
    var shuffler = Shuffler()
    for _ in 0..<rounds {
        var done: [String: Int] = [:]
        var elapsed: [String: UInt64] = [:]
        // Each contender's sample is cut into slices run in turn with the other contenders',
        // so that a slow stretch of this shared machine falls on every contender of the round
        // alike rather than on whichever ran during it.
        for slice in 1...slicesPerSample {
            for contender in contenders.shuffled(using: &shuffler) {
                let runs = iterations[contender.name]! * slice / slicesPerSample - done[contender.name, default: 0]
                guard runs > 0 else { continue }
                let start = now()
                for _ in 0..<runs { consume(try contender.run()) }
                elapsed[contender.name, default: 0] += now() - start
                done[contender.name, default: 0] += runs
            }
        }
        for contender in contenders {
            let runs = Double(done[contender.name]!)
            result[contender.name]!.samples.append(Double(elapsed[contender.name]!) / 1e9 / runs)
        }
    }
    for name in result.keys {
        result[name]!.secondsPerIteration = median(result[name]!.samples)
    }
    return result
}

// MARK: - Child processes

/// The path of this executable, to run it again as a child.
func executablePath() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}

/// Runs this executable with `arguments` and returns its standard output; throws when it exits
/// with a non-zero status.
func runChild(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executablePath())
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw HarnessError("child \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
    }
    return String(decoding: output, as: UTF8.self)
}

/// What a memory child reports: the peak resident size before and after the work, and whether
/// the work produced the expected result.
struct MemoryReport: Codable {
    var baselinePeakBytes: Int
    var peakBytes: Int
    var succeeded: Bool
    var note: String?
}

/// A failure of the harness itself (not a missed target): the command exits non-zero.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Async from synchronous code

/// Runs `body` on the cooperative pool and blocks the calling (non-pool) thread until it ends.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

private final class ResultBox<T>: @unchecked Sendable {
    // Written once by the task before it signals, read after the wait: the semaphore orders them.
    var result: Result<T, any Error>?
}

/// A counter and a list of latencies shared by the threads of a load run.
final class LoadState: @unchecked Sendable {
    // `lock` guards every field.
    private let lock = NSLock()
    private var issued = 0
    private var latencies: [Double] = []
    private var failures = 0
    let total: Int

    init(total: Int) {
        self.total = total
        latencies.reserveCapacity(total)
    }

    /// Claims the next request; `false` once `total` have been claimed.
    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard issued < total else { return false }
        issued += 1
        return true
    }

    func record(latencyNanoseconds: UInt64, ok: Bool) {
        lock.lock()
        latencies.append(Double(latencyNanoseconds) / 1e9)
        if !ok { failures += 1 }
        lock.unlock()
    }

    var snapshot: (latencies: [Double], failures: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (latencies, failures)
    }
}
