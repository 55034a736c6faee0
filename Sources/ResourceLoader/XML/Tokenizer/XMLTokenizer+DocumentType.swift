extension XMLTokenizer {
    // MARK: - The document type declaration

    /// Reads `<!DOCTYPE …>` at `pos`, with its internal subset; an external subset is named
    /// but never read.
    func readDocumentType(_ pos: inout Int) throws(XMLScanStop) {
        documentType = XMLDocumentType()
        do throws(XMLScanStop) {
            pos += 9
            try requireWhitespace(&pos)
            let nameRange = try readName(&pos)
            documentType?.pendingEvents.append(.documentType(name: names.name(bytes, nameRange).qualified))
            var hadSpace = skipWhitespace(&pos)
            try need(pos + 1, pos)
            if bytes[pos] == UInt8(ascii: "S") || bytes[pos] == UInt8(ascii: "P") {
                guard hadSpace else { throw unexpected(at: pos) }
                try readExternalID(&pos, allowsPublicOnly: false)
                hadSpace = skipWhitespace(&pos)
                try need(pos + 1, pos)
            }
            if bytes[pos] == UInt8(ascii: "[") {
                pos += 1
                try readInternalSubset(&pos, topLevel: true)
                _ = skipWhitespace(&pos)
                try need(pos + 1, pos)
            }
            guard bytes[pos] == UInt8(ascii: ">") else { throw unexpected(at: pos) }
            pos += 1
            for event in documentType?.pendingEvents ?? [] {
                switch event {
                case .documentType(let name):
                    sink.documentTypeDeclaration(name: name)
                case .notation(let name, let publicID, let systemID):
                    sink.notationDeclaration(name: name, publicID: publicID, systemID: systemID)
                case .processingInstruction(let target, let data):
                    data.withUnsafeBufferPointer { sink.processingInstruction(target: target, data: $0) }
                }
            }
            documentType?.pendingEvents = []
        } catch {
            if case .needsInput = error { documentType = nil }
            throw error
        }
    }

    /// Reads markup declarations, comments, PIs, white space and parameter-entity references
    /// up to `]` (consumed) or, inside a parameter entity, to the end of its text.
    private func readInternalSubset(_ pos: inout Int, topLevel: Bool) throws(XMLScanStop) {
        while true {
            _ = skipWhitespace(&pos)
            if pos >= end && !topLevel { return }
            try need(pos + 1, pos)
            let byte = bytes[pos]
            if byte == UInt8(ascii: "]") && topLevel {
                pos += 1
                return
            }
            if byte == UInt8(ascii: "%") {
                try readParameterEntityReference(&pos)
                continue
            }
            guard byte == UInt8(ascii: "<") else { throw unexpected(at: pos) }
            try need(pos + 10, pos, orEndOf: true)
            if matches("<?", at: pos) {
                try readProcessingInstruction(&pos)
            } else if matches("<!--", at: pos) {
                try readComment(&pos)
            } else if matches("<!ELEMENT", at: pos) {
                try readElementDeclaration(&pos)
            } else if matches("<!ATTLIST", at: pos) {
                try readAttributeListDeclaration(&pos)
            } else if matches("<!ENTITY", at: pos) {
                try readEntityDeclaration(&pos)
            } else if matches("<!NOTATION", at: pos) {
                try readNotationDeclaration(&pos)
            } else {
                // Conditional sections are for the external subset only.
                throw fail(.malformed, pos)
            }
        }
    }

    /// `%name;` between declarations: an internal parameter entity's text is read as
    /// declarations; any other is not read, and then later declarations are not used unless
    /// the document is standalone.
    private func readParameterEntityReference(_ pos: inout Int) throws(XMLScanStop) {
        let start = pos
        let range = try readEntityReferenceName(&pos)
        let name = names.name(bytes, range).qualified
        guard let entity = documentType?.parameterEntities[name], let text = entity.text else {
            if !standalone { documentType?.processesDeclarations = false }
            return
        }
        guard !expanding.contains(text.name) else { throw fail(.malformed, start) }
        guard entityDepth < options.maximumEntityNestingDepth else {
            throw fail(.error(.entitiesNestedTooDeep(limit: options.maximumEntityNestingDepth)), start)
        }
        try chargeExpansion(text.bytes.count, at: start)
        try withEntity(text, at: start) { (tokenizer: XMLTokenizer) throws(XMLScanStop) in
            var position = 0
            try tokenizer.readInternalSubset(&position, topLevel: false)
        }
    }

    // MARK: - Declarations

    /// `<!ELEMENT name contentspec>`: checked, not kept.
    private func readElementDeclaration(_ pos: inout Int) throws(XMLScanStop) {
        pos += 9
        try requireWhitespace(&pos)
        _ = try readName(&pos)
        try requireWhitespace(&pos)
        try need(pos + 5, pos, orEndOf: true)
        if matches("EMPTY", at: pos) {
            pos += 5
        } else if matches("ANY", at: pos) {
            pos += 3
        } else if pos < end && bytes[pos] == UInt8(ascii: "(") {
            pos += 1
            _ = skipWhitespace(&pos)
            try need(pos + 7, pos)
            if matches("#PCDATA", at: pos) {
                pos += 7
                try readMixedContent(&pos)
            } else {
                try readGroup(&pos, depth: 1)
            }
        } else {
            throw unexpected(at: pos)
        }
        _ = skipWhitespace(&pos)
        try expect(UInt8(ascii: ">"), &pos)
    }

    /// The rest of `(#PCDATA | a | b)*` or `(#PCDATA)`.
    private func readMixedContent(_ pos: inout Int) throws(XMLScanStop) {
        var names = 0
        while true {
            _ = skipWhitespace(&pos)
            try need(pos + 1, pos)
            if bytes[pos] == UInt8(ascii: ")") {
                pos += 1
                if pos < end && bytes[pos] == UInt8(ascii: "*") {
                    pos += 1
                } else if names > 0 {
                    try need(pos + 1, pos)
                    throw unexpected(at: pos)
                }
                return
            }
            try expect(UInt8(ascii: "|"), &pos)
            _ = skipWhitespace(&pos)
            _ = try readName(&pos)
            names += 1
        }
    }

    /// A choice or sequence after its `(`, with the groups nested in it and its occurrence
    /// indicator; the group is at `depth`, and each nested one a level deeper, up to
    /// ``XMLParsingOptions/maximumDepth``.
    ///
    /// Iterative: the open groups are a stack of their separators, so however deeply a content
    /// model nests, reading it does not recurse.
    private func readGroup(_ pos: inout Int, depth: Int) throws(XMLScanStop) {
        /// Per open group, innermost last: the separator between its particles (`|` or `,`), or
        /// 0 before its second particle.
        var separators: [UInt8] = []
        /// Whether a group's `(` was just read.
        var opening = true
        while true {
            if opening {
                guard depth + separators.count <= options.maximumDepth else {
                    throw .failed(.error(.tooDeep(limit: options.maximumDepth)), offset: anchor ?? (base + pos))
                }
                separators.append(0)
                _ = skipWhitespace(&pos)
                // The group's first particle: a group of its own, or a name.
                try need(pos + 1, pos)
                if bytes[pos] == UInt8(ascii: "(") {
                    pos += 1
                    continue
                }
                _ = try readName(&pos)
                readOccurrence(&pos)
                opening = false
            }
            // After a particle: the innermost group's end, or a separator and its next particle.
            _ = skipWhitespace(&pos)
            try need(pos + 1, pos)
            let byte = bytes[pos]
            if byte == UInt8(ascii: ")") {
                pos += 1
                readOccurrence(&pos)
                separators.removeLast()
                // The group ended is a particle of the one around it, if any.
                if separators.isEmpty { return }
                continue
            }
            let separator = separators[separators.count - 1]
            guard byte == UInt8(ascii: "|") || byte == UInt8(ascii: ","), separator == 0 || separator == byte else {
                throw unexpected(at: pos)
            }
            separators[separators.count - 1] = byte
            pos += 1
            _ = skipWhitespace(&pos)
            try need(pos + 1, pos)
            if bytes[pos] == UInt8(ascii: "(") {
                pos += 1
                opening = true
            } else {
                _ = try readName(&pos)
                readOccurrence(&pos)
            }
        }
    }

    private func readOccurrence(_ pos: inout Int) {
        guard pos < end else { return }
        let byte = bytes[pos]
        if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "+") { pos += 1 }
    }

    /// `<!ATTLIST element (name type default)*>`.
    private func readAttributeListDeclaration(_ pos: inout Int) throws(XMLScanStop) {
        pos += 9
        try requireWhitespace(&pos)
        let element = names.name(bytes, try readName(&pos))
        while true {
            let hadSpace = skipWhitespace(&pos)
            try need(pos + 1, pos)
            if bytes[pos] == UInt8(ascii: ">") {
                pos += 1
                return
            }
            guard hadSpace else { throw unexpected(at: pos) }
            let name = names.name(bytes, try readName(&pos))
            try requireWhitespace(&pos)
            let isCDATA = try readAttributeType(&pos)
            try requireWhitespace(&pos)
            try need(pos + 1, pos)
            var defaultValue: String?
            let processes = documentType?.processesDeclarations ?? false
            if bytes[pos] == UInt8(ascii: "#") {
                pos += 1
                let keyword = try readName(&pos)
                if equals(keyword, "FIXED") {
                    try requireWhitespace(&pos)
                    defaultValue = try readAttributeValue(&pos, expand: processes)
                } else if !equals(keyword, "REQUIRED") && !equals(keyword, "IMPLIED") {
                    throw fail(.malformed, keyword.lowerBound)
                }
            } else {
                defaultValue = try readAttributeValue(&pos, expand: processes)
            }
            if processes {
                if !isCDATA { defaultValue = defaultValue.map(XMLDocumentType.tokenized) }
                let declared = documentType?.declare(
                    XMLAttributeDeclaration(name: name, isCDATA: isCDATA, defaultValue: defaultValue), for: element.qualified) ?? 0
                // More declared attributes than an element may have would make every start tag
                // of it check them all.
                if declared > options.maximumAttributesPerElement {
                    throw .failed(.error(.tooManyAttributes(limit: options.maximumAttributesPerElement)), offset: base + pos)
                }
            }
        }
    }

    /// An attribute type; returns whether it is `CDATA`.
    private func readAttributeType(_ pos: inout Int) throws(XMLScanStop) -> Bool {
        try need(pos + 1, pos)
        if bytes[pos] == UInt8(ascii: "(") {
            try readNameList(&pos, tokens: true)
            return false
        }
        let keyword = try readName(&pos)
        if equals(keyword, "CDATA") { return true }
        if equals(keyword, "NOTATION") {
            try requireWhitespace(&pos)
            try need(pos + 1, pos)
            guard bytes[pos] == UInt8(ascii: "(") else { throw unexpected(at: pos) }
            try readNameList(&pos, tokens: false)
            return false
        }
        let tokenizedTypes: [StaticString] = ["ID", "IDREF", "IDREFS", "ENTITY", "ENTITIES", "NMTOKEN", "NMTOKENS"]
        for type in tokenizedTypes where equals(keyword, type) {
            return false
        }
        throw fail(.malformed, keyword.lowerBound)
    }

    /// `( a | b | c )` at `pos`: names, or name tokens.
    private func readNameList(_ pos: inout Int, tokens: Bool) throws(XMLScanStop) {
        pos += 1
        while true {
            _ = skipWhitespace(&pos)
            _ = try readName(&pos, token: tokens)
            _ = skipWhitespace(&pos)
            try need(pos + 1, pos)
            if bytes[pos] == UInt8(ascii: ")") {
                pos += 1
                return
            }
            try expect(UInt8(ascii: "|"), &pos)
        }
    }

    /// `<!ENTITY name value>`, `<!ENTITY % name value>`, or an external one.
    private func readEntityDeclaration(_ pos: inout Int) throws(XMLScanStop) {
        pos += 8
        try requireWhitespace(&pos)
        try need(pos + 1, pos)
        var isParameter = false
        if bytes[pos] == UInt8(ascii: "%") {
            isParameter = true
            pos += 1
            try requireWhitespace(&pos)
        }
        let nameRange = try readName(&pos)
        if namespaceAware, bytes[nameRange].contains(UInt8(ascii: ":")) { throw fail(.malformed, nameRange.lowerBound) }
        let name = names.name(bytes, nameRange).qualified
        try requireWhitespace(&pos)
        try need(pos + 1, pos)
        var entity = XMLEntity()
        if bytes[pos] == UInt8(ascii: "\"") || bytes[pos] == UInt8(ascii: "'") {
            entity.text = XMLEntityText(name: isParameter ? "%" + name : name, bytes: try readEntityValue(&pos))
        } else {
            try readExternalID(&pos, allowsPublicOnly: false)
            if !isParameter {
                let hadSpace = skipWhitespace(&pos)
                try need(pos + 5, pos, orEndOf: true)
                if matches("NDATA", at: pos) {
                    guard hadSpace else { throw unexpected(at: pos) }
                    pos += 5
                    try requireWhitespace(&pos)
                    let notation = try readName(&pos)
                    if namespaceAware, bytes[notation].contains(UInt8(ascii: ":")) { throw fail(.malformed, notation.lowerBound) }
                    entity.isUnparsed = true
                }
            }
        }
        _ = skipWhitespace(&pos)
        try expect(UInt8(ascii: ">"), &pos)
        guard documentType?.processesDeclarations == true else { return }
        if isParameter {
            if documentType?.parameterEntities[name] == nil { documentType?.parameterEntities[name] = entity }
        } else if documentType?.generalEntities[name] == nil, !["lt", "gt", "amp", "apos", "quot"].contains(name) {
            documentType?.generalEntities[name] = entity
        }
    }

    /// A quoted entity value; returns its replacement text: character references replaced,
    /// entity references kept as written, line ends normalised.
    private func readEntityValue(_ pos: inout Int) throws(XMLScanStop) -> [UInt8] {
        let quote = bytes[pos]
        pos += 1
        var output: [UInt8] = []
        while true {
            try need(pos + 1, pos)
            let byte = bytes[pos]
            switch byte {
            case quote:
                pos += 1
                return output
            case UInt8(ascii: "%"):
                // Parameter-entity references may not appear inside declarations here.
                throw fail(.malformed, pos)
            case UInt8(ascii: "&"):
                try need(pos + 2, pos)
                if bytes[pos + 1] == UInt8(ascii: "#") {
                    XMLCharacters.appendUTF8(try readCharacterReference(&pos), to: &output)
                } else {
                    let start = pos
                    _ = try readEntityReferenceName(&pos)
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<pos]))
                }
            case 0x0D where anchor == nil:
                try need(pos + 2, pos, orEndOf: true)
                output.append(0x0A)
                pos += pos + 1 < end && bytes[pos + 1] == 0x0A ? 2 : 1
            case ..<0x20 where !XMLCharacters.isWhitespace(byte):
                throw fail(.invalidCharacter, pos)
            case ..<0x80:
                output.append(byte)
                pos += 1
            default:
                let next = try scalarEnd(at: pos)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[pos..<next]))
                pos = next
            }
        }
    }

    /// `<!NOTATION name (ExternalID | PUBLIC literal)>`: checked, not kept.
    private func readNotationDeclaration(_ pos: inout Int) throws(XMLScanStop) {
        pos += 10
        try requireWhitespace(&pos)
        let name = try readName(&pos)
        if namespaceAware, bytes[name].contains(UInt8(ascii: ":")) { throw fail(.malformed, name.lowerBound) }
        try requireWhitespace(&pos)
        let (publicID, systemID) = try readExternalID(&pos, allowsPublicOnly: true)
        _ = skipWhitespace(&pos)
        try expect(UInt8(ascii: ">"), &pos)
        func text(_ range: Range<Int>?) -> String? {
            range.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }
        documentType?.pendingEvents.append(
            .notation(name: names.name(bytes, name).qualified, publicID: text(publicID), systemID: text(systemID)))
    }

    /// `SYSTEM "uri"` or `PUBLIC "id" "uri"` (the URI optional in a notation); returns the
    /// literals' ranges, quotes excluded.
    @discardableResult
    private func readExternalID(
        _ pos: inout Int, allowsPublicOnly: Bool
    ) throws(XMLScanStop) -> (publicID: Range<Int>?, systemID: Range<Int>?) {
        try need(pos + 6, pos)
        if matches("SYSTEM", at: pos) {
            pos += 6
            try requireWhitespace(&pos)
            return (nil, try readSystemLiteral(&pos))
        } else if matches("PUBLIC", at: pos) {
            pos += 6
            try requireWhitespace(&pos)
            let publicID = try readPublicIDLiteral(&pos)
            let beforeSpace = pos
            let hadSpace = skipWhitespace(&pos)
            try need(pos + 1, pos)
            if bytes[pos] == UInt8(ascii: "\"") || bytes[pos] == UInt8(ascii: "'") {
                guard hadSpace else { throw unexpected(at: pos) }
                return (publicID, try readSystemLiteral(&pos))
            } else if !allowsPublicOnly {
                throw unexpected(at: pos)
            }
            pos = beforeSpace
            return (publicID, nil)
        } else {
            throw unexpected(at: pos)
        }
    }

    private func readSystemLiteral(_ pos: inout Int) throws(XMLScanStop) -> Range<Int> {
        try readQuotedLiteral(&pos, publicID: false)
    }

    private func readPublicIDLiteral(_ pos: inout Int) throws(XMLScanStop) -> Range<Int> {
        try readQuotedLiteral(&pos, publicID: true)
    }

    /// The bytes between a pair of quotes (either kind) starting at `pos`: a `PubidLiteral`'s
    /// characters when `publicID`, else any legal character (a `SystemLiteral`).
    private func readQuotedLiteral(_ pos: inout Int, publicID: Bool) throws(XMLScanStop) -> Range<Int> {
        try need(pos + 1, pos)
        let quote = bytes[pos]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw unexpected(at: pos) }
        let start = pos
        pos += 1
        while true {
            try need(pos + 1, pos)
            let byte = bytes[pos]
            if byte == quote {
                pos += 1
                return (start + 1)..<(pos - 1)
            }
            if publicID {
                guard XMLCharacters.isPublicIDChar(byte) else { throw unexpected(at: pos) }
                pos += 1
            } else if byte < 0x80 {
                if byte < 0x20 && !XMLCharacters.isWhitespace(byte) { throw fail(.invalidCharacter, pos) }
                pos += 1
            } else {
                pos = try scalarEnd(at: pos)
            }
        }
    }

    // MARK: - Helpers

    func equals(_ range: Range<Int>, _ keyword: StaticString) -> Bool {
        range.count == keyword.utf8CodeUnitCount && matches(keyword, at: range.lowerBound)
    }

    func requireWhitespace(_ pos: inout Int) throws(XMLScanStop) {
        try need(pos + 1, pos)
        guard skipWhitespace(&pos) else { throw unexpected(at: pos) }
    }

    func expect(_ byte: UInt8, _ pos: inout Int) throws(XMLScanStop) {
        try need(pos + 1, pos)
        guard bytes[pos] == byte else { throw unexpected(at: pos) }
        pos += 1
    }
}
