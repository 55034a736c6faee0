extension GenerationSession {
    /// The elements that may stand where `head` is declared, each once: the head unless it is
    /// abstract, then the members of its substitution group, each followed by the members of its
    /// own group (depth first, in name order), abstract ones left out.
    func substitutes(of head: XSDElement) -> [XSDElement] {
        var elements: [XSDElement] = head.isAbstract ? [] : [head]
        var seen: Set<QualifiedName> = [head.name]
        var stack = Array((substitutionMembers[head.name] ?? []).reversed())
        while let member = stack.popLast() {
            guard seen.insert(member.name).inserted else { continue }
            if !member.isAbstract { elements.append(member) }
            stack.append(contentsOf: (substitutionMembers[member.name] ?? []).reversed())
        }
        return elements
    }

    /// The Swift type of an element's values: an element declared without a type has the type
    /// of its substitution group's head (or of that head's head).
    mutating func substituteType(_ element: XSDElement) -> (type: String, structTarget: String?) {
        var current = element
        var seen: Set<QualifiedName> = []
        while current.type == nil, let head = current.substitutionGroup, seen.insert(current.name).inserted,
            let headElement = document.schemas.element(named: head)
        {
            current = headElement
        }
        return current.isGlobal ? elementType(current) : swiftType(for: current.type, hint: current.name.name, namespace: current.name.namespace)
    }

    /// The type an element's values are declared with: its own, or, for an element declared
    /// without a type, its substitution group's head's (or that head's head's).
    func substituteTypeReference(_ element: XSDElement) -> XSDTypeReference? {
        var current = element
        var seen: Set<QualifiedName> = []
        while current.type == nil, let head = current.substitutionGroup, seen.insert(current.name).inserted,
            let headElement = document.schemas.element(named: head)
        {
            current = headElement
        }
        return current.type
    }

    /// Adds a field for a reference to the head of a substitution group: an enum with a case per
    /// element that may stand there (``substitutionGroupType(of:)``), written in place of the
    /// field as the case's element; an array of them when the reference repeats.
    mutating func addSubstitutionField(_ head: XSDElement, particle: XSDParticle, optional: Bool, into builder: inout FieldBuilder) {
        guard let type = substitutionGroupType(of: head) else {
            // Only abstract elements substitute for it: generated as the head, and diagnosed.
            reportSubstitution(of: head)
            addElementField(head, particle: particle, optional: optional, into: &builder)
            return
        }
        let swiftName = builder.names.claim(SwiftNaming.memberName(head.name.name))
        let cardinality: GeneratedModel.Field.Cardinality = particle.isRepeated ? .array : (optional ? .optional : .one)
        append(
            .init(
                swiftName: swiftName, key: swiftName, type: type, structTarget: nil, cardinality: cardinality, kind: .element,
                namespace: head.name.namespace, isNillable: false, isChoice: true, documentation: head.documentation), to: &builder)
    }

    /// The enum of the elements that may stand where `head` is declared, made the first time:
    /// an `XMLChoice` whose cases are the elements, each holding its element's type (a derived
    /// type's class, for a member of a derived type), and whose `xmlSchema` puts each element in
    /// its namespace. `nil` when no element may stand there (an abstract head whose members are
    /// all abstract).
    mutating func substitutionGroupType(of head: XSDElement) -> String? {
        if let known = substitutionGroupNames[head.name] { return known }
        let elements = substitutes(of: head)
        guard !elements.isEmpty else { return nil }
        let name = claimTypeName(for: nil, hint: head.name.name + "Group")
        substitutionGroupNames[head.name] = name
        var caseNames = NameRegistry(reserved: ["init", "xmlSchema", "self"])
        var cases: [(caseName: String, key: String, type: String)] = []
        var namespaces: [String?] = []
        var hexBinaryKeys: Set<String> = []
        for element in elements {
            guard !cases.contains(where: { $0.key == element.name.name }) else {
                diagnose(
                    .unsupportedContent, at: element.location,
                    "the element \(element.name) has the local name of another element of the substitution group of \(head.name): it is left out of \(name)")
                continue
            }
            cases.append((caseNames.claim(SwiftNaming.memberName(element.name.name)), element.name.name, substituteType(element).type))
            namespaces.append(element.name.namespace)
            if isHexBinary(substituteTypeReference(element)) { hexBinaryKeys.insert(element.name.name) }
        }
        let documentation = head.isAbstract
            ? "An element of the substitution group of the abstract element `\(head.name.name)`: the case names the element that is written and read."
            : "The element `\(head.name.name)` or an element of its substitution group, which may stand in its place: the case names the element that is written and read."
        models.append(.choice(.init(name: name, documentation: documentation, cases: cases, substitution: (head.name.namespace, namespaces), hexBinaryKeys: hexBinaryKeys)))
        return name
    }
}
