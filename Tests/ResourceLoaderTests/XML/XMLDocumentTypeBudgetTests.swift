import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Hostile DTDs with the internal subset opted in
/// (``XMLParsingOptions/DocumentTypeDeclarations-swift.enum/parseInternalSubset``): entity
/// expansion ends in its typed error at the budget, recursion is malformed, and nothing outside
/// the document is ever read. With the default options each of these documents is refused
/// outright with ``XMLParsingError/doctypeNotAllowed``.
///
/// Wall-clock bounds here are hang guards only (``withTimeLimit(_:sourceLocation:_:)``, far above
/// what the work needs); what is asserted is the error.
@Suite("XML DTD budgets and external entities")
struct XMLDocumentTypeBudgetTests {
    /// The default limits, with the internal subset read.
    static var withDTD: XMLParsingOptions {
        var options = XMLParsingOptions()
        options.documentTypeDeclarations = .parseInternalSubset
        return options
    }

    /// Parses `document` with `options` on a thread of its own, within a hang guard; the tree's
    /// root text, or the error.
    private func outcome(
        _ document: String, options: XMLParsingOptions = Self.withDTD, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Result<String, XMLParsingError>? {
        let data = Data(document.utf8)
        let outcome: Result<String, XMLParsingError>?? = await withTimeLimit(.seconds(60), sourceLocation: sourceLocation) {
            try? await offTheCooperativePool {
                Result { () throws(XMLParsingError) in try XMLTree(data: data, options: options).root.text }
            }
        }
        return outcome ?? nil
    }

    // MARK: - Billion laughs

    /// Ten levels of ten references each: 10^9 copies of `lol` if expanded.
    static func billionLaughs(use: String = "<lolz>&lol9;</lolz>") -> String {
        var document = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            document += #"<!ENTITY lol\#(level) "\#(String(repeating: "&\(previous);", count: 10))">"#
        }
        return document + "]>" + use
    }

    @Test(arguments: [
        "<lolz>&lol9;</lolz>",  // in content
        #"<lolz a="&lol9;"/>"#,  // in an attribute value
        "<lolz><a>&lol8;</a><b>&lol8;</b><c>&lol9;</c></lolz>",  // spread over elements
    ])
    func billionLaughsEndsAtTheExpansionBudget(use: String) async throws {
        // GIVEN a billion-laughs document of under a kilobyte, so the 64 KiB floor of the ratio
        // budget is the binding limit
        let document = Self.billionLaughs(use: use)
        #expect(document.utf8.count * XMLParsingOptions.defaultMaximumEntityExpansionRatio < 65_536)
        // WHEN it is parsed with the DTD read
        let result = try #require(await outcome(document))
        // THEN it ends in the typed budget error, never a tree
        #expect(result.failure == .entityExpansionTooLarge(limit: 65_536))
    }

    @Test func billionLaughsInAnAttributeDefaultEndsAtTheExpansionBudget() async throws {
        // The default is expanded once, where it is declared; it never reaches an element.
        let document = Self.billionLaughs(use: "<lolz/>").replacingOccurrences(
            of: "]>", with: #"<!ATTLIST lolz a CDATA "&lol9;">]>"#)
        let result = try #require(await outcome(document))
        #expect(result.failure == .entityExpansionTooLarge(limit: 65_536))
    }

    @Test func billionLaughsThroughAResourceIsAParsingFailure() async throws {
        let resource = TreeResource(xmlParsingOptions: Self.withDTD)
        let data = Data(Self.billionLaughs().utf8)
        let outcome: Result<[String: String], ResourceError>?? = await withTimeLimit {
            try? await offTheCooperativePool { resource.result(from: data) }
        }
        let result = try #require(outcome ?? nil)
        guard case .failure(.parsing(let failure)) = result else {
            Issue.record("expected a parsing failure, got \(result)")
            return
        }
        #expect(failure.underlying as? XMLParsingError == .entityExpansionTooLarge(limit: 65_536))
    }

    @Test func aFewLaughsWithinTheBudgetExpand() async throws {
        // The same shape, three levels deep: 1,000 copies, 3,000 bytes, well within the budget.
        var document = #"<!DOCTYPE lolz [<!ENTITY lol "lol">"#
        for level in 1...3 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            document += #"<!ENTITY lol\#(level) "\#(String(repeating: "&\(previous);", count: 10))">"#
        }
        document += "]><lolz>&lol3;</lolz>"
        let result = try #require(await outcome(document))
        #expect(result.success == String(repeating: "lol", count: 1_000))
    }

    // MARK: - Quadratic blowup

    @Test func quadraticBlowupEndsAtTheSizeBudget() async throws {
        // GIVEN one 100 kB entity referenced 10,000 times (1 GB if expanded) in a 160 kB document:
        // ten times its size is past 1 MiB, so the size budget binds
        let entity = String(repeating: "a", count: 100_000)
        let references = String(repeating: "&big;", count: 10_000)
        let document = #"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY big "\#(entity)">]><r>\#(references)</r>"#
        #expect(document.utf8.count * 10 > XMLParsingOptions.defaultMaximumEntityExpansionSize)
        // WHEN it is parsed with the DTD read
        let result = try #require(await outcome(document))
        // THEN it ends at the 1 MiB budget
        #expect(result.failure == .entityExpansionTooLarge(limit: XMLParsingOptions.defaultMaximumEntityExpansionSize))
    }

    @Test func quadraticBlowupEndsAtTheRatioBudget() async throws {
        // GIVEN a 10 kB entity referenced 200 times in a document of about 11 kB: 2 MB expanded,
        // past ten times the document's size (and its 64 KiB floor) long before 1 MiB
        let entity = String(repeating: "b", count: 10_000)
        let references = String(repeating: "&big;", count: 200)
        let document = #"<!DOCTYPE r [<!ENTITY big "\#(entity)">]><r>\#(references)</r>"#
        let ratioLimit = document.utf8.count * XMLParsingOptions.defaultMaximumEntityExpansionRatio
        #expect(ratioLimit > 65_536 && ratioLimit < XMLParsingOptions.defaultMaximumEntityExpansionSize)
        let result = try #require(await outcome(document))
        #expect(result.failure == .entityExpansionTooLarge(limit: ratioLimit))
    }

    @Test func quadraticBlowupInAttributeValuesEndsAtTheBudget() async throws {
        // The references spread over many attributes of many elements are counted all the same.
        let entity = String(repeating: "c", count: 10_000)
        let elements = String(repeating: #"<e a="&big;&big;" b="&big;"/>"#, count: 200)
        let document = #"<!DOCTYPE r [<!ENTITY big "\#(entity)">]><r>\#(elements)</r>"#
        let result = try #require(await outcome(document))
        #expect(result.failure == .entityExpansionTooLarge(limit: document.utf8.count * 10))
    }

    @Test func theBudgetsAreOptions() async throws {
        // GIVEN a 1,000-byte entity used 60 times (60,000 bytes, within the defaults)
        let entity = String(repeating: "d", count: 1_000)
        let document = #"<!DOCTYPE r [<!ENTITY e "\#(entity)">]><r>\#(String(repeating: "&e;", count: 60))</r>"#
        // THEN it expands with the defaults
        #expect(try #require(await outcome(document)).success == String(repeating: entity, count: 60))
        // AND fails at a lower size budget
        var smaller = Self.withDTD
        smaller.maximumEntityExpansionSize = 10_000
        #expect(try #require(await outcome(document, options: smaller)).failure == .entityExpansionTooLarge(limit: 10_000))
    }

    // MARK: - Attribute defaults

    @Test func attributeDefaultsCountAgainstTheExpansionBudget() async throws {
        // GIVEN 200 declared attributes with 100-byte defaults and 5,000 empty elements that
        // would each get them all: 100 MB of attributes from a document of about 42 kB
        let declarations = (0..<200).map { #"a\#($0) CDATA "\#(String(repeating: "v", count: 100))""# }
        let document = "<!DOCTYPE r [<!ATTLIST e \(declarations.joined(separator: " "))>]><r>\(String(repeating: "<e/>", count: 5_000))</r>"
        // THEN the defaults applied count like expanded entities: the ratio budget ends it
        let result = try #require(await outcome(document))
        #expect(result.failure == .entityExpansionTooLarge(limit: document.utf8.count * 10))
    }

    @Test func attributeDefaultsCountAgainstTheAttributeLimit() async throws {
        // GIVEN 200 declared defaults for `r`
        let declarations = (0..<200).map { #"d\#($0) CDATA "x""# }.joined(separator: " ")
        func document(written: Int) -> String {
            let attributes = (0..<written).map { #" w\#($0)="y""# }.joined()
            return "<!DOCTYPE r [<!ATTLIST r \(declarations)>]><r\(attributes)/>"
        }
        // THEN with 56 attributes written the element has all 256
        let parsed = try XMLTree(string: document(written: 56), options: Self.withDTD)
        #expect(parsed.root.attributes.count == XMLParsingOptions.defaultMaximumAttributesPerElement)
        // AND with 57 it has one too many
        let result = try #require(await outcome(document(written: 57)))
        #expect(result.failure == .tooManyAttributes(limit: XMLParsingOptions.defaultMaximumAttributesPerElement))
    }

    @Test func declaringMoreAttributesThanAnElementMayHaveIsATypedError() async throws {
        // GIVEN 100,000 implied attributes declared for `e`, and 100,000 `<e/>`: every start tag
        // would look at every declaration (10^10 steps), though none adds anything
        let declarations = (0..<100_000).map { "a\($0) CDATA #IMPLIED" }.joined(separator: " ")
        let document = "<!DOCTYPE r [<!ATTLIST e \(declarations)>]><r>\(String(repeating: "<e/>", count: 100_000))</r>"
        // THEN the declarations past the attribute limit are refused
        let result = try #require(await outcome(document))
        #expect(result.failure == .tooManyAttributes(limit: XMLParsingOptions.defaultMaximumAttributesPerElement))
    }

    // MARK: - Nesting and recursion

    /// `e0` is `x`; each `eN` refers to `e(N-1)`; the root refers to `e(depth - 1)`, so expanding
    /// it nests `depth` entities.
    static func nestedEntities(depth: Int) -> String {
        var document = #"<!DOCTYPE r [<!ENTITY e0 "x">"#
        for level in 1..<max(depth, 1) { document += #"<!ENTITY e\#(level) "&e\#(level - 1);">"# }
        return document + "]><r>&e\(depth - 1);</r>"
    }

    @Test func entitiesNestedUpToTheLimitExpand() async throws {
        let limit = XMLParsingOptions.defaultMaximumEntityNestingDepth
        #expect(try #require(await outcome(Self.nestedEntities(depth: limit))).success == "x")
    }

    @Test(arguments: [XMLParsingOptions.defaultMaximumEntityNestingDepth + 1, 100, 5_000])
    func entitiesNestedPastTheLimitAreATypedError(depth: Int) async throws {
        // GIVEN a chain of entities one past the default nesting depth, and far past it (5,000
        // nested expansions would overflow a recursive expander's stack)
        let result = try #require(await outcome(Self.nestedEntities(depth: depth)))
        // THEN the nesting error, whatever the depth
        #expect(result.failure == .entitiesNestedTooDeep(limit: XMLParsingOptions.defaultMaximumEntityNestingDepth))
    }

    @Test func theNestingLimitIsAnOption() async throws {
        var options = Self.withDTD
        options.maximumEntityNestingDepth = 3
        #expect(try #require(await outcome(Self.nestedEntities(depth: 3), options: options)).success == "x")
        #expect(try #require(await outcome(Self.nestedEntities(depth: 4), options: options)).failure == .entitiesNestedTooDeep(limit: 3))
    }

    @Test(arguments: [
        // (document, line and column of the outermost reference)
        (#"<!DOCTYPE r [<!ENTITY a "x&a;y">]><r>&a;</r>"#, 1, 38),  // itself
        (#"<!DOCTYPE r [<!ENTITY a "&b;"><!ENTITY b "&a;">]><r>&a;</r>"#, 1, 53),  // through another
        (#"<!DOCTYPE r [<!ENTITY a "<e>&b;</e>"><!ENTITY b "<f>&c;</f>"><!ENTITY c "&a;">]>"# + "\n<r>&a;</r>", 2, 4),  // three, in elements
        (#"<!DOCTYPE r [<!ENTITY a "&b;"><!ENTITY b "&a;">]><r x="&a;"/>"#, 1, 56),  // in an attribute value
    ])
    func recursiveEntitiesAreMalformedAtTheReference(document: String, line: Int, column: Int) async throws {
        // WHEN a document refers to an entity whose expansion refers to itself
        let result = try #require(await outcome(document))
        // THEN it is not well-formed (XML 1.0, WFC: No Recursion), reported at the reference in
        // the document, whatever the depth the recursion is found at
        #expect(result.failure == .malformed(line: line, column: column))
    }

    @Test func recursiveEntitiesThatAreNeverReferencedAreHarmless() async throws {
        // Declaring entities that refer to each other is allowed; only expanding them is not.
        let document = #"<!DOCTYPE r [<!ENTITY a "&b;"><!ENTITY b "&a;">]><r>ok</r>"#
        #expect(try #require(await outcome(document)).success == "ok")
    }

    @Test func parameterEntitiesCannotNestInsideDeclarations() async throws {
        // A parameter-entity billion laughs needs references inside entity values, which the
        // internal subset forbids (WFC: PEs in Internal Subset).
        let document = #"<!DOCTYPE r [<!ENTITY % a "x"><!ENTITY % b "%a;%a;">]><r/>"#
        guard case .malformed = try #require(await outcome(document)).failure else {
            Issue.record("expected malformed")
            return
        }
    }

    // MARK: - Default options

    /// Every hostile document of this suite.
    static var hostileDocuments: [String] {
        [
            billionLaughs(),
            billionLaughs(use: #"<lolz a="&lol9;"/>"#),
            #"<!DOCTYPE r [<!ENTITY big "\#(String(repeating: "a", count: 10_000))">]><r>\#(String(repeating: "&big;", count: 1_000))</r>"#,
            nestedEntities(depth: 100),
            #"<!DOCTYPE r [<!ENTITY a "&b;"><!ENTITY b "&a;">]><r>&a;</r>"#,
            #"<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>"#,
            #"<!DOCTYPE r SYSTEM "http://127.0.0.1:9/r.dtd"><r/>"#,
            #"<!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1:9/p.dtd">%p;]><r/>"#,
        ]
    }

    @Test(arguments: 0..<8)
    func withTheDefaultOptionsEveryHostileDocumentIsRefusedForItsDoctype(index: Int) async throws {
        let document = Self.hostileDocuments[index]
        let result = try #require(await outcome(document, options: XMLParsingOptions()))
        #expect(result.failure == .doctypeNotAllowed)
        #expect(TreeResource().result(from: Data(document.utf8)).failure.map(Self.underlying) == .doctypeNotAllowed)
    }

    private static func underlying(_ error: ResourceError) -> XMLParsingError? {
        guard case .parsing(let failure) = error else { return nil }
        return failure.underlying as? XMLParsingError
    }

    // MARK: - External entities and DTDs are never read

    @Test func externalEntitiesAndDTDsOnALoopbackServerAreNeverRequested() async throws {
        // GIVEN a loopback server that records every request and would answer with markup
        let server = try LoopbackHTTPServer { _ in .xml(#"<!ENTITY leaked "LEAKED">"#) }
        defer { server.stop() }
        let base = server.baseURL.absoluteString
        // WHEN documents name it as an external entity, external subset or parameter entity
        let entity = try #require(await outcome(#"<!DOCTYPE r [<!ENTITY x SYSTEM "\#(base)x">]><r>&x;</r>"#))
        let publicEntity = try #require(await outcome(
            #"<!DOCTYPE r [<!ENTITY x PUBLIC "-//X//EN" "\#(base)x">]>"# + "\n<r>a&x;</r>"))
        let inAttribute = try #require(await outcome(#"<!DOCTYPE r [<!ENTITY x SYSTEM "\#(base)x">]><r a="&x;"/>"#))
        let subset = try #require(await outcome(#"<!DOCTYPE r SYSTEM "\#(base)r.dtd"><r>text</r>"#))
        let subsetEntity = try #require(await outcome(#"<!DOCTYPE r SYSTEM "\#(base)r.dtd"><r>&leaked;</r>"#))
        let parameter = try #require(await outcome(
            #"<!DOCTYPE r [<!ENTITY % p SYSTEM "\#(base)p.dtd">%p;<!ENTITY y "z">]><r>&y;</r>"#))
        let unusedEntity = try #require(await outcome(#"<!DOCTYPE r [<!ENTITY x SYSTEM "\#(base)x">]><r>ok</r>"#))
        // THEN each has its documented outcome
        let entityColumn = #"<!DOCTYPE r [<!ENTITY x SYSTEM "\#(base)x">]><r>"#.utf8.count + 1
        #expect(entity.failure == .externalEntityNotRead(name: "x", line: 1, column: entityColumn))
        #expect(publicEntity.failure == .externalEntityNotRead(name: "x", line: 2, column: 5))
        // (an external entity in an attribute value is not well-formed: WFC No External Entity
        // References)
        #expect(inAttribute.failure.map { if case .malformed = $0 { true } else { false } } == true)
        // (the external subset is named, not read: the document parses, and what only the
        // subset could declare stays undeclared)
        #expect(subset.success == "text")
        #expect(subsetEntity.failure.map { if case .undeclaredEntity(name: "leaked", _, _) = $0 { true } else { false } } == true)
        // (an unread parameter entity makes later declarations unused, XML 1.0 section 5.1)
        #expect(parameter.failure.map { if case .undeclaredEntity(name: "y", _, _) = $0 { true } else { false } } == true)
        #expect(unusedEntity.success == "ok")
        // AND the server was never asked for anything
        #expect(server.requestCount == 0)
        // AND the server does record requests (so the count above could have been more)
        let (_, response) = try await URLSession.shared.data(from: URL(string: "\(base)control")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(server.requestCount == 1)
    }

    @Test func externalEntitiesAndDTDsOnFilesAreNeverOpened() async throws {
        // GIVEN a file holding a secret, watched for any open or read
        let secret = "secret-\(UUID().uuidString)"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("xxe-\(UUID().uuidString).dtd")
        try Data(#"<!ENTITY secret "\#(secret)">"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let watch = try FileOpenWatch(file)
        // WHEN documents name it as an external entity, external subset or parameter entity,
        // by URL and by path
        let documents = [
            #"<!DOCTYPE r [<!ENTITY x SYSTEM "\#(file.absoluteString)">]><r>&x;</r>"#,
            #"<!DOCTYPE r [<!ENTITY x SYSTEM "\#(file.path)">]><r>&x;</r>"#,
            #"<!DOCTYPE r SYSTEM "\#(file.absoluteString)"><r>&secret;</r>"#,
            #"<!DOCTYPE r [<!ENTITY % p SYSTEM "\#(file.absoluteString)">%p;]><r>&secret;</r>"#,
        ]
        var results: [Result<String, XMLParsingError>] = []
        for document in documents { results.append(try #require(await outcome(document))) }
        // THEN the entity is reported, never read, and the secret appears nowhere
        #expect(results[0].failure.map { if case .externalEntityNotRead(name: "x", _, _) = $0 { true } else { false } } == true)
        #expect(results[1].failure.map { if case .externalEntityNotRead(name: "x", _, _) = $0 { true } else { false } } == true)
        #expect(results[2].failure.map { if case .undeclaredEntity(name: "secret", _, _) = $0 { true } else { false } } == true)
        #expect(results[3].failure.map { if case .undeclaredEntity(name: "secret", _, _) = $0 { true } else { false } } == true)
        for result in results {
            #expect(!String(describing: result).contains(secret))
        }
        // AND the file was never opened
        #expect(try watch.opens() == 0)
        #if os(Linux)
        // AND the watch does see an open (so the count above could have been more)
        _ = try Data(contentsOf: file)
        #expect(try watch.opens() > 0)
        #endif
    }
}

extension Result {
    fileprivate var success: Success? {
        if case .success(let value) = self { value } else { nil }
    }
}

/// Counts the times a file is opened or read, through Linux's inotify; elsewhere it sees
/// nothing, and only the outcome checks remain.
private final class FileOpenWatch {
    #if os(Linux)
    private let descriptor: Int32

    init(_ file: URL) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK))
        guard descriptor >= 0, inotify_add_watch(descriptor, file.path, UInt32(IN_OPEN) | UInt32(IN_ACCESS)) >= 0 else {
            throw CocoaError(.fileReadUnknown)
        }
    }

    deinit {
        close(descriptor)
    }

    /// The events since the last call.
    func opens() throws -> Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var events = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let nameLength = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self).len
                }
                events += 1
                offset += MemoryLayout<inotify_event>.size + Int(nameLength)
            }
        }
        return events
    }
    #else
    init(_ file: URL) throws {}

    func opens() throws -> Int { 0 }
    #endif
}
