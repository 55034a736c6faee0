import ResourceLoader

extension ReadingSession {
    /// Diagnoses every recorded reference that names no component of the schemas read nor of
    /// the well-known schemas.
    func checkReferences() {
        var reported: Set<String> = []
        for reference in references where !resolves(reference.name, kind: reference.kind) {
            let location = location(of: reference.element, in: reference.file)
            guard reported.insert("\(reference.kind)|\(reference.name)|\(location)").inserted else { continue }
            diagnose(.error, .unresolvedReference, location, "the \(Self.describe(reference.kind)) \(reference.name) is not declared in any schema read")
        }
    }

    /// Whether `name` names a component of kind `kind`.
    func resolves(_ name: QualifiedName, kind: WellKnownSchemas.Kind) -> Bool {
        if WellKnownSchemas.contains(name, kind: kind) { return true }
        switch kind {
        case .type: return types[name] != nil || XSDBuiltInType(name: name) != nil
        case .element: return elements[name] != nil
        case .attribute: return attributes[name] != nil
        case .group: return groups[name] != nil
        case .attributeGroup: return attributeGroups[name] != nil
        }
    }

    static func describe(_ kind: WellKnownSchemas.Kind) -> String {
        switch kind {
        case .type: "type"
        case .element: "element"
        case .attribute: "attribute"
        case .group: "group"
        case .attributeGroup: "attribute group"
        }
    }

    /// Diagnoses each type derived from `soapenc:Array` that an operation of a literal binding
    /// reaches. The operations of an encoded binding are diagnosed once, with their binding.
    func checkEncodedArrays(reachableFrom bindings: [WSDLBinding]) {
        guard readsEncodedArrays else { return }
        var walker = SchemaWalker(session: self)
        for binding in bindings {
            for operation in binding.operations where !operation.style.isEncoded {
                for direction in [operation.input, operation.output].compactMap({ $0 }) {
                    for part in direction.bodyParts + direction.headers.map(\.part) { walker.visit(part) }
                }
                for fault in operation.faults { if let part = fault.part { walker.visit(part) } }
            }
        }
        walker.drain()
        for location in walker.encodedArrays.sorted() {
            diagnose(.error, .soapEncodedArray, location, "a type derived from soapenc:Array is used by a literal operation; SOAP-encoded arrays cannot be generated")
        }
    }
}
