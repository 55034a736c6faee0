import Foundation

/// A `Decoder` that reads `Decodable` models straight from a ``JSONTree``, with the strategies of
/// a `JSONDecoder` (``JSONDecodingOptions``).
///
/// One decoder serves a whole decode: it points at the value being decoded (``node``) and keeps
/// the coding path as a stack, pushing a key when it descends into a member or an element and
/// popping it on the way back, so a nested value costs no new decoder. Containers are values that
/// point into the tree; a member is found by comparing the key's UTF-8 bytes with the member keys'
/// (objects of more than ``JSONParser/pairwiseLimit`` members, and every object when keys are
/// converted, are looked up through a table built once per object).
///
/// Errors are `DecodingError`s with the coding paths `JSONDecoder` gives. A container's
/// ``codingPath`` is the decoder's path where it was made, read back from the decoder's stack: a
/// container used after the value it was made for was decoded (kept past its `init(from:)`)
/// reports its path as of then.
final class JSONValueDecoder: Decoder {
    let tree: JSONTree
    let options: JSONDecodingOptions
    // `@exclusivity(unchecked)`: the decoder is used by one decode on one thread, and no access
    // to these overlaps another (checking them took a tenth of the decoding time).

    /// The index of the value being decoded.
    @exclusivity(unchecked) var node: Int
    /// The coding path to ``node``, as steps: an array index, or -1 for the next key of
    /// ``pathKeys``. Elements, the most common step, then cost no existential.
    @exclusivity(unchecked) private var pathSteps: [Int] = []
    /// The keys of the coding path, in order.
    @exclusivity(unchecked) private var pathKeys: [any CodingKey] = []
    /// The keys nested containers add to the decoder's path (``JSONKeyedDecodingContainer/extra``),
    /// the list numbered `n` at `n - 1` (0 is none, and needs no storage). Kept here so that a
    /// container holds one reference, not two.
    @exclusivity(unchecked) private var extras: [[any CodingKey]] = []
    /// Whether keys are matched as written (no key strategy).
    let usesDefaultKeys: Bool
    /// Member tables of objects, by node index: key (converted by the key strategy) to the index
    /// of its value.
    @exclusivity(unchecked) private var memberTables: [Int: [String: Int]] = [:]
    /// Keyed containers handed out before, to be handed out again once nothing else holds them
    /// (``keyedContainer(_:object:base:extra:)``).
    @exclusivity(unchecked) private var reusableContainers: [ReusableContainer] = []
    /// The one of ``reusableContainers`` handed out last, looked at first.
    @exclusivity(unchecked) private var lastReused: ReusableContainer?
    /// Whether ``keyedContainer(_:object:base:extra:)`` keeps containers for reuse: only while
    /// ``decode(_:from:options:)`` runs, which lets them go at its end (each holds the decoder).
    @exclusivity(unchecked) private var keepsContainers = false

    /// The most keyed containers kept for reuse: one for each `CodingKey` type in use at once.
    private static let reusableContainerLimit = 16

    init(tree: JSONTree, options: JSONDecodingOptions, node: Int, path: [any CodingKey]) {
        self.tree = tree
        self.options = options
        self.node = node
        pathSteps = Array(repeating: -1, count: path.count)
        pathKeys = path
        if case .useDefaultKeys = options.keyStrategy { usesDefaultKeys = true } else { usesDefaultKeys = false }
    }

    /// Decodes a `T` from the top-level value of `tree`.
    static func decode<T: Decodable>(_ type: T.Type, from tree: JSONTree, options: JSONDecodingOptions) throws -> T {
        let decoder = JSONValueDecoder(tree: tree, options: options, node: 0, path: [])
        decoder.keepsContainers = true
        defer {
            decoder.keepsContainers = false
            decoder.reusableContainers = []
            decoder.lastReused = nil
        }
        return try decoder.unbox(type)
    }

    var codingPath: [any CodingKey] { path }

    /// The coding path to ``node``.
    var path: [any CodingKey] { path(prefix: pathSteps.count) }

    /// The number of steps in the coding path.
    var depth: Int { pathSteps.count }

    /// The first `count` steps of the coding path.
    func path(prefix count: Int) -> [any CodingKey] {
        var keys = pathKeys.makeIterator()
        return pathSteps.prefix(count).map { step in step >= 0 ? JSONKey(index: step) : keys.next()! }
    }

    @inline(__always)
    private func push(_ key: some CodingKey) {
        pathSteps.append(-1)
        pathKeys.append(key)
    }

    /// Takes the coding path back to `count` steps.
    @inline(__always)
    private func pop(to count: Int) {
        while pathSteps.count > count {
            if pathSteps.removeLast() < 0 { pathKeys.removeLast() }
        }
    }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard tree[node].kind == .object else {
            throw mismatch([String: Any].self, at: node, path: path, container: "keyed decoding container")
        }
        return keyedContainer(Key.self, object: node, base: depth, extra: 0)
    }

    /// A keyed container kept for reuse: the `KeyedDecodingContainer`'s box, as an object (the
    /// standard library's `KeyedDecodingContainer` holds its box and nothing else), and the
    /// position its ``JSONKeyedDecodingContainer`` reads.
    private final class ReusableContainer {
        let keyType: ObjectIdentifier
        @exclusivity(unchecked) var box: AnyObject
        let position: JSONContainerPosition

        init(keyType: ObjectIdentifier, box: AnyObject, position: JSONContainerPosition) {
            self.keyType = keyType
            self.box = box
            self.position = position
        }
    }

    /// A keyed container of `object`, whose coding path is the decoder's first `base` steps and
    /// then the keys of `extra`.
    ///
    /// Making a `KeyedDecodingContainer` costs two generic type instantiations, a box allocated
    /// and freed, and a conformance looked up, all several times what decoding a small object
    /// does with it. A container that `init(from:)` has let go of (its box held by nothing but
    /// this decoder) is repointed and handed out again instead: the decode of an array of
    /// objects then makes one container in all. A container still held anywhere (an outer
    /// object's, or one an `init(from:)` kept) is never changed.
    func keyedContainer<Key: CodingKey>(_ keyType: Key.Type, object: Int, base: Int, extra: Int) -> KeyedDecodingContainer<Key> {
        let type = ObjectIdentifier(Key.self)
        if let kept = lastReused, kept.keyType == type, isKnownUniquelyReferenced(&kept.box) {
            return reuse(kept, as: Key.self, object: object, base: base, extra: extra)
        }
        for kept in reusableContainers where kept.keyType == type && isKnownUniquelyReferenced(&kept.box) {
            lastReused = kept
            return reuse(kept, as: Key.self, object: object, base: base, extra: extra)
        }
        let position = JSONContainerPosition(decoder: self, object: object, base: base, extra: extra)
        let container = KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(position: position))
        if keepsContainers, reusableContainers.count < Self.reusableContainerLimit,
            MemoryLayout<KeyedDecodingContainer<Key>>.size == MemoryLayout<AnyObject>.size
        {
            let kept = ReusableContainer(keyType: type, box: unsafeBitCast(container, to: AnyObject.self), position: position)
            reusableContainers.append(kept)
            lastReused = kept
        }
        return container
    }

    /// `kept`'s container, repointed.
    @inline(__always)
    private func reuse<Key: CodingKey>(
        _ kept: ReusableContainer, as keyType: Key.Type, object: Int, base: Int, extra: Int
    ) -> KeyedDecodingContainer<Key> {
        let position = kept.position
        position.object = object
        position.base = base
        position.extra = extra
        return unsafeBitCast(kept.box, to: KeyedDecodingContainer<Key>.self)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard tree[node].kind == .array else {
            throw mismatch([Any].self, at: node, path: path, container: "unkeyed decoding container")
        }
        return JSONUnkeyedDecodingContainer(decoder: self, array: node, base: depth, extra: 0)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Descending

    /// The number for `keys` in ``extras``: 0 for none.
    func extraNumber(_ keys: [any CodingKey]) -> Int {
        guard !keys.isEmpty else { return 0 }
        extras.append(keys)
        return extras.count
    }

    /// The keys numbered `number` by ``extraNumber(_:)``.
    @inline(__always)
    func extraKeys(_ number: Int) -> [any CodingKey] {
        number == 0 ? [] : extras[number - 1]
    }

    /// Decodes a `T` from the value at `index`, reached from the decoder's path by the keys
    /// ``extraKeys(_:)`` of `extra` and then `key`. With `plain`, `T` is known to be none of the
    /// types ``unbox(_:)`` treats apart, and its `init(from:)` is called directly.
    @inline(__always)
    func unbox<T: Decodable>(_ type: T.Type, at index: Int, extra: Int, key: some CodingKey, plain: Bool = false) throws -> T {
        let savedNode = node
        let savedDepth = pathSteps.count
        if extra != 0 { for key in extraKeys(extra) { push(key) } }
        push(key)
        node = index
        defer {
            node = savedNode
            pop(to: savedDepth)
        }
        return try plain ? T(from: self) : unbox(type)
    }

    /// Decodes a `T` from the array element at `index`, number `element` of its array, reached
    /// from the decoder's path by the keys ``extraKeys(_:)`` of `extra`. With `plain`, as above.
    @inline(__always)
    func unbox<T: Decodable>(_ type: T.Type, at index: Int, extra: Int, element: Int, plain: Bool = false) throws -> T {
        let savedNode = node
        let savedDepth = pathSteps.count
        if extra != 0 { for key in extraKeys(extra) { push(key) } }
        pathSteps.append(element)
        node = index
        defer {
            node = savedNode
            pop(to: savedDepth)
        }
        return try plain ? T(from: self) : unbox(type)
    }

    /// Decodes the elements of the array at ``node`` as `T`s, each into its place in `elements`
    /// (which holds at least as many), and counts in `initialized` those it has decoded. The
    /// coding path holds one step for the elements, rewritten for each.
    func decodeElements<T: Decodable>(_ type: T.Type, into elements: UnsafeMutableBufferPointer<T>, initialized: inout Int) throws {
        let array = node
        let count = Int(tree[array].length)
        let step = pathSteps.count
        // Whether the elements are of a type `unbox` treats apart is asked once, not for each.
        let plain = !Self.isSpecial(T.self)
        pathSteps.append(0)
        defer {
            node = array
            pop(to: step)
        }
        var index = array + 1
        for position in 0..<count {
            pathSteps[step] = position
            node = index
            (elements.baseAddress! + position).initialize(to: try plain ? T(from: self) : unbox(type))
            initialized = position + 1
            index = Int(tree[index].end)
        }
    }

    /// Whether ``unbox(_:)`` decodes `T` other than by its `init(from:)`.
    static func isSpecial<T>(_ type: T.Type) -> Bool {
        T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
            || T.self is any JSONDecodableArray.Type || T.self is any JSONStringKeyedDictionary.Type
    }

    /// Decodes a `T` from ``node``: `Date`, `Data`, `URL` and `Decimal` by the strategies, arrays
    /// and (with a key strategy) dictionaries straight from the tree, others by their
    /// `init(from:)`.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self { return try date() as! T }
        if T.self == Data.self { return try data() as! T }
        if T.self == URL.self {
            let text = try decode(String.self)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Invalid URL string."))
            }
            return url as! T
        }
        if T.self == Decimal.self { return try decimal() as! T }
        if let array = T.self as? any JSONDecodableArray.Type {
            // Elements straight from the tree, without an unkeyed container in between.
            return try array.decodeElements(self) as! T
        }
        if !usesDefaultKeys, let dictionary = T.self as? any JSONStringKeyedDictionary.Type {
            // A dictionary's keys are its data, not coding keys: the key strategy leaves them as
            // they are, as it does in `JSONDecoder`.
            return try dictionary.decodeMembers(self) as! T
        }
        return try T(from: self)
    }

    // MARK: Members

    /// The index of the value of `object`'s member named `key`, or `nil`. `path` is the coding
    /// path of the container that reads `object`, which a custom key strategy is handed.
    @inline(__always)
    func member(_ key: some CodingKey, of object: Int, path: @autoclosure () -> [any CodingKey]) -> Int? {
        let count = Int(tree[object].length)
        guard usesDefaultKeys, count <= JSONParser.pairwiseLimit else {
            return memberTable(of: object, path: path())[key.stringValue]
        }
        var name = key.stringValue
        return name.withUTF8 { utf8 -> Int? in
            var ascii = true
            for byte in utf8 where byte >= 0x80 { ascii = false }
            var index = object + 1
            for _ in 0..<count {
                if tree.string(tree[index], equals: utf8, keyIsASCII: ascii) { return index + 1 }
                index = Int(tree[index + 1].end)
            }
            return nil
        }
    }

    /// The keys of `object`'s members, converted by the key strategy, in document order, each
    /// with the index of its value.
    func members(of object: Int, path: @autoclosure () -> [any CodingKey]) -> [(key: String, value: Int)] {
        var members: [(key: String, value: Int)] = []
        let count = Int(tree[object].length)
        members.reserveCapacity(count)
        var index = object + 1
        for _ in 0..<count {
            let written = tree.string(tree[index])
            let key: String
            switch options.keyStrategy {
            case .useDefaultKeys: key = written
            case .convertFromSnakeCase: key = JSONDecodingOptions.convertedFromSnakeCase(written)
            case .custom(let convert): key = convert(path() + [JSONKey(written)]).stringValue
            }
            members.append((key, index + 1))
            index = Int(tree[index + 1].end)
        }
        return members
    }

    /// `object`'s member table, built the first time it is needed, with `path` the coding path of
    /// the container that reads it. When converted keys collide, the first member wins, as in
    /// `JSONDecoder`.
    private func memberTable(of object: Int, path: @autoclosure () -> [any CodingKey]) -> [String: Int] {
        if let table = memberTables[object] { return table }
        var table: [String: Int] = [:]
        for (key, value) in members(of: object, path: path()) where table[key] == nil {
            table[key] = value
        }
        memberTables[object] = table
        return table
    }

    // MARK: Scalars

    /// The string at `index`, or a `DecodingError` at `path`.
    @inline(__always)
    func string(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> String {
        let value = tree[index]
        guard value.kind == .string else { throw mismatch(String.self, at: index, path: path()) }
        return tree.string(value)
    }

    @inline(__always)
    func bool(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        switch tree[index].kind {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, at: index, path: path())
        }
    }

    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> T {
        let value = tree[index]
        guard value.kind == .number else { throw mismatch(T.self, at: index, path: path()) }
        guard let integer = tree.integer(value, as: T.self) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: path(), debugDescription: "Parsed JSON number does not fit in \(T.self)."))
        }
        return integer
    }

    func double(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> Double {
        let value = tree[index]
        if value.kind == .number {
            guard let double = tree.double(value) else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: path(), debugDescription: "Parsed JSON number does not fit in Double."))
            }
            return double
        }
        if let special = nonConformingFloat(at: index) { return special }
        throw mismatch(Double.self, at: index, path: path())
    }

    func float(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let value = tree[index]
        if value.kind == .number {
            guard let float = tree.float(value) else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: path(), debugDescription: "Parsed JSON number does not fit in Float."))
            }
            return float
        }
        if let special = nonConformingFloat(at: index) { return Float(special) }
        throw mismatch(Float.self, at: index, path: path())
    }

    /// Infinity or NaN from a string, when the strategy names it. The string must be written
    /// without escapes, as `JSONDecoder` reads it: `"\u002binf"` is not `"+inf"`.
    private func nonConformingFloat(at index: Int) -> Double? {
        let value = tree[index]
        guard case .convertFromString(let positive, let negative, let nan) = options.nonConformingFloatStrategy,
            value.kind == .string,
            value.isPlain || !tree.buffer(of: value).contains(UInt8(ascii: "\\"))
        else { return nil }
        switch tree.string(value) {
        case positive: return .infinity
        case negative: return -.infinity
        case nan: return .nan
        default: return nil
        }
    }

    // MARK: Errors

    /// The error for a value that is not a `type`, as `JSONDecoder` reports it in every
    /// container: `valueNotFound` for `null` (but `typeMismatch` for a `null` where a `Bool`
    /// should be), `typeMismatch` otherwise.
    func mismatch(_ type: Any.Type, at index: Int, path: [any CodingKey], container: String? = nil) -> DecodingError {
        let kind = tree[index].kind
        if kind == .null, container != nil || type != Bool.self {
            let description = container.map { "Cannot get \($0) -- found null value instead" }
                ?? "Expected \(type) value but found null instead."
            return .valueNotFound(type, .init(codingPath: path, debugDescription: description))
        }
        let found = switch kind {
        case .null: "null"
        case .true, .false: "bool"
        case .number: "number"
        case .string: "a string"
        case .object: "a dictionary"
        case .array: "an array"
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(found) instead."))
    }
}

// MARK: - Dates, data and decimals

extension JSONValueDecoder {
    /// A `Date` from ``node``, by the date strategy.
    func date() throws -> Date {
        switch options.dateStrategy {
        case .deferredToDate:
            return try Date(from: self)
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try decode(Double.self))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try decode(Double.self) / 1000)
        case .iso8601:
            let text = try decode(String.self)
            guard let date = Self.internetDateTime(text) ?? (try? Date(text, strategy: .iso8601)) else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: path, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        #if !canImport(FoundationNetworking)
        // A case of its own on Apple platforms; elsewhere `.formatted` makes a `.custom` one.
        case .formatted(let formatter):
            let text = try decode(String.self)
            guard let date = formatter.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: path, debugDescription: "Date string does not match format expected by formatter."))
            }
            return date
        #endif
        case .custom(let read):
            return try read(self)
        @unknown default:
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Unsupported date decoding strategy."))
        }
    }

    /// `Data` from ``node``, by the data strategy.
    func data() throws -> Data {
        switch options.dataStrategy {
        case .deferredToData:
            return try Data(from: self)
        case .base64:
            guard let data = Data(base64Encoded: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Encountered Data is not valid Base64."))
            }
            return data
        case .custom(let read):
            return try read(self)
        @unknown default:
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Unsupported data decoding strategy."))
        }
    }

    /// A `Decimal` from the number at ``node``, exactly as written (up to `Decimal`'s 38 digits).
    func decimal() throws -> Decimal {
        let value = tree[node]
        guard value.kind == .number else { throw mismatch(Decimal.self, at: node, path: path) }
        guard let decimal = tree.decimal(value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Parsed JSON number does not fit in Decimal."))
        }
        return decimal
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` or with a `±HH:mm` offset, the form `JSONDecoder`'s `.iso8601`
    /// strategy reads most, from 1583 (Foundation counts earlier dates in the Julian calendar);
    /// `nil` for anything else, which is left to `Date.ISO8601FormatStyle`, as `JSONDecoder` reads
    /// it.
    static func internetDateTime(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 20 || bytes.count == 25 else { return nil }
            func number(_ start: Int, _ length: Int) -> Int? {
                var value = 0
                for index in start..<start + length {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                year >= 1583, (1...12).contains(month), hour < 24, minute < 60, second < 60
            else { return nil }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard day >= 1, day <= monthDays[month - 1] else { return nil }
            var offset = 0
            if bytes.count == 20 {
                guard bytes[19] == UInt8(ascii: "Z") else { return nil }
            } else {
                let sign = bytes[19]
                guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), bytes[22] == UInt8(ascii: ":"),
                    let offsetHours = number(20, 2), let offsetMinutes = number(23, 2),
                    offsetHours < 24, offsetMinutes < 60
                else { return nil }
                offset = (offsetHours * 3600 + offsetMinutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            }
            // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
            let shiftedYear = month <= 2 ? year - 1 : year
            let era = shiftedYear / 400
            let yearOfEra = shiftedYear - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }
}
