import Foundation

extension XMLCanonicalDocument {
    /// Writes the nodes of `range` (the whole document, or one element's start to its end) in
    /// canonical form.
    ///
    /// Two maps follow the walk, one entry per open element: the namespaces in scope (prefix to
    /// URI, `""` for the default namespace, whose absence or `xmlns=""` is the URI `""`), and the
    /// namespaces rendered by canonicalized ancestors. An element declares a prefix it utilizes,
    /// or an inclusive prefix in scope, when the rendered value differs from the one in scope.
    func render<Range: Sequence<Int>>(_ range: Range, method: ExclusiveXMLCanonicalization, wholeDocument: Bool) -> Data {
        var output: [UInt8] = []
        var first = true
        var scopes: [[String: String]] = []
        var rendered: [[String: String]] = [[:]]
        let inclusive = Set(method.inclusiveNamespacePrefixes.map { $0 == "#default" ? "" : $0 })
        var seenRoot = false

        for index in range {
            if first {
                first = false
                scopes.append(wholeDocument ? [:] : inScopeNamespaces(ofParentOf: index))
            }
            switch nodes[index] {
            case .start(let start):
                var scope = scopes[scopes.count - 1]
                for declaration in start.declarations { scope[declaration.prefix] = declaration.namespaceURI }
                var declared = rendered[rendered.count - 1]
                var prefixes: Set<String> = [start.prefix]
                for attribute in start.attributes {
                    if let prefix = attribute.prefix, prefix != "xml" { prefixes.insert(prefix) }
                }
                for prefix in inclusive where prefix.isEmpty || scope[prefix] != nil { prefixes.insert(prefix) }
                var declarations: [(prefix: String, namespaceURI: String)] = []
                for prefix in prefixes {
                    let namespaceURI = scope[prefix] ?? ""
                    let current = declared[prefix] ?? (prefix.isEmpty ? "" : nil)
                    guard current != namespaceURI else { continue }
                    declarations.append((prefix, namespaceURI))
                    declared[prefix] = namespaceURI
                }
                declarations.sort { $0.prefix.utf8.lexicographicallyPrecedes($1.prefix.utf8) }
                let attributes = start.attributes.sorted {
                    $0.namespaceURI == $1.namespaceURI
                        ? $0.localName.utf8.lexicographicallyPrecedes($1.localName.utf8)
                        : $0.namespaceURI.utf8.lexicographicallyPrecedes($1.namespaceURI.utf8)
                }
                output.append(UInt8(ascii: "<"))
                output.append(contentsOf: start.qualifiedName.utf8)
                for declaration in declarations {
                    output.append(contentsOf: declaration.prefix.isEmpty ? Array(" xmlns=\"".utf8) : Array(" xmlns:".utf8))
                    if !declaration.prefix.isEmpty {
                        output.append(contentsOf: declaration.prefix.utf8)
                        output.append(contentsOf: "=\"".utf8)
                    }
                    Self.appendEscaped(declaration.namespaceURI, inAttribute: true, to: &output)
                    output.append(UInt8(ascii: "\""))
                }
                for attribute in attributes {
                    output.append(UInt8(ascii: " "))
                    output.append(contentsOf: attribute.qualifiedName.utf8)
                    output.append(contentsOf: "=\"".utf8)
                    Self.appendEscaped(attribute.value, inAttribute: true, to: &output)
                    output.append(UInt8(ascii: "\""))
                }
                output.append(UInt8(ascii: ">"))
                scopes.append(scope)
                rendered.append(declared)
                seenRoot = true
            case .end(let start):
                guard case .start(let element) = nodes[start] else { continue }
                output.append(contentsOf: "</".utf8)
                output.append(contentsOf: element.qualifiedName.utf8)
                output.append(UInt8(ascii: ">"))
                scopes.removeLast()
                rendered.removeLast()
            case .text(let text):
                Self.appendEscaped(text, inAttribute: false, to: &output)
            case .comment(let text, let depth):
                guard method.includesComments else { continue }
                Self.appendOutsideRoot(depth: wholeDocument ? depth : 1, seenRoot: seenRoot, to: &output) {
                    $0.append(contentsOf: "<!--".utf8)
                    $0.append(contentsOf: text.utf8)
                    $0.append(contentsOf: "-->".utf8)
                }
            case .processingInstruction(let target, let data, let depth):
                Self.appendOutsideRoot(depth: wholeDocument ? depth : 1, seenRoot: seenRoot, to: &output) {
                    $0.append(contentsOf: "<?".utf8)
                    $0.append(contentsOf: target.utf8)
                    if !data.isEmpty {
                        $0.append(UInt8(ascii: " "))
                        $0.append(contentsOf: data.utf8)
                    }
                    $0.append(contentsOf: "?>".utf8)
                }
            }
        }
        return Data(output)
    }

    /// The namespaces in scope at the parent of the element that starts at `index`: the
    /// declarations of its ancestors, the innermost winning.
    func inScopeNamespaces(ofParentOf index: Int) -> [String: String] {
        guard case .start(let start) = nodes[index] else { return [:] }
        var ancestors: [Start] = []
        var parent = start.parent
        while parent >= 0, case .start(let ancestor) = nodes[parent] {
            ancestors.append(ancestor)
            parent = ancestor.parent
        }
        var scope: [String: String] = [:]
        for ancestor in ancestors.reversed() {
            for declaration in ancestor.declarations { scope[declaration.prefix] = declaration.namespaceURI }
        }
        return scope
    }

    /// Writes a comment or processing instruction, on a line of its own when it stands before
    /// (`depth` 0, no root yet: a line end after it) or after the root element (one before it).
    private static func appendOutsideRoot(
        depth: Int, seenRoot: Bool, to output: inout [UInt8], _ write: (inout [UInt8]) -> Void
    ) {
        if depth == 0 && seenRoot { output.append(0x0A) }
        write(&output)
        if depth == 0 && !seenRoot { output.append(0x0A) }
    }

    /// Appends `value` escaped as canonical XML escapes text (`&`, `<`, `>`, CR) or attribute
    /// values (`&`, `<`, `"`, tab, LF, CR).
    static func appendEscaped(_ value: String, inAttribute: Bool, to output: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">") where !inAttribute: output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\"") where inAttribute: output.append(contentsOf: "&quot;".utf8)
            case 0x09 where inAttribute: output.append(contentsOf: "&#x9;".utf8)
            case 0x0A where inAttribute: output.append(contentsOf: "&#xA;".utf8)
            case 0x0D: output.append(contentsOf: "&#xD;".utf8)
            default: output.append(byte)
            }
        }
    }
}
