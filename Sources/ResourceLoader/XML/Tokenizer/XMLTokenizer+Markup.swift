extension XMLTokenizer {
    // MARK: - Comments, processing instructions, CDATA

    /// Reads a comment at `pos` (`<!--`): no `--` inside. It is delivered unless it stands in
    /// the document type declaration, which is not part of the document's content.
    func readComment(_ pos: inout Int) throws(XMLScanStop) {
        pos += 4
        let textRange = try readUntil(&pos, terminator: (0x2D, 0x2D, nil))
        // `--` ends the comment or is an error.
        try need(pos + 1, pos - 2)
        guard pointer[pos] == UInt8(ascii: ">") else { throw fail(.malformed, pos - 2) }
        pos += 1
        if documentType != nil && !sawDoctype { return }
        deliverNormalised(textRange) { $0.sink.comment($1) }
    }

    /// Reads a processing instruction at `pos` (`<?`) and delivers it (inside a DTD, once the
    /// whole DTD is read).
    func readProcessingInstruction(_ pos: inout Int) throws(XMLScanStop) {
        let start = pos
        pos += 2
        let targetRange = try readName(&pos)
        if targetRange.count == 3 {
            let lowered = (bytes[targetRange.lowerBound] | 0x20, bytes[targetRange.lowerBound + 1] | 0x20, bytes[targetRange.lowerBound + 2] | 0x20)
            if lowered == (UInt8(ascii: "x"), UInt8(ascii: "m"), UInt8(ascii: "l")) { throw fail(.malformed, start) }
        }
        if namespaceAware, bytes[targetRange].contains(UInt8(ascii: ":")) { throw fail(.malformed, targetRange.lowerBound) }
        let target = names.name(bytes, targetRange).qualified
        try need(pos + 2, pos)
        if bytes[pos] == UInt8(ascii: "?") && bytes[pos + 1] == UInt8(ascii: ">") {
            pos += 2
            deliverInstruction(target: target, data: UnsafeBufferPointer(start: nil, count: 0))
            return
        }
        guard skipWhitespace(&pos) else { throw unexpected(at: pos) }
        let dataRange = try readUntil(&pos, terminator: (UInt8(ascii: "?"), UInt8(ascii: ">"), nil))
        deliverNormalised(dataRange) { $0.deliverInstruction(target: target, data: $1) }
    }

    private func deliverInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {
        if phase == .prolog && documentType != nil && !sawDoctype {
            documentType?.pendingEvents.append(.processingInstruction(target: target, data: Array(data)))
        } else {
            sink.processingInstruction(target: target, data: data)
        }
    }

    /// Reads a CDATA section at `pos` (`<![CDATA[`) as character data.
    func readCDATA(_ pos: inout Int) throws(XMLScanStop) {
        pos += 9
        let dataRange = try readUntil(&pos, terminator: (UInt8(ascii: "]"), UInt8(ascii: "]"), UInt8(ascii: ">")))
        deliverNormalised(dataRange) { $0.sink.characters($1) }
    }

    /// Reads legal characters up to a two- or three-byte terminator, which it consumes; returns
    /// the characters' range, and whether it holds a carriage return in ``sawCarriageReturn``.
    private func readUntil(_ pos: inout Int, terminator: (UInt8, UInt8, UInt8?)) throws(XMLScanStop) -> Range<Int> {
        let start = pos
        let input = pointer
        let end = self.end
        let first = terminator.0
        let second = terminator.1
        let third = terminator.2 ?? 0
        let length = terminator.2 == nil ? 2 : 3
        var carriageReturn = false
        var index = pos
        while index < end {
            let byte = input[index]
            if byte >= 0x20 && byte < 0x80 {
                if byte == first {
                    if index &+ length > end { break }
                    if input[index &+ 1] == second && (length == 2 || input[index &+ 2] == third) {
                        sawCarriageReturn = carriageReturn
                        pos = index &+ length
                        return start..<index
                    }
                }
                index &+= 1
            } else if byte >= 0x80 {
                let scalarLength = XMLCharacters.legalScalarLength(input, index, end)
                index = scalarLength == 0 ? try scalarEnd(at: index) : index &+ scalarLength
            } else if byte == 0x0A || byte == 0x09 {
                index &+= 1
            } else if byte == 0x0D {
                carriageReturn = true
                index &+= 1
            } else {
                throw fail(.invalidCharacter, index)
            }
        }
        // The input ends before the terminator.
        pos = index
        try need(index + length, index)
        throw fail(.malformed, index)
    }

    /// Hands `range` to `deliver`, with line ends normalised when ``sawCarriageReturn`` says it
    /// holds a carriage return.
    private func deliverNormalised(
        _ range: Range<Int>, _ deliver: (XMLTokenizer, UnsafeBufferPointer<UInt8>) -> Void
    ) {
        let slice = UnsafeBufferPointer(start: pointer + range.lowerBound, count: range.count)
        guard anchor == nil, sawCarriageReturn else { return deliver(self, slice) }
        let input = pointer
        var output: [UInt8] = []
        output.reserveCapacity(slice.count)
        var copiedUpTo = range.lowerBound
        var index = range.lowerBound
        while index < range.upperBound {
            if input[index] == 0x0D {
                output.append(contentsOf: UnsafeBufferPointer(start: input + copiedUpTo, count: index - copiedUpTo))
                output.append(0x0A)
                if index + 1 < range.upperBound && input[index + 1] == 0x0A { index += 1 }
                copiedUpTo = index + 1
            }
            index += 1
        }
        output.append(contentsOf: UnsafeBufferPointer(start: input + copiedUpTo, count: range.upperBound - copiedUpTo))
        output.withUnsafeBufferPointer { deliver(self, $0) }
    }

    // MARK: - References

    /// The character a character reference at `pos` (`&#`) stands for, which must be legal;
    /// `pos` ends after the `;`.
    func readCharacterReference(_ pos: inout Int) throws(XMLScanStop) -> UInt32 {
        let start = pos
        pos += 2
        var hex = false
        try need(pos + 1, start)
        if bytes[pos] == UInt8(ascii: "x") {
            hex = true
            pos += 1
        }
        var value: UInt32 = 0
        var digits = 0
        while true {
            try need(pos + 1, start)
            let byte = bytes[pos]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: ";"):
                guard digits > 0 else { throw fail(.malformed, start) }
                pos += 1
                guard XMLCharacters.isChar(value) else { throw fail(.invalidCharacter, start) }
                return value
            default:
                throw fail(.malformed, start)
            }
            // Saturate: anything past U+10FFFF is refused anyway.
            value = min(value * (hex ? 16 : 10) + digit, 0x11_0000)
            digits += 1
            pos += 1
        }
    }

    /// Reads `&name;` at `pos`; returns the name's range.
    func readEntityReferenceName(_ pos: inout Int) throws(XMLScanStop) -> Range<Int> {
        let start = pos
        pos += 1
        let range: Range<Int>
        do throws(XMLScanStop) {
            range = try readName(&pos)
        } catch {
            if case .needsInput = error { throw error }
            throw fail(.malformed, start)
        }
        try need(pos + 1, start)
        guard bytes[pos] == UInt8(ascii: ";") else { throw fail(.malformed, start) }
        pos += 1
        return range
    }

    /// The character a predefined entity (`lt`, `gt`, `amp`, `apos`, `quot`) stands for.
    func predefinedEntity(_ range: Range<Int>) -> UInt8? {
        switch range.count {
        case 2:
            guard bytes[range.lowerBound + 1] == UInt8(ascii: "t") else { return nil }
            switch bytes[range.lowerBound] {
            case UInt8(ascii: "l"): return UInt8(ascii: "<")
            case UInt8(ascii: "g"): return UInt8(ascii: ">")
            default: return nil
            }
        case 3:
            return matches("amp", at: range.lowerBound) ? UInt8(ascii: "&") : nil
        case 4:
            if matches("apos", at: range.lowerBound) { return UInt8(ascii: "'") }
            if matches("quot", at: range.lowerBound) { return UInt8(ascii: "\"") }
            return nil
        default:
            return nil
        }
    }

    /// Reads a reference in content at `pos` (`&`) and delivers what it stands for.
    func readReferenceInContent(_ pos: inout Int) throws(XMLScanStop) {
        let start = pos
        try need(pos + 2, pos)
        if bytes[pos + 1] == UInt8(ascii: "#") {
            let scalar = try readCharacterReference(&pos)
            var encoded: [UInt8] = []
            XMLCharacters.appendUTF8(scalar, to: &encoded)
            encoded.withUnsafeBufferPointer { sink.characters($0) }
            return
        }
        let range = try readEntityReferenceName(&pos)
        if var byte = predefinedEntity(range) {
            withUnsafePointer(to: &byte) { sink.characters(UnsafeBufferPointer(start: $0, count: 1)) }
            return
        }
        let text = try entityText(range, at: start, inAttribute: false)
        let saved = openAtEntityStart
        try withEntity(text, at: start) { (tokenizer: XMLTokenizer) throws(XMLScanStop) in
            tokenizer.openAtEntityStart = tokenizer.open.count
            var position = 0
            try tokenizer.readContent(&position)
            // An entity's elements end in the entity.
            guard tokenizer.open.count == tokenizer.openAtEntityStart else { throw tokenizer.fail(.malformed, position) }
        }
        openAtEntityStart = saved
    }

    /// The replacement text of the general entity named by `range`, checked for use here and
    /// counted against the expansion budget.
    private func entityText(_ range: Range<Int>, at start: Int, inAttribute: Bool) throws(XMLScanStop) -> XMLEntityText {
        let name = names.name(bytes, range).qualified
        guard let entity = documentType?.generalEntities[name] else {
            throw fail(.undeclaredEntity(name), start)
        }
        guard let text = entity.text else {
            // An unparsed entity may not be referenced; an external one is never read.
            throw entity.isUnparsed || inAttribute ? fail(.malformed, start) : fail(.externalEntity(name), start)
        }
        guard !expanding.contains(name) else { throw fail(.malformed, start) }
        guard entityDepth < options.maximumEntityNestingDepth else {
            throw fail(.error(.entitiesNestedTooDeep(limit: options.maximumEntityNestingDepth)), start)
        }
        try chargeExpansion(text.bytes.count, at: start)
        return text
    }

    /// Counts `count` more bytes of replacement text against the budget: at most
    /// ``XMLParsingOptions/maximumEntityExpansionSize`` in all, and no more than
    /// ``XMLParsingOptions/maximumEntityExpansionRatio`` times the document's size once past
    /// 64 KiB.
    func chargeExpansion(_ count: Int, at start: Int) throws(XMLScanStop) {
        expandedBytes += count
        let ratioLimit = max(options.maximumEntityExpansionRatio.multipliedReportingOverflow(by: documentSize).partialValue, 65_536)
        let limit = min(options.maximumEntityExpansionSize, ratioLimit)
        if expandedBytes > limit {
            throw fail(.error(.entityExpansionTooLarge(limit: limit)), start)
        }
    }

    /// Runs `body` over an entity's replacement text, reporting errors at `start` (or at the
    /// outer reference, inside an entity already).
    func withEntity(
        _ text: XMLEntityText, at start: Int, _ body: (XMLTokenizer) throws(XMLScanStop) -> Void
    ) throws(XMLScanStop) {
        let saved = (bytes, pointer, end, isFinal, base, anchor)
        let outerAnchor = anchor ?? (base + start)
        bytes = text.bytes
        pointer = text.bytes.baseAddress ?? XMLCharacters.noBytes
        end = text.bytes.count
        isFinal = true
        base = 0
        anchor = outerAnchor
        entityDepth += 1
        expanding.append(text.name)
        defer {
            (bytes, pointer, end, isFinal, base, anchor) = saved
            entityDepth -= 1
            expanding.removeLast()
        }
        try body(self)
    }

    // MARK: - Attribute values

    /// Reads a quoted attribute value at `pos`, normalised as for CDATA; with `expand` false
    /// (a default in an ignored declaration), entity references are checked only for syntax.
    func readAttributeValue(_ pos: inout Int, expand: Bool) throws(XMLScanStop) -> String {
        try need(pos + 1, pos)
        let input = pointer
        let end = self.end
        let quote = input[pos]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw unexpected(at: pos) }
        pos += 1
        let start = pos
        // Most values are plain ASCII without references or white space to normalise.
        var index = start
        while index < end {
            let byte = input[index]
            if byte == quote {
                pos = index &+ 1
                return String(decoding: UnsafeBufferPointer(start: input + start, count: index - start), as: UTF8.self)
            }
            guard byte >= 0x20 && byte < 0x80 && byte != 0x3C && byte != 0x26 else { break }
            index &+= 1
        }
        pos = index
        valueBuffer.removeAll(keepingCapacity: true)
        valueBuffer.append(contentsOf: UnsafeBufferPointer(start: input + start, count: index - start))
        try appendAttributeCharacters(&pos, quote: quote, expand: expand)
        return String(decoding: valueBuffer, as: UTF8.self)
    }

    /// Appends an attribute value's characters, normalised, to `valueBuffer` up to `quote` (which
    /// it consumes) or, with no quote, to the end of the input (an entity's replacement text).
    private func appendAttributeCharacters(_ pos: inout Int, quote: UInt8?, expand: Bool) throws(XMLScanStop) {
        let collapsesCRLF = anchor == nil
        let closing = quote ?? 0
        while true {
            guard pos < end else {
                if quote == nil { return }
                try need(pos + 1, pos)
                continue
            }
            let input = pointer
            let byte = input[pos]
            if byte == closing && quote != nil {
                pos += 1
                return
            }
            if byte >= 0x20 && byte < 0x80 {
                if byte == 0x3C { throw fail(.malformed, pos) }
                if byte == 0x26 {
                    try appendAttributeReference(&pos, expand: expand)
                } else {
                    valueBuffer.append(byte)
                    pos += 1
                }
            } else if byte >= 0x80 {
                let next = try scalarEnd(at: pos)
                valueBuffer.append(contentsOf: UnsafeBufferPointer(start: input + pos, count: next - pos))
                pos = next
            } else if byte == 0x09 || byte == 0x0A {
                valueBuffer.append(0x20)
                pos += 1
            } else if byte == 0x0D {
                valueBuffer.append(0x20)
                if collapsesCRLF {
                    try need(pos + 2, pos, orEndOf: true)
                    pos += pos + 1 < end && input[pos + 1] == 0x0A ? 2 : 1
                } else {
                    pos += 1
                }
            } else {
                throw fail(.invalidCharacter, pos)
            }
        }
    }

    /// Appends what a reference in an attribute value at `pos` stands for.
    private func appendAttributeReference(_ pos: inout Int, expand: Bool) throws(XMLScanStop) {
        let start = pos
        try need(pos + 2, pos)
        if bytes[pos + 1] == UInt8(ascii: "#") {
            XMLCharacters.appendUTF8(try readCharacterReference(&pos), to: &valueBuffer)
            return
        }
        let range = try readEntityReferenceName(&pos)
        if let byte = predefinedEntity(range) {
            valueBuffer.append(byte)
            return
        }
        guard expand else {
            // An ignored declaration's default: the entity may be one that was not read.
            return
        }
        let text = try entityText(range, at: start, inAttribute: true)
        try withEntity(text, at: start) { (tokenizer: XMLTokenizer) throws(XMLScanStop) in
            var position = 0
            try tokenizer.appendAttributeCharacters(&position, quote: nil, expand: true)
        }
    }
}
