/// A transport that adds credential header fields of its own to every request it sends, below
/// whatever wraps it: a shared ``CachingTransport`` over it reads each of its requests as
/// authorised (RFC 9111, section 3.5), since the cache never sees those fields on the request.
protocol CredentialAddingTransport: HTTPTransport {
    /// The ``TransferRules/credentialHeaderFields`` the transport adds to each request that does
    /// not name them itself; empty when it adds none.
    var addedCredentialFields: [String] { get }
}
