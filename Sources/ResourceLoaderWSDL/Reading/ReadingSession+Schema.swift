import ResourceLoader

extension ReadingSession {
    private static var xsd: String { XSDBuiltInType.namespace }

    /// Reads an `xsd:schema` element: inline in `wsdl:types`, or the root of a file. A schema
    /// file reached twice (by path and namespace) is read once; an inline schema is read with its
    /// WSDL document, which is read once.
    func readSchemaDocument(_ schema: XMLTree.Element, file: String, chameleonNamespace: String?) {
        let own = schema.attribute(named: "targetNamespace")
        let targetNamespace = own ?? chameleonNamespace
        if schema.parent == nil {
            guard schemaKeys.insert("\(file)|\(targetNamespace ?? "")").inserted else { return }
        }
        let context = SchemaContext(
            file: file, targetNamespace: targetNamespace, chameleonNamespace: own == nil ? chameleonNamespace : nil,
            qualifiesElements: schema.nameAttribute("elementFormDefault") == "qualified",
            qualifiesAttributes: schema.nameAttribute("attributeFormDefault") == "qualified")
        schemas.append(
            XSDSchema(
                file: file, targetNamespace: targetNamespace, isChameleon: own == nil && chameleonNamespace != nil,
                qualifiesElements: context.qualifiesElements, qualifiesAttributes: context.qualifiesAttributes))

        for child in schema.children where child.namespaceURI == Self.xsd {
            switch child.name {
            case "import": readImport(child, file: file)
            case "include": readInclude(child, file: file, namespace: targetNamespace)
            case "redefine", "override":
                diagnose(
                    .error, .schemaRedefinition, location(of: child, in: file),
                    "xsd:\(child.name) is not supported: the schema it names is included, and the components it changes are left as first declared")
                readInclude(child, file: file, namespace: targetNamespace)
            case "element":
                if let element = readElement(child, context: context, isGlobal: true) {
                    declare(element, named: element.name, in: &elements, at: child, file: file, kind: "element")
                }
            case "complexType", "simpleType":
                guard let name = declaredName(child, context: context) else { continue }
                let type = child.name == "complexType"
                    ? XSDType.complex(readComplexType(child, name: name, context: context))
                    : readSimpleType(child, name: name, context: context).map(XSDType.simple)
                if let type { declare(type, named: name, in: &types, at: child, file: file, kind: "type") }
            case "attribute":
                if case .attribute(let attribute) = readAttribute(child, context: context, isGlobal: true) {
                    declare(attribute, named: attribute.name, in: &attributes, at: child, file: file, kind: "attribute")
                }
            case "group":
                guard let name = declaredName(child, context: context) else { continue }
                let particle = child.children.lazy.compactMap { self.readParticle($0, context: context) }.first
                    ?? XSDParticle(term: .sequence([]))
                let group = XSDGroup(name: name, particle: particle, documentation: child.documentation, location: location(of: child, in: file))
                declare(group, named: name, in: &groups, at: child, file: file, kind: "group")
            case "attributeGroup":
                guard let name = declaredName(child, context: context) else { continue }
                let (uses, wildcard) = readAttributeUses(of: child, context: context)
                let group = XSDAttributeGroup(name: name, attributes: uses, anyAttribute: wildcard, location: location(of: child, in: file))
                declare(group, named: name, in: &attributeGroups, at: child, file: file, kind: "attribute group")
            default:
                // annotation, notation: nothing to generate.
                continue
            }
        }
    }

    /// Queues the file an `xsd:import` names, unless its namespace is a well-known one.
    func readImport(_ element: XMLTree.Element, file: String) {
        if let namespace = element.attribute(named: "namespace"), WellKnownSchemas.namespaces.contains(namespace) { return }
        guard let schemaLocation = element.attribute(named: "schemaLocation") else { return }
        let origin = location(of: element, in: file)
        guard let path = localPath(for: schemaLocation, from: file, at: origin) else { return }
        pendingSchemas.append(PendingSchema(path: path, chameleonNamespace: nil, origin: origin))
    }

    /// Queues the file an `xsd:include` (or `xsd:redefine`) names, as part of `namespace`.
    func readInclude(_ element: XMLTree.Element, file: String, namespace: String?) {
        let origin = location(of: element, in: file)
        guard let schemaLocation = element.attribute(named: "schemaLocation") else {
            diagnose(.error, .invalidAttribute, origin, "xsd:\(element.name) has no schemaLocation")
            return
        }
        guard let path = localPath(for: schemaLocation, from: file, at: origin) else { return }
        pendingSchemas.append(PendingSchema(path: path, chameleonNamespace: namespace, origin: origin))
    }

    /// Adds a global component unless one of the same kind and name is declared already.
    func declare<Component>(
        _ component: Component, named name: QualifiedName, in table: inout [QualifiedName: Component],
        at element: XMLTree.Element, file: String, kind: String
    ) {
        guard table[name] == nil else {
            diagnose(.warning, .duplicateDefinition, location(of: element, in: file), "the \(kind) \(name) is declared again; the first declaration is kept")
            return
        }
        table[name] = component
    }

    /// The qualified name of a global component, or `nil` with a diagnostic when it has no name.
    func declaredName(_ element: XMLTree.Element, context: SchemaContext) -> QualifiedName? {
        guard let name = declaredLocalName(of: element, file: context.file, missing: "a global xsd:\(element.name) has no name") else {
            return nil
        }
        return QualifiedName(namespace: context.targetNamespace, name: name)
    }

    /// The name a QName attribute value refers to, recorded to be checked once every file is read.
    func reference(_ value: String, kind: WellKnownSchemas.Kind, at element: XMLTree.Element, context: SchemaContext) -> QualifiedName? {
        guard let name = qualifiedName(value, at: element, file: context.file, chameleonNamespace: context.chameleonNamespace) else {
            return nil
        }
        references.append(PendingReference(kind: kind, name: name, element: element, file: context.file))
        return name
    }

    /// Reads an element declaration (not a reference).
    func readElement(_ element: XMLTree.Element, context: SchemaContext, isGlobal: Bool) -> XSDElement? {
        guard let localName = declaredLocalName(of: element, file: context.file, missing: "xsd:element has neither a name nor a ref") else {
            return nil
        }
        let qualified: Bool
        if isGlobal {
            qualified = true
        } else if let form = element.nameAttribute("form") {
            qualified = form == "qualified"
        } else {
            qualified = context.qualifiesElements
        }
        let type: XSDTypeReference?
        if let typeName = element.attribute(named: "type") {
            type = reference(typeName, kind: .type, at: element, context: context).map(XSDTypeReference.named)
        } else if let complex = element.child(named: "complexType", namespaceURI: Self.xsd) {
            type = .anonymous(.complex(readComplexType(complex, name: nil, context: context)))
        } else if let simple = element.child(named: "simpleType", namespaceURI: Self.xsd) {
            type = readSimpleType(simple, name: nil, context: context).map { .anonymous(.simple($0)) }
        } else {
            type = nil
        }
        return XSDElement(
            name: QualifiedName(namespace: qualified ? context.targetNamespace : nil, name: localName), type: type,
            isGlobal: isGlobal, isNillable: boolean("nillable", of: element, file: context.file) ?? false,
            isAbstract: boolean("abstract", of: element, file: context.file) ?? false, defaultValue: element.attribute(named: "default"),
            fixedValue: element.attribute(named: "fixed"),
            substitutionGroup: element.attribute(named: "substitutionGroup").flatMap {
                reference($0, kind: .element, at: element, context: context)
            },
            documentation: element.documentation, location: location(of: element, in: context.file))
    }

    /// Reads a particle: an element or element reference, a sequence, choice or all, a group
    /// reference or a wildcard. `nil` for anything else (annotations).
    func readParticle(_ element: XMLTree.Element, context: SchemaContext) -> XSDParticle? {
        guard element.namespaceURI == Self.xsd else { return nil }
        let term: XSDTerm
        switch element.name {
        case "element":
            if let ref = element.attribute(named: "ref") {
                guard let name = reference(ref, kind: .element, at: element, context: context) else { return nil }
                term = .elementReference(name)
            } else {
                guard let declaration = readElement(element, context: context, isGlobal: false) else { return nil }
                term = .element(declaration)
            }
        case "sequence": term = .sequence(element.children.compactMap { readParticle($0, context: context) })
        case "choice": term = .choice(element.children.compactMap { readParticle($0, context: context) })
        case "all": term = .all(element.children.compactMap { readParticle($0, context: context) })
        case "group":
            guard let ref = element.attribute(named: "ref") else {
                diagnose(.error, .invalidAttribute, location(of: element, in: context.file), "a local xsd:group has no ref")
                return nil
            }
            guard let name = reference(ref, kind: .group, at: element, context: context) else { return nil }
            term = .group(name)
        case "any": term = .any(readWildcard(element))
        default: return nil
        }
        let (minOccurs, maxOccurs) = occurrences(of: element, file: context.file)
        return XSDParticle(minOccurs: minOccurs, maxOccurs: maxOccurs, term: term)
    }

    /// `minOccurs` and `maxOccurs` (`nil` for `unbounded`), 1 when absent or invalid (with a
    /// diagnostic).
    func occurrences(of element: XMLTree.Element, file: String) -> (Int, Int?) {
        func number(_ attribute: String) -> Int? {
            guard let value = element.attribute(named: attribute)?.trimmingXMLWhitespace() else { return 1 }
            if attribute == "maxOccurs" && value == "unbounded" { return nil }
            guard let number = Int(value), number >= 0 else {
                diagnose(.error, .invalidAttribute, location(of: element, in: file), "\(attribute)=\"\(value)\" is not a count; 1 is used")
                return 1
            }
            return number
        }
        return (number("minOccurs") ?? 1, number("maxOccurs"))
    }

    /// The `xsd:boolean` attribute `attribute` of `element`: `true` and `1` are true, `false`
    /// and `0` false, with white space around them collapsed; `nil` when it is absent, and
    /// false, with a diagnostic, when it is none of these.
    func boolean(_ attribute: String, of element: XMLTree.Element, file: String) -> Bool? {
        guard let value = element.attribute(named: attribute) else { return nil }
        switch value.trimmingXMLWhitespace() {
        case "true", "1": return true
        case "false", "0": return false
        default:
            diagnose(.error, .invalidAttribute, location(of: element, in: file), "\(attribute)=\"\(value)\" is not a boolean; false is used")
            return false
        }
    }

    /// Reads `xsd:any` or `xsd:anyAttribute`.
    func readWildcard(_ element: XMLTree.Element) -> XSDWildcard {
        XSDWildcard(
            namespace: element.attribute(named: "namespace") ?? "##any",
            processContents: element.nameAttribute("processContents").flatMap(XSDWildcard.ProcessContents.init(rawValue:)) ?? .strict)
    }

    /// Reads a complex type, named or anonymous.
    func readComplexType(_ element: XMLTree.Element, name: QualifiedName?, context: SchemaContext) -> XSDComplexType {
        var mixed = boolean("mixed", of: element, file: context.file) ?? false
        var derivation: XSDDerivation?
        var particle: XSDParticle?
        var (uses, wildcard) = readAttributeUses(of: element, context: context)
        for child in element.children where child.namespaceURI == Self.xsd {
            switch child.name {
            case "simpleContent", "complexContent":
                // complexContent's own mixed, when it has one, decides over its complexType's.
                if let own = boolean("mixed", of: child, file: context.file) { mixed = own }
                guard let body = child.children.first(where: { $0.namespaceURI == Self.xsd && ($0.name == "extension" || $0.name == "restriction") })
                else {
                    diagnose(.error, .invalidAttribute, location(of: child, in: context.file), "xsd:\(child.name) has neither an extension nor a restriction")
                    continue
                }
                let content: XSDDerivation.Content = child.name == "simpleContent" ? .simple : .complex
                guard let baseValue = body.attribute(named: "base"),
                    let base = reference(baseValue, kind: .type, at: body, context: context)
                else {
                    if body.attribute(named: "base") == nil {
                        diagnose(.error, .invalidAttribute, location(of: body, in: context.file), "xsd:\(body.name) has no base")
                    }
                    continue
                }
                if base.name == "Array", WellKnownSchemas.soapEncodingNamespaces.contains(base.namespace ?? "") {
                    readsEncodedArrays = true
                }
                derivation = XSDDerivation(
                    method: body.name == "extension" ? .extension : .restriction, content: content, base: base,
                    facets: content == .simple ? readFacets(of: body) : XSDFacets())
                particle = body.children.lazy.compactMap { self.readParticle($0, context: context) }.first
                let (derivedUses, derivedWildcard) = readAttributeUses(of: body, context: context)
                uses += derivedUses
                wildcard = wildcard ?? derivedWildcard
            case "sequence", "choice", "all", "group":
                particle = readParticle(child, context: context)
            default:
                continue
            }
        }
        return XSDComplexType(
            name: name, isAbstract: boolean("abstract", of: element, file: context.file) ?? false, isMixed: mixed, derivation: derivation,
            particle: particle, attributes: uses, anyAttribute: wildcard, documentation: element.documentation,
            location: location(of: element, in: context.file))
    }

    /// The attributes, attribute references and attribute group references among `element`'s
    /// children, and its `xsd:anyAttribute`.
    func readAttributeUses(of element: XMLTree.Element, context: SchemaContext) -> ([XSDAttributeUse], XSDWildcard?) {
        var uses: [XSDAttributeUse] = []
        var wildcard: XSDWildcard?
        for child in element.children where child.namespaceURI == Self.xsd {
            switch child.name {
            case "attribute":
                if let use = readAttribute(child, context: context, isGlobal: false) { uses.append(use) }
            case "attributeGroup":
                guard let ref = child.attribute(named: "ref") else { continue }
                if let name = reference(ref, kind: .attributeGroup, at: child, context: context) { uses.append(.group(name)) }
            case "anyAttribute":
                wildcard = readWildcard(child)
            default:
                continue
            }
        }
        return (uses, wildcard)
    }

    /// Reads an attribute declaration or reference.
    func readAttribute(_ element: XMLTree.Element, context: SchemaContext, isGlobal: Bool) -> XSDAttributeUse? {
        let use = element.nameAttribute("use").flatMap(XSDAttribute.Use.init(rawValue:)) ?? .optional
        let defaultValue = element.attribute(named: "default")
        let fixedValue = element.attribute(named: "fixed")
        if let ref = element.attribute(named: "ref") {
            guard let name = reference(ref, kind: .attribute, at: element, context: context) else { return nil }
            return .reference(name, use: use, defaultValue: defaultValue, fixedValue: fixedValue)
        }
        guard let localName = declaredLocalName(of: element, file: context.file, missing: "xsd:attribute has neither a name nor a ref") else {
            return nil
        }
        let qualified = isGlobal || (element.nameAttribute("form").map { $0 == "qualified" } ?? context.qualifiesAttributes)
        let type: XSDTypeReference?
        if let typeName = element.attribute(named: "type") {
            type = reference(typeName, kind: .type, at: element, context: context).map(XSDTypeReference.named)
        } else if let simple = element.child(named: "simpleType", namespaceURI: Self.xsd) {
            type = readSimpleType(simple, name: nil, context: context).map { .anonymous(.simple($0)) }
        } else {
            type = nil
        }
        return .attribute(
            XSDAttribute(
                name: QualifiedName(namespace: qualified ? context.targetNamespace : nil, name: localName), type: type,
                use: use, defaultValue: defaultValue, fixedValue: fixedValue, documentation: element.documentation,
                location: location(of: element, in: context.file)))
    }

    /// Reads a simple type, or `nil` with a diagnostic when it is neither a restriction, a list
    /// nor a union.
    func readSimpleType(_ element: XMLTree.Element, name: QualifiedName?, context: SchemaContext) -> XSDSimpleType? {
        let variety: XSDSimpleType.Variety
        if let restriction = element.child(named: "restriction", namespaceURI: Self.xsd) {
            let base: XSDTypeReference
            if let baseValue = restriction.attribute(named: "base") {
                guard let name = reference(baseValue, kind: .type, at: restriction, context: context) else { return nil }
                base = .named(name)
            } else if let simple = restriction.child(named: "simpleType", namespaceURI: Self.xsd),
                let anonymous = readSimpleType(simple, name: nil, context: context)
            {
                base = .anonymous(.simple(anonymous))
            } else {
                diagnose(.error, .invalidAttribute, location(of: restriction, in: context.file), "xsd:restriction has no base")
                return nil
            }
            variety = .restriction(base: base, facets: readFacets(of: restriction))
        } else if let list = element.child(named: "list", namespaceURI: Self.xsd) {
            if let itemType = list.attribute(named: "itemType") {
                guard let name = reference(itemType, kind: .type, at: list, context: context) else { return nil }
                variety = .list(itemType: .named(name))
            } else if let simple = list.child(named: "simpleType", namespaceURI: Self.xsd),
                let anonymous = readSimpleType(simple, name: nil, context: context)
            {
                variety = .list(itemType: .anonymous(.simple(anonymous)))
            } else {
                diagnose(.error, .invalidAttribute, location(of: list, in: context.file), "xsd:list has no item type")
                return nil
            }
        } else if let union = element.child(named: "union", namespaceURI: Self.xsd) {
            var members: [XSDTypeReference] = []
            for value in (union.attribute(named: "memberTypes") ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
                if let name = reference(String(value), kind: .type, at: union, context: context) { members.append(.named(name)) }
            }
            for simple in union.children(named: "simpleType", namespaceURI: Self.xsd) {
                if let anonymous = readSimpleType(simple, name: nil, context: context) { members.append(.anonymous(.simple(anonymous))) }
            }
            variety = .union(memberTypes: members)
        } else {
            diagnose(.error, .invalidAttribute, location(of: element, in: context.file), "xsd:simpleType is neither a restriction, a list nor a union")
            return nil
        }
        return XSDSimpleType(name: name, variety: variety, documentation: element.documentation, location: location(of: element, in: context.file))
    }

    /// The facets among a restriction's children.
    func readFacets(of restriction: XMLTree.Element) -> XSDFacets {
        var facets = XSDFacets()
        for child in restriction.children where child.namespaceURI == Self.xsd {
            guard let value = child.attribute(named: "value") else { continue }
            switch child.name {
            case "enumeration": facets.enumerations.append(XSDFacets.Enumeration(value: value, documentation: child.documentation))
            case "pattern": facets.patterns.append(value)
            case "length": facets.length = Int(value.trimmingXMLWhitespace())
            case "minLength": facets.minLength = Int(value.trimmingXMLWhitespace())
            case "maxLength": facets.maxLength = Int(value.trimmingXMLWhitespace())
            case "minInclusive": facets.minInclusive = value
            case "maxInclusive": facets.maxInclusive = value
            case "minExclusive": facets.minExclusive = value
            case "maxExclusive": facets.maxExclusive = value
            case "totalDigits": facets.totalDigits = Int(value.trimmingXMLWhitespace())
            case "fractionDigits": facets.fractionDigits = Int(value.trimmingXMLWhitespace())
            case "whiteSpace": facets.whiteSpace = value
            default: continue
            }
        }
        return facets
    }
}
