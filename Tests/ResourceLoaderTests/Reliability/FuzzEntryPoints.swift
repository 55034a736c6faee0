import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// This file is compiled twice: into the test target, where `FuzzCorpusReplayTests` replays the
// committed corpus through it, and into every libFuzzer harness under `Fuzz/Sources/` (see
// `Fuzz/run.sh`), whose `LLVMFuzzerTestOneInput` calls `FuzzEntryPoints.run(_:_:)`. Keep it free
// of test-only helpers and of `@testable` API: the harnesses import ResourceLoader as a client.

/// What every fuzzing harness checks for one input.
///
/// Each check feeds the bytes to public entry points of ResourceLoader and returns the invariant
/// violations it saw; an empty array means the input was handled correctly. A crash or a hang is
/// a failure by itself (libFuzzer reports it; the replay test dies with it).
///
/// The invariant: every input becomes a model or a typed error of the kind the entry point
/// documents; never a crash, a hang, or a partial model. Where two entry points must agree about
/// the same bytes (a resource and the parser or decoder under it, a Fault seen with a 200 and a
/// 500), the checks compare them.
enum FuzzEntryPoints {
    /// The harnesses, named as their corpus folders under `Fuzz/corpus/`.
    enum Harness: String, CaseIterable, Sendable {
        case xmlTree = "xml-tree"
        case xmlDecoder = "xml-decoder"
        case soap = "soap"
        case json = "json"
        case xmlDiff = "xml-diff"
        case jsonDiff = "json-diff"
        case httpCache = "http-cache"
    }

    /// Runs `harness`'s checks on `data`; returns the violations found.
    static func run(_ harness: Harness, _ data: Data) -> [String] {
        switch harness {
        case .xmlTree: checkXMLTree(data)
        case .xmlDecoder: checkXMLDecoder(data)
        case .soap: checkSOAP(data)
        case .json: checkJSON(data)
        case .xmlDiff: checkXMLDiff(data)
        case .jsonDiff: checkJSONDiff(data)
        case .httpCache: checkHTTPCache(data)
        }
    }

    // MARK: - (a) XMLTree

    /// A resource that accepts any well-formed document and keeps the root's name.
    struct AnyDocument: XMLResourceType {
        func model(from document: XMLTree) -> String? { document.root.name }
    }

    static func checkXMLTree(_ data: Data) -> [String] {
        var problems: [String] = []
        let parsed: Result<XMLTree, XMLParsingError>
        do {
            parsed = .success(try XMLTree(data: data))
        } catch {
            parsed = .failure(error)
        }
        switch parsed {
        case .success(let tree):
            problems += checkTreeShape(tree)
            // Parsing is deterministic: the same bytes give an equal tree.
            if let again = try? XMLTree(data: data) {
                if again.root != tree.root { problems.append("parsing the same bytes twice gave different trees") }
            } else {
                problems.append("parsing the same bytes twice: the second parse failed")
            }
        case .failure(let error):
            if error.description.isEmpty { problems.append("an XMLParsingError with an empty description") }
            if error == .empty, !isWhitespaceOnly(data) {
                problems.append(".empty for a document with non-whitespace bytes")
            }
        }
        // The resource path agrees with the parser.
        let result = AnyDocument().result(from: data)
        switch (parsed, result) {
        case (.success(let tree), .success(let name)):
            if name != tree.root.name { problems.append("the resource's model differs from the tree") }
        case (.success, .failure(let error)):
            problems.append("the tree parsed but the resource failed: \(error)")
        case (.failure(let parseError), .failure(let error)):
            problems += expectParsingFailure(error, underlying: parseError, emptyData: data.isEmpty)
        case (.failure, .success):
            problems.append("the tree was refused but the resource made a model")
        }
        // A tighter limit never turns a refusal into a success.
        let strict = XMLParsingOptions(maximumDepth: 8, maximumDocumentSize: 4096)
        if case .failure = parsed, (try? XMLTree(data: data, options: strict)) != nil {
            problems.append("refused with the default limits but accepted with tighter ones")
        }
        return problems + checkWithDocumentType(data, defaultOutcome: parsed)
    }

    /// The same bytes with the internal subset read (`.parseInternalSubset`): a document the
    /// default options decide without meeting a DOCTYPE is decided the same way; one they refuse
    /// for its DOCTYPE becomes a sound tree or a typed error, within the entity budgets.
    static func checkWithDocumentType(_ data: Data, defaultOutcome: Result<XMLTree, XMLParsingError>) -> [String] {
        var options = XMLParsingOptions()
        options.documentTypeDeclarations = .parseInternalSubset
        let outcome: Result<XMLTree, XMLParsingError>
        do {
            outcome = .success(try XMLTree(data: data, options: options))
        } catch {
            outcome = .failure(error)
        }
        switch (defaultOutcome, outcome) {
        case (.success(let tree), .success(let withDTD)):
            return tree.root == withDTD.root ? [] : ["allowing DTDs changed the tree of a document without one"]
        case (.success, .failure(let error)):
            return ["allowing DTDs refused a document the defaults accept: \(error)"]
        case (.failure(.doctypeNotAllowed), .success(let tree)):
            return checkTreeShape(tree)
        case (.failure(.doctypeNotAllowed), .failure(let error)):
            if error == .doctypeNotAllowed { return ["a DOCTYPE refused with DTDs allowed"] }
            return error.description.isEmpty ? ["an XMLParsingError with an empty description"] : []
        case (.failure(let error), .success):
            return ["allowing DTDs accepted a document the defaults refuse with \(error)"]
        case (.failure(let error), .failure(let withDTD)):
            return error == withDTD ? [] : ["allowing DTDs changed the error of a document without one: \(error), \(withDTD)"]
        }
    }

    /// Walks the whole tree without recursion and checks that its views agree with each other.
    static func checkTreeShape(_ tree: XMLTree) -> [String] {
        (tree.root.parent == nil ? [] : ["the root has a parent"]) + checkElements(below: tree.root)
    }

    /// Walks `top` and its descendants without recursion, checking that the element views agree.
    static func checkElements(below top: XMLTree.Element) -> [String] {
        var problems: [String] = []
        var stack = [top]
        var visited = 0
        while let element = stack.popLast() {
            visited += 1
            if element.name.isEmpty { problems.append("an element with an empty name") }
            if element.name.contains(":") { problems.append("a local name containing a colon") }
            let children = element.children
            if element.hasChildren != !children.isEmpty { problems.append("hasChildren disagrees with children") }
            for child in children {
                if child.parent != element { problems.append("a child whose parent is not its element") }
                if element.child(named: child.name, namespaceURI: child.namespaceURI) == nil {
                    problems.append("child(named:) does not find a child")
                }
            }
            if let first = children.first, element.firstDescendant(named: first.name, namespaceURI: first.namespaceURI) == nil {
                problems.append("firstDescendant(named:) does not find the first child")
            }
            for attribute in element.attributes
            where element.attribute(named: attribute.name, namespaceURI: attribute.namespaceURI) == nil {
                problems.append("attribute(named:) does not find an attribute")
            }
            _ = element.description
            stack.append(contentsOf: children)
            if problems.count > 8 || visited > 100_000 { break }
        }
        return problems
    }

    // MARK: - (b) XMLTreeDecoder

    /// A small model with nested, repeated, optional and attribute-backed fields.
    struct Order: Decodable, Equatable, Sendable {
        struct Customer: Decodable, Equatable, Sendable {
            let name: String
            let email: String?
            let address: Address?
        }

        struct Address: Decodable, Equatable, Sendable {
            let city: String
            let postCode: String?
        }

        struct Item: Decodable, Equatable, Sendable {
            let sku: String
            let quantity: UInt8
            let price: Double?
            let link: URL?
        }

        let id: Int
        let customer: Customer
        let item: [Item]
        let note: String?
        let placed: Date?
        let paid: Bool?
        let total: Decimal?
        let tags: [[String]]?
    }

    /// Decodes an ``Order`` from the root element.
    struct OrderDocument: XMLDecodableResourceType {
        typealias Model = Order
    }

    /// Decodes the items of the `<order>` child of the root, through a `Root` wrapper.
    struct OrderItems: XMLDecodableResourceType {
        struct Root: Decodable, Sendable {
            let item: [Order.Item]
        }

        var elementPath: [String] { ["order"] }
        func model(from root: Root) -> [Order.Item] { root.item }
    }

    static func checkXMLDecoder(_ data: Data) -> [String] {
        var problems: [String] = []
        let direct: Result<Order, any Error>
        do {
            direct = .success(try XMLTreeDecoder().decode(Order.self, from: data))
        } catch {
            direct = .failure(error)
        }
        if case .failure(let error) = direct, !(error is XMLParsingError || error is DecodingError) {
            problems.append("XMLTreeDecoder threw \(type(of: error)), not XMLParsingError or DecodingError")
        }
        let result = OrderDocument().result(from: data, statusCode: 200)
        switch (direct, result) {
        case (.success(let order), .success(let model)):
            if order != model { problems.append("the resource and the decoder made different orders") }
        case (.failure(let decodeError), .failure(let error)):
            if case .emptyResponse(statusCode: 200) = error, data.isEmpty { break }
            if case .parsing(let failure) = error {
                let kindsAgree = (failure.underlying is XMLParsingError && decodeError is XMLParsingError)
                    || (failure.underlying is DecodingError && decodeError is DecodingError)
                if !kindsAgree { problems.append("the resource and the decoder failed differently") }
            } else {
                problems.append("the resource failed with .\(kind(error)), not .parsing")
            }
        case (.success, .failure(let error)):
            problems.append("the decoder made an order but the resource failed: \(error)")
        case (.failure, .success):
            problems.append("the decoder failed but the resource made an order")
        }
        // The wrapped resource agrees with the decoder at the same path.
        let wrapped = try? XMLTreeDecoder().decode(OrderItems.Root.self, from: data, atPath: ["order"])
        switch OrderItems().result(from: data) {
        case .success(let items):
            if wrapped?.item != items { problems.append("the wrapped resource and the decoder made different items") }
        case .failure(let error):
            if wrapped != nil { problems.append("the decoder made items but the wrapped resource failed: \(error)") }
            if !(kind(error) == "parsing" || (data.isEmpty && kind(error) == "emptyResponse")) {
                problems.append("the wrapped resource failed with .\(kind(error)), not .parsing")
            }
        }
        return problems
    }

    // MARK: - (c) SOAP

    /// The seeds' user, as a SOAP response model.
    struct User: Decodable, Equatable, Sendable {
        let city: String
        let email: String?
        let firstName: String
        let lastName: String
        let phoneNumber: Int64?
    }

    /// The seeds' `getUserDetails` call.
    struct GetUser: SOAPResourceType {
        typealias Model = User
        var url: URL { URL(string: "https://example.com/services/UserService")! }
        var operation: String { "getUserDetails" }
        var parameters: SOAPParameters { ["userID": .text("12345")] }
        var responsePath: [String] { ["getUserDetailsResponse", "getUserDetails", "userModel"] }
    }

    static func checkSOAP(_ data: Data) -> [String] {
        var problems: [String] = []
        let resource = GetUser()
        // A 200: the model step parses the envelope, finds a Fault or decodes the user.
        let ok = resource.result(from: data, statusCode: 200)
        if case .failure(let error) = ok {
            switch error {
            case .soapFault(let fault):
                problems += checkFault(fault)
            case .parsing(let failure):
                if let underlying = failure.underlying,
                    !(underlying is XMLParsingError || underlying is DecodingError) {
                    problems.append("a parsing failure with an underlying \(type(of: underlying))")
                }
            case .emptyResponse(statusCode: 200) where data.isEmpty:
                break
            default:
                problems.append("a 200 failed with .\(kind(error))")
            }
        }
        // A 500: validation finds a Fault, or reports the status; it never lets the body through.
        let url = resource.url
        guard let response = HTTPURLResponse(url: url, statusCode: 500, httpVersion: "HTTP/1.1", headerFields: nil) else {
            return problems + ["could not make an HTTPURLResponse"]
        }
        let failed: Result<Void, ResourceError>
        do {
            try resource.validate(response, data: data)
            failed = .success(())
        } catch {
            failed = .failure(error)
        }
        switch failed {
        case .success:
            problems.append("a 500 passed validation")
        case .failure(.soapFault(let fault)):
            // The Fault seen with a 500 is the one the 200 path finds in the same bytes.
            if case .failure(.soapFault(let seen)) = ok, seen == fault {} else {
                problems.append("a 500 found a Fault that the 200 path did not")
            }
        case .failure(.httpStatus(let status)):
            if status.statusCode != 500 { problems.append("an httpStatus failure with the wrong status") }
            if status.bodyPrefix != data.prefix(ResourceError.HTTPStatusFailure.bodyPrefixLimit) {
                problems.append("an httpStatus failure whose body prefix is not the body's")
            }
            if case .failure(.soapFault) = ok { problems.append("the 200 path found a Fault that a 500 did not") }
        case .failure(let error):
            problems.append("a 500 failed with .\(kind(error))")
        }
        // The 500's model step still parses: `result(from:statusCode:)` keeps the status only for
        // an empty body.
        let fiveHundred = resource.result(from: data, statusCode: 500)
        switch (ok, fiveHundred) {
        case (.success(let left), .success(let right)) where left == right:
            break
        case (.failure(.emptyResponse(200)), .failure(.emptyResponse(500))):
            break
        case (.failure(let left), .failure(let right)) where kind(left) == kind(right):
            break
        default:
            problems.append("the model step gave different outcomes for a 200 and a 500")
        }
        return problems
    }

    static func checkFault(_ fault: SOAPFault) -> [String] {
        var problems: [String] = []
        for text in [fault.code, fault.reason] + fault.subcodes + [fault.role, fault.node].compactMap({ $0 })
        where text != text.trimmingCharacters(in: .init(charactersIn: " \t\r\n")) {
            problems.append("a Fault field with untrimmed whitespace")
        }
        if let detail = fault.detail { problems += checkElements(below: detail) }
        if fault.resolvedCode.text != fault.code || fault.resolvedSubcodes.map(\.text) != fault.subcodes {
            problems.append("resolved fault codes that are not the codes as written")
        }
        if fault.standardCode != nil && fault.resolvedCode.namespaceURI.flatMap(SOAPVersion.init(envelopeNamespace:)) == nil {
            problems.append("a standard fault code outside the SOAP namespaces")
        }
        _ = ResourceError.soapFault(fault).description
        return problems
    }

    // MARK: - (d) JSON

    /// Counts the keys of a top-level object, or the items of a top-level array.
    struct Counts: JSONResourceType {
        func modelFrom(jsonDictionary: [String: Any]) -> Int? { jsonDictionary.isEmpty ? nil : jsonDictionary.count }
        func modelFrom(jsonArray: [Any]) -> Int? { jsonArray.count }
    }

    /// `{"cities": [{"name": …, "population": …, "tags": […]}], "next": …}`, with a service error.
    struct Cities: JSONDecodableResourceType {
        struct City: Decodable, Equatable, Sendable {
            let name: String
            let population: Int?
            let tags: [String]?
            let location: [Double]?
        }

        struct Root: Decodable, Sendable {
            let cities: [City]
            let next: URL?
        }

        struct APIError: Error, Decodable {
            let error: String
            let code: Int
        }

        typealias ServiceError = APIError
        func model(from root: Root) -> [City] { root.cities }
    }

    static func checkJSON(_ data: Data) -> [String] {
        var problems: [String] = []
        switch Counts().result(from: data, statusCode: 200) {
        case .success(let count):
            if count < 0 { problems.append("a negative count") }
        case .failure(let error):
            if !(kind(error) == "parsing" || (data.isEmpty && error.statusCode == 200 && kind(error) == "emptyResponse")) {
                problems.append("JSONResourceType failed with .\(kind(error))")
            }
        }
        let decoded = Cities().result(from: data, statusCode: 200)
        switch decoded {
        case .success:
            if (try? JSONDecoder().decode(Cities.APIError.self, from: data)) != nil {
                problems.append("a body that is a service error made a model")
            }
        case .failure(.serviceLevel(let error)):
            if !(error is Cities.APIError) { problems.append("a service-level error of the wrong type") }
        case .failure(let error):
            if !(kind(error) == "parsing" || (data.isEmpty && kind(error) == "emptyResponse")) {
                problems.append("JSONDecodableResourceType failed with .\(kind(error))")
            }
            // The parser runs before the decoder: a refused body is its error.
            if case .parsing(let failure) = error, let underlying = failure.underlying,
                !(underlying is DecodingError || underlying is JSONParsingError)
            {
                problems.append("a JSON parsing failure with an underlying \(type(of: underlying))")
            }
        }
        return problems
    }
}

// MARK: - Helpers

extension FuzzEntryPoints {
    /// Checks that a failed resource reports the parser's own error as `.parsing`.
    static func expectParsingFailure(_ error: ResourceError, underlying expected: XMLParsingError, emptyData: Bool) -> [String] {
        if emptyData {
            return kind(error) == "emptyResponse" ? [] : ["an empty body failed with .\(kind(error))"]
        }
        guard case .parsing(let failure) = error else { return ["the resource failed with .\(kind(error)), not .parsing"] }
        guard let underlying = failure.underlying as? XMLParsingError, underlying == expected else {
            return ["the resource's underlying error is not the parser's"]
        }
        return []
    }

    /// The case's name, for messages.
    static func kind(_ error: ResourceError) -> String {
        switch error {
        case .invalidRequest: "invalidRequest"
        case .requestAdaptationFailed: "requestAdaptationFailed"
        case .authenticationFailed: "authenticationFailed"
        case .transport: "transport"
        case .timedOut: "timedOut"
        case .cancelled: "cancelled"
        case .httpStatus: "httpStatus"
        case .serviceLevel: "serviceLevel"
        case .emptyResponse: "emptyResponse"
        case .parsing: "parsing"
        case .soapFault: "soapFault"
        case .responseTooLarge: "responseTooLarge"
        case .redirectRefused: "redirectRefused"
        case .notCached: "notCached"
        case .fileSystem: "fileSystem"
        case .integrityMismatch: "integrityMismatch"
        case .resumeRefused: "resumeRefused"
        case .downloadInterrupted: "downloadInterrupted"
        }
    }
}

/// Whether `data` is nothing but XML white space after its byte order mark: UTF-8 bytes, or
/// UTF-16 code units after a UTF-16 byte order mark (the parser transcodes those).
private func isWhitespaceOnly(_ data: Data) -> Bool {
    let whitespace: Set<UInt16> = [0x20, 0x09, 0x0A, 0x0D]
    let bytes = [UInt8](data)
    if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
        let bigEndian = bytes[0] == 0xFE
        let units = stride(from: 2, to: bytes.count - 1, by: 2).map { (offset: Int) -> UInt16 in
            let high = UInt16(bytes[bigEndian ? offset : offset + 1])
            let low = UInt16(bytes[bigEndian ? offset + 1 : offset])
            return high << 8 | low
        }
        return bytes.count % 2 == 0 && units.allSatisfy(whitespace.contains)
    }
    let content = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
    return content.allSatisfy { whitespace.contains(UInt16($0)) }
}
