import Foundation
import Testing

@testable import ResourceLoader

/// The W3C XML Conformance Test Suite (2013-09-23 edition), read from
/// `../shared/xmlconf/xmlts20130923.zip` beside the repository (never copied into it) and run
/// against ResourceLoader's tokenizer with the DTD opt-in on. Skipped where the archive is
/// absent, except under `CI=true`, where its absence fails.
///
/// Every catalogue test of XML 1.0 (fifth edition) that needs no external entity: `not-wf`
/// documents must be refused; `valid` and `invalid` ones (well-formed either way) accepted and,
/// where the suite has an `OUTPUT`, their canonical XML (`xmltest/canonxml.html`) must equal it
/// byte for byte. With the default options, every well-formed test with a DOCTYPE must be
/// refused with ``XMLParsingError/doctypeNotAllowed``. `known-failures.txt` lists the tests
/// that do not pass, with a reason; a listed test that passes fails this suite as surely as an
/// unlisted one that fails.
@Suite("XML conformance (W3C suite)")
struct XMLConformanceTests {
    /// The XML 1.0 and Namespaces 1.0 catalogues, relative to `xmlconf/`.
    static let catalogues = [
        "xmltest/xmltest.xml", "sun/sun-valid.xml", "sun/sun-invalid.xml", "sun/sun-not-wf.xml", "oasis/oasis.xml",
        "ibm/ibm_oasis_valid.xml", "ibm/ibm_oasis_invalid.xml", "ibm/ibm_oasis_not-wf.xml", "japanese/japanese.xml",
        "eduni/errata-2e/errata2e.xml", "eduni/errata-3e/errata3e.xml", "eduni/errata-4e/errata4e.xml",
        "eduni/misc/ht-bh.xml", "eduni/namespaces/1.0/rmt-ns10.xml",
    ]

    @Test(.enabled(if: ConformanceSuite.shouldRun, "../shared/xmlconf/xmlts20130923.zip is absent (required when CI=true)"))
    func everyCatalogueTestBehavesAsTheSuiteSaysOrIsAKnownFailure() async throws {
        try #require(ConformanceSuite.isPresent, "CI=true and \(ConformanceSuite.archive.path) is absent")
        let root = try ConformanceSuite.unpacked()
        let known = try ConformanceSuite.knownFailures()
        let outcome = try await offTheCooperativePool {
            var outcome = ConformanceOutcome()
            for catalogue in Self.catalogues {
                for test in try ConformanceSuite.tests(in: catalogue, root: root) {
                    outcome.record(test, failure: ConformanceSuite.run(test))
                }
            }
            return outcome
        }
        for (id, reason) in outcome.failures.sorted(by: { $0.key < $1.key }) where known[id] == nil {
            Issue.record("\(id) fails: \(reason)")
        }
        for id in known.keys.sorted() where outcome.ran.contains(id) && outcome.failures[id] == nil {
            Issue.record("\(id) passes now: remove it from known-failures.txt")
        }
        for id in known.keys.sorted() where !outcome.ran.contains(id) {
            Issue.record("\(id) is listed in known-failures.txt but is not a test that runs")
        }
        // At least 99% of each group passes.
        for (group, counts) in outcome.groups.sorted(by: { $0.key < $1.key }) {
            print("XML conformance: \(group): \(counts.passed) of \(counts.total) pass")
            #expect(counts.passed * 100 >= counts.total * 99, "\(group): \(counts.passed) of \(counts.total)")
        }
        #expect(outcome.groups["not-wf"]?.total ?? 0 > 700)
        #expect(outcome.groups["wf"]?.total ?? 0 > 650)
        #expect(outcome.groups["output"]?.total ?? 0 > 250)
        #expect(outcome.groups["namespaces"]?.total ?? 0 > 40)
    }
}

/// One catalogue test.
struct ConformanceTest: Sendable {
    var id: String
    var type: String
    var document: URL
    var output: URL?
    var namespaces: Bool
    var catalogue: String
}

/// Counts per group, and the failures.
struct ConformanceOutcome: Sendable {
    var groups: [String: (passed: Int, total: Int)] = [:]
    var failures: [String: String] = [:]
    var ran: Set<String> = []

    mutating func record(_ test: ConformanceTest, failure: String?) {
        ran.insert(test.id)
        var names = [test.type == "not-wf" ? "not-wf" : "wf"]
        if test.output != nil { names.append("output") }
        if test.catalogue.contains("namespaces") { names.append("namespaces") }
        for name in names {
            var counts = groups[name] ?? (0, 0)
            counts.total += 1
            if failure == nil { counts.passed += 1 }
            groups[name] = counts
        }
        if let failure { failures[test.id] = failure }
    }
}

enum ConformanceSuite {
    /// `../shared/xmlconf/xmlts20130923.zip`, from this file's place in the repository.
    static let archive = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/xmlconf/xmlts20130923.zip")

    /// Whether the archive is there.
    static let isPresent = FileManager.default.fileExists(atPath: archive.path)

    /// Whether the suite runs: when the archive is there, or on CI (`CI=true`), where its
    /// absence fails rather than skips.
    static let shouldRun = isPresent || ProcessInfo.processInfo.environment["CI"] == "true"

    /// The suite, unpacked once per test run into a temporary folder (the archive's own folder
    /// may be read-only).
    static func unpacked() throws -> URL {
        try unpackedDirectory.get()
    }

    private static let unpackedDirectory: Result<URL, any Error> = Result {
        let zip = archive
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xmlconf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        process.arguments = ["-q", "-o", zip.path, "-d", directory.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return directory.appendingPathComponent("xmlconf")
    }

    /// `known-failures.txt`: identifier → reason.
    static func knownFailures() throws -> [String: String] {
        guard let url = Bundle.module.url(forResource: "known-failures", withExtension: "txt", subdirectory: "Fixtures/xmlconf") else {
            throw CocoaError(.fileNoSuchFile)
        }
        var result: [String: String] = [:]
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            result[String(parts[0])] = String(parts[1])
        }
        return result
    }

    /// The tests of a catalogue that an XML 1.0 (fifth edition) processor reading no external
    /// entity must pass.
    static func tests(in catalogue: String, root: URL) throws -> [ConformanceTest] {
        let url = root.appendingPathComponent(catalogue)
        var text = try String(contentsOf: url, encoding: .utf8)
        // Some catalogues are fragments (several TEST elements): read them inside one element.
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") { text.removeSubrange(text.startIndex..<end.upperBound) }
        let wrapped = Array(("<catalogue>" + text + "</catalogue>").utf8)
        let sink = try wrapped.withUnsafeBufferPointer { bytes in
            try XMLStreamParser.parse(bytes, sink: CatalogueSink(), options: XMLParsingOptions(), namespaceAware: false)
        }
        let directory = url.deletingLastPathComponent()
        return sink.tests.compactMap { attributes -> ConformanceTest? in
            guard let type = attributes["TYPE"], type != "error", let id = attributes["ID"], let uri = attributes["URI"] else {
                return nil
            }
            guard (attributes["ENTITIES"] ?? "none") == "none", (attributes["VERSION"] ?? "1.0") == "1.0" else { return nil }
            if let edition = attributes["EDITION"], !edition.split(separator: " ").contains("5") { return nil }
            return ConformanceTest(
                id: id, type: type, document: directory.appendingPathComponent(uri),
                output: attributes["OUTPUT"].map { directory.appendingPathComponent($0) },
                namespaces: attributes["NAMESPACE"] != "no", catalogue: catalogue)
        }
    }

    /// Runs one test; returns why it fails, or `nil`.
    static func run(_ test: ConformanceTest) -> String? {
        guard let data = try? Data(contentsOf: test.document) else { return "cannot read the document" }
        var options = XMLParsingOptions()
        options.documentTypeDeclarations = .parseInternalSubset
        let start = ContinuousClock.now
        let result = canonical(data, options: options, namespaces: test.namespaces)
        if ContinuousClock.now - start > .seconds(1) { return "took over a second" }
        if test.type == "not-wf" {
            if case .success = result { return "accepted, but is not well-formed" }
            if case .success = canonical(data, options: options, namespaces: test.namespaces, chunkSize: 3) {
                return "fed in pieces of 3 bytes, accepted, but is not well-formed"
            }
            return nil
        }
        let (canonicalForm, sawDoctype): ([UInt8], Bool)
        switch result {
        case .failure(let error): return "refused: \(error)"
        case .success(let value): (canonicalForm, sawDoctype) = value
        }
        if let output = test.output {
            guard let expected = try? Data(contentsOf: output) else { return "cannot read the output" }
            if Data(canonicalForm) != expected {
                return "canonical form differs: \(String(decoding: canonicalForm, as: UTF8.self).debugDescription)"
            }
        }
        // Fed in small pieces, the document reads the same.
        for size in [1, 3, 7] {
            switch canonical(data, options: options, namespaces: test.namespaces, chunkSize: size) {
            case .success(let (chunked, _)) where chunked == canonicalForm:
                continue
            case .success(let (chunked, _)):
                return "fed in pieces of \(size) bytes, it reads \(String(decoding: chunked, as: UTF8.self).debugDescription)"
            case .failure(let error):
                return "fed in pieces of \(size) bytes, it is refused: \(error)"
            }
        }
        // With the default options a DOCTYPE is refused, with its own error.
        switch canonical(data, options: XMLParsingOptions(), namespaces: test.namespaces) {
        case .failure(let error):
            if !sawDoctype || error != .doctypeNotAllowed { return "with default options: \(error)" }
        case .success:
            if sawDoctype { return "with default options: a DOCTYPE was accepted" }
        }
        return nil
    }

    /// The canonical form of `data`, parsed whole or, with a `chunkSize`, fed in pieces.
    static func canonical(
        _ data: Data, options: XMLParsingOptions, namespaces: Bool, chunkSize: Int? = nil
    ) -> Result<([UInt8], Bool), XMLParsingError> {
        Result { () throws(XMLParsingError) -> ([UInt8], Bool) in
            let utf8 = try XMLTranscoder.utf8Document(data, options: options).data
            let bytes = [UInt8](utf8)
            let sink: CanonicalSink
            if let chunkSize {
                var parser = XMLStreamParser(sink: CanonicalSink(), options: options, namespaceAware: namespaces)
                var offset = 0
                while offset < bytes.count {
                    let next = min(offset + chunkSize, bytes.count)
                    try bytes[offset..<next].withUnsafeBufferPointer { chunk throws(XMLParsingError) in try parser.feed(chunk) }
                    offset = next
                }
                sink = try parser.finish()
            } else {
                sink = try bytes.withUnsafeBufferPointer { buffer throws(XMLParsingError) in
                    try XMLStreamParser.parse(buffer, sink: CanonicalSink(), options: options, namespaceAware: namespaces)
                }
            }
            return (sink.output, sink.sawDoctype)
        }
    }
}

/// Collects the attributes of every `TEST` element of a catalogue.
struct CatalogueSink: XMLEventSink {
    var tests: [[String: String]] = []

    mutating func startElement(_ element: XMLStartElement, attributes: [XMLAttributeEvent]) throws(XMLParsingError) {
        guard element.name.qualified == "TEST" else { return }
        tests.append(Dictionary(attributes.map { ($0.name.qualified, $0.value) }, uniquingKeysWith: { first, _ in first }))
    }

    mutating func endElement() {}
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {}
    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {}
}

/// Writes James Clark's canonical XML (`xmltest/canonxml.html`): elements, attributes in
/// order, character data and processing instructions; nothing else.
struct CanonicalSink: XMLEventSink {
    var output: [UInt8] = []
    var sawDoctype = false
    private var open: [String] = []

    mutating func startElement(_ element: XMLStartElement, attributes: [XMLAttributeEvent]) throws(XMLParsingError) {
        if open.isEmpty { writeNotations() }
        output.append(contentsOf: Array("<\(element.name.qualified)".utf8))
        for attribute in attributes.sorted(by: { Array($0.name.qualified.unicodeScalars.map(\.value)).lexicographicallyPrecedes($1.name.qualified.unicodeScalars.map(\.value)) }) {
            output.append(contentsOf: Array(" \(attribute.name.qualified)=\"".utf8))
            escape(Array(attribute.value.utf8))
            output.append(UInt8(ascii: "\""))
        }
        output.append(UInt8(ascii: ">"))
        open.append(element.name.qualified)
    }

    mutating func endElement() {
        output.append(contentsOf: Array("</\(open.removeLast())>".utf8))
    }

    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        escape(Array(bytes))
    }

    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {
        output.append(contentsOf: Array("<?\(target) ".utf8))
        output.append(contentsOf: data)
        output.append(contentsOf: Array("?>".utf8))
    }

    private var doctypeName = ""
    private var notations: [(name: String, publicID: String?, systemID: String?)] = []

    mutating func documentTypeDeclaration(name: String) {
        sawDoctype = true
        doctypeName = name
    }

    mutating func notationDeclaration(name: String, publicID: String?, systemID: String?) {
        notations.append((name, publicID, systemID))
    }

    /// The second canonical form (Sun's): notations, in a DOCTYPE before the root element.
    private mutating func writeNotations() {
        guard !notations.isEmpty else { return }
        var text = "<!DOCTYPE \(doctypeName) [\n"
        for notation in notations.sorted(by: { $0.name < $1.name }) {
            text += "<!NOTATION \(notation.name)"
            if let publicID = notation.publicID {
                text += " PUBLIC '\(publicID)'"
                if let systemID = notation.systemID { text += " '\(systemID)'" }
            } else if let systemID = notation.systemID {
                text += " SYSTEM '\(systemID)'"
            }
            text += ">\n"
        }
        text += "]>\n"
        output.append(contentsOf: Array(text.utf8))
        notations = []
    }

    private mutating func escape(_ bytes: [UInt8]) {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: Array("&amp;".utf8))
            case UInt8(ascii: "<"): output.append(contentsOf: Array("&lt;".utf8))
            case UInt8(ascii: ">"): output.append(contentsOf: Array("&gt;".utf8))
            case UInt8(ascii: "\""): output.append(contentsOf: Array("&quot;".utf8))
            case 0x09: output.append(contentsOf: Array("&#9;".utf8))
            case 0x0A: output.append(contentsOf: Array("&#10;".utf8))
            case 0x0D: output.append(contentsOf: Array("&#13;".utf8))
            default: output.append(byte)
            }
        }
    }
}
