import Foundation

/// A coding key of the decoder's own: an array index, or a member name that is not one of the
/// model's keys (a dictionary's key, or a key handed to a custom key strategy). Small enough to be
/// kept in an existential without an allocation.
struct JSONKey: CodingKey {
    private enum Storage {
        case name(String)
        case index(Int)
    }

    private let storage: Storage

    init(_ name: String) {
        storage = .name(name)
    }

    init(index: Int) {
        storage = .index(index)
    }

    init?(stringValue: String) {
        storage = .name(stringValue)
    }

    init?(intValue: Int) {
        storage = .index(intValue)
    }

    var stringValue: String {
        switch storage {
        case .name(let name): name
        case .index(let index): "Index \(index)"
        }
    }

    var intValue: Int? {
        if case .index(let index) = storage { return index }
        return nil
    }

    /// The key `super`, for `superDecoder()`.
    static let superKey = JSONKey("super")
}
