import Foundation
@testable import ResourceLoader
import Testing

/// Exclusive canonicalization against an independent implementation: lxml (libxml2's C14N),
/// over generated documents that stress what canonicalization decides: namespaces declared at
/// many levels, unused and redeclared prefixes, the default namespace declared and undeclared,
/// attributes in several namespaces, characters that must be escaped in text and attribute
/// values, line ends, comments and processing instructions inside and around the root. Each
/// document is compared whole, with and without comments, and for one element chosen by its ID,
/// with and without an inclusive prefix list.
///
/// Needs `python3` with lxml; skipped without them, except under `CI=true`.
@Suite("Exclusive XML canonicalization against lxml", .enabled(if: LxmlCanonicalizer.shouldRun, "python3 with lxml is not installed: pip install lxml"))
struct ExclusiveCanonicalizationLxmlTests {
    /// One canonicalization to compare: a document file, an ID (`nil`: the whole document),
    /// whether comments are kept, and the inclusive prefixes.
    struct Case: Codable, Sendable {
        var path: String
        var id: String?
        var comments: Bool
        var prefixes: [String]
    }

    @Test func generatedDocumentsCanonicalizeAsLxmlDoes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("c14n-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var generator = CanonicalizationDocumentGenerator(seed: 0x5EED_C14E)
        var cases: [Case] = []
        var documents: [String: Data] = [:]
        for number in 0..<300 {
            let (text, ids, prefixes) = generator.document()
            let path = folder.appendingPathComponent("\(number).xml").path
            let data = Data(text.utf8)
            try data.write(to: URL(fileURLWithPath: path))
            documents[path] = data
            cases.append(Case(path: path, id: nil, comments: false, prefixes: []))
            cases.append(Case(path: path, id: nil, comments: true, prefixes: []))
            if let id = ids.randomElement(using: &generator.random) {
                cases.append(Case(path: path, id: id, comments: false, prefixes: []))
                // Never `#default`: lxml keeps only prefixes that occur as names in the document,
                // so it drops `#default` without a word (the spec-modelled tests check ours).
                let chosen = prefixes.filter { _ in Bool.random(using: &generator.random) }
                cases.append(Case(path: path, id: id, comments: Bool.random(using: &generator.random), prefixes: chosen))
            }
        }
        let input = try JSONEncoder().encode(cases)
        let answers = try #require(try await offTheCooperativePool { try LxmlCanonicalizer.run(input) }, "lxml did not run")
        try #require(answers.count == cases.count)

        var mismatches = 0
        for (item, answer) in zip(cases, answers) {
            let document = try XMLCanonicalDocument(data: try #require(documents[item.path]))
            let method = ExclusiveXMLCanonicalization(includesComments: item.comments, inclusiveNamespacePrefixes: item.prefixes)
            let ours = item.id.map { document.canonicalizedElement(withID: $0, using: method) } ?? document.canonicalized(using: method)
            let theirs = Data(base64Encoded: answer)
            if ours != theirs {
                mismatches += 1
                if mismatches <= 3 {
                    let text = (try? String(contentsOfFile: item.path, encoding: .utf8)) ?? ""
                    Issue.record("""
                        \(item.id.map { "element \($0)" } ?? "document"), comments \(item.comments), prefixes \(item.prefixes):
                        \(text)
                        ours:   \(ours.map { String(decoding: $0, as: UTF8.self) } ?? "nil")
                        lxml's: \(theirs.map { String(decoding: $0, as: UTF8.self) } ?? "nil")
                        """)
                }
            }
        }
        #expect(mismatches == 0, "\(mismatches) of \(cases.count) canonicalizations differ from lxml's")
        #expect(cases.count > 900)
    }
}

/// Runs lxml's exclusive C14N over a list of ``ExclusiveCanonicalizationLxmlTests/Case``s.
enum LxmlCanonicalizer {
    static let shouldRun: Bool = ProcessInfo.processInfo.environment["CI"] == "true" || canImportLxml()

    private static func canImportLxml() -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import lxml.etree"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Reads the cases as JSON on standard input; prints one line per case: the canonical bytes
    /// in base64, or `-` when the ID selects no single element.
    static let script = """
        import base64, json, sys
        from lxml import etree
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        for case in json.load(sys.stdin):
            tree = etree.parse(case["path"], parser)
            prefixes = case["prefixes"] or None
            if case.get("id") is None:
                node = tree
            else:
                found = tree.xpath("//*[@*[local-name()='Id' or local-name()='ID' or local-name()='id'] = $id]", id=case["id"])
                if len(found) != 1:
                    print("-")
                    continue
                node = found[0]
            out = etree.tostring(node, method="c14n", exclusive=True, with_comments=case["comments"], inclusive_ns_prefixes=prefixes)
            print(base64.b64encode(out).decode())
        """

    /// lxml's answers, one per case, in order; `nil` when python3 could not run.
    static func run(_ input: Data) throws -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        do { try process.run() } catch { return nil }
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Generates namespace-well-formed documents for canonicalization, from a seed.
struct CanonicalizationDocumentGenerator {
    /// `SplitMix64` (the one XMLBadInputTests defines): the same documents on every run.
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// No `&` or `<` in a namespace URI: libxml2 writes namespace declarations without escaping
    /// them, where Canonical XML escapes them as any attribute value (the spec-modelled tests
    /// check ours).
    static let namespaces = ["urn:a", "urn:b", "http://example.com/ns", "http://example.com/q?a=1;b=2"]
    static let prefixes = ["a", "b", "c", "p1", "zz"]
    static let names = ["e", "item", "Body", "x-y", "n.m", "é"]
    static let texts = [
        "plain", " spaced  text ", "&amp;&lt;&gt;", "\"quoted\" 'single'", "line\r\nbreak", "cr&#13;ref", "tab\there",
        "é𝄞", "<![CDATA[<&>]]>", "&#x9;&#xA;&#xD;", "]]&gt;", "",
    ]
    static let values = [
        "v", "a&amp;b", "&lt;x&gt;", "&quot;q&quot;", "'", "tab&#9;nl&#10;cr&#13;", "lit\ttab\nnl", "é", "",
        " lead and trail ", ">",
    ]

    private var idCounter = 0

    /// A document, the IDs it carries and the prefixes it declares.
    mutating func document() -> (String, [String], [String]) {
        var text = ""
        var ids: [String] = []
        var declared: Set<String> = []
        if Bool.random(using: &random) { text += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" }
        text += misc()
        element(depth: 0, scope: [:], into: &text, ids: &ids, declared: &declared)
        text += misc()
        return (text, ids, declared.sorted())
    }

    /// Comments, PIs and white space, before or after the root.
    private mutating func misc() -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: text += "<!-- note \(Int.random(in: 0..<9, using: &random)) -->"
            case 1: text += "<?pi\(Int.random(in: 0..<3, using: &random)) data  here ?>"
            default: text += "<?bare?>"
            }
            text += ["\n", " ", "\r\n", ""].randomElement(using: &random)!
        }
        return text
    }

    private mutating func element(depth: Int, scope: [String: String], into text: inout String, ids: inout [String], declared: inout Set<String>) {
        var scope = scope
        var declarations: [String] = []
        // Declarations: some used, some not, some redeclaring.
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let prefix = Self.prefixes.randomElement(using: &random)!
            guard !declarations.contains(where: { $0.hasPrefix("xmlns:\(prefix)=") }) else { continue }
            let uri = Self.namespaces.randomElement(using: &random)!
            declarations.append("xmlns:\(prefix)=\"\(uri)\"")
            scope[prefix] = uri
            declared.insert(prefix)
        }
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            let uri = Self.namespaces.randomElement(using: &random)!
            declarations.append("xmlns=\"\(uri)\"")
        case 1:
            declarations.append("xmlns=\"\"")
        default:
            break
        }
        let bound = scope.keys.sorted()
        let local = Self.names.randomElement(using: &random)!
        let name = (!bound.isEmpty && Bool.random(using: &random)) ? "\(bound.randomElement(using: &random)!):\(local)" : local
        var attributes: [String] = []
        var expanded: Set<String> = []
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let attributeLocal = ["att", "b", "Z", "a1"].randomElement(using: &random)!
            var attributeName = attributeLocal
            var key = "|" + attributeLocal
            if !bound.isEmpty && Bool.random(using: &random) {
                let prefix = bound.randomElement(using: &random)!
                attributeName = "\(prefix):\(attributeLocal)"
                key = scope[prefix]! + "|" + attributeLocal
            } else if Int.random(in: 0..<6, using: &random) == 0 {
                attributeName = "xml:lang"
                key = attributeName
            }
            guard expanded.insert(key).inserted else { continue }
            let quote = Bool.random(using: &random) ? "\"" : "'"
            var value = Self.values.randomElement(using: &random)!
            if quote == "'" { value = value.replacingOccurrences(of: "'", with: "&apos;") }
            if quote == "\"" { value = value.replacingOccurrences(of: "\"", with: "&quot;") }
            attributes.append("\(attributeName)=\(quote)\(value)\(quote)")
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            idCounter += 1
            let id = "id\(idCounter)"
            ids.append(id)
            attributes.append("Id=\"\(id)\"")
        }
        let parts = (declarations + attributes).shuffled(using: &random)
        text += "<" + name + parts.map { " " + $0 }.joined()
        let childCount = depth >= 4 ? 0 : Int.random(in: 0...3, using: &random)
        if childCount == 0 && Bool.random(using: &random) {
            text += "/>"
            return
        }
        text += ">"
        for _ in 0..<childCount {
            content(into: &text)
            element(depth: depth + 1, scope: scope, into: &text, ids: &ids, declared: &declared)
        }
        content(into: &text)
        text += "</" + name + ">"
    }

    /// Text, a comment or a PI, or nothing.
    private mutating func content(into text: inout String) {
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1: text += Self.texts.randomElement(using: &random)!
        case 2: text += "<!--c \(Self.texts.randomElement(using: &random)!.filter { !"<&-".contains($0) })-->"
        case 3: text += "<?target some data?>"
        default: break
        }
    }
}
