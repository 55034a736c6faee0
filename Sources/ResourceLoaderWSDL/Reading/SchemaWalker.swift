/// Walks the schema components reachable from message parts, by name, each once: element and
/// attribute types, base types, groups, substitution group members and derived types.
struct SchemaWalker {
    let session: ReadingSession
    private var seen: Set<String> = []
    private var queue: [(WellKnownSchemas.Kind, QualifiedName)] = []
    private var derived: [QualifiedName: [QualifiedName]] = [:]
    private var members: [QualifiedName: [QualifiedName]] = [:]
    /// The locations of the types derived from `soapenc:Array` reached.
    var encodedArrays: Set<WSDLSourceLocation> = []

    init(session: ReadingSession) {
        self.session = session
        for (name, type) in session.types {
            if case .complex(let complex) = type, let base = complex.derivation?.base { derived[base, default: []].append(name) }
        }
        for (name, element) in session.elements {
            if let head = element.substitutionGroup { members[head, default: []].append(name) }
        }
    }

    mutating func visit(_ part: WSDLPart) {
        switch part.content {
        case .element(let name): enqueue(.element, name)
        case .type(let name): enqueue(.type, name)
        }
    }

    private mutating func enqueue(_ kind: WellKnownSchemas.Kind, _ name: QualifiedName) {
        if seen.insert("\(kind)|\(name)").inserted { queue.append((kind, name)) }
    }

    mutating func drain() {
        while let (kind, name) = queue.popLast() {
            switch kind {
            case .element:
                guard let element = session.elements[name] else { continue }
                visit(element)
                for member in members[name] ?? [] { enqueue(.element, member) }
            case .type:
                // Types derived from a built-in or well-known type are not reached through it.
                guard let type = session.types[name] else { continue }
                visit(type)
                for type in derived[name] ?? [] { enqueue(.type, type) }
            case .attribute:
                if let attribute = session.attributes[name] { visit(attribute.type) }
            case .group:
                if let group = session.groups[name] { visit(group.particle) }
            case .attributeGroup:
                if let group = session.attributeGroups[name] { visit(group.attributes) }
            }
        }
    }

    private mutating func visit(_ element: XSDElement) {
        visit(element.type)
        if let head = element.substitutionGroup { enqueue(.element, head) }
    }

    private mutating func visit(_ reference: XSDTypeReference?) {
        switch reference {
        case .named(let name): enqueue(.type, name)
        case .anonymous(let type): visit(type)
        case nil: break
        }
    }

    private mutating func visit(_ type: XSDType) {
        switch type {
        case .complex(let complex):
            if let derivation = complex.derivation {
                if derivation.base.name == "Array", WellKnownSchemas.soapEncodingNamespaces.contains(derivation.base.namespace ?? "") {
                    encodedArrays.insert(complex.location)
                }
                enqueue(.type, derivation.base)
            }
            if let particle = complex.particle { visit(particle) }
            visit(complex.attributes)
        case .simple(let simple):
            switch simple.variety {
            case .restriction(let base, _): visit(base)
            case .list(let item): visit(item)
            case .union(let members): for member in members { visit(member) }
            }
        }
    }

    private mutating func visit(_ particle: XSDParticle) {
        switch particle.term {
        case .element(let element): visit(element)
        case .elementReference(let name): enqueue(.element, name)
        case .sequence(let particles), .choice(let particles), .all(let particles):
            for particle in particles { visit(particle) }
        case .group(let name): enqueue(.group, name)
        case .any: break
        }
    }

    private mutating func visit(_ uses: [XSDAttributeUse]) {
        for use in uses {
            switch use {
            case .attribute(let attribute): visit(attribute.type)
            case .reference(let name, _, _, _): enqueue(.attribute, name)
            case .group(let name): enqueue(.attributeGroup, name)
            }
        }
    }
}
