/// Limits that apply to one transfer, from sending the request to the last byte of the response.
///
/// A service has default options and passes them to its transport with every request.
///
/// ```swift
/// let service = ResourceService<Cities>(options: TransferOptions(deadline: .seconds(10)))
/// ```
public struct TransferOptions: Sendable, Hashable {
    /// The longest a whole transfer may take, or `nil` for no limit beyond the request's idle
    /// timeout.
    ///
    /// Unlike `URLRequest.timeoutInterval`, which restarts whenever a byte arrives, the deadline
    /// bounds the total time: a server that trickles a byte a second cannot keep a request alive
    /// past it. When it passes, the transfer is cancelled and the fetch fails with
    /// ``ResourceError/timedOut``. ``ResourceService`` enforces it for every transport.
    public var deadline: Duration?

    /// Creates options. With no arguments: no deadline.
    public init(deadline: Duration? = nil) {
        self.deadline = deadline
    }
}
