import Foundation

/// A value guarded by its own lock.
///
/// The one place in the module that holds mutable shared state: every other type that must be
/// `Sendable` and mutable keeps its state in a `Locked`. It is a class so that closures and
/// objects can share one instance.
final class Locked<Value>: @unchecked Sendable {
    // `lock` guards `value`; nothing reads or writes `value` without holding it.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @discardableResult
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
