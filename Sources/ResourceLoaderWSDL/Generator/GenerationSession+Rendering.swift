extension GenerationSession {
    /// A model's declaration.
    func render(_ model: GeneratedModel) -> String {
        switch model {
        case .structure(let structure): render(structure)
        case .enumeration(let enumeration): render(enumeration)
        case .choice(let choice): render(choice)
        }
    }

    /// `namespace` as a Swift literal, or `nil`.
    static func optionalLiteral(_ text: String?) -> String { text.map(SwiftNaming.literal) ?? "nil" }

    /// A struct with its initializer, coding keys and `xmlSchema`.
    func render(_ structure: GeneratedModel.Structure) -> String {
        if let inheritance = structure.inheritance { return renderClass(structure, inheritance) }
        var text = SwiftNaming.docComment(structure.documentation, indent: "")
        text += "\(access)struct \(structure.name): Codable, Sendable, Hashable, XMLSchemaType {\n"
        for field in structure.fields {
            text += SwiftNaming.docComment(field.documentation, indent: "    ")
            text += "    \(access)var \(SwiftNaming.escaped(field.swiftName)): \(field.declaredType)\n"
        }
        if !structure.fields.isEmpty { text += "\n" }
        text += "    /// Makes a value from its fields.\n"
        let parameters = structure.fields.map { field -> String in
            let defaultValue = switch field.cardinality {
            case .one: ""
            case .optional: " = nil"
            case .array: " = []"
            }
            return "\(SwiftNaming.escaped(field.swiftName)): \(field.declaredType)\(defaultValue)"
        }
        text += "    \(access)init(\(parameters.joined(separator: ", "))) {"
        if structure.fields.isEmpty {
            text += "}\n"
        } else {
            text += "\n"
            for field in structure.fields { text += "        self.\(field.swiftName) = \(SwiftNaming.escaped(field.swiftName))\n" }
            text += "    }\n"
        }
        if structure.fields.contains(where: { $0.swiftName != $0.key }) {
            text += "\n    enum CodingKeys: String, CodingKey {\n"
            for field in structure.fields {
                text += "        case \(SwiftNaming.escaped(field.swiftName))"
                text += field.swiftName == field.key ? "\n" : " = \(SwiftNaming.literal(field.key))\n"
            }
            text += "    }\n"
        }
        text += "\n    /// How values of the type are written as XML and read back.\n"
        text += "    \(access)static let xmlSchema = \(schemaExpression(structure))\n"
        return text + "}\n"
    }

    /// A class of an extension hierarchy: immutable stored properties, an initializer that
    /// takes the inherited ones too, `Codable` written out (a subclass encodes and decodes its
    /// base's content through its superclass), `Hashable` through an overridable `isEqual(to:)`,
    /// and an overridable `xmlSchema` whose `typeName` is written as `xsi:type`.
    func renderClass(_ structure: GeneratedModel.Structure, _ inheritance: GeneratedModel.Inheritance) -> String {
        let a = access
        let inheritedFields = Array(structure.fields.prefix(inheritance.inheritedFieldCount))
        let ownFields = Array(structure.fields.dropFirst(inheritance.inheritedFieldCount))
        let root = inheritance.superclass == nil
        let override = root ? "" : "override "
        var text = SwiftNaming.docComment(structure.documentation, indent: "")
        let kind = inheritance.isFinal ? "final class" : "class"
        let conformances = root ? "Codable, Hashable, XMLSchemaType, @unchecked Sendable" : "\(inheritance.superclass!), @unchecked Sendable"
        text += "\(a)\(kind) \(structure.name): \(conformances) {\n"
        text += "    // `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type; a class that\n"
        text += "    // is not final cannot be checked.\n"
        for field in ownFields {
            text += SwiftNaming.docComment(field.documentation, indent: "    ")
            text += "    \(a)let \(SwiftNaming.escaped(field.swiftName)): \(field.declaredType)\n"
        }
        if !ownFields.isEmpty { text += "\n" }
        let parameters = structure.fields.map { field -> String in
            let defaultValue = switch field.cardinality {
            case .one: ""
            case .optional: " = nil"
            case .array: " = []"
            }
            return "\(SwiftNaming.escaped(field.swiftName)): \(field.declaredType)\(defaultValue)"
        }
        text += "    /// Makes a value from its fields, the base type's first.\n"
        // A subclass that adds nothing has its superclass's initializer's signature.
        text += "    \(a)\(!root && ownFields.isEmpty ? "override " : "")init(\(parameters.joined(separator: ", "))) {"
        var body = ownFields.map { "        self.\($0.swiftName) = \(SwiftNaming.escaped($0.swiftName))\n" }.joined()
        if !root {
            body += "        super.init(\(inheritedFields.map { "\($0.swiftName): \(SwiftNaming.escaped($0.swiftName))" }.joined(separator: ", ")))\n"
        }
        text += body.isEmpty ? "}\n" : "\n" + body + "    }\n"
        if !ownFields.isEmpty {
            text += "\n    private enum CodingKeys: String, CodingKey {\n"
            for field in ownFields {
                text += "        case \(SwiftNaming.escaped(field.swiftName))"
                text += field.swiftName == field.key ? "\n" : " = \(SwiftNaming.literal(field.key))\n"
            }
            text += "    }\n"
        }
        text += "\n    /// Reads the value's content\(root ? "" : ", its base type's first").\n"
        text += "    \(a)required init(from decoder: any Decoder) throws {\n"
        if !ownFields.isEmpty {
            text += "        let container = try decoder.container(keyedBy: CodingKeys.self)\n"
            for field in ownFields {
                let name = SwiftNaming.escaped(field.swiftName)
                switch field.cardinality {
                case .one: text += "        self.\(name) = try container.decode(\(field.type).self, forKey: .\(name))\n"
                case .optional: text += "        self.\(name) = try container.decodeIfPresent(\(field.type).self, forKey: .\(name))\n"
                case .array: text += "        self.\(name) = try container.decodeIfPresent(\(field.declaredType).self, forKey: .\(name)) ?? []\n"
                }
            }
        }
        if !root { text += "        try super.init(from: decoder)\n" }
        text += "    }\n"
        text += "\n    /// Writes the value's content\(root ? "" : ", its base type's first").\n"
        text += "    \(a)\(override)func encode(to encoder: any Encoder) throws {\n"
        if !root { text += "        try super.encode(to: encoder)\n" }
        if !ownFields.isEmpty {
            text += "        var container = encoder.container(keyedBy: CodingKeys.self)\n"
            for field in ownFields {
                let name = SwiftNaming.escaped(field.swiftName)
                text += field.cardinality == .optional
                    ? "        try container.encodeIfPresent(self.\(name), forKey: .\(name))\n"
                    : "        try container.encode(self.\(name), forKey: .\(name))\n"
            }
        }
        text += "    }\n"
        if root {
            text += "\n    /// Whether both values are of the same class, with equal content.\n"
            text += "    \(a)static func == (lhs: \(structure.name), rhs: \(structure.name)) -> Bool {\n        lhs.isEqual(to: rhs)\n    }\n"
        }
        text += "\n    /// Whether `other` is of this value's class, with equal content.\n"
        text += "    \(a)\(override)func isEqual(to other: \(root ? structure.name : rootClass(of: structure.name))) -> Bool {\n"
        if root {
            var conditions = ["Swift.type(of: self) == Swift.type(of: other)"]
            conditions += ownFields.map { "self.\(SwiftNaming.escaped($0.swiftName)) == other.\(SwiftNaming.escaped($0.swiftName))" }
            text += "        \(conditions.joined(separator: " && "))\n"
        } else {
            text += "        guard let other = other as? \(structure.name) else { return false }\n"
            var conditions = ["super.isEqual(to: other)"]
            conditions += ownFields.map { "self.\(SwiftNaming.escaped($0.swiftName)) == other.\(SwiftNaming.escaped($0.swiftName))" }
            text += "        return \(conditions.joined(separator: " && "))\n"
        }
        text += "    }\n"
        text += "\n    /// Hashes the value's content\(root ? "" : ", its base type's first").\n"
        text += "    \(a)\(override)func hash(into hasher: inout Hasher) {\n"
        if !root { text += "        super.hash(into: &hasher)\n" }
        for field in ownFields { text += "        hasher.combine(self.\(SwiftNaming.escaped(field.swiftName)))\n" }
        if root && ownFields.isEmpty { text += "        hasher.combine(ObjectIdentifier(Swift.type(of: self)))\n" }
        text += "    }\n"
        text += "\n    /// How values of the type are written as XML and read back; its `typeName` is written as\n"
        text += "    /// `xsi:type` when a value stands where a base type is declared.\n"
        text += "    \(a)\(root ? "" : "override ")class var xmlSchema: XMLTypeSchema {\n        \(Self.indentingLines(schemaExpression(structure)))\n    }\n"
        return text + "}\n"
    }

    /// The enum whose decoder registers every derived class, so that an element whose
    /// `xsi:type` names one is read as it.
    func renderDerivedTypes(_ name: String) -> String {
        let a = access
        var text = "/// The classes of types that extend others, which an element's `xsi:type` may name.\n"
        text += "\(a)enum \(name) {\n"
        text += "    /// A decoder that reads each of them where its base type is declared.\n"
        text += "    \(a)static let decoder: XMLTreeDecoder = {\n        var decoder = XMLTreeDecoder()\n"
        for derived in derivedClasses.sorted() { text += "        decoder.registerDerivedType(\(derived).self)\n" }
        return text + "        return decoder\n    }()\n}\n"
    }

    /// `text` with four more spaces after each line break.
    static func indentingLines(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 64)
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == UInt8(ascii: "\n") { bytes.append(contentsOf: [0x20, 0x20, 0x20, 0x20]) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The root class of the hierarchy `name` is in.
    func rootClass(of name: String) -> String {
        var current = name
        while let superclass = superclasses[current] { current = superclass }
        return current
    }

    /// The `XMLTypeSchema` expression for a struct.
    func schemaExpression(_ structure: GeneratedModel.Structure) -> String {
        let namespace = structure.namespace
        let elements = structure.fields.filter { $0.kind == .element && !$0.isChoice }
        let elementForm: XMLFormChoice? =
            elements.contains { $0.namespace != nil && $0.namespace == namespace } ? .qualified
            : elements.contains { $0.namespace == nil } ? .unqualified : nil
        let hasAttributes = structure.fields.contains { $0.kind == .attribute }
        var arguments: [String] = []
        if let namespace { arguments.append("namespace: \(SwiftNaming.literal(namespace))") }
        if let typeName = structure.typeName {
            arguments.append("typeName: XMLQualifiedName(\(SwiftNaming.literal(typeName.name)), namespaceURI: \(Self.optionalLiteral(typeName.namespace)))")
        }
        if let elementForm { arguments.append("elementForm: .\(elementForm.rawValue)") }
        if hasAttributes { arguments.append("attributeForm: .unqualified") }
        var entries: [String] = []
        for field in structure.fields where !field.isChoice {
            var fieldArguments: [String] = []
            switch field.kind {
            case .element:
                if let fieldNamespace = field.namespace, fieldNamespace != namespace {
                    fieldArguments.append("namespace: \(SwiftNaming.literal(fieldNamespace))")
                } else {
                    let form: XMLFormChoice = field.namespace == nil ? .unqualified : .qualified
                    if form != elementForm { fieldArguments.append("form: .\(form.rawValue)") }
                }
                if field.isNillable { fieldArguments.append("isNillable: true") }
                if field.isHexBinary { fieldArguments.append("isHexBinary: true") }
                if fieldArguments.isEmpty { continue }
                if fieldArguments == ["isNillable: true"] {
                    entries.append("\(SwiftNaming.literal(field.key)): .nillableElement")
                    continue
                }
            case .attribute:
                if let fieldNamespace = field.namespace {
                    fieldArguments.append(fieldNamespace == namespace ? "form: .qualified" : "namespace: \(SwiftNaming.literal(fieldNamespace))")
                } else if !field.isHexBinary {
                    entries.append("\(SwiftNaming.literal(field.key)): .attribute")
                    continue
                }
                fieldArguments.insert("kind: .attribute", at: 0)
                if field.isHexBinary { fieldArguments.append("isHexBinary: true") }
            case .text:
                guard field.isHexBinary else {
                    entries.append("\(SwiftNaming.literal(field.key)): .text")
                    continue
                }
                fieldArguments = ["kind: .text", "isHexBinary: true"]
            }
            entries.append("\(SwiftNaming.literal(field.key)): XMLTypeSchema.Field(\(fieldArguments.joined(separator: ", ")))")
        }
        guard !entries.isEmpty else { return "XMLTypeSchema(" + arguments.joined(separator: ", ") + ")" }
        var text = "XMLTypeSchema(\n"
        if !arguments.isEmpty { text += "        " + arguments.joined(separator: ", ") + ",\n" }
        text += "        fields: [\n"
        for entry in entries { text += "            \(entry),\n" }
        return text + "        ])"
    }

    /// An enumeration that keeps values the schema does not list.
    func render(_ enumeration: GeneratedModel.Enumeration) -> String {
        var text = SwiftNaming.docComment(enumeration.documentation, indent: "")
        text += "\(access)enum \(enumeration.name): RawRepresentable, Codable, Sendable, Hashable {\n"
        for value in enumeration.values {
            text += SwiftNaming.docComment(value.documentation ?? "`\(value.value)`", indent: "    ")
            text += "    case \(SwiftNaming.escaped(value.caseName))\n"
        }
        text += "    /// A value the schema does not list, kept as it was read.\n    case unknown(String)\n\n"
        text += "    /// The case for `rawValue`, or ``unknown(_:)``.\n"
        text += "    \(access)init(rawValue: String) {\n        switch rawValue {\n"
        for value in enumeration.values {
            text += "        case \(SwiftNaming.literal(value.value)): self = .\(SwiftNaming.escaped(value.caseName))\n"
        }
        text += "        default: self = .unknown(rawValue)\n        }\n    }\n\n"
        text += "    /// The value as XML writes it.\n    \(access)var rawValue: String {\n        switch self {\n"
        for value in enumeration.values {
            text += "        case .\(SwiftNaming.escaped(value.caseName)): \(SwiftNaming.literal(value.value))\n"
        }
        text += "        case .unknown(let value): value\n        }\n    }\n\n"
        text += "    /// Reads the value from its text.\n"
        text += "    \(access)init(from decoder: any Decoder) throws {\n"
        text += "        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))\n    }\n\n"
        text += "    /// Writes the value as its text.\n"
        text += "    \(access)func encode(to encoder: any Encoder) throws {\n"
        text += "        var container = encoder.singleValueContainer()\n        try container.encode(rawValue)\n    }\n"
        return text + "}\n"
    }

    /// A choice enum.
    func render(_ choice: GeneratedModel.Choice) -> String {
        var text = SwiftNaming.docComment(choice.documentation ?? "One of the elements of a choice.", indent: "")
        text += "\(access)indirect enum \(choice.name): Codable, Sendable, Hashable, XMLChoice, XMLSchemaType {\n"
        for item in choice.cases {
            text += SwiftNaming.docComment("The element `\(item.key)`.", indent: "    ")
            text += "    case \(SwiftNaming.escaped(item.caseName))(\(item.type))\n"
        }
        if choice.cases.contains(where: { $0.caseName != $0.key }) {
            text += "\n    enum CodingKeys: String, CodingKey {\n"
            for item in choice.cases {
                text += "        case \(SwiftNaming.escaped(item.caseName))"
                text += item.caseName == item.key ? "\n" : " = \(SwiftNaming.literal(item.key))\n"
            }
            text += "    }\n"
        }
        let schema = choice.substitution.map { substitutionSchemaExpression(choice, $0) } ?? choiceSchemaExpression(choice)
        text += "\n    /// The namespaces of the elements.\n"
        text += "    \(access)static let xmlSchema = \(schema)\n"
        return text + "}\n"
    }

    /// The `XMLTypeSchema` of a choice's enum: the holder's namespace, qualified when an element
    /// is in it, and each element that is not as that says (another form, a reference to another
    /// namespace), or of `xsd:hexBinary`, as a field of its own.
    func choiceSchemaExpression(_ choice: GeneratedModel.Choice) -> String {
        let namespace = choice.namespaces.holder
        let form: XMLFormChoice = namespace != nil && choice.namespaces.cases.contains(namespace) ? .qualified : .unqualified
        var arguments: [String] = []
        if let namespace { arguments.append("namespace: \(SwiftNaming.literal(namespace))") }
        arguments.append("elementForm: .\(form.rawValue)")
        var entries: [String] = []
        for (item, caseNamespace) in zip(choice.cases, choice.namespaces.cases) {
            var fieldArguments: [String] = []
            if let caseNamespace, caseNamespace != namespace {
                fieldArguments.append("namespace: \(SwiftNaming.literal(caseNamespace))")
            } else {
                let caseForm: XMLFormChoice = caseNamespace == nil ? .unqualified : .qualified
                if caseForm != form { fieldArguments.append("form: .\(caseForm.rawValue)") }
            }
            if choice.hexBinaryKeys.contains(item.key) { fieldArguments.append("isHexBinary: true") }
            guard !fieldArguments.isEmpty else { continue }
            entries.append("\(SwiftNaming.literal(item.key)): XMLTypeSchema.Field(\(fieldArguments.joined(separator: ", ")))")
        }
        guard !entries.isEmpty else { return "XMLTypeSchema(" + arguments.joined(separator: ", ") + ")" }
        return "XMLTypeSchema(\n        " + arguments.joined(separator: ", ") + ",\n        fields: [\n"
            + entries.map { "            \($0),\n" }.joined() + "        ])"
    }

    /// The `XMLTypeSchema` of a substitution group's enum: the head's namespace, and each element
    /// in another namespace, or of `xsd:hexBinary`, as a field of its own.
    func substitutionSchemaExpression(_ choice: GeneratedModel.Choice, _ substitution: (headNamespace: String?, caseNamespaces: [String?])) -> String {
        let head = substitution.headNamespace
        let arguments = head.map { ["namespace: \(SwiftNaming.literal($0))", "elementForm: .qualified"] } ?? ["elementForm: .unqualified"]
        var entries: [String] = []
        for (item, namespace) in zip(choice.cases, substitution.caseNamespaces) {
            let isHexBinary = choice.hexBinaryKeys.contains(item.key)
            guard namespace != head || isHexBinary else { continue }
            var arguments: [String] = []
            if namespace != head { arguments.append(namespace.map { "namespace: \(SwiftNaming.literal($0))" } ?? "form: .unqualified") }
            if isHexBinary { arguments.append("isHexBinary: true") }
            entries.append("\(SwiftNaming.literal(item.key)): XMLTypeSchema.Field(\(arguments.joined(separator: ", ")))")
        }
        guard !entries.isEmpty else { return "XMLTypeSchema(" + arguments.joined(separator: ", ") + ")" }
        return "XMLTypeSchema(\n        " + arguments.joined(separator: ", ") + ",\n        fields: [\n"
            + entries.map { "            \($0),\n" }.joined() + "        ])"
    }

    /// A resource.
    func render(_ plan: ResourcePlan) -> String {
        let operation = plan.operation
        let style = switch plan.style {
        case .documentWrapped: "document/literal wrapped"
        case .documentBare: "document/literal bare"
        default: "rpc/literal"
        }
        let version = plan.binding.soapVersion == .v1_1 ? "1.1" : "1.2"
        var documentation = operation.documentation.map { $0 + "\n\n" } ?? ""
        documentation += "The operation `\(operation.name)` of the binding `\(plan.binding.name.name)` (\(style), SOAP \(version))."
        if !plan.faults.isEmpty {
            documentation += "\n\nFaults it declares, as the `detail` of a ``ResourceError/soapFault(_:)``:"
            for fault in plan.faults {
                documentation += "\n- `\(fault.name)`" + (fault.type.map { ": ``\($0)``" } ?? "")
            }
        }
        let a = access
        var text = SwiftNaming.docComment(documentation, indent: "")
        text += "\(a)struct \(plan.name): SOAPResourceType {\n"
        if let outputType = plan.outputType {
            text += "    /// The response's content and its header blocks.\n    \(a)typealias Model = \(outputType)\n"
            text += "    /// The response's content.\n    \(a)typealias Root = \(plan.modelType)\n\n"
        } else {
            text += "    /// The response's content.\n    \(a)typealias Model = \(plan.modelType)\n\n"
        }
        if let address = plan.address {
            text += "    /// The service's address, as the WSDL gives it.\n"
            text += "    \(a)static let defaultURL = URL(string: \(SwiftNaming.literal(address)))!\n\n"
        }
        text += "    /// The service's address.\n    \(a)var url: URL\n"
        if let bodyType = plan.bodyType { text += "    /// The request.\n    \(a)var request: \(bodyType)\n" }
        for header in plan.headers {
            text += SwiftNaming.docComment("The header block `\(header.element.name)`, sent when set.", indent: "    ")
            text += "    \(a)var \(SwiftNaming.escaped(header.swiftName)): \(header.type)?\n"
        }
        var parameters: [String] = []
        if let bodyType = plan.bodyType { parameters.append("_ request: \(bodyType)") }
        for header in plan.headers { parameters.append("\(SwiftNaming.escaped(header.swiftName)): \(header.type)? = nil") }
        parameters.append("url: URL" + (plan.address == nil ? "" : " = \(plan.name).defaultURL"))
        text += "\n    /// Makes a call of the operation.\n    \(a)init(\(parameters.joined(separator: ", "))) {\n"
        text += "        self.url = url\n"
        if plan.bodyType != nil { text += "        self.request = request\n" }
        for header in plan.headers { text += "        self.\(header.swiftName) = \(SwiftNaming.escaped(header.swiftName))\n" }
        text += "    }\n\n"
        text += "    /// SOAP \(version).\n    \(a)var soapVersion: SOAPVersion { .\(version == "1.1" ? "v1_1" : "v1_2") }\n"
        text += "    /// The request's element.\n    \(a)var operation: String { \(SwiftNaming.literal(plan.elementName)) }\n"
        text += "    /// The request's namespace.\n    \(a)var operationNamespace: String? { \(Self.optionalLiteral(plan.namespace)) }\n"
        let action = operation.soapAction.flatMap { $0.isEmpty ? nil : $0 }
        text += "    /// The binding's `soapAction`.\n    \(a)var soapAction: String? { \(Self.optionalLiteral(action)) }\n"
        text += "    /// How the request sits in the body: \(style).\n    \(a)var soapBinding: SOAPBinding { \(plan.bindingExpression) }\n"
        if plan.bodyType != nil { text += "    /// The request, as the body.\n    \(a)var soapBody: (any Encodable)? { request }\n" }
        if !plan.headers.isEmpty {
            text += "    /// The header blocks that are set.\n    \(a)var soapHeaders: [SOAPHeaderBlock] {\n        get throws {\n"
            text += "            var blocks: [SOAPHeaderBlock] = []\n"
            for header in plan.headers {
                let name = "XMLQualifiedName(\(SwiftNaming.literal(header.element.name)), namespaceURI: \(Self.optionalLiteral(header.element.namespace)))"
                let encoder = header.isHexBinary ? ", encoder: XMLTreeEncoder(dataEncodingStrategy: .hex)" : ""
                text += "            if let value = self.\(header.swiftName) {\n"
                text += "                blocks.append(try SOAPHeaderBlock(value, as: \(name)\(encoder)))\n            }\n"
            }
            text += "            return blocks\n        }\n    }\n"
        }
        text += plan.responsePath.isEmpty ? "    /// The response's parts are the body's elements.\n" : "    /// The response's element.\n"
        text += "    \(a)var responsePath: [String] { [\(plan.responsePath.map(SwiftNaming.literal).joined(separator: ", "))] }\n"
        if plan.modelIsHexBinary {
            text += "    /// A decoder that reads the response's `xsd:hexBinary` content as hex.\n"
            text += "    \(a)var xmlDecoder: XMLTreeDecoder { XMLTreeDecoder(dataDecodingStrategy: .hex) }\n"
        } else if let derivedTypesName {
            text += "    /// A decoder that reads the derived types an `xsi:type` may name.\n"
            text += "    \(a)var xmlDecoder: XMLTreeDecoder { \(derivedTypesName).decoder }\n"
        }
        if let outputType = plan.outputType {
            text += "\n    /// The response's content, without its header blocks.\n"
            text += "    \(a)func model(from root: \(plan.modelType)) throws -> \(outputType) {\n        \(outputType)(body: root)\n    }\n\n"
            text += "    /// The response's content and the header blocks the WSDL declares for it.\n"
            text += "    \(a)func model(from root: \(plan.modelType), headers: SOAPResponseHeaders) throws -> \(outputType) {\n"
            text += "        \(outputType)(\n            body: root"
            for header in plan.outputHeaders {
                // A bare hexBinary block is read as hex; the others with the decoder of the
                // derived types, when there are any (the resource's `xmlDecoder`, unless that
                // one reads a hexBinary response).
                let decoder =
                    if header.isHexBinary { ", decoder: XMLTreeDecoder(dataDecodingStrategy: .hex)" }
                    else if let derivedTypesName { ", decoder: \(plan.modelIsHexBinary ? derivedTypesName + ".decoder" : "xmlDecoder")" }
                    else { "" }
                text += ",\n            \(SwiftNaming.escaped(header.swiftName)): try headers.decode(\(header.type).self, named: \(SwiftNaming.literal(header.element.name)), namespaceURI: \(Self.optionalLiteral(header.element.namespace))\(decoder))"
            }
            text += ")\n    }\n"
        }
        text += "}\n"
        if let outputType = plan.outputType { text += "\n" + renderOutput(outputType, plan: plan) }
        return text
    }

    /// The struct a resource whose response has header blocks returns: the body's content and
    /// each block.
    func renderOutput(_ name: String, plan: ResourcePlan) -> String {
        let a = access
        var text = "/// The response of ``\(plan.name)``: its content and the header blocks the WSDL declares for it.\n"
        text += "\(a)struct \(name): Sendable, Hashable {\n"
        text += "    /// The response's content.\n    \(a)var body: \(plan.modelType)\n"
        for header in plan.outputHeaders {
            text += SwiftNaming.docComment("The header block `\(header.element.name)`, when the response has it.", indent: "    ")
            text += "    \(a)var \(SwiftNaming.escaped(header.swiftName)): \(header.type)?\n"
        }
        let parameters = ["body: \(plan.modelType)"] + plan.outputHeaders.map { "\(SwiftNaming.escaped($0.swiftName)): \($0.type)? = nil" }
        text += "\n    /// Makes a response from its parts.\n    \(a)init(\(parameters.joined(separator: ", "))) {\n"
        text += "        self.body = body\n"
        for header in plan.outputHeaders { text += "        self.\(header.swiftName) = \(SwiftNaming.escaped(header.swiftName))\n" }
        return text + "    }\n}\n"
    }
}

/// The forms an `XMLTypeSchema` names.
enum XMLFormChoice: String {
    case qualified, unqualified
}
