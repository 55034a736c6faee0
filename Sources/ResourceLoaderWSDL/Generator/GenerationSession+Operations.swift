import Foundation
import ResourceLoader

extension GenerationSession {
    /// What a generated resource sends and reads, worked out from a bound operation.
    struct ResourcePlan {
        var name: String
        var operation: WSDLOperation
        /// How the request sits in the body: the operation's style, or bare for a request
        /// element that other elements may stand for.
        var style: WSDLOperationStyle
        var binding: WSDLBinding
        var address: String?
        var elementName: String
        var namespace: String?
        var bindingExpression: String
        var bodyType: String?
        var modelType: String
        var responsePath: [String]
        var headers: [HeaderBlock]
        /// The output's header blocks, read into ``outputType`` beside the body.
        var outputHeaders: [HeaderBlock]
        /// The struct that holds the body and ``outputHeaders``, when there are any.
        var outputType: String?
        var faults: [(name: String, type: String?)]
        /// Whether the response's content is a bare `xsd:hexBinary` value, read as hex.
        var modelIsHexBinary = false
    }

    /// A literal header block of a request or response.
    struct HeaderBlock {
        /// The property that holds it.
        var swiftName: String
        /// Its Swift type.
        var type: String
        /// Its element.
        var element: QualifiedName
        /// Whether its value is a bare `xsd:hexBinary`, written and read as hex.
        var isHexBinary: Bool
    }

    /// Generates a resource for each operation of the first usable binding of each port type.
    mutating func generateOperations() {
        let filter = configuration.filter.map(Set.init)
        var chosenPortTypes: Set<QualifiedName> = []
        var planned: [(WSDLOperation, WSDLBinding, String)] = []
        var matched: Set<String> = []
        for binding in document.bindings where !chosenPortTypes.contains(binding.portType) {
            let usable = binding.operations.filter { !$0.style.isEncoded }
            guard !usable.isEmpty else { continue }
            chosenPortTypes.insert(binding.portType)
            for operation in usable {
                if let filter, !filter.contains(operation.name) { continue }
                matched.insert(operation.name)
                let override = configuration.nameOverrides?[operation.name]
                let name = typeNames.claim(override ?? (configuration.typeNamePrefix ?? "") + SwiftNaming.typeName(operation.name), suffix: "Operation")
                planned.append((operation, binding, name))
            }
        }
        for name in (configuration.filter ?? []) where !matched.contains(name) {
            diagnose(
                .unmatchedFilter, at: WSDLSourceLocation(file: document.files.first ?? "", path: "/wsdl:definitions"),
                "the filter names \(name), which no SOAP binding operation has", severity: .error)
        }
        var plans: [ResourcePlan] = []
        for (operation, binding, name) in planned {
            if let plan = plan(operation, binding: binding, name: name) { plans.append(plan) }
        }
        if !derivedClasses.isEmpty {
            derivedTypesName = typeNames.claim((configuration.typeNamePrefix ?? "") + "DerivedTypes", suffix: "Type")
        }
        resources = plans.map(render)
    }

    /// The address of the first port that serves `binding`, as ``uriString(_:)`` writes it; a
    /// location that is no URI is diagnosed at `location` and skipped.
    mutating func address(of binding: WSDLBinding, at location: WSDLSourceLocation) -> String? {
        for service in document.services {
            for port in service.ports where port.binding == binding.name {
                guard let address = port.address else { continue }
                if let uri = Self.uriString(address) { return uri }
                diagnose(
                    .invalidAttribute, at: location,
                    "the location \(address) of the port \(port.name) is not a URI: the resource has no default URL")
            }
        }
        return nil
    }

    /// `address` with every character RFC 3986 does not allow in a URI percent-encoded (its
    /// UTF-8 bytes), and each `%` that does not start an escape written `%25`; `nil` when the
    /// result is still not an absolute URI that `URLComponents` and `URL` both parse. The result
    /// holds only ASCII characters a URI may hold, so every version of Foundation parses it alike.
    static func uriString(_ address: String) -> String? {
        let bytes = Array(address.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        let hexDigits = Array("0123456789ABCDEF".utf8)
        func isHex(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
        }
        for (index, byte) in bytes.enumerated() {
            let allowed = SwiftNaming.isASCIILetterOrDigit(byte) || "-._~:/?#[]@!$&'()*+,;=".utf8.contains(byte)
            let isEscape = byte == UInt8(ascii: "%") && index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            if allowed || isEscape {
                result.append(byte)
            } else {
                result += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
        }
        let uri = String(decoding: result, as: UTF8.self)
        guard let components = URLComponents(string: uri), components.scheme != nil, URL(string: uri) != nil else { return nil }
        return uri
    }

    /// Works out one resource, or diagnoses why it cannot be generated.
    mutating func plan(_ operation: WSDLOperation, binding: WSDLBinding, name: String) -> ResourcePlan? {
        guard let input = operation.input, let output = operation.output else {
            diagnose(
                .unsupportedOperation, at: operation.location,
                "the operation \(operation.name) has no \(operation.input == nil ? "request" : "response"): it is not generated")
            return nil
        }
        var plan = ResourcePlan(
            name: name, operation: operation, style: operation.style, binding: binding, address: address(of: binding, at: operation.location), elementName: operation.name,
            namespace: nil, bindingExpression: ".documentLiteralWrapped", bodyType: nil, modelType: "", responsePath: [], headers: [],
            outputHeaders: [], outputType: nil, faults: [])
        // A request element that other elements may stand for is sent as a bare part: the body's
        // element is then the one the caller chooses.
        if plan.style == .documentWrapped, let wrapper = input.wrapper, let element = document.schemas.element(named: wrapper), isSubstitutable(element) {
            plan.style = .documentBare
        }
        switch plan.style {
        case .documentWrapped:
            guard let wrapper = input.wrapper, let element = document.schemas.element(named: wrapper) else { return unsupported(operation, "its request element cannot be found") }
            plan.elementName = wrapper.name
            plan.namespace = wrapper.namespace
            plan.bodyType = elementType(element).type
        case .documentBare:
            plan.bindingExpression = ".documentLiteralBare"
            guard input.bodyParts.allSatisfy({ $0.element != nil }) else { return unsupported(operation, "a request part is not declared by an element") }
            let elements = input.bodyParts.compactMap { $0.element.flatMap(document.schemas.element(named:)) }
            guard elements.count == input.bodyParts.count else { return unsupported(operation, "a request part's element cannot be found") }
            plan.namespace = elements.first?.name.namespace
            if !elements.isEmpty {
                plan.bodyType = partsStructure(
                    name: typeNames.claim(name + "Body", suffix: "Type"),
                    documentation: "The request parts of the operation \(operation.name), each an element of the SOAP body.", namespace: plan.namespace, location: operation.location,
                    parts: zip(input.bodyParts, elements).map { bodyPart($0.0, element: $0.1) })
            }
        case .rpcLiteral:
            plan.bindingExpression = ".rpcLiteral"
            plan.elementName = input.wrapper?.name ?? operation.name
            plan.namespace = input.bodyNamespace
            plan.bodyType = partsStructure(
                name: typeNames.claim(name + "Request", suffix: "Type"),
                documentation: "The request parts of the operation \(operation.name).", namespace: nil, location: operation.location,
                parts: input.bodyParts.map { ($0.name, QualifiedName(namespace: nil, name: $0.name), partType($0), false, false, $0.documentation, isHexBinary($0)) })
        case .rpcEncoded, .documentEncoded:
            return nil
        }
        switch operation.style {
        case .rpcLiteral:
            plan.responsePath = [output.wrapper?.name ?? operation.name + "Response"]
            plan.modelType = partsStructure(
                name: typeNames.claim(name + "Response", suffix: "Type"),
                documentation: "The response parts of the operation \(operation.name).", namespace: nil, location: operation.location,
                parts: output.bodyParts.map { ($0.name, QualifiedName(namespace: nil, name: $0.name), partType($0), false, false, $0.documentation, isHexBinary($0)) })
        default:
            let outputElement = output.wrapper ?? (output.bodyParts.count == 1 ? output.bodyParts[0].element : nil)
            if let outputElement, let element = document.schemas.element(named: outputElement), !isSubstitutable(element) {
                plan.responsePath = [outputElement.name]
                plan.modelType = elementType(element).type
                plan.modelIsHexBinary = isHexBinary(element.type)
                break
            }
            // Bare parts, or an element that others may stand for: read from the body, each
            // part by the name of the element the response has. A response without parts
            // (WS-I Basic Profile allows it) is an empty body, read into an empty struct.
            let elements = output.bodyParts.compactMap { $0.element.flatMap(document.schemas.element(named:)) }
            guard output.wrapper == nil || output.bodyParts.count == 1, elements.count == output.bodyParts.count else {
                return unsupported(operation, "its response is not one element")
            }
            plan.responsePath = []
            plan.modelType = partsStructure(
                name: typeNames.claim(name + "ResponseBody", suffix: "Type"),
                documentation: elements.isEmpty
                    ? "The response of the operation \(operation.name), which has no parts: an empty SOAP body."
                    : "The response parts of the operation \(operation.name), each an element of the SOAP body.",
                namespace: elements.first?.name.namespace, location: operation.location,
                parts: zip(output.bodyParts, elements).map { bodyPart($0.0, element: $0.1) })
        }
        var headerNames = NameRegistry(reserved: Set(["url", "request", "defaultURL", "init", "self"] + Self.resourceMembers))
        plan.headers = headerBlocks(input.headers, names: &headerNames, location: operation.location)
        var outputNames = NameRegistry(reserved: ["body", "init", "self"])
        plan.outputHeaders = headerBlocks(output.headers, names: &outputNames, location: operation.location)
        if !plan.outputHeaders.isEmpty {
            plan.outputType = typeNames.claim(name + "Output", suffix: "Type")
        }
        for fault in operation.faults where !fault.isEncoded {
            let type = fault.part?.element.flatMap(document.schemas.element(named:)).map { elementType($0).type }
            plan.faults.append((fault.name, type))
        }
        return plan
    }

    /// The Swift names, types and elements of literal header blocks, named by `names`, of the
    /// operation at `location`. A block of a built-in schema's element is raw XML.
    mutating func headerBlocks(_ headers: [WSDLHeader], names: inout NameRegistry, location: WSDLSourceLocation) -> [HeaderBlock] {
        var blocks: [HeaderBlock] = []
        for header in headers where !header.isEncoded {
            let resolved: (type: String, structTarget: String?)
            let element: QualifiedName
            switch header.part.content {
            case .element(let name):
                guard let declaration = self.element(named: name, location: location) else { continue }
                resolved = elementType(declaration)
                element = name
            case .type(let type):
                resolved = swiftType(named: type)
                element = QualifiedName(namespace: nil, name: header.part.name)
            }
            blocks.append(
                HeaderBlock(
                    swiftName: names.claim(SwiftNaming.memberName(element.name)), type: resolved.type, element: element,
                    isHexBinary: isHexBinary(header.part)))
        }
        return blocks
    }

    /// The members every resource has, which header properties must not take: a header property
    /// of a requirement's name and type would stand in for the requirement (a `timeoutInterval`
    /// header would set the request's idle timeout).
    static let resourceMembers = [
        "soapVersion", "operation", "operationNamespace", "soapAction", "soapBinding", "soapBody", "soapHeaders",
        "responsePath", "parameters", "xmlEncoder", "xmlDecoder", "body", "headerFields", "envelope",
        // NetworkResourceType's and XMLDecodableResourceType's requirements.
        "httpMethod", "queryItems", "timeoutInterval", "acceptableStatusCodes", "usesPipelineAdapters",
        "usesPipelineAuthenticator", "requiresCredential", "elementPath",
    ]

    /// Diagnoses an operation that cannot be generated.
    mutating func unsupported(_ operation: WSDLOperation, _ reason: String) -> ResourcePlan? {
        diagnose(.unsupportedOperation, at: operation.location, "the operation \(operation.name) is not generated: \(reason)")
        return nil
    }

    /// The Swift type of an rpc part's value.
    mutating func partType(_ part: WSDLPart) -> (type: String, structTarget: String?) {
        switch part.content {
        case .type(let name): return swiftType(named: name)
        case .element(let name):
            guard let element = document.schemas.element(named: name) else { return ("XMLTree.Element", nil) }
            return elementType(element)
        }
    }

    /// Whether a part's values are `xsd:hexBinary`, as its type or element declares them.
    func isHexBinary(_ part: WSDLPart) -> Bool {
        switch part.content {
        case .type(let name): isHexBinary(.named(name))
        case .element(let name): isHexBinary(document.schemas.element(named: name)?.type)
        }
    }

    /// Whether elements of a substitution group may stand where `element` is declared, so that
    /// a value of it is one of ``substitutionGroupType(of:)``'s cases.
    func isSubstitutable(_ element: XSDElement) -> Bool {
        element.isGlobal && substitutionMembers[element.name] != nil && !substitutes(of: element).isEmpty
    }

    /// A document/literal part declared by `element`: the element's type, or the enum of the
    /// elements that may stand for it (written and read by the case's element).
    mutating func bodyPart(_ part: WSDLPart, element: XSDElement) -> MessagePart {
        let documentation = part.documentation ?? element.documentation
        if isSubstitutable(element), let type = substitutionGroupType(of: element) {
            return (part.name, element.name, (type, nil), false, true, documentation, false)
        }
        reportSubstitution(of: element)
        return (part.name, element.name, elementType(element), element.isNillable, false, documentation, isHexBinary(element.type))
    }

    /// A message part as a field of ``partsStructure(name:documentation:namespace:location:parts:)``.
    typealias MessagePart = (
        name: String, element: QualifiedName, type: (type: String, structTarget: String?), isNillable: Bool, isChoice: Bool, documentation: String?,
        isHexBinary: Bool
    )

    /// Makes a struct whose fields are message parts, and returns its name.
    ///
    /// A part whose element has the local name of an earlier part's (in another namespace) is
    /// left out and diagnosed, as an element of a type is: coding keys are local names.
    mutating func partsStructure(name: String, documentation: String, namespace: String?, location: WSDLSourceLocation, parts: [MessagePart]) -> String {
        var names = NameRegistry(reserved: GenerationSession.reservedMemberNames)
        var fields: [GeneratedModel.Field] = []
        for part in parts {
            guard !fields.contains(where: { $0.key == part.element.name }) else {
                diagnose(
                    .unsupportedContent, at: location,
                    "the part \(part.name) of \(name) is left out: its element has the local name of another part's, \(part.element.name), and the names of the parts' elements must differ")
                continue
            }
            fields.append(
                GeneratedModel.Field(
                    swiftName: names.claim(SwiftNaming.memberName(part.name)), key: part.element.name, type: part.type.type,
                    structTarget: part.type.structTarget, cardinality: part.isNillable ? .optional : .one, kind: .element,
                    namespace: part.element.namespace, isNillable: part.isNillable, isChoice: part.isChoice, documentation: part.documentation,
                    isHexBinary: part.isHexBinary))
        }
        models.append(.structure(.init(name: name, documentation: documentation, namespace: namespace, typeName: nil, fields: fields, location: location)))
        return name
    }
}
