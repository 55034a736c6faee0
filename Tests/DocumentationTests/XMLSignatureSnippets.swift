// The signing code block of XMLAndSOAPResources.md, verbatim, so that it is compiled when the
// `XMLSignature` trait is on. `DocumentationSnippetTests` checks that the block stands here
// unchanged, with the trait on or off.
#if XMLSignature
import Foundation
import ResourceLoader
import ResourceLoaderXMLSignature

enum XMLSignatureSnippets {
static func signingPipeline(keyPEM: String, certificatePEM: String, password: String) throws -> ResourcePipeline {
    let key = try X509SigningKey(privateKeyPEM: keyPEM, certificatePEM: certificatePEM)
    return ResourcePipeline(adapters: [
        WSSecurityAdapter(
            WSSecurityHeader(usernameToken: WSSecurityUsernameToken(username: "ada", password: password)),
            signer: WSSecuritySigner(key: key))
    ])
}
}
#endif
