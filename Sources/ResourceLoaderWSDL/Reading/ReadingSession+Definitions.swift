import ResourceLoader

extension ReadingSession {
    static let soap11BindingNamespace = "http://schemas.xmlsoap.org/wsdl/soap/"
    static let soap12BindingNamespace = "http://schemas.xmlsoap.org/wsdl/soap12/"
    static let mimeNamespace = "http://schemas.xmlsoap.org/wsdl/mime/"
    private static var wsdl: String { WellKnownSchemas.wsdlNamespace }

    /// The SOAP version whose WSDL binding namespace `namespace` is.
    static func soapVersion(bindingNamespace namespace: String?) -> SOAPVersion? {
        switch namespace {
        case soap11BindingNamespace: .v1_1
        case soap12BindingNamespace: .v1_2
        default: nil
        }
    }

    /// Reads a `wsdl:definitions`: its imports, types, messages and port types now; its bindings
    /// and services once every file is read.
    func readDefinitions(_ definitions: XMLTree.Element, file: String) {
        let targetNamespace = definitions.attribute(named: "targetNamespace")
        for child in definitions.children where child.namespaceURI == Self.wsdl {
            switch child.name {
            case "import":
                let origin = location(of: child, in: file)
                if let namespace = child.attribute(named: "namespace"), WellKnownSchemas.namespaces.contains(namespace) { continue }
                guard let locationValue = child.attribute(named: "location") else {
                    diagnose(.error, .invalidAttribute, origin, "wsdl:import has no location")
                    continue
                }
                guard let path = localPath(for: locationValue, from: file, at: origin) else { continue }
                if definitionPaths.insert(path).inserted { pendingDefinitions.append((path, origin)) }
            case "types":
                readTypes(child, file: file)
            case "message":
                readMessage(child, file: file, targetNamespace: targetNamespace)
            case "portType":
                readPortType(child, file: file, targetNamespace: targetNamespace)
            case "binding":
                deferredBindings.append(Deferred(element: child, file: file, targetNamespace: targetNamespace))
            case "service":
                deferredServices.append(Deferred(element: child, file: file, targetNamespace: targetNamespace))
            default:
                continue
            }
        }
    }

    /// Reads the schemas of `wsdl:types`, and, leniently, an `xsd:import` or `xsd:include`
    /// written there without a schema around it.
    func readTypes(_ types: XMLTree.Element, file: String) {
        for child in types.children where child.namespaceURI == XSDBuiltInType.namespace {
            switch child.name {
            case "schema":
                readSchemaDocument(child, file: file, chameleonNamespace: nil)
            case "import", "include":
                diagnose(
                    .warning, .importOutsideSchema, location(of: child, in: file),
                    "xsd:\(child.name) is directly in wsdl:types, outside any xsd:schema; it is read as an import")
                readImport(child, file: file)
            default:
                continue
            }
        }
    }

    /// Reads a `wsdl:message` and its parts.
    func readMessage(_ element: XMLTree.Element, file: String, targetNamespace: String?) {
        guard let localName = declaredLocalName(of: element, file: file, missing: "wsdl:message has no name") else { return }
        var parts: [WSDLPart] = []
        for child in element.children(named: "part", namespaceURI: Self.wsdl) {
            guard let partName = declaredLocalName(of: child, file: file, missing: "wsdl:part has no name") else { continue }
            let content: WSDLPart.Content
            if let value = child.attribute(named: "element") {
                guard let name = qualifiedName(value, at: child, file: file) else { continue }
                references.append(PendingReference(kind: .element, name: name, element: child, file: file))
                content = .element(name)
            } else if let value = child.attribute(named: "type") {
                guard let name = qualifiedName(value, at: child, file: file) else { continue }
                references.append(PendingReference(kind: .type, name: name, element: child, file: file))
                content = .type(name)
            } else {
                diagnose(.error, .invalidAttribute, location(of: child, in: file), "wsdl:part \(partName) has neither an element nor a type")
                continue
            }
            parts.append(WSDLPart(name: partName, content: content, documentation: child.documentation))
        }
        let name = QualifiedName(namespace: targetNamespace, name: localName)
        guard messageIndex[name] == nil else {
            diagnose(.warning, .duplicateDefinition, location(of: element, in: file), "the message \(name) is declared again; the first declaration is kept")
            return
        }
        messageIndex[name] = messages.count
        messages.append(WSDLMessage(name: name, documentation: element.documentation, parts: parts))
    }

    /// Reads a `wsdl:portType`; solicit-response and notification operations are diagnosed here,
    /// once.
    func readPortType(_ element: XMLTree.Element, file: String, targetNamespace: String?) {
        guard let localName = declaredLocalName(of: element, file: file, missing: "wsdl:portType has no name") else { return }
        let name = QualifiedName(namespace: targetNamespace, name: localName)
        var operations: [WSDLPortType.Operation] = []
        for child in element.children(named: "operation", namespaceURI: Self.wsdl) {
            guard let operationName = declaredLocalName(of: child, file: file, missing: "wsdl:operation has no name") else { continue }
            if operations.contains(where: { $0.name == operationName }) {
                diagnose(
                    .warning, .duplicateDefinition, location(of: child, in: file),
                    "the port type \(localName) declares the operation \(operationName) again (an overload); the first is kept")
                continue
            }
            var input: QualifiedName?
            var output: QualifiedName?
            var faults: [WSDLPortType.Fault] = []
            var outputFirst = false
            for item in child.children where item.namespaceURI == Self.wsdl {
                let message = item.attribute(named: "message").flatMap { qualifiedName($0, at: item, file: file) }
                switch item.name {
                case "input": input = message
                case "output":
                    if input == nil { outputFirst = true }
                    output = message
                case "fault":
                    if let message, let faultName = item.nameAttribute("name") {
                        faults.append(WSDLPortType.Fault(name: faultName, message: message))
                    }
                default: continue
                }
            }
            if outputFirst {
                outboundOperations.insert("\(name)#\(operationName)")
                diagnose(
                    .error, .outboundOperation, location(of: child, in: file),
                    "the operation \(operationName) is \(input == nil ? "a notification" : "solicit-response"): a client cannot call it")
            }
            operations.append(
                WSDLPortType.Operation(name: operationName, documentation: child.documentation, input: input, output: output, faults: faults))
        }
        guard portTypeIndex[name] == nil else {
            diagnose(.warning, .duplicateDefinition, location(of: element, in: file), "the port type \(name) is declared again; the first declaration is kept")
            return
        }
        portTypeIndex[name] = portTypes.count
        portTypes.append(WSDLPortType(name: name, documentation: element.documentation, operations: operations))
    }

    /// The message named by `value` where `element` is, or `nil` with a diagnostic.
    func message(_ name: QualifiedName, at element: XMLTree.Element, file: String) -> WSDLMessage? {
        guard let index = messageIndex[name] else {
            diagnose(.error, .unresolvedReference, location(of: element, in: file), "the message \(name) is not declared")
            return nil
        }
        return messages[index]
    }

    /// Reads a SOAP binding, or `nil` (with a diagnostic) for a binding of another kind.
    func readBinding(_ deferred: Deferred) -> WSDLBinding? {
        let element = deferred.element
        let file = deferred.file
        let bindingLocation = location(of: element, in: file)
        guard let typeValue = element.attribute(named: "type") else {
            diagnose(.error, .invalidAttribute, bindingLocation, "wsdl:binding has no type")
            return nil
        }
        guard let localName = declaredLocalName(of: element, file: file, missing: "wsdl:binding has no name") else { return nil }
        let name = QualifiedName(namespace: deferred.targetNamespace, name: localName)
        guard
            let soapBinding = element.children.first(where: {
                $0.name == "binding" && Self.soapVersion(bindingNamespace: $0.namespaceURI) != nil
            }),
            let version = Self.soapVersion(bindingNamespace: soapBinding.namespaceURI)
        else {
            let kind = element.children.first(where: { $0.name == "binding" }).map { "\($0.namespaceURI ?? "no namespace")" } ?? "no binding element"
            diagnose(.warning, .nonSOAPBinding, bindingLocation, "the binding \(localName) is not SOAP 1.1 or 1.2 (\(kind)); it is left out")
            return nil
        }
        guard let portTypeName = qualifiedName(typeValue, at: element, file: file) else { return nil }
        guard let portType = portTypeIndex[portTypeName].map({ portTypes[$0] }) else {
            diagnose(.error, .unresolvedReference, bindingLocation, "the port type \(portTypeName) of the binding \(localName) is not declared")
            return nil
        }
        let soapNamespace = soapBinding.namespaceURI
        let defaultStyle = soapBinding.nameAttribute("style") ?? "document"
        var operations: [WSDLOperation] = []
        var operationNames: Set<String> = []
        for child in element.children(named: "operation", namespaceURI: Self.wsdl) {
            if let operationName = child.nameAttribute("name"), !operationNames.insert(operationName).inserted {
                diagnose(
                    .warning, .duplicateDefinition, location(of: child, in: file),
                    "the binding \(localName) binds the operation \(operationName) again; the first is kept")
                continue
            }
            if let operation = readBindingOperation(
                child, portType: portType, file: file, soapNamespace: soapNamespace, defaultStyle: defaultStyle)
            {
                operations.append(operation)
            }
        }
        let encoded = operations.filter { $0.style.isEncoded }
        if !encoded.isEmpty {
            let style = encoded.contains { $0.style == .rpcEncoded } ? "rpc/encoded" : "document/encoded"
            diagnose(
                .error, .encodedUse, bindingLocation,
                "the binding \(localName) uses SOAP encoding (\(style)) in \(encoded.count) of its \(operations.count) operations; only literal use can be generated")
        }
        return WSDLBinding(
            name: name, portType: portTypeName, soapVersion: version, transport: soapBinding.attribute(named: "transport"),
            documentation: element.documentation, operations: operations)
    }

    /// Reads one operation of a SOAP binding, or `nil` with a diagnostic when it cannot be
    /// generated.
    func readBindingOperation(
        _ element: XMLTree.Element, portType: WSDLPortType, file: String, soapNamespace: String?, defaultStyle: String
    ) -> WSDLOperation? {
        let operationLocation = location(of: element, in: file)
        guard let name = element.nameAttribute("name") else {
            diagnose(.error, .invalidAttribute, operationLocation, "wsdl:operation has no name")
            return nil
        }
        if outboundOperations.contains("\(portType.name)#\(name)") { return nil }
        let bindingInput = element.child(named: "input", namespaceURI: Self.wsdl)
        let bindingOutput = element.child(named: "output", namespaceURI: Self.wsdl)
        guard let abstract = portType.operations.first(where: { $0.name == name }) else {
            diagnose(.error, .inconsistentBinding, operationLocation, "the operation \(name) is not in the port type \(portType.name)")
            return nil
        }
        for direction in [bindingInput, bindingOutput].compactMap({ $0 })
        where direction.children.contains(where: { $0.namespaceURI == Self.mimeNamespace }) {
            diagnose(.error, .mimeContent, location(of: direction, in: file), "the operation \(name) has MIME content, which cannot be generated; it is left out")
            return nil
        }
        let soapOperation = element.children.first { $0.name == "operation" && $0.namespaceURI == soapNamespace }
        let style = soapOperation?.nameAttribute("style") ?? defaultStyle
        let isRPC = style == "rpc"

        var input: WSDLOperationMessage?
        if let messageName = abstract.input {
            guard let message = message(messageName, at: element, file: file) else { return nil }
            input = boundMessage(message, binding: bindingInput, file: file, soapNamespace: soapNamespace)
            if input == nil { return nil }
        }
        var output: WSDLOperationMessage?
        if let messageName = abstract.output {
            guard let message = message(messageName, at: element, file: file) else { return nil }
            output = boundMessage(message, binding: bindingOutput, file: file, soapNamespace: soapNamespace)
            if output == nil { return nil }
        }

        var faults: [WSDLFault] = []
        for fault in abstract.faults {
            guard let message = message(fault.message, at: element, file: file) else { continue }
            let bindingFault = element.children(named: "fault", namespaceURI: Self.wsdl).first { $0.nameAttribute("name") == fault.name }
            let soapFault = bindingFault?.children.first { $0.name == "fault" && $0.namespaceURI == soapNamespace }
            faults.append(
                WSDLFault(name: fault.name, message: message.name, part: message.parts.first, isEncoded: soapFault?.nameAttribute("use") == "encoded"))
        }

        let encoded = (input?.isEncoded ?? false) || (output?.isEncoded ?? false)
        let operationStyle: WSDLOperationStyle
        if encoded {
            operationStyle = isRPC ? .rpcEncoded : .documentEncoded
        } else if isRPC {
            operationStyle = .rpcLiteral
            let inputNamespace = input?.bodyNamespace
            let outputNamespace = output?.bodyNamespace
            input?.wrapper = QualifiedName(namespace: inputNamespace, name: name)
            output?.wrapper = QualifiedName(namespace: outputNamespace, name: name + "Response")
        } else if let request = input, isWrapped(request, operation: name) {
            operationStyle = .documentWrapped
            input?.wrapper = request.bodyParts.first?.element
            if let response = output, response.bodyParts.count == 1, let element = response.bodyParts.first?.element {
                output?.wrapper = element
            }
        } else {
            operationStyle = .documentBare
        }
        if !encoded {
            let parts = (input?.bodyParts ?? []) + (output?.bodyParts ?? [])
            if isRPC, let part = parts.first(where: { $0.element != nil }) {
                diagnose(.warning, .partStyleMismatch, operationLocation, "the rpc operation \(name) has the part \(part.name) declared by an element, not a type")
            } else if !isRPC, let part = parts.first(where: { $0.type != nil }) {
                diagnose(.warning, .partStyleMismatch, operationLocation, "the document operation \(name) has the part \(part.name) declared by a type, not an element")
            }
        }
        return WSDLOperation(
            name: name, documentation: abstract.documentation ?? element.documentation,
            soapAction: soapOperation?.attribute(named: "soapAction"), style: operationStyle, input: input, output: output,
            faults: faults, location: operationLocation)
    }

    /// Whether a document/literal request is wrapped: one part, whose element is named after the
    /// operation and has a complex type of elements only.
    func isWrapped(_ request: WSDLOperationMessage, operation: String) -> Bool {
        guard request.bodyParts.count == 1, let elementName = request.bodyParts[0].element, elementName.name == operation,
            let element = elements[elementName]
        else { return false }
        let complex: XSDComplexType?
        switch element.type {
        case .anonymous(.complex(let type)): complex = type
        case .named(let typeName):
            if case .complex(let type) = types[typeName] { complex = type } else { complex = nil }
        default: complex = nil
        }
        guard let complex else { return false }
        return complex.derivation?.content != .simple && complex.attributes.isEmpty && complex.anyAttribute == nil
    }

    /// The body parts and headers of one direction of a bound operation, or `nil` with a
    /// diagnostic when they do not match the message.
    func boundMessage(_ message: WSDLMessage, binding: XMLTree.Element?, file: String, soapNamespace: String?) -> WSDLOperationMessage? {
        let body = binding?.children.first { $0.name == "body" && $0.namespaceURI == soapNamespace }
        var headers: [WSDLHeader] = []
        for header in binding?.children ?? [] where header.name == "header" && header.namespaceURI == soapNamespace {
            let headerLocation = location(of: header, in: file)
            guard let messageValue = header.attribute(named: "message"), let partName = header.nameAttribute("part") else {
                diagnose(.error, .invalidAttribute, headerLocation, "soap:header has no message or no part")
                continue
            }
            guard let messageName = qualifiedName(messageValue, at: header, file: file),
                let headerMessage = self.message(messageName, at: header, file: file)
            else { continue }
            guard let part = headerMessage.part(named: partName) else {
                diagnose(.error, .inconsistentBinding, headerLocation, "the message \(messageName) has no part \(partName)")
                continue
            }
            if header.children.contains(where: { $0.name == "headerfault" && $0.namespaceURI == soapNamespace }) {
                diagnose(.warning, .headerFault, headerLocation, "the soap:headerfault of the header \(partName) is not supported; the header is read without it")
            }
            headers.append(WSDLHeader(message: messageName, part: part, isEncoded: header.nameAttribute("use") == "encoded"))
        }
        var bodyParts: [WSDLPart]
        if let body, let names = body.attribute(named: "parts") {
            bodyParts = []
            for partName in names.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
                guard let part = message.part(named: String(partName)) else {
                    diagnose(.error, .inconsistentBinding, location(of: body, in: file), "the message \(message.name) has no part \(partName)")
                    return nil
                }
                bodyParts.append(part)
            }
        } else {
            let headerParts = Set(headers.filter { $0.message == message.name }.map(\.part.name))
            bodyParts = message.parts.filter { !headerParts.contains($0.name) }
        }
        return WSDLOperationMessage(
            name: binding?.attribute(named: "name"), message: message.name, bodyParts: bodyParts, wrapper: nil,
            bodyNamespace: body?.attribute(named: "namespace"), isEncoded: body?.nameAttribute("use") == "encoded", headers: headers)
    }

    /// Reads a `wsdl:service` and its ports.
    func readService(_ deferred: Deferred) -> WSDLService {
        let element = deferred.element
        let name = QualifiedName(namespace: deferred.targetNamespace, name: element.nameAttribute("name") ?? "")
        if element.attribute(named: "name") == nil {
            diagnose(.error, .invalidAttribute, location(of: element, in: deferred.file), "wsdl:service has no name")
        }
        var ports: [WSDLPort] = []
        for port in element.children(named: "port", namespaceURI: Self.wsdl) {
            guard let portName = port.nameAttribute("name"), let bindingValue = port.attribute(named: "binding"),
                let binding = qualifiedName(bindingValue, at: port, file: deferred.file)
            else {
                diagnose(.error, .invalidAttribute, location(of: port, in: deferred.file), "wsdl:port has no name or no binding")
                continue
            }
            if !deferredBindings.contains(where: {
                $0.element.nameAttribute("name") == binding.name && $0.targetNamespace == binding.namespace
            }) {
                diagnose(.error, .unresolvedReference, location(of: port, in: deferred.file), "the binding \(binding) of the port \(portName) is not declared")
            }
            let address = port.children.first { $0.name == "address" }
            ports.append(
                WSDLPort(
                    name: portName, binding: binding, address: address?.attribute(named: "location"),
                    soapVersion: Self.soapVersion(bindingNamespace: address?.namespaceURI), documentation: port.documentation))
        }
        return WSDLService(name: name, documentation: element.documentation, ports: ports)
    }
}
