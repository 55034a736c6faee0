import ResourceLoader

extension GenerationSession {
    /// The Swift type of a value declared with `reference`, generating the models it needs:
    /// the type name and, when it is a generated struct, that struct's name.
    ///
    /// - Parameters:
    ///   - hint: The name an anonymous type takes.
    ///   - namespace: The namespace an anonymous complex type's children are qualified by.
    mutating func swiftType(for reference: XSDTypeReference?, hint: String, namespace: String?) -> (type: String, structTarget: String?) {
        guard let reference else { return ("XMLTree.Element", nil) }
        switch reference {
        case .named(let name):
            return swiftType(named: name)
        case .anonymous(.complex(let complex)):
            // An anonymous type reached again while its struct is being made (through a group or
            // a base type that holds it) is that struct: the recursion ``breakRecursion()`` breaks.
            if let known = anonymousTypesInProgress.last(where: { $0.complex.location == complex.location && $0.namespace == namespace && $0.complex == complex }) {
                return (known.name, known.name)
            }
            // Anonymous types inside groups are made again at every reference: groups that each
            // refer to the one before twice would double them at every level.
            guard anonymousTypeCount < Self.maximumAnonymousTypes else {
                diagnose(
                    .unsupportedContent, at: complex.location,
                    "more than \(Self.maximumAnonymousTypes) anonymous types would be generated: the others are read and written as XMLTree.Element")
                return ("XMLTree.Element", nil)
            }
            anonymousTypeCount += 1
            let name = claimTypeName(for: nil, hint: hint)
            anonymousTypesInProgress.append((complex, namespace, name))
            generateStructure(complex, name: name, namespace: namespace, documentation: "An anonymous type of the schema.")
            anonymousTypesInProgress.removeLast()
            return (name, name)
        case .anonymous(.simple(let simple)):
            return (swiftType(ofSimple: simple, key: nil, hint: hint), nil)
        }
    }

    /// The most structs generated for anonymous complex types: far more than a real service has.
    static let maximumAnonymousTypes = 10_000

    /// The Swift type of the named type `name`.
    mutating func swiftType(named name: QualifiedName) -> (type: String, structTarget: String?) {
        if let builtIn = Self.builtInType(named: name) { return (Self.swiftType(of: builtIn), nil) }
        if WellKnownSchemas.soapEncodingNamespaces.contains(name.namespace ?? "") { return ("XMLTree.Element", nil) }
        switch document.schemas.type(named: name) {
        case .complex(let complex):
            let isClass = isInExtensionHierarchy(name, complex)
            if let known = complexTypeNames[name] { return (known, isClass ? nil : known) }
            if complex.derivation?.base.name == "Array",
                WellKnownSchemas.soapEncodingNamespaces.contains(complex.derivation?.base.namespace ?? "")
            {
                return ("XMLTree.Element", nil)
            }
            let swiftName = claimTypeName(for: name, hint: name.name)
            complexTypeNames[name] = swiftName
            if isClass {
                generateClass(complex, typeName: name, swiftName: swiftName)
                return (swiftName, nil)
            }
            generateStructure(complex, name: swiftName, namespace: name.namespace, documentation: "The schema type `\(name.name)`.")
            return (swiftName, swiftName)
        case .simple(let simple):
            return (swiftType(ofSimple: simple, key: name, hint: name.name), nil)
        case nil:
            return ("XMLTree.Element", nil)
        }
    }

    /// Whether values of the type `reference` declares are `xsd:hexBinary`: the built-in type, or
    /// a simple type restricted from it without enumerations (which are generated as enums of
    /// their own). Their `Data` is written as hex, not base64, so their fields say so in the
    /// holding type's `xmlSchema`.
    func isHexBinary(_ reference: XSDTypeReference?) -> Bool {
        var current = reference
        var visited: Set<QualifiedName> = []
        while let reference = current {
            let simple: XSDSimpleType
            switch reference {
            case .named(let name):
                if let builtIn = Self.builtInType(named: name) { return builtIn == .hexBinary }
                guard visited.insert(name).inserted, case .simple(let named) = document.schemas.type(named: name) else { return false }
                simple = named
            case .anonymous(.simple(let anonymous)):
                simple = anonymous
            case .anonymous(.complex):
                return false
            }
            guard case .restriction(let base, let facets) = simple.variety, facets.enumerations.isEmpty else { return false }
            current = base
        }
        return false
    }

    /// The built-in type whose values the type `name` holds: a built-in type
    /// (``XSDBuiltInType/init(name:)``), or xmime's `base64Binary` and `hexBinary` (MTOM), whose
    /// text is the built-in type's. Their `xmime:contentType` attribute is neither written nor
    /// read.
    static func builtInType(named name: QualifiedName) -> XSDBuiltInType? {
        if let builtIn = XSDBuiltInType(name: name) { return builtIn }
        guard name.namespace == WellKnownSchemas.xmimeNamespace else { return nil }
        return switch name.name {
        case "base64Binary": .base64Binary
        case "hexBinary": .hexBinary
        default: nil
        }
    }

    /// The Swift type generated code uses for a built-in type: ``XSDBuiltInType/swiftTypeName``,
    /// and raw XML for `anyType`.
    static func swiftType(of builtIn: XSDBuiltInType) -> String {
        builtIn.swiftTypeName ?? "XMLTree.Element"
    }

    /// The Swift type of a simple type: an enumeration for one restricted by `xsd:enumeration`,
    /// else its base's type; `String` for lists and unions, which travel as one text.
    mutating func swiftType(ofSimple simple: XSDSimpleType, key: QualifiedName?, hint: String) -> String {
        switch simple.variety {
        case .list, .union:
            return "String"
        case .restriction(let base, let facets):
            guard !facets.enumerations.isEmpty else {
                return swiftType(for: base, hint: hint, namespace: nil).type
            }
            if let key, let known = enumerationNames[key] { return known }
            let name = claimTypeName(for: key, hint: hint)
            if let key { enumerationNames[key] = name }
            var cases = NameRegistry(reserved: ["unknown", "rawValue", "init", "self"])
            var values: [(caseName: String, value: String, documentation: String?)] = []
            var seen: Set<String> = []
            for enumeration in facets.enumerations where seen.insert(enumeration.value).inserted {
                let caseName = cases.claim(enumeration.value.isEmpty ? "empty" : SwiftNaming.memberName(enumeration.value))
                values.append((caseName, enumeration.value, enumeration.documentation))
            }
            models.append(.enumeration(.init(name: name, documentation: simple.documentation, values: values)))
            return name
        }
    }

    /// Makes the struct `name` for a complex type and appends it to the models.
    mutating func generateStructure(_ complex: XSDComplexType, name: String, namespace: String?, documentation: String? = nil) {
        var builder = FieldBuilder(owner: name, namespace: namespace, location: complex.location)
        collectFields(of: complex, into: &builder, visited: [])
        if let typeName = complex.name, complex.isAbstract || baseTypes.contains(typeName), !polymorphismReported.contains(typeName) {
            polymorphismReported.insert(typeName)
            diagnose(
                .polymorphism, at: complex.location,
                "the type \(typeName) is \(complex.isAbstract ? "abstract and no type extends it" : "the base of types derived by restriction or with simple content"): it is generated as the struct \(name) with its own content, and values of derived types (xsi:type) are neither written nor read")
        }
        models.append(
            .structure(.init(name: name, documentation: complex.documentation ?? documentation, namespace: namespace, typeName: complex.name, fields: builder.fields,
                    location: complex.location)))
    }

    /// Whether the named complex type is part of an extension hierarchy: other types extend it
    /// (`complexContent` extension), or it extends a complex type.
    func isInExtensionHierarchy(_ name: QualifiedName, _ complex: XSDComplexType) -> Bool {
        derivedTypes[name] != nil || extensionBase(of: complex) != nil
    }

    /// The complex type `complex` extends with complex content, if it does.
    func extensionBase(of complex: XSDComplexType) -> QualifiedName? {
        guard let derivation = complex.derivation, derivation.method == .extension, derivation.content == .complex,
            case .complex = document.schemas.type(named: derivation.base)
        else { return nil }
        return derivation.base
    }

    /// Makes the class `swiftName` for a type of an extension hierarchy: a subclass of its
    /// base's class that adds its own content, then the classes of the types that extend it.
    ///
    /// A subclass whose base's class is still being made (an element of the base, or of a type
    /// the base holds, has the derived type) is made once the base's class is, so that it
    /// inherits all of the base's fields.
    mutating func generateClass(_ complex: XSDComplexType, typeName: QualifiedName, swiftName: String) {
        unfinishedClasses.insert(swiftName)
        var builder = FieldBuilder(owner: swiftName, namespace: typeName.namespace, location: complex.location)
        var superclass: String?
        if let base = extensionBase(of: complex) {
            let baseName = swiftType(named: base).type
            if unfinishedClasses.contains(baseName) {
                waitingSubclasses[baseName, default: []].append((complex, typeName, swiftName))
                return
            }
            superclass = baseName
            for case .structure(let model) in models where model.name == baseName {
                for field in model.fields {
                    _ = builder.names.claim(field.swiftName)
                    builder.fields.append(field)
                }
            }
            derivedClasses.append(swiftName)
        }
        let inherited = builder.fields.count
        builder.inheritedFieldCount = inherited
        var own = complex
        if superclass != nil { own.derivation = nil }
        collectFields(of: own, into: &builder, visited: [typeName])
        var documentation = complex.documentation ?? "The schema type `\(typeName.name)`."
        if complex.isAbstract {
            documentation += "\n\nAbstract: where it is declared, send a value of a class that extends it."
        }
        models.append(
            .structure(
                .init(
                    name: swiftName, documentation: documentation, namespace: typeName.namespace, typeName: typeName, fields: builder.fields,
                    location: complex.location,
                    inheritance: .init(superclass: superclass, inheritedFieldCount: inherited, isFinal: derivedTypes[typeName] == nil))))
        unfinishedClasses.remove(swiftName)
        for waiting in waitingSubclasses.removeValue(forKey: swiftName) ?? [] {
            generateClass(waiting.complex, typeName: waiting.typeName, swiftName: waiting.swiftName)
        }
        for derived in derivedTypes[typeName] ?? [] {
            _ = swiftType(named: derived)
        }
    }

    /// The fields of a struct being made: the names used so far and the fields in order.
    struct FieldBuilder {
        var owner: String
        var namespace: String?
        var names = NameRegistry(reserved: GenerationSession.reservedMemberNames)
        var fields: [GeneratedModel.Field] = []
        var choiceCount = 0
        /// The first fields, which a class inherits from its superclass.
        var inheritedFieldCount = 0
        /// Where the type is declared, for diagnostics.
        var location: WSDLSourceLocation
        /// The particles and attribute uses visited for the type, groups expanded: at most
        /// ``GenerationSession/maximumContentVisits``.
        var visits = 0
    }

    /// The most particles and attribute uses one type's content is expanded to through its
    /// groups. Groups that each refer to the one before twice double at every level, so a few
    /// kilobytes of schema could otherwise keep the generator busy for ever.
    static let maximumContentVisits = 10_000

    /// Counts a visit of `builder`'s content; `false`, with a diagnostic the first time, once
    /// there were ``maximumContentVisits``.
    mutating func visit(_ builder: inout FieldBuilder, location: WSDLSourceLocation) -> Bool {
        builder.visits += 1
        if builder.visits <= Self.maximumContentVisits { return true }
        if builder.visits == Self.maximumContentVisits + 1 {
            diagnose(
                .unsupportedContent, at: location,
                "the content of \(builder.owner) expands to more than \(Self.maximumContentVisits) particles and attributes through its groups: the rest is left out")
        }
        return false
    }

    /// Appends a field, unless one with the same XML name is there already: coding keys name
    /// elements and attributes by their local names, so the second is left out.
    ///
    /// The field of a choice or of a substitution group, which is written as its elements and
    /// has none of its own, is keyed by its Swift name, and never takes a key an element or an
    /// attribute has: it gives up its name to an element or attribute named so, and takes the
    /// next free one. (In a subclass, an element may have the key of an inherited choice: the
    /// coding keys of a class are its own fields'.)
    mutating func append(_ field: GeneratedModel.Field, to builder: inout FieldBuilder) {
        guard !field.isChoice else {
            builder.fields.append(field)
            freeKey(ofChoiceAt: builder.fields.count - 1, in: &builder)
            return
        }
        var field = field
        if let index = builder.fields.firstIndex(where: { $0.key == field.key }) {
            guard builder.fields[index].isChoice else {
                diagnose(
                    .unsupportedContent, at: builder.location,
                    "a second element or attribute named \(field.key) in \(builder.owner) is left out: the names of a type's elements and attributes must differ")
                return
            }
            if index >= builder.inheritedFieldCount {
                let choiceName = builder.fields[index].swiftName
                builder.fields[index].swiftName = field.swiftName
                builder.fields[index].key = field.swiftName
                field.swiftName = choiceName
                builder.fields.append(field)
                freeKey(ofChoiceAt: index, in: &builder)
                return
            }
        }
        builder.fields.append(field)
    }

    /// Renames the choice's or substitution group's field at `index`, while another field has
    /// its key, to the next free name.
    mutating func freeKey(ofChoiceAt index: Int, in builder: inout FieldBuilder) {
        let base = builder.fields[index].swiftName
        while builder.fields.indices.contains(where: { $0 != index && builder.fields[$0].key == builder.fields[index].key }) {
            let name = builder.names.claim(base)
            builder.fields[index].swiftName = name
            builder.fields[index].key = name
        }
    }

    /// Adds the fields of `complex`, its base's first.
    ///
    /// A type derived by extension has its base's content and attributes, then its own. A type
    /// derived by restriction has the element content it declares itself (a simple content
    /// restriction, its base's text) and every attribute of its base that it neither declares
    /// again nor prohibits. With `attributesOnly`, only the attributes are added: the type is
    /// the base of a `complexContent` restriction. `excluded` are the attributes the
    /// restrictions derived from it declare, left out here.
    mutating func collectFields(
        of complex: XSDComplexType, into builder: inout FieldBuilder, visited: Set<QualifiedName>, attributesOnly: Bool = false,
        excluded: Set<QualifiedName> = []
    ) {
        if let derivation = complex.derivation {
            let base = derivation.base
            let baseComplex: XSDComplexType? = {
                if case .complex(let type) = document.schemas.type(named: base) { return type }
                return nil
            }()
            // The attributes a restriction declares replace or prohibit its base's of the name.
            let baseExcluded = derivation.method == .restriction ? excluded.union(declaredAttributeNames(complex.attributes)) : excluded
            switch derivation.content {
            case .simple:
                if let baseComplex, !visited.contains(base) {
                    collectFields(of: baseComplex, into: &builder, visited: visited.union([base]), attributesOnly: attributesOnly, excluded: baseExcluded)
                } else if baseComplex == nil, !attributesOnly {
                    let valueType = swiftType(named: base).type
                    append(
                        .init(
                            swiftName: builder.names.claim("value"), key: "value", type: valueType, structTarget: nil, cardinality: .one,
                            kind: .text, namespace: nil, isNillable: false, isChoice: false, documentation: nil,
                            isHexBinary: isHexBinary(.named(base))), to: &builder)
                }
            case .complex:
                if let baseComplex, !visited.contains(base) {
                    collectFields(
                        of: baseComplex, into: &builder, visited: visited.union([base]),
                        attributesOnly: attributesOnly || derivation.method == .restriction, excluded: baseExcluded)
                }
            }
        }
        if !attributesOnly {
            if complex.isMixed {
                diagnose(.mixedContent, at: complex.location, "mixed content: the text between the elements is neither written nor read")
            }
            if let particle = complex.particle {
                collectParticle(particle, optional: false, into: &builder, location: complex.location, visitedGroups: [])
            }
        }
        collectAttributes(complex.attributes, into: &builder, location: complex.location, visitedGroups: [], excluded: excluded)
        // A restriction's attribute wildcard is its own, not its base's.
        if complex.anyAttribute != nil, !attributesOnly {
            diagnose(.wildcardContent, at: complex.location, "xsd:anyAttribute: the attributes it allows are neither written nor read")
        }
    }

    /// The names of the attributes `uses` declares, refers to or prohibits, through their
    /// attribute groups.
    func declaredAttributeNames(_ uses: [XSDAttributeUse]) -> Set<QualifiedName> {
        var names: Set<QualifiedName> = []
        var visitedGroups: Set<QualifiedName> = []
        var pending = uses
        while let use = pending.popLast() {
            switch use {
            case .attribute(let attribute): names.insert(attribute.name)
            case .reference(let name, _, _, _): names.insert(name)
            case .group(let name):
                guard visitedGroups.insert(name).inserted else { continue }
                if name == Self.xmlSpecialAttributes { pending += Self.xmlSpecialAttributeUses }
                guard let group = document.schemas.attributeGroups[name] else { continue }
                pending += group.attributes
            }
        }
        return names
    }

    /// Adds the fields of a particle; `optional` when an enclosing particle may be absent.
    mutating func collectParticle(
        _ particle: XSDParticle, optional: Bool, into builder: inout FieldBuilder, location: WSDLSourceLocation, visitedGroups: Set<QualifiedName>
    ) {
        guard visit(&builder, location: location) else { return }
        let isOptional = optional || particle.isOptional
        switch particle.term {
        case .element(let element):
            addElementField(element, particle: particle, optional: isOptional, into: &builder)
        case .elementReference(let name):
            guard let element = element(named: name, location: location) else { return }
            if substitutionMembers[element.name] != nil {
                addSubstitutionField(element, particle: particle, optional: isOptional, into: &builder)
                return
            }
            reportSubstitution(of: element)
            addElementField(element, particle: particle, optional: isOptional, into: &builder)
        case .sequence(let particles), .all(let particles):
            guard !particle.isRepeated else {
                diagnose(.unsupportedContent, at: location, "a sequence with maxOccurs above 1 is left out")
                return
            }
            for child in particles {
                collectParticle(child, optional: isOptional, into: &builder, location: location, visitedGroups: visitedGroups)
            }
        case .group(let name):
            guard let group = document.schemas.groups[name], !visitedGroups.contains(name) else { return }
            let combined = XSDParticle(
                minOccurs: min(particle.minOccurs, group.particle.minOccurs),
                maxOccurs: particle.isRepeated || group.particle.isRepeated ? nil : 1, term: group.particle.term)
            collectParticle(combined, optional: isOptional, into: &builder, location: group.location, visitedGroups: visitedGroups.union([name]))
        case .choice(let particles):
            addChoiceField(particles, particle: particle, optional: isOptional, into: &builder, location: location)
        case .any:
            diagnose(.wildcardContent, at: location, "xsd:any: the elements it allows are neither written nor read")
        }
    }

    /// Warns when a referenced element is abstract and no element substitutes for it.
    mutating func reportSubstitution(of element: XSDElement) {
        guard element.isAbstract, !polymorphismReported.contains(element.name) else { return }
        polymorphismReported.insert(element.name)
        diagnose(
            .polymorphism, at: element.location,
            "the element \(element.name) is abstract and no element substitutes for it: it is generated as the element itself, which a service does not expect")
    }

    /// Adds a field for an element.
    mutating func addElementField(_ element: XSDElement, particle: XSDParticle, optional: Bool, into builder: inout FieldBuilder) {
        let swiftName = builder.names.claim(SwiftNaming.memberName(element.name.name))
        let resolved: (type: String, structTarget: String?)
        var valueType = element.type
        if element.isGlobal, case .anonymous = element.type {
            resolved = elementType(element)
        } else if element.type == nil, let head = element.substitutionGroup, let headElement = document.schemas.element(named: head) {
            resolved = elementType(headElement)
            valueType = headElement.type
        } else {
            resolved = swiftType(for: element.type, hint: hintBase(of: builder.owner) + SwiftNaming.typeName(element.name.name), namespace: element.name.namespace ?? builder.namespace)
        }
        let cardinality: GeneratedModel.Field.Cardinality =
            particle.isRepeated ? .array : (optional || element.isNillable ? .optional : .one)
        append(
            .init(
                swiftName: swiftName, key: element.name.name, type: resolved.type, structTarget: resolved.structTarget,
                cardinality: cardinality, kind: .element, namespace: element.name.namespace, isNillable: element.isNillable,
                isChoice: false,
                documentation: Self.documentation(element.documentation, defaultValue: element.defaultValue, fixedValue: element.fixedValue, of: "element"),
                isHexBinary: isHexBinary(valueType)), to: &builder)
    }

    /// `documentation`, followed by the value the schema gives an element or attribute by
    /// `default` or `fixed`, which the generated code neither fills in nor checks.
    static func documentation(_ documentation: String?, defaultValue: String?, fixedValue: String?, of kind: String) -> String? {
        let absence = kind == "attribute" ? "absent" : "empty"
        let note: String? =
            if let fixedValue { "The schema fixes its value at `\(fixedValue)`." }
            else if let defaultValue { "When \(absence), its value is `\(defaultValue)`, the schema's default." }
            else { nil }
        guard let note else { return documentation }
        return documentation.map { $0 + "\n\n" + note } ?? note
    }

    /// The Swift type of a global element's values: its anonymous type's struct, named after it.
    mutating func elementType(_ element: XSDElement) -> (type: String, structTarget: String?) {
        guard case .anonymous(.complex(let complex)) = element.type else {
            return swiftType(for: element.type, hint: element.name.name, namespace: element.name.namespace)
        }
        if let known = elementTypeNames[element.name] { return (known, known) }
        let name = claimTypeName(for: element.name, hint: element.name.name)
        elementTypeNames[element.name] = name
        generateStructure(complex, name: name, namespace: element.name.namespace, documentation: element.documentation ?? "The content of the element `\(element.name.name)`.")
        return (name, name)
    }

    /// Adds a choice field and its enum: an array of the enum when the choice repeats, whose
    /// items are read from the holder's children in document order. In a choice that repeats,
    /// an element that repeats is a case like any other.
    mutating func addChoiceField(
        _ particles: [XSDParticle], particle: XSDParticle, optional: Bool, into builder: inout FieldBuilder, location: WSDLSourceLocation
    ) {
        builder.choiceCount += 1
        let enumName = typeNames.claim(builder.owner + (builder.choiceCount == 1 ? "Choice" : "Choice\(builder.choiceCount)"), suffix: "Type")
        // The enum's name is the holder's and more: its hint is the holder's hint and the same more.
        let enumHint = hintBase(of: builder.owner) + enumName.dropFirst(builder.owner.count)
        var caseNames = NameRegistry(reserved: ["init", "xmlSchema", "self"])
        var cases: [(caseName: String, key: String, type: String)] = []
        var caseNamespaces: [String?] = []
        var hexBinaryKeys: Set<String> = []
        var mayBeEmpty = optional
        for branch in particles {
            var element: XSDElement?
            switch branch.term {
            case .element(let local): element = local
            case .elementReference(let name): element = self.element(named: name, location: location)
            default: element = nil
            }
            // A repeated element in a choice that repeats matches what the element as a single
            // branch does: each of its occurrences is another item of the choice's array.
            guard let element, !branch.isRepeated || particle.isRepeated else {
                diagnose(
                    .unsupportedContent, at: location,
                    "a choice branch that is not a single element (a sequence, group or wildcard, or a repeated element in a choice that does not repeat) is left out")
                continue
            }
            if branch.isOptional { mayBeEmpty = true }
            if element.isGlobal, substitutionMembers[element.name] != nil, case let elements = substitutes(of: element), !elements.isEmpty {
                // A substitution group's head: a case for each element that may stand there.
                for substitute in elements where !cases.contains(where: { $0.key == substitute.name.name }) {
                    cases.append((caseNames.claim(SwiftNaming.memberName(substitute.name.name)), substitute.name.name, substituteType(substitute).type))
                    caseNamespaces.append(substitute.name.namespace)
                    if isHexBinary(substituteTypeReference(substitute)) { hexBinaryKeys.insert(substitute.name.name) }
                }
                continue
            }
            guard !cases.contains(where: { $0.key == element.name.name }) else {
                // The enum's coding keys are local names, and it reads its elements by them.
                diagnose(
                    .unsupportedContent, at: location,
                    "a second element named \(element.name.name) in a choice of \(builder.owner) is left out: the elements of a choice must have different local names")
                continue
            }
            if element.isGlobal { reportSubstitution(of: element) }
            let type: String
            if element.isGlobal, case .anonymous = element.type {
                type = elementType(element).type
            } else if element.type == nil, element.substitutionGroup != nil {
                type = substituteType(element).type
            } else {
                type = swiftType(for: element.type, hint: enumHint + SwiftNaming.typeName(element.name.name), namespace: element.name.namespace ?? builder.namespace).type
            }
            cases.append((caseNames.claim(SwiftNaming.memberName(element.name.name)), element.name.name, type))
            // A local element's name is in its namespace as its form says; a reference's in its own.
            caseNamespaces.append(element.name.namespace)
            if isHexBinary(substituteTypeReference(element)) { hexBinaryKeys.insert(element.name.name) }
        }
        guard !cases.isEmpty else { return }
        models.append(.choice(.init(
            name: enumName, documentation: nil, cases: cases, namespaces: (builder.namespace, caseNamespaces), hexBinaryKeys: hexBinaryKeys)))
        let swiftName = builder.names.claim("choice")
        let cardinality: GeneratedModel.Field.Cardinality = particle.isRepeated ? .array : (mayBeEmpty ? .optional : .one)
        append(
            .init(
                swiftName: swiftName, key: swiftName, type: enumName, structTarget: nil, cardinality: cardinality,
                kind: .element, namespace: builder.namespace, isNillable: false, isChoice: true, documentation: nil), to: &builder)
    }

    /// The attributes of the XML namespace: `xml:lang`, `xml:space`, `xml:base` and `xml:id`.
    static let xmlNamespaceAttributeNames = ["base", "lang", "space", "id"]

    /// The XML namespace's attribute group `xml:specialAttrs`.
    static let xmlSpecialAttributes = QualifiedName(namespace: WellKnownSchemas.xmlNamespace, name: "specialAttrs")

    /// What `xml:specialAttrs` holds: a reference to each attribute of the XML namespace.
    static let xmlSpecialAttributeUses: [XSDAttributeUse] = xmlNamespaceAttributeNames.map {
        .reference(QualifiedName(namespace: WellKnownSchemas.xmlNamespace, name: $0), use: .optional, defaultValue: nil, fixedValue: nil)
    }

    /// The declaration of `name` when it is an attribute of the XML namespace, which is built in:
    /// a string (`xml:space`'s two values and `xml:base`'s URI reference are kept as text), in
    /// that namespace, which generated code writes with the prefix `xml`.
    static func xmlNamespaceAttribute(_ name: QualifiedName, location: WSDLSourceLocation) -> XSDAttribute? {
        guard name.namespace == WellKnownSchemas.xmlNamespace, xmlNamespaceAttributeNames.contains(name.name) else { return nil }
        return XSDAttribute(
            name: name, type: .named(XSDBuiltInType.string.qualifiedName), use: .optional, defaultValue: nil, fixedValue: nil, documentation: nil,
            location: location)
    }

    /// The global element `name`: declared in the schemas read, or an element of a built-in
    /// schema (`soap:Fault`, `xop:Include`, `xsd:schema`…), whose content is kept as raw XML
    /// (`XMLTree.Element`) in its namespace. `location` is where it is referred to.
    func element(named name: QualifiedName, location: WSDLSourceLocation) -> XSDElement? {
        if let element = document.schemas.element(named: name) { return element }
        guard WellKnownSchemas.contains(name, kind: .element) else { return nil }
        return XSDElement(
            name: name, type: nil, isGlobal: true, isNillable: false, isAbstract: false, defaultValue: nil, fixedValue: nil,
            substitutionGroup: nil, documentation: nil, location: location)
    }

    /// Adds the attribute fields, but for those named in `excluded`.
    mutating func collectAttributes(
        _ uses: [XSDAttributeUse], into builder: inout FieldBuilder, location: WSDLSourceLocation, visitedGroups: Set<QualifiedName>,
        excluded: Set<QualifiedName> = []
    ) {
        for use in uses {
            guard visit(&builder, location: location) else { return }
            switch use {
            case .attribute(let attribute):
                guard !excluded.contains(attribute.name) else { continue }
                addAttributeField(attribute, use: attribute.use, into: &builder)
            case .reference(let name, let use, let defaultValue, let fixedValue):
                guard !excluded.contains(name) else { continue }
                guard var attribute = document.schemas.attributes[name] ?? Self.xmlNamespaceAttribute(name, location: location) else {
                    // A name that resolves to nothing is the reader's error; a built-in one is
                    // diagnosed here.
                    if WellKnownSchemas.contains(name, kind: .attribute) {
                        diagnose(
                            .unsupportedContent, at: location,
                            "the attribute \(name) of a built-in schema, referred to in \(builder.owner), is left out: the generated code does not hold it")
                    }
                    continue
                }
                // The reference's own value constraint stands in for the declaration's.
                if defaultValue != nil || fixedValue != nil { (attribute.defaultValue, attribute.fixedValue) = (defaultValue, fixedValue) }
                addAttributeField(attribute, use: use, into: &builder)
            case .group(let name):
                if name == Self.xmlSpecialAttributes {
                    collectAttributes(Self.xmlSpecialAttributeUses, into: &builder, location: location, visitedGroups: visitedGroups, excluded: excluded)
                    continue
                }
                if document.schemas.attributeGroups[name] == nil, WellKnownSchemas.contains(name, kind: .attributeGroup) {
                    diagnose(
                        .unsupportedContent, at: location,
                        "the attribute group \(name) of a built-in schema, referred to in \(builder.owner), is left out: the generated code does not hold it")
                    continue
                }
                guard let group = document.schemas.attributeGroups[name], !visitedGroups.contains(name) else { continue }
                collectAttributes(group.attributes, into: &builder, location: group.location, visitedGroups: visitedGroups.union([name]), excluded: excluded)
                if group.anyAttribute != nil {
                    diagnose(.wildcardContent, at: group.location, "xsd:anyAttribute: the attributes it allows are neither written nor read")
                }
            }
        }
    }

    /// Adds a field for an attribute, unless it is prohibited.
    mutating func addAttributeField(_ attribute: XSDAttribute, use: XSDAttribute.Use, into builder: inout FieldBuilder) {
        guard use != .prohibited else { return }
        // A second attribute of the name is left out before a Swift name is claimed for it.
        if builder.fields.contains(where: { $0.key == attribute.name.name && !$0.isChoice }) {
            diagnose(
                .unsupportedContent, at: builder.location,
                "a second element or attribute named \(attribute.name.name) in \(builder.owner) is left out: the names of a type's elements and attributes must differ")
            return
        }
        let swiftName = builder.names.claim(SwiftNaming.memberName(attribute.name.name))
        let type = swiftType(
            for: attribute.type ?? .named(XSDBuiltInType.string.qualifiedName), hint: hintBase(of: builder.owner) + SwiftNaming.typeName(attribute.name.name),
            namespace: nil
        ).type
        append(
            .init(
                swiftName: swiftName, key: attribute.name.name, type: type, structTarget: nil, cardinality: use == .required ? .one : .optional,
                kind: .attribute, namespace: attribute.name.namespace, isNillable: false, isChoice: false,
                documentation: Self.documentation(attribute.documentation, defaultValue: attribute.defaultValue, fixedValue: attribute.fixedValue, of: "attribute"),
                isHexBinary: isHexBinary(attribute.type)), to: &builder)
    }

    /// Turns single elements through which a struct holds itself into arrays of at most one
    /// item, which read and write the same XML, so that the structs have a finite size.
    mutating func breakRecursion() {
        var changed = true
        while changed {
            changed = false
            let edges = directEdges()
            outer: for (modelIndex, model) in models.enumerated() {
                guard case .structure(var structure) = model else { continue }
                for (fieldIndex, field) in structure.fields.enumerated() where field.cardinality != .array {
                    guard let target = field.structTarget, Self.reaches(from: target, to: structure.name, edges: edges) else { continue }
                    structure.fields[fieldIndex].cardinality = .array
                    structure.fields[fieldIndex].documentation = (field.documentation.map { $0 + "\n\n" } ?? "")
                        + "At most one item: the type holds itself through this element."
                    models[modelIndex] = .structure(structure)
                    diagnose(
                        .recursiveContent, at: structure.location,
                        "\(structure.name).\(field.swiftName) holds \(structure.name) again: it is generated as an array of at most one item")
                    changed = true
                    break outer
                }
            }
        }
    }

    /// The structs each struct holds directly (not through an array).
    func directEdges() -> [String: [String]] {
        var edges: [String: [String]] = [:]
        for case .structure(let structure) in models {
            edges[structure.name] = structure.fields.filter { $0.cardinality != .array }.compactMap(\.structTarget)
        }
        return edges
    }

    /// Whether `start` reaches `goal` through `edges`.
    static func reaches(from start: String, to goal: String, edges: [String: [String]]) -> Bool {
        var seen: Set<String> = []
        var stack = [start]
        while let node = stack.popLast() {
            if node == goal { return true }
            guard seen.insert(node).inserted else { continue }
            stack.append(contentsOf: edges[node] ?? [])
        }
        return false
    }
}
