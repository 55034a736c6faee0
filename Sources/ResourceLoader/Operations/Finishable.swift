/// Something that ends once and can say whether it has ended.
///
/// ``AsynchronousOperation`` and therefore ``ResourceOperation`` conform: the work they start
/// runs past `start()`, so they stay executing until their code calls ``finish()``.
public protocol Finishable: AnyObject, Sendable {
    /// `true` once ``finish()`` has been called.
    var isFinished: Bool { get }

    /// Marks the work as done. Only the first call has an effect; later calls do nothing.
    func finish()
}
