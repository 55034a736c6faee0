/// Finds the named types whose derivation leads back to themselves, an error of the schema, and
/// leaves their derivations out so that nothing that walks a type's bases follows a cycle.
enum DerivationCycles {
    /// Leaves out the derivation of every type on a cycle of bases, and returns an error
    /// diagnostic for each, in name order.
    ///
    /// A complex type keeps its own content; a simple type becomes a restriction of
    /// `xsd:anySimpleType` with its own facets. A type derived from one of them, not on the cycle,
    /// keeps its derivation.
    static func remove(from types: inout [QualifiedName: XSDType]) -> [WSDLDiagnostic] {
        var found: [WSDLDiagnostic] = []
        for name in typesDerivedFromThemselves(types).sorted() {
            guard let type = types[name], let base = derivationBase(of: type) else { continue }
            switch type {
            case .complex(var complex):
                complex.derivation = nil
                types[name] = .complex(complex)
            case .simple(var simple):
                guard case .restriction(_, let facets) = simple.variety else { continue }
                simple.variety = .restriction(base: .named(XSDBuiltInType.anySimpleType.qualifiedName), facets: facets)
                types[name] = .simple(simple)
            }
            found.append(
                WSDLDiagnostic(
                    severity: .error, construct: .invalidAttribute, location: type.location,
                    message: "the type \(name) is derived from itself (its base is \(base)): its derivation is left out"))
        }
        return found
    }

    /// The named types whose derivation leads back to themselves: each is on a cycle of bases
    /// (`complexContent` or `simpleContent` bases, and the bases of simple types' restrictions).
    static func typesDerivedFromThemselves(_ types: [QualifiedName: XSDType]) -> Set<QualifiedName> {
        // Each type has at most one base, so a walk from each type along its bases either ends or
        // comes back to a type of the same walk; a type seen by an earlier walk is settled.
        var settled: Set<QualifiedName> = []
        var cyclic: Set<QualifiedName> = []
        for start in types.keys where !settled.contains(start) {
            var path: [QualifiedName] = []
            var positions: [QualifiedName: Int] = [:]
            var current: QualifiedName? = start
            while let name = current, !settled.contains(name), XSDBuiltInType(name: name) == nil, let type = types[name] {
                if let position = positions[name] {
                    cyclic.formUnion(path[position...])
                    break
                }
                positions[name] = path.count
                path.append(name)
                current = derivationBase(of: type)
            }
            settled.formUnion(path)
        }
        return cyclic
    }

    /// The named type `type` is derived from: a complex type's base, or the base of a simple
    /// type's restriction (through anonymous simple types written as bases).
    static func derivationBase(of type: XSDType) -> QualifiedName? {
        switch type {
        case .complex(let complex):
            return complex.derivation?.base
        case .simple(let simple):
            guard case .restriction(let base, _) = simple.variety else { return nil }
            switch base {
            case .named(let name): return name
            case .anonymous(let type): return derivationBase(of: type)
            }
        }
    }
}
