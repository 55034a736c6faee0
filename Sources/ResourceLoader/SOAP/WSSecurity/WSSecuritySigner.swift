import Foundation

/// Signs SOAP requests with an XML Signature in their WS-Security header (OASIS WSS 1.1 X.509
/// Token Profile): the `Body` and the `Timestamp` are each canonicalized with exclusive C14N,
/// digested with SHA-256 and referenced by their `wsu:Id` from one `Signature`, which a
/// ``WSSecuritySigningKey`` signs and whose `KeyInfo` points at a `BinarySecurityToken`
/// carrying the signer's certificate.
///
/// Use it through a ``WSSecurityAdapter`` (every request of a pipeline is signed), or call
/// ``signedEnvelope(_:header:at:nonce:)`` yourself. The `Security` block it writes:
///
/// ```xml
/// <wsse:Security soap:mustUnderstand="1">
///   <wsu:Timestamp wsu:Id="TS-1">…</wsu:Timestamp>
///   <wsse:UsernameToken wsu:Id="UT-1">…</wsse:UsernameToken>            <!-- when the header has one -->
///   <wsse:BinarySecurityToken wsu:Id="X509-1" ValueType="…#X509v3" EncodingType="…#Base64Binary">MIIC…</wsse:BinarySecurityToken>
///   <ds:Signature>
///     <ds:SignedInfo>
///       <ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>
///       <ds:SignatureMethod Algorithm="…#rsa-sha256"/>
///       <ds:Reference URI="#Body-1">exc-c14n transform, SHA-256 digest</ds:Reference>
///       <ds:Reference URI="#TS-1">exc-c14n transform, SHA-256 digest</ds:Reference>
///     </ds:SignedInfo>
///     <ds:SignatureValue>…</ds:SignatureValue>
///     <ds:KeyInfo><wsse:SecurityTokenReference><wsse:Reference URI="#X509-1" ValueType="…#X509v3"/></wsse:SecurityTokenReference></ds:KeyInfo>
///   </ds:Signature>
/// </wsse:Security>
/// ```
///
/// The `Body` gets `wsu:Id="Body-1"` unless it has a `wsu:Id` already. The `UsernameToken`, when
/// there is one, is sent but not signed. Before it returns, the signer canonicalizes the signed
/// envelope again and checks every digest, so what it hands back verifies.
public struct WSSecuritySigner: Sendable {
    /// The XML Signature namespace.
    public static let signatureNamespace = "http://www.w3.org/2000/09/xmldsig#"
    /// The SHA-256 `DigestMethod` URI.
    public static let sha256DigestAlgorithm = "http://www.w3.org/2001/04/xmlenc#sha256"
    /// The X.509 Token Profile's `ValueType` of a v3 certificate.
    public static let x509v3ValueType = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"

    /// The key that signs.
    public let key: any WSSecuritySigningKey

    /// Creates a signer.
    public init(key: any WSSecuritySigningKey) {
        self.key = key
    }

    /// `envelope` with a signed WS-Security header: `header`'s `Timestamp` and `UsernameToken`
    /// (made at `date`, with `nonce`), the certificate and the signature over the `Body` and the
    /// `Timestamp` (the `Body` alone when `header` has no timestamp).
    ///
    /// - Parameters:
    ///   - envelope: A UTF-8 SOAP 1.1 or 1.2 envelope with a `Body` and no `Security` header yet.
    ///   - header: The `Timestamp` and `UsernameToken` to send with the signature.
    ///   - date: The `Created` time of the timestamp and the token.
    ///   - nonce: The token's nonce.
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when `envelope` is not such an
    ///   envelope, an ID the signature uses is taken, or the key fails to sign; the reason never
    ///   quotes the document, the password or the key.
    public func signedEnvelope(_ envelope: Data, header: WSSecurityHeader, at date: Date, nonce: [UInt8]) throws(ResourceError) -> Data {
        let (withBodyID, bodyID) = try Self.identifyingBody(of: envelope)
        let token = try binarySecurityToken()
        let unsigned = try SOAPEnvelope.inserting(header.headerBlock(at: date, nonce: nonce, appending: token), into: withBodyID)
        var references = [bodyID]
        if header.timestampValidity != nil { references.append(Self.timestampID) }
        let digests = try Self.digests(of: references, in: unsigned)
        let signedInfo = try Self.signedInfo(references: zip(references, digests).map { ($0, $1) }, signatureAlgorithm: key.signatureAlgorithm)
        let canonicalSignedInfo: Data
        do {
            canonicalSignedInfo = try XMLCanonicalDocument(data: Data(signedInfo.utf8)).canonicalized(using: Self.canonicalization)
        } catch {
            throw .invalidRequest(reason: "the XML Signature's SignedInfo could not be canonicalized (\(error))")
        }
        let signatureValue: Data
        do {
            signatureValue = try key.signature(for: canonicalSignedInfo)
        } catch {
            // The key's error may say anything; report only that signing failed.
            throw .invalidRequest(reason: "the WS-Security signing key could not sign the request")
        }
        let signature = "<ds:Signature xmlns:ds=\"\(Self.signatureNamespace)\">" + signedInfo
            + "<ds:SignatureValue>\(signatureValue.base64EncodedString())</ds:SignatureValue>"
            + "<ds:KeyInfo><wsse:SecurityTokenReference><wsse:Reference URI=\"#\(Self.tokenID)\" ValueType=\"\(Self.x509v3ValueType)\"/>"
            + "</wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>"
        let signed = try SOAPEnvelope.inserting(header.headerBlock(at: date, nonce: nonce, appending: token + signature), into: withBodyID)
        guard try Self.digests(of: references, in: signed) == digests else {
            throw .invalidRequest(reason: "the signed SOAP envelope does not canonicalize as it was signed")
        }
        return signed
    }

    // MARK: - Parts

    static let timestampID = "TS-1"
    static let tokenID = "X509-1"
    static let bodyID = "Body-1"
    /// Exclusive C14N without comments, for the `SignedInfo` and every reference.
    static let canonicalization = ExclusiveXMLCanonicalization()

    /// The `BinarySecurityToken` with the key's certificate.
    private func binarySecurityToken() throws(ResourceError) -> String {
        "<wsse:BinarySecurityToken EncodingType=\"\(WSSecurityHeader.base64EncodingType)\" ValueType=\"\(Self.x509v3ValueType)\" wsu:Id=\"\(Self.tokenID)\">"
            + key.certificate.base64EncodedString() + "</wsse:BinarySecurityToken>"
    }

    /// The `SignedInfo`, declaring its own `ds` prefix: it canonicalizes the same on its own as
    /// inside the `Signature`, since exclusive C14N carries only the prefixes it utilizes.
    static func signedInfo(references: [(id: String, digest: [UInt8])], signatureAlgorithm: String) throws(ResourceError) -> String {
        let algorithm = try XMLWriter.escape(signatureAlgorithm, inAttribute: true, of: "ds:SignatureMethod")
        var text = "<ds:SignedInfo xmlns:ds=\"\(signatureNamespace)\">"
            + "<ds:CanonicalizationMethod Algorithm=\"\(canonicalization.algorithm)\"/>"
            + "<ds:SignatureMethod Algorithm=\"\(algorithm)\"/>"
        for reference in references {
            let id = try XMLWriter.escape(reference.id, inAttribute: true, of: "ds:Reference")
            text += "<ds:Reference URI=\"#\(id)\"><ds:Transforms><ds:Transform Algorithm=\"\(canonicalization.algorithm)\"/></ds:Transforms>"
                + "<ds:DigestMethod Algorithm=\"\(sha256DigestAlgorithm)\"/>"
                + "<ds:DigestValue>\(Data(reference.digest).base64EncodedString())</ds:DigestValue></ds:Reference>"
        }
        return text + "</ds:SignedInfo>"
    }

    /// The SHA-256 digest of each element's exclusive canonical form, found by its ID: `ids` are
    /// the `Body`'s, then the `Timestamp`'s. A refusal names the part, never the ID, which may be
    /// the document's own.
    static func digests(of ids: [String], in envelope: Data) throws(ResourceError) -> [[UInt8]] {
        let document: XMLCanonicalDocument
        do {
            document = try XMLCanonicalDocument(data: envelope)
        } catch {
            throw .invalidRequest(reason: "the SOAP envelope to sign is not well-formed XML (\(error))")
        }
        var digests: [[UInt8]] = []
        for (index, id) in ids.enumerated() {
            guard let canonical = document.canonicalizedElement(withID: id, using: canonicalization) else {
                let part = index == 0 ? "the Body's ID" : "the Timestamp's ID"
                throw .invalidRequest(reason: "the SOAP envelope to sign has no element, or more than one, with \(part)")
            }
            digests.append(SHA256.hash(canonical))
        }
        return digests
    }

    /// `envelope` with a `wsu:Id` on its `Body` (unless it has one), and that ID.
    static func identifyingBody(of envelope: Data) throws(ResourceError) -> (Data, String) {
        let tree: XMLTree
        do {
            tree = try XMLTree(data: envelope)
        } catch {
            throw .invalidRequest(reason: "the SOAP envelope to sign is not well-formed XML (\(error))")
        }
        let root = tree.root
        let children = root.children
        guard root.name == "Envelope", let namespace = root.namespaceURI, SOAPVersion(envelopeNamespace: namespace) != nil,
            let bodyIndex = children.firstIndex(where: { $0.name == "Body" && $0.namespaceURI == namespace })
        else {
            throw .invalidRequest(reason: "the request to sign is not a SOAP Envelope with a Body")
        }
        let body = children[bodyIndex]
        let utility = WSSecurityHeader.utilityNamespace
        if let id = body.attribute(named: "Id", namespaceURI: utility) { return (envelope, id) }
        var bytes = [UInt8](envelope)
        guard !(bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])),
            let tag = startTag(ofRootChild: bodyIndex, in: bytes)
        else {
            throw .invalidRequest(reason: "the SOAP request's Body could not be found in UTF-8 text")
        }
        var prefix = "wsu"
        var counter = 0
        while let bound = body.namespaceURI(forPrefix: prefix), bound != utility {
            counter += 1
            prefix = "wsu\(counter)"
        }
        var markup = ""
        if body.namespaceURI(forPrefix: prefix) == nil { markup += " xmlns:\(prefix)=\"\(utility)\"" }
        markup += " \(prefix):Id=\"\(bodyID)\""
        bytes.insert(contentsOf: Array(markup.utf8), at: tag.isEmptyElement ? tag.end - 2 : tag.end - 1)
        return (Data(bytes), bodyID)
    }

    /// The start tag of the root element's child element number `child` (counted from 0), in a
    /// document known to be well-formed: where it ends (one past its `>`) and whether it is
    /// `<…/>`.
    static func startTag(ofRootChild child: Int, in bytes: [UInt8]) -> XMLTagScanner.Tag? {
        var index = 0
        var depth = 0
        var seen = -1
        func skip(past terminator: String, from start: Int) -> Int? {
            let pattern = Array(terminator.utf8)
            var position = start
            while position + pattern.count <= bytes.count {
                if bytes[position] == pattern[0] && Array(bytes[position ..< position + pattern.count]) == pattern {
                    return position + pattern.count
                }
                position += 1
            }
            return nil
        }
        func starts(_ text: String, at position: Int) -> Bool {
            let pattern = Array(text.utf8)
            return position + pattern.count <= bytes.count && Array(bytes[position ..< position + pattern.count]) == pattern
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if starts("<?", at: index) {
                guard let next = skip(past: "?>", from: index + 2) else { return nil }
                index = next
            } else if starts("<!--", at: index) {
                guard let next = skip(past: "-->", from: index + 4) else { return nil }
                index = next
            } else if starts("<![CDATA[", at: index) {
                guard let next = skip(past: "]]>", from: index + 9) else { return nil }
                index = next
            } else if starts("<!", at: index) {
                return nil
            } else if starts("</", at: index) {
                guard let next = skip(past: ">", from: index + 2) else { return nil }
                depth -= 1
                index = next
            } else {
                var quote: UInt8?
                var end = index + 1
                while end < bytes.count {
                    let byte = bytes[end]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        break
                    }
                    end += 1
                }
                guard end < bytes.count else { return nil }
                let isEmpty = bytes[end - 1] == UInt8(ascii: "/")
                if depth == 1 {
                    seen += 1
                    if seen == child { return XMLTagScanner.Tag(end: end + 1, isEmptyElement: isEmpty) }
                }
                if !isEmpty { depth += 1 }
                index = end + 1
            }
        }
        return nil
    }
}

extension WSSecuritySigner: CustomStringConvertible {
    /// The key's algorithm; never the key.
    public var description: String { "WSSecuritySigner(signatureAlgorithm: \(key.signatureAlgorithm))" }
}
