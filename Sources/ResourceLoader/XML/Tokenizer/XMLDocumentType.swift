/// An entity's replacement text, in memory of its own so the tokenizer can read it as it reads
/// the document.
final class XMLEntityText {
    /// The bytes (UTF-8, checked).
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage.baseAddress, count: count) }
    /// The entity's name; `%name` for a parameter entity.
    let name: String
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let count: Int

    init(name: String, bytes: [UInt8]) {
        self.name = name
        count = bytes.count
        storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = storage.initialize(from: bytes)
    }

    deinit {
        storage.deallocate()
    }
}

/// A declared entity.
struct XMLEntity {
    /// The replacement text of an internal entity; `nil` for an external one (never read).
    var text: XMLEntityText?
    /// Whether the entity is an unparsed one (`NDATA`), which text may never refer to.
    var isUnparsed = false
}

/// A declared attribute of an element.
struct XMLAttributeDeclaration {
    var name: XMLName
    /// Whether the type is `CDATA` (else the value is normalised further: single spaces, no
    /// leading or trailing space).
    var isCDATA: Bool
    /// The default value, normalised; `nil` for `#REQUIRED` and `#IMPLIED`.
    var defaultValue: String?
}

/// What a DTD's internal subset declared, as a non-validating processor uses it: entities and
/// attribute declarations. Element types and notations are checked for syntax and dropped.
struct XMLDocumentType {
    var generalEntities: [String: XMLEntity] = [:]
    var parameterEntities: [String: XMLEntity] = [:]
    /// Attribute declarations by element name, in declaration order; the first one of an
    /// attribute counts.
    var attributeLists: [String: [XMLAttributeDeclaration]] = [:]
    /// Cleared by a reference to a parameter entity that is not read (external or undeclared)
    /// in a document that is not standalone: later entity and attribute-list declarations are
    /// then checked but not used (XML 1.0 section 5.1).
    var processesDeclarations = true
    /// What the sink hears of the DTD, held until the whole declaration is read (it may be read
    /// again when the input comes in pieces).
    var pendingEvents: [PendingEvent] = []

    /// An event for the sink, from inside the DTD.
    enum PendingEvent {
        case documentType(name: String)
        case notation(name: String, publicID: String?, systemID: String?)
        case processingInstruction(target: String, data: [UInt8])
    }

    var hasAttributeDeclarations: Bool { !attributeLists.isEmpty }

    /// Adds `declaration` for `element` unless the attribute is declared already; returns how
    /// many attributes `element` has declared now.
    mutating func declare(_ declaration: XMLAttributeDeclaration, for element: String) -> Int {
        if let existing = attributeLists[element], existing.contains(where: { $0.name === declaration.name }) {
            return existing.count
        }
        attributeLists[element, default: []].append(declaration)
        return attributeLists[element]?.count ?? 0
    }

    /// Normalises the attributes of a tokenized type, and adds the defaults of those missing;
    /// returns the bytes added (names and values), which count as expansion: a few bytes of
    /// start tag would otherwise stand for every default of the element.
    func applyDefaults(to attributes: inout [XMLAttributeEvent], of element: XMLName, namespaceAware: Bool) -> Int {
        guard let declarations = attributeLists[element.qualified] else { return 0 }
        var added = 0
        for declaration in declarations {
            if let index = attributes.firstIndex(where: { $0.name === declaration.name }) {
                if !declaration.isCDATA { attributes[index].value = Self.tokenized(attributes[index].value) }
            } else if let value = declaration.defaultValue {
                let name = declaration.name
                added += name.qualified.utf8.count + value.utf8.count
                attributes.append(XMLAttributeEvent(
                    name: name, value: value, namespaceURI: nil,
                    isNamespaceDeclaration: namespaceAware && name.declaresNamespace))
            }
        }
        return added
    }

    /// A value of a tokenized type: runs of spaces collapsed to one, none at either end.
    static func tokenized(_ value: String) -> String {
        guard value.utf8.contains(0x20) else { return value }
        return value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
