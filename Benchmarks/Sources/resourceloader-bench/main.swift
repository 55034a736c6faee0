import Foundation
import MallocCounter

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// resourceloader-bench: the whole suite in one run (see Docs/Performance.md).
//
//   resourceloader-bench [--quick] [--only xml,soap,json,http,http-server,operations,gzip,streaming,downloads,upload,wsdl,caching]
//                        [--output PATH]
//                        [--runs N] [--merge]
//   (`http` runs the end-to-end group and then `http-server`, ResourceService over
//   AsyncHTTPClientTransport; `http-server` runs that alone, N times with `--runs N` (default 1),
//   reporting the median run; `--merge` replaces only this run's groups in the output file)
//   resourceloader-bench --child xml|json CONTENDER COUNT     (used by the suite itself)
//   resourceloader-bench --child streaming CONTENDER URL      (used by the suite itself)
//   resourceloader-bench --child download CONTENDER URL PATH  (used by the suite itself)
//   resourceloader-bench --child upload URL FILE [TRANSPORT]  (used by the suite itself)
//   resourceloader-bench --profile-http CONTENDER CONCURRENCY TOTAL [URL]   (one HTTP client alone, for perf)
//   resourceloader-bench --profile-http-server CONTENDER CONCURRENCY TOTAL [URL]   (the same, server group)
//
// Exits non-zero only when the harness itself fails; missed targets are reported in the JSON
// summary and the printed table.

func log(_ message: String) {
    FileHandle.standardError.write(Data("[bench] \(message)\n".utf8))
}

// MARK: - Summary model

/// One measured value of one contender.
struct Measurement: Codable {
    var group: String
    var scenario: String
    var contender: String
    var secondsPerIteration: Double?
    var megabytesPerSecond: Double?
    var allocationsPerIteration: Double?
    /// XML only: allocations per iteration divided by the document's records.
    var allocationsPerRecord: Double?
    var allocatedMegabytesPerIteration: Double?
    var peakMemoryMegabytes: Double?
    var peakAboveInputMegabytes: Double?
    var requestsPerSecond: Double?
    var p50Milliseconds: Double?
    var p99Milliseconds: Double?
    var cpuMicrosecondsPerRequest: Double?
    var operationsPerSecond: Double?
    var failed: String?
}

/// One target: a ratio from this run against its bound.
struct TargetResult: Codable {
    var name: String
    var ratio: Double?
    var target: Double
    /// `">="` when the ratio must reach the target, `"<="` when it must stay under it.
    var comparison: String
    var pass: Bool
    var detail: String
}

struct Summary: Codable {
    var generatedAt: String
    var machine: [String: String]
    var mode: String
    var runSeconds: Double
    var targets: [TargetResult]
    var measurements: [Measurement]
    /// Later runs of some groups whose results replaced those groups' in this file (`--merge`);
    /// the fields above describe the run that wrote the rest.
    var mergedRuns: [MergedRun]?
}

/// A run of some groups merged into an existing summary with `--merge`.
struct MergedRun: Codable {
    var generatedAt: String
    var groups: [String]
    var mode: String
    var runSeconds: Double
    /// `/proc/loadavg`'s 1, 5 and 15 minute averages when the run started and when it ended.
    var loadAverageAtStart: String
    var loadAverageAtEnd: String
}

extension Summary {
    /// This summary with `newer`'s targets and measurements in place of its own of the same names
    /// and groups, and `newer`'s run listed in ``mergedRuns``. A target named after a group run
    /// again (`xml.…`) goes too, so that one renamed or dropped since does not linger; HTTP
    /// targets are all `http.…` whichever of `http` and `http-server` made them, so they are
    /// replaced by name only.
    func merging(_ newer: Summary, groups: [String]) -> Summary {
        let names = Set(newer.targets.map(\.name))
        let measured = Set(newer.measurements.map(\.group))
        let prefixes = Set(groups).subtracting(["http", "http-server"]).map { $0 + "." }
        var merged = self
        merged.targets = targets.filter { target in
            !names.contains(target.name) && !prefixes.contains { target.name.hasPrefix($0) }
        } + newer.targets
        merged.measurements = measurements.filter { !measured.contains($0.group) } + newer.measurements
        merged.mergedRuns = (mergedRuns ?? []) + [MergedRun(
            generatedAt: newer.generatedAt, groups: groups, mode: newer.mode, runSeconds: newer.runSeconds,
            loadAverageAtStart: newer.machine["loadAverageAtStart"] ?? "n/a", loadAverageAtEnd: newer.machine["loadAverageAtEnd"] ?? "n/a")]
        return merged
    }
}

final class Recorder {
    var measurements: [Measurement] = []
    var targets: [TargetResult] = []

    func target(_ name: String, ratio: Double?, atLeast bound: Double, detail: String) {
        let pass = ratio.map { $0 >= bound } ?? false
        targets.append(TargetResult(name: name, ratio: ratio.map(round3), target: bound, comparison: ">=", pass: pass, detail: detail))
        log("target \(name): \(ratio.map { String(format: "%.3f", $0) } ?? "n/a") (>= \(bound)) \(pass ? "PASS" : "MISS") — \(detail)")
    }

    func target(_ name: String, ratio: Double?, atMost bound: Double, detail: String) {
        let pass = ratio.map { $0 <= bound } ?? false
        targets.append(TargetResult(name: name, ratio: ratio.map(round3), target: bound, comparison: "<=", pass: pass, detail: detail))
        log("target \(name): \(ratio.map { String(format: "%.3f", $0) } ?? "n/a") (<= \(bound)) \(pass ? "PASS" : "MISS")")
    }
}

func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
let megabyte = 1_000_000.0

// MARK: - Children (peak memory, one contender per process)

func runChildMode(_ arguments: [String]) throws {
    if arguments.first == "streaming", arguments.count == 3 {
        try runStreamingChild(arguments[1], url: arguments[2])
        return
    }
    if arguments.first == "download", arguments.count == 4 {
        try runDownloadChild(arguments[1], url: arguments[2], path: arguments[3])
        return
    }
    if arguments.first == "upload", (3...4).contains(arguments.count) {
        try runUploadChild(url: arguments[1], file: arguments[2], transport: arguments.count == 4 ? arguments[3] : "urlsession")
        return
    }
    guard arguments.count == 3, let count = Int(arguments[2]) else { throw HarnessError("usage: --child xml|json CONTENDER COUNT") }
    var report: MemoryReport
    switch arguments[0] {
    case "xml":
        guard let contender = XMLContender.allCases.first(where: { $0.key == arguments[1] }) else { throw HarnessError("unknown contender") }
        let data = userDetailsDocument(count: count)
        // The generator's text is gone; restart the peak from what is resident now (the input
        // and the runtime), so that the peak above it is the parse's own.
        resetPeakResident()
        let baseline = peakResidentBytes() ?? 0
        do {
            let users = try contender.parse(data)
            report = MemoryReport(baselinePeakBytes: baseline, peakBytes: peakResidentBytes() ?? 0,
                                  succeeded: isExpected(users, count: count),
                                  note: isExpected(users, count: count) ? nil : "got \(users.count) users, expected \(count)")
        } catch {
            report = MemoryReport(baselinePeakBytes: baseline, peakBytes: peakResidentBytes() ?? 0, succeeded: false, note: "threw \(error)")
        }
    case "json":
        guard let contender = JSONContender.allCases.first(where: { $0.key == arguments[1] }) else { throw HarnessError("unknown contender") }
        let data = citiesDocument(count: count)
        // As for XML: the peak above what is resident once the input is built.
        resetPeakResident()
        let baseline = peakResidentBytes() ?? 0
        let cities = try contender.parse(data)
        report = MemoryReport(baselinePeakBytes: baseline, peakBytes: peakResidentBytes() ?? 0,
                              succeeded: isExpected(cities, count: count), note: nil)
    default:
        throw HarnessError("unknown child kind \(arguments[0])")
    }
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

func memoryChild(_ kind: String, _ key: String, count: Int) -> MemoryReport {
    do {
        let output = try runChild(["--child", kind, key, String(count)])
        guard let line = output.split(separator: "\n").last else { throw HarnessError("no output") }
        return try JSONDecoder().decode(MemoryReport.self, from: Data(line.utf8))
    } catch {
        return MemoryReport(baselinePeakBytes: 0, peakBytes: 0, succeeded: false, note: "child failed: \(error)")
    }
}

// MARK: - XML

func runXML(_ recorder: Recorder, quick: Bool) throws {
    let sizes = quick ? [1, 1000, 10000] : [1, 1000, 10000, 100_000]
    let largest = sizes.last!
    var throughput: [Int: [XMLContender: Double]] = [:]
    var samples: [Int: [XMLContender: [Double]]] = [:]
    var peak: [XMLContender: MemoryReport] = [:]

    // Peak memory and correctness for the largest document, each contender in its own process.
    for contender in XMLContender.allCases {
        log("xml: peak memory of \(contender.rawValue), \(largest) records (child process)")
        peak[contender] = memoryChild("xml", contender.key, count: largest)
    }

    for size in sizes {
        let data = userDetailsDocument(count: size)
        log("xml: \(size) records, \(data.count) bytes")
        var contenders: [Contender] = []
        var failures: [XMLContender: String] = [:]
        for contender in XMLContender.allCases {
            if size == largest, let report = peak[contender], !report.succeeded {
                failures[contender] = report.note ?? "failed"
                continue
            }
            do {
                let users = try contender.parse(data)
                guard isExpected(users, count: size) else {
                    failures[contender] = "got \(users.count) users, expected \(size)"
                    continue
                }
            } catch {
                failures[contender] = "threw \(error)"
                continue
            }
            contenders.append(Contender(name: contender.rawValue) { try contender.parse(data).count })
        }
        let sampleSeconds = quick ? 0.05 : (size >= 100_000 ? 0.5 : 0.25)
        let timings = try interleave(contenders, rounds: quick ? 3 : 5, sampleSeconds: sampleSeconds)
        for contender in XMLContender.allCases {
            var measurement = Measurement(group: "xml", scenario: "\(size) records (\(data.count) bytes)", contender: contender.rawValue)
            if let timing = timings[contender.rawValue] {
                let mbps = Double(data.count) / megabyte / timing.secondsPerIteration
                throughput[size, default: [:]][contender] = mbps
                samples[size, default: [:]][contender] = timing.samples
                measurement.secondsPerIteration = timing.secondsPerIteration
                measurement.megabytesPerSecond = mbps
                measurement.allocationsPerIteration = timing.allocations
                measurement.allocationsPerRecord = timing.allocations.map { $0 / Double(size) }
                measurement.allocatedMegabytesPerIteration = timing.allocatedBytes.map { $0 / megabyte }
            } else {
                measurement.failed = failures[contender]
            }
            if size == largest, let report = peak[contender], report.peakBytes > 0 {
                measurement.peakMemoryMegabytes = Double(report.peakBytes) / megabyte
                measurement.peakAboveInputMegabytes = Double(report.peakBytes - report.baselinePeakBytes) / megabyte
            }
            recorder.measurements.append(measurement)
        }
    }

    func paired(_ a: XMLContender, _ b: XMLContender, at size: Int) -> (ratio: Double, spread: String)? {
        guard let x = samples[size]?[a], let y = samples[size]?[b] else { return nil }
        return pairedSpeedRatio(x, y)
    }
    /// The largest size at which both contenders produced the right users.
    func largestCommon(_ a: XMLContender, _ b: XMLContender) -> Int? {
        sizes.reversed().first { throughput[$0]?[a] != nil && throughput[$0]?[b] != nil }
    }
    func compare(_ name: String, _ a: XMLContender, _ b: XMLContender, atLeast bound: Double) {
        let size = largestCommon(a, b)
        let measured = size.flatMap { paired(a, b, at: $0) }
        var detail = size.map { "throughput ratio at \($0) records (median of per-round ratios; \(measured?.spread ?? ""))" }
            ?? "no size at which both succeeded"
        if let size, size != largest {
            detail += "; \(b.rawValue) does not produce the right users at \(largest) records (\(failureNote(b)))"
        }
        recorder.target(name, ratio: measured?.ratio, atLeast: bound, detail: detail)
    }
    func failureNote(_ contender: XMLContender) -> String { peak[contender]?.note ?? "failed" }
    /// A target at one size: the one-record document, where per-parse set-up dominates.
    func compare(_ name: String, _ a: XMLContender, _ b: XMLContender, at size: Int, atLeast bound: Double) {
        let measured = paired(a, b, at: size)
        let detail = measured.map { "throughput ratio at \(size) record(s) (median of per-round ratios; \($0.spread))" }
            ?? "not measured at \(size) record(s)"
        recorder.target(name, ratio: measured?.ratio, atLeast: bound, detail: detail)
    }

    // Issue 16's targets for our own parser, against the floor.
    compare("xml.tree_vs_raw_sax", .tree, .rawSAX, atLeast: 3)
    compare("xml.decodable_vs_raw_sax", .decodable, .rawSAX, atLeast: 2)
    compare("xml.tree_1_record_vs_raw_sax", .tree, .rawSAX, at: 1, atLeast: 2)
    compare("xml.decodable_1_record_vs_raw_sax", .decodable, .rawSAX, at: 1, atLeast: 2)
    compare("xml.tree_vs_swxmlhash", .tree, .swxmlhash, atLeast: 3)
    compare("xml.decodable_vs_xmlcoder", .decodable, .xmlcoder, atLeast: 7)
    for contender in [XMLContender.tree, .decodable] {
        let ours = peak[contender], sax = peak[.rawSAX]
        func above(_ report: MemoryReport?) -> Int { (report?.peakBytes ?? 0) - (report?.baselinePeakBytes ?? 0) }
        let value: Double? = (ours?.succeeded == true && sax?.succeeded == true && above(sax) > 0)
            ? Double(above(ours)) / Double(above(sax)) : nil
        let detail = "peak RSS (VmHWM) of a child process parsing the \(largest)-record document, above what was "
            + "resident once the input was built (peak reset through /proc/self/clear_refs), vs raw SAX's: "
            + String(format: "%.0f MB vs %.0f MB; with the input: %.0f MB vs %.0f MB", Double(above(ours)) / megabyte,
                     Double(above(sax)) / megabyte, Double(ours?.peakBytes ?? 0) / megabyte, Double(sax?.peakBytes ?? 0) / megabyte)
        recorder.target("xml.\(contender.key)_peak_above_input_vs_raw_sax", ratio: value, atMost: 1.2, detail: detail)
    }
}

// MARK: - JSON

func runJSON(_ recorder: Recorder, quick: Bool) throws {
    let count = 100_000
    let data = citiesDocument(count: count)
    log("json: \(count) cities, \(data.count) bytes")
    var contenders: [Contender] = []
    for contender in JSONContender.allCases {
        guard isExpected(try contender.parse(data), count: count) else { throw HarnessError("\(contender.rawValue) parsed wrongly") }
        contenders.append(Contender(name: contender.rawValue) { try contender.parse(data).count })
    }
    // Each target's pair is timed on its own, so that each pair gets the whole time budget and
    // the 300 MB of small allocations per JSONSerialization parse never run between the decoders.
    var timings: [String: Timing] = [:]
    for pair in [[JSONContender.rawSerialization, .resourceSerialization], [.rawDecoder, .resourceDecodable]] {
        let names = Set(pair.map(\.rawValue))
        let pairTimings = try interleave(contenders.filter { names.contains($0.name) }, rounds: quick ? 3 : 81,
                                         sampleSeconds: quick ? 0.1 : 0.3)
        timings.merge(pairTimings) { first, _ in first }
    }
    var throughput: [JSONContender: Double] = [:]
    for contender in JSONContender.allCases {
        let timing = timings[contender.rawValue]!
        let report = quick ? nil : memoryChild("json", contender.key, count: count)
        throughput[contender] = Double(data.count) / megabyte / timing.secondsPerIteration
        recorder.measurements.append(Measurement(
            group: "json", scenario: "\(count) cities (\(data.count) bytes)", contender: contender.rawValue,
            secondsPerIteration: timing.secondsPerIteration, megabytesPerSecond: throughput[contender],
            allocationsPerIteration: timing.allocations, allocatedMegabytesPerIteration: timing.allocatedBytes.map { $0 / megabyte },
            peakMemoryMegabytes: report.map { Double($0.peakBytes) / megabyte },
            peakAboveInputMegabytes: report.map { Double($0.peakBytes - $0.baselinePeakBytes) / megabyte }))
    }
    func paired(_ a: JSONContender, _ b: JSONContender) -> (ratio: Double, spread: String) {
        pairedSpeedRatio(timings[a.rawValue]!.samples, timings[b.rawValue]!.samples)
    }
    let serialization = paired(.resourceSerialization, .rawSerialization)
    recorder.target("json.jsonresourcetype_vs_raw_jsonserialization", ratio: serialization.ratio, atLeast: 2,
                    detail: "throughput ratio, \(count) cities (median of per-round ratios; \(serialization.spread))")
    let decodable = paired(.resourceDecodable, .rawDecoder)
    recorder.target("json.decodable_vs_raw_jsondecoder", ratio: decodable.ratio, atLeast: 4,
                    detail: "throughput ratio, \(count) cities (median of per-round ratios; \(decodable.spread)); Cities as in Examples, with its ServiceError check")
    if !quick {
        let ours = recorder.measurements.last { $0.group == "json" && $0.contender == JSONContender.resourceSerialization.rawValue }
        let theirs = recorder.measurements.last { $0.group == "json" && $0.contender == JSONContender.rawSerialization.rawValue }
        if let ours = ours?.peakAboveInputMegabytes, let theirs = theirs?.peakAboveInputMegabytes, theirs > 0 {
            recorder.target("json.jsonresourcetype_peak_above_input_vs_raw_jsonserialization", ratio: ours / theirs, atMost: 0.25,
                            detail: String(format: "peak RSS above the input of a child process parsing %d cities: %.0f MB vs %.0f MB", count, ours, theirs))
        }
    }
    try runListing(recorder, quick: quick)
    try runAnchors(recorder, quick: quick, count: count)
}

/// Our parse into a tree (a model that reads nothing) against RapidJSON's DOM, with simdjson's
/// on-demand parse as the ceiling, on the Cities document. The C++ figures are MB/s of a separate
/// process run right after ours, on the same machine.
func runAnchors(_ recorder: Recorder, quick: Bool, count: Int) throws {
    let data = citiesDocument(count: count)
    let timings = try interleave([Contender(name: "tree") { _ = try CitiesTree().result(from: data).get(); return 1 }],
                                 rounds: quick ? 3 : 21, sampleSeconds: quick ? 0.1 : 0.3)
    let ours = Double(data.count) / megabyte / timings["tree"]!.secondsPerIteration
    let scenario = "\(count) cities (\(data.count) bytes), parse into a tree"
    recorder.measurements.append(Measurement(
        group: "json", scenario: scenario, contender: "ResourceLoader JSONParser (tree, via a model that reads nothing)",
        secondsPerIteration: timings["tree"]!.secondsPerIteration, megabytesPerSecond: ours))
    guard let anchors = anchorThroughput(count: count, seconds: quick ? 1 : 5), anchors.bytes == data.count else {
        recorder.targets.append(TargetResult(name: "json.tree_vs_rapidjson", ratio: nil, target: 0.5, comparison: ">=", pass: false,
                                             detail: "skipped: the C++ anchors are not available (rapidjson-dev, libsimdjson-dev, g++)"))
        return
    }
    for (name, mbps) in [("RapidJSON 1.1 DOM into std::strings (C++)", anchors.rapidjson), ("simdjson on-demand into std::strings (C++, the ceiling)", anchors.simdjson)] {
        recorder.measurements.append(Measurement(group: "json", scenario: "\(count) cities (\(data.count) bytes)", contender: name,
                                                 megabytesPerSecond: mbps))
    }
    recorder.target("json.tree_vs_rapidjson", ratio: ours / anchors.rapidjson, atLeast: 0.5,
                    detail: String(format: "our parse into a tree %.0f MB/s vs RapidJSON DOM %.0f MB/s (simdjson %.0f MB/s), medians of separate runs", ours, anchors.rapidjson, anchors.simdjson))
}

/// The nested API response (about 10 MB) and one small object (about 500 bytes), ours against
/// `JSONDecoder` with the same strategies.
func runListing(_ recorder: Recorder, quick: Bool) throws {
    for (count, name, bound) in [(20_000, "nested", 3.0), (1, "small", 2.0)] {
        let data = listingDocument(count: count)
        log("json: \(name) listing, \(count) item(s), \(data.count) bytes")
        var contenders: [Contender] = []
        for contender in ListingContender.allCases {
            guard try contender.parse(data).items.count == count else { throw HarnessError("\(contender.rawValue) parsed wrongly") }
            contenders.append(Contender(name: contender.rawValue) { try contender.parse(data).items.count })
        }
        let timings = try interleave(contenders, rounds: quick ? 3 : (count > 1 ? 21 : 41), sampleSeconds: quick ? 0.1 : 0.3)
        for contender in ListingContender.allCases {
            let timing = timings[contender.rawValue]!
            recorder.measurements.append(Measurement(
                group: "json", scenario: "\(name) listing, \(count) item(s) (\(data.count) bytes)", contender: contender.rawValue,
                secondsPerIteration: timing.secondsPerIteration,
                megabytesPerSecond: Double(data.count) / megabyte / timing.secondsPerIteration,
                allocationsPerIteration: timing.allocations, allocatedMegabytesPerIteration: timing.allocatedBytes.map { $0 / megabyte }))
        }
        let ratio = pairedSpeedRatio(timings[ListingContender.resourceDecodable.rawValue]!.samples,
                                     timings[ListingContender.rawDecoder.rawValue]!.samples)
        recorder.target("json.decodable_\(name)_vs_raw_jsondecoder", ratio: ratio.ratio, atLeast: bound,
                        detail: "throughput ratio, \(name) listing of \(count) item(s), \(data.count) bytes, .iso8601 dates (median of per-round ratios; \(ratio.spread))")
    }
}

// MARK: - End to end

func runHTTP(_ recorder: Recorder, quick: Bool) throws {
    guard let binary = NginxServer.locateOrInstall() else {
        log("SKIPPING the end-to-end HTTP part: nginx is not installed and could not be installed (apt-get install -y nginx)")
        for concurrency in [1, 32, 256] {
            for style in ["async", "completion"] {
                recorder.targets.append(TargetResult(name: "http.\(style)_c\(concurrency)_vs_urlsession", ratio: nil, target: 0.95,
                                                     comparison: ">=", pass: false, detail: "skipped: nginx not available"))
            }
        }
        for comparison in pipelineComparisons {
            recorder.targets.append(TargetResult(name: comparison.name, ratio: nil, target: comparison.bound, comparison: ">=",
                                                 pass: false, detail: "skipped: nginx not available"))
        }
        return
    }
    let cityCount = 50
    let server = try NginxServer(binary: binary, files: ["europe.json": citiesDocument(count: cityCount)])
    defer { server.stop() }
    log("http: nginx on 127.0.0.1:\(server.port), \(citiesDocument(count: cityCount).count)-byte JSON")
    let clients = HTTPClients(url: URL(string: "http://127.0.0.1:\(server.port)/europe.json")!, expectedCount: cityCount)
    defer { try? clients.shutdown() }

    var shuffler = Shuffler()
    for concurrency in [1, 32, 256] {
        // One turn's ratio has a standard deviation of 0.11–0.16 at concurrency 32 and 256 on
        // this machine, so those take 32 rounds; concurrency 1 is steadier and its rounds the
        // longest. Rounds times slices is even, so that every pair of turns below is complete.
        let rounds = quick ? 2 : (concurrency == 1 ? 18 : 32)
        let total = quick ? 200 : (concurrency == 1 ? 900 : 1500)
        // A round's sample of each client is cut into slices run in turn, as in `interleave`,
        // unless the slices would be too short to reach a steady state (at concurrency 256).
        let slices = quick ? 1 : max(1, min(3, total / (concurrency * 8)))
        var samples: [HTTPClientKind: [LoadResult]] = [:]
        // Each turn's seconds per request of the clients the targets compare, for the ratios.
        var turns: [HTTPClientKind: [Double]] = [:]
        for kind in HTTPClientKind.comparedClients {
            let warm = try clients.load(kind, concurrency: concurrency, total: max(concurrency * 2, 100))
            guard warm.failures == 0 else { throw HarnessError("\(kind.rawValue) failed \(warm.failures) warm-up requests") }
        }
        var turn = 0
        var groups = HTTPClientKind.pairedGroups
        for _ in 0..<rounds {
            var parts: [HTTPClientKind: [LoadResult]] = [:]
            for _ in 0..<slices {
                // The two clients a target compares run back to back, so that a slow stretch of
                // this machine falls on both. The groups run in a shuffled order that is kept for
                // two turns, and each pair runs the other way round in the second: each client
                // of a pair then follows the same neighbour equally often.
                if turn % 2 == 0 { groups.shuffle(using: &shuffler) }
                for group in groups {
                    for kind in turn % 2 == 0 ? group : group.reversed() {
                        let result = try clients.load(kind, concurrency: concurrency, total: total / slices)
                        guard result.failures == 0 else { throw HarnessError("\(kind.rawValue) failed \(result.failures) requests") }
                        parts[kind, default: []].append(result)
                        turns[kind, default: []].append(1 / result.requestsPerSecond)
                    }
                }
                turn += 1
            }
            for (kind, results) in parts { samples[kind, default: []].append(LoadResult(combining: results)) }
        }
        var rate: [HTTPClientKind: Double] = [:]
        for kind in HTTPClientKind.comparedClients {
            let results = samples[kind]!
            rate[kind] = median(results.map(\.requestsPerSecond))
            recorder.measurements.append(Measurement(
                group: "http", scenario: "concurrency \(concurrency)", contender: kind.rawValue,
                requestsPerSecond: rate[kind], p50Milliseconds: median(results.map(\.p50)) * 1000,
                p99Milliseconds: median(results.map(\.p99)) * 1000,
                cpuMicrosecondsPerRequest: median(results.map(\.cpuPerRequest)) * 1e6))
            log(String(format: "http c%d %@: %.0f req/s", concurrency, kind.rawValue, rate[kind]!))
        }
        let method = "median over pairs of turns, each ratio the geometric mean of one turn in either order; \(rounds) rounds of \(total) in \(slices) slices"
        let async = balancedSpeedRatio(turns[.ourAsync]!, turns[.handAsync]!)
        recorder.target("http.async_c\(concurrency)_vs_urlsession", ratio: async.ratio, atLeast: 0.97,
                        detail: "requests/s, ResourceService async vs hand-written URLSession async (\(method); \(async.spread))")
        let completion = balancedSpeedRatio(turns[.ourCompletion]!, turns[.handCompletion]!)
        recorder.target("http.completion_c\(concurrency)_vs_urlsession", ratio: completion.ratio, atLeast: 0.97,
                        detail: "requests/s, ResourceService completion vs hand-written URLSession dataTask (\(method); \(completion.spread))")
    }
    try runPipelineHTTP(recorder, clients: clients, shuffler: &shuffler, quick: quick)
}

/// The pipeline clients at concurrency 1, where a client's own work is the largest share of a
/// request's time. Each group (async, completion) runs its clients back to back, the service
/// without a pipeline first, then in reverse order in the next turn, so that every client
/// follows the same neighbours equally often and a slow stretch falls on the whole group.
func runPipelineHTTP(_ recorder: Recorder, clients: HTTPClients, shuffler: inout Shuffler, quick: Bool) throws {
    let concurrency = 1
    let rounds = quick ? 2 : 20
    let total = quick ? 200 : 900
    let slices = quick ? 1 : 3
    let kinds = HTTPClientKind.pipelineGroups.flatMap { $0 }
    for kind in kinds {
        let warm = try clients.load(kind, concurrency: concurrency, total: 100)
        guard warm.failures == 0 else { throw HarnessError("\(kind.rawValue) failed \(warm.failures) warm-up requests") }
    }
    var samples: [HTTPClientKind: [LoadResult]] = [:]
    var turns: [HTTPClientKind: [Double]] = [:]
    var turn = 0
    var groups = HTTPClientKind.pipelineGroups
    for _ in 0..<rounds {
        var parts: [HTTPClientKind: [LoadResult]] = [:]
        for _ in 0..<slices {
            if turn % 2 == 0 { groups.shuffle(using: &shuffler) }
            for group in groups {
                for kind in turn % 2 == 0 ? group : group.reversed() {
                    let result = try clients.load(kind, concurrency: concurrency, total: total / slices)
                    guard result.failures == 0 else { throw HarnessError("\(kind.rawValue) failed \(result.failures) requests") }
                    parts[kind, default: []].append(result)
                    turns[kind, default: []].append(1 / result.requestsPerSecond)
                }
            }
            turn += 1
        }
        for (kind, results) in parts { samples[kind, default: []].append(LoadResult(combining: results)) }
    }
    var cpu: [HTTPClientKind: Double] = [:]
    for kind in kinds {
        let results = samples[kind]!
        cpu[kind] = median(results.map(\.cpuPerRequest))
        recorder.measurements.append(Measurement(
            group: "http", scenario: "pipeline, concurrency \(concurrency)", contender: kind.rawValue,
            requestsPerSecond: median(results.map(\.requestsPerSecond)), p50Milliseconds: median(results.map(\.p50)) * 1000,
            p99Milliseconds: median(results.map(\.p99)) * 1000, cpuMicrosecondsPerRequest: cpu[kind]! * 1e6))
    }
    let method = "median over pairs of turns, each ratio the geometric mean of one turn in either order; \(rounds) rounds of \(total) in \(slices) slices"
    for comparison in pipelineComparisons {
        let measured = balancedSpeedRatio(turns[comparison.kind]!, turns[comparison.reference]!)
        let cpuRatio = cpu[comparison.reference]! / cpu[comparison.kind]!
        recorder.target(comparison.name, ratio: measured.ratio, atLeast: comparison.bound,
                        detail: "requests/s, \(comparison.kind.rawValue) vs \(comparison.reference.rawValue) over the same transport "
                            + "(\(method); \(measured.spread)); CPU per request, reference over pipeline: "
                            + String(format: "%.3f", cpuRatio))
    }
}

/// Runs one HTTP client alone, so that a profiler sees only its work:
/// `--profile-http CONTENDER CONCURRENCY TOTAL [URL]`, CONTENDER being a key such as
/// `resourceservice-async` (see ``runProfile(_:option:key:load:)``).
func runHTTPProfile(_ arguments: [String]) throws {
    try runProfile(arguments, option: "--profile-http", key: \HTTPClientKind.key) { kind, url, concurrency, total in
        let clients = HTTPClients(url: url, expectedCount: 50)
        defer { try? clients.shutdown() }
        return try clients.load(kind, concurrency: concurrency, total: total)
    }
}

/// Runs one client of an HTTP group alone: `OPTION CONTENDER CONCURRENCY TOTAL [URL]`, CONTENDER
/// being one of `Kind`'s keys, then logs its requests per second and CPU per request. Without a
/// URL it starts nginx with the 50-city document itself; pass the URL of one served elsewhere
/// when running under valgrind, which cannot start child processes here.
func runProfile<Kind: CaseIterable & RawRepresentable<String>>(
    _ arguments: [String], option: String, key: (Kind) -> String,
    load: (_ kind: Kind, _ url: URL, _ concurrency: Int, _ total: Int) throws -> LoadResult
) throws {
    guard (3...4).contains(arguments.count), let kind = Kind.allCases.first(where: { key($0) == arguments[0] }),
        let concurrency = Int(arguments[1]), let total = Int(arguments[2])
    else {
        throw HarnessError("usage: \(option) \(Kind.allCases.map(key).joined(separator: "|")) CONCURRENCY TOTAL [URL]")
    }
    var server: NginxServer?
    defer { server?.stop() }
    let url: URL
    if arguments.count == 4, let given = URL(string: arguments[3]) {
        url = given
    } else {
        guard let binary = NginxServer.locateOrInstall() else { throw HarnessError("nginx is not installed") }
        let started = try NginxServer(binary: binary, files: ["europe.json": citiesDocument(count: 50)])
        server = started
        url = URL(string: "http://127.0.0.1:\(started.port)/europe.json")!
    }
    let result = try load(kind, url, concurrency, total)
    log(String(format: "%@ c%d: %.0f req/s, %.0f µs CPU/request, %d failures", kind.rawValue, concurrency,
               result.requestsPerSecond, result.cpuPerRequest * 1e6, result.failures))
}

// MARK: - Operations

func runOperations(_ recorder: Recorder, quick: Bool) throws {
    let count = quick ? 20_000 : 100_000
    let body = citiesDocument(count: 3)
    log("operations: \(count) operations per sample")
    var contenders: [Contender] = []
    for contender in OperationContender.allCases {
        guard contender.run(count: 1000, body: body) == 1000 else { throw HarnessError("\(contender.rawValue) lost outcomes") }
        contenders.append(Contender(name: contender.rawValue) {
            let done = contender.run(count: count, body: body)
            guard done == count else { throw HarnessError("\(contender.rawValue): \(done) of \(count) outcomes") }
            return done
        })
    }
    let timings = try interleave(contenders, rounds: quick ? 2 : 7, sampleSeconds: 0)
    var rate: [OperationContender: Double] = [:]
    for contender in OperationContender.allCases {
        let timing = timings[contender.rawValue]!
        rate[contender] = Double(count) / timing.secondsPerIteration
        recorder.measurements.append(Measurement(
            group: "operations", scenario: "\(count) operations, immediate fake session", contender: contender.rawValue,
            secondsPerIteration: timing.secondsPerIteration,
            allocationsPerIteration: timing.allocations.map { $0 / Double(count) },
            operationsPerSecond: rate[contender]))
    }
    let operations = pairedSpeedRatio(timings[OperationContender.resourceOperation.rawValue]!.samples,
                                      timings[OperationContender.blockOperation.rawValue]!.samples)
    recorder.target("operations.resourceoperation_vs_blockoperation", ratio: operations.ratio, atLeast: 0.5,
                    detail: "operations/s, \(count) operations on one OperationQueue (median of per-round ratios; \(operations.spread))")
}

// MARK: - Machine

func machineDescription() -> [String: String] {
    var machine: [String: String] = [:]
    if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
       let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }) {
        machine["cpu"] = line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
    }
    machine["cores"] = String(ProcessInfo.processInfo.activeProcessorCount)
    machine["memoryGB"] = String(format: "%.0f", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
    machine["os"] = ProcessInfo.processInfo.operatingSystemVersionString
    #if compiler(>=6.3)
    machine["swift"] = "6.3 or later"
    #else
    machine["swift"] = "earlier than 6.3"
    #endif
    machine["allocationCounting"] = AllocationCount.isAvailable ? "malloc interposer (glibc)" : "unavailable"
    return machine
}

// MARK: - Main

func printTables(_ summary: Summary) {
    print("\n| Target | Ratio | Bound | Pass |")
    print("|---|---:|---:|:---:|")
    for target in summary.targets {
        print("| \(target.name) | \(target.ratio.map { String(format: "%.2f", $0) } ?? "n/a") | \(target.comparison) \(target.target) | \(target.pass ? "yes" : "**no**") |")
    }
    func f(_ value: Double?, _ format: String = "%.1f") -> String { value.map { String(format: format, $0) } ?? "" }
    print("\n| Group | Scenario | Contender | MB/s | allocs/iter | alloc MB/iter | peak MB | req/s | p50 ms | p99 ms | CPU µs/req | ops/s | note |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for m in summary.measurements {
        print("| \(m.group) | \(m.scenario) | \(m.contender) | \(f(m.megabytesPerSecond)) | \(f(m.allocationsPerIteration, "%.0f")) | \(f(m.allocatedMegabytesPerIteration)) | \(f(m.peakMemoryMegabytes, "%.0f")) | \(f(m.requestsPerSecond, "%.0f")) | \(f(m.p50Milliseconds, "%.2f")) | \(f(m.p99Milliseconds, "%.2f")) | \(f(m.cpuMicrosecondsPerRequest, "%.0f")) | \(f(m.operationsPerSecond, "%.0f")) | \(m.failed ?? "") |")
    }
}

func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    do {
        if arguments.first == "--profile-http-server" {
            try runServerHTTPProfile(Array(arguments.dropFirst()))
            return 0
        }
        if arguments.first == "--profile-http" {
            try runHTTPProfile(Array(arguments.dropFirst()))
            return 0
        }
        if arguments.first == "--child" {
            try runChildMode(Array(arguments.dropFirst()))
            return 0
        }
        // Timing runs only: the children that measure peak memory keep glibc's defaults.
        malloc_counter_keep_memory()
        var quick = false
        var merge = false
        var runs = 1
        var groups = ["xml", "soap", "json", "http", "operations", "gzip", "streaming", "downloads", "upload", "wsdl", "caching"]
        // Benchmarks/results/latest.json, wherever the command is run from.
        let defaultOutput = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results/latest.json")
        var output = defaultOutput.path
        while let argument = arguments.first {
            arguments.removeFirst()
            switch argument {
            case "--quick": quick = true
            case "--only": groups = (arguments.isEmpty ? "" : arguments.removeFirst()).split(separator: ",").map(String.init)
            case "--output": output = arguments.isEmpty ? output : arguments.removeFirst()
            case "--merge": merge = true
            case "--runs":
                guard let count = arguments.first.flatMap({ Int($0) }), count > 0 else { throw HarnessError("--runs needs a positive count") }
                arguments.removeFirst()
                runs = count
            default: throw HarnessError("unknown argument \(argument)")
            }
        }
        // The published summary holds full runs of every group: a quick run or a run of some
        // groups goes elsewhere (`--output`), or replaces its own groups there (`--merge`).
        let allGroups: Set = ["xml", "soap", "json", "http", "operations", "gzip", "streaming", "downloads", "upload", "wsdl", "caching"]
        let published = URL(fileURLWithPath: output).standardizedFileURL == defaultOutput.standardizedFileURL
        if published && quick { throw HarnessError("a --quick run does not go into \(output): pass --output PATH") }
        if published && !merge && !allGroups.isSubset(of: groups) {
            throw HarnessError("a run of some groups would replace the whole of \(output): pass --merge, or --output PATH")
        }
        var existing: Summary?
        if merge && FileManager.default.fileExists(atPath: output) {
            do {
                existing = try JSONDecoder().decode(Summary.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
            } catch {
                throw HarnessError("--merge cannot read \(output), which is left as it is: \(error)")
            }
        }
        let recorder = Recorder()
        let loadAtStart = loadAverage()
        let start = now()
        if groups.contains("xml") { try runXML(recorder, quick: quick) }
        if groups.contains("soap") { try runSOAPEncoding(recorder, quick: quick) }
        if groups.contains("json") { try runJSON(recorder, quick: quick) }
        if groups.contains("operations") { try runOperations(recorder, quick: quick) }
        if groups.contains("gzip") { try runGzip(recorder, quick: quick) }
        if groups.contains("streaming") { try runStreaming(recorder, quick: quick) }
        if groups.contains("downloads") { try runDownloads(recorder, quick: quick) }
        if groups.contains("upload") { try runUploads(recorder, quick: quick) }
        if groups.contains("wsdl") { try runWSDL(recorder, quick: quick) }
        if groups.contains("caching") { try runCaching(recorder, quick: quick) }
        if groups.contains("http") { try runHTTP(recorder, quick: quick) }
        if groups.contains("http") || groups.contains("http-server") { try runServerHTTP(recorder, quick: quick, runs: runs) }
        let formatter = ISO8601DateFormatter()
        var machine = machineDescription()
        machine["loadAverageAtStart"] = loadAtStart
        machine["loadAverageAtEnd"] = loadAverage()
        var summary = Summary(
            generatedAt: formatter.string(from: Date()), machine: machine,
            mode: quick ? "quick" : "full", runSeconds: round3(Double(now() - start) / 1e9),
            targets: recorder.targets, measurements: recorder.measurements)
        let thisRun = summary
        if let existing {
            summary = existing.merging(summary, groups: groups)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = URL(fileURLWithPath: output)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(summary).write(to: url)
        printTables(summary)
        printServerHTTPTable(summary)
        let missed = thisRun.targets.filter { !$0.pass }.count
        log(String(format: "done in %.0f s: %d of %d targets of this run met; summary %@ %@",
                   thisRun.runSeconds, thisRun.targets.count - missed, thisRun.targets.count,
                   merge ? "merged into" : "written to", output))
        return 0
    } catch {
        log("harness error: \(error)")
        return 1
    }
}

exit(main())
