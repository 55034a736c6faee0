#if XMLSignature
import Foundation

/// Runs Python scripts for the signature tests: the key and certificate maker (python
/// `cryptography`) and the independent verifier (`signxml`), each as a process of its own, on a
/// thread of its own rather than one of Swift's cooperative pool.
enum PythonPeer {
    /// Whether python3 with signxml and lxml can run; under `CI=true` the tests run regardless,
    /// and fail without them.
    static let shouldRun: Bool = ProcessInfo.processInfo.environment["CI"] == "true" || canImport("signxml, lxml, cryptography")

    private static func canImport(_ modules: String) -> Bool {
        (try? run("import \(modules)", input: Data())) != nil
    }

    /// Runs `script` with `input` on standard input; returns its standard output, or `nil` when
    /// python3 could not run or exited with an error.
    static func run(_ script: String, input: Data) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        do { try process.run() } catch { return nil }
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// ``run(_:input:)`` on a thread of its own, awaited without holding a cooperative thread.
    static func runOffThePool(_ script: String, input: Data) async throws -> String? {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try run(script, input: input) }) }
            thread.name = "ResourceLoaderXMLSignatureTests.python"
            thread.start()
        }
    }
}

/// Keys and self-signed X.509 v3 certificates made at test time by python `cryptography`: none
/// is checked in.
struct TestIdentities: Decodable, Sendable {
    struct Identity: Decodable, Sendable {
        /// PKCS#8 `PRIVATE KEY`.
        let key: String
        /// The traditional form: PKCS#1 `RSA PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`.
        let traditionalKey: String
        let certificate: String
    }

    let rsa: Identity
    let ec: Identity
    let otherRSA: Identity

    static let script = """
        import datetime, json
        from cryptography import x509
        from cryptography.x509.oid import NameOID
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa

        def identity(key, name):
            subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
            now = datetime.datetime.now(datetime.timezone.utc)
            certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                .sign(key, hashes.SHA256()))
            def pem(form):
                return key.private_bytes(serialization.Encoding.PEM, form, serialization.NoEncryption()).decode()
            return {"key": pem(serialization.PrivateFormat.PKCS8),
                    "traditionalKey": pem(serialization.PrivateFormat.TraditionalOpenSSL),
                    "certificate": certificate.public_bytes(serialization.Encoding.PEM).decode()}

        print(json.dumps({
            "rsa": identity(rsa.generate_private_key(public_exponent=65537, key_size=2048), "ResourceLoader RSA test signer"),
            "ec": identity(ec.generate_private_key(ec.SECP256R1()), "ResourceLoader ECDSA test signer"),
            "otherRSA": identity(rsa.generate_private_key(public_exponent=65537, key_size=2048), "Another signer"),
        }))
        """

    static func make() async throws -> TestIdentities? {
        guard let output = try await PythonPeer.runOffThePool(script, input: Data()) else { return nil }
        return try JSONDecoder().decode(TestIdentities.self, from: Data(output.utf8))
    }
}

/// signxml's verdict on signed envelopes: it finds the `Signature`, resolves each reference by
/// its ID, checks the digests and the signature, and (here) the `KeyInfo`'s pointer at the
/// `BinarySecurityToken`, whose certificate it verifies with unless the case names another.
enum SignXMLVerifier {
    struct Case: Encodable, Sendable {
        /// The envelope, in base64.
        var envelope: String
        /// A certificate in PEM to verify with instead of the envelope's own.
        var certificate: String?
        var references: Int
    }

    static let script = """
        import base64, json, sys, textwrap
        from lxml import etree
        from signxml import XMLVerifier, SignatureConfiguration

        WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
        WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
        DS = "http://www.w3.org/2000/09/xmldsig#"
        for case in json.load(sys.stdin):
            data = base64.b64decode(case["envelope"])
            try:
                root = etree.fromstring(data)
                token = root.find(".//{%s}BinarySecurityToken" % WSSE)
                pointer = root.find(".//{%s}KeyInfo/{%s}SecurityTokenReference/{%s}Reference" % (DS, WSSE, WSSE))
                if pointer is None or token is None or pointer.get("URI") != "#" + token.get("{%s}Id" % WSU):
                    raise ValueError("the KeyInfo does not point at the BinarySecurityToken")
                certificate = case.get("certificate") or (
                    "-----BEGIN CERTIFICATE-----\\n" + "\\n".join(textwrap.wrap(token.text.strip(), 64)) + "\\n-----END CERTIFICATE-----\\n")
                results = XMLVerifier().verify(
                    data, x509_cert=certificate, expect_config=SignatureConfiguration(expect_references=case["references"]))
                if not isinstance(results, list):
                    results = [results]
                print("verified " + " ".join(sorted(etree.QName(result.signed_xml).localname for result in results)))
            except Exception as error:
                print("refused " + type(error).__name__)
        """

    /// One verdict per case, in order: `verified` and the signed elements' local names, or
    /// `refused` and the error's type.
    static func verdicts(_ cases: [Case]) async throws -> [String]? {
        guard let output = try await PythonPeer.runOffThePool(script, input: try JSONEncoder().encode(cases)) else { return nil }
        return output.split(separator: "\n").map(String.init)
    }
}

/// libxmlsec1's command-line verifier (`xmlsec1`, Debian's package): a second verifier, in C,
/// with its own canonicalization. It resolves the references through `Id` attributes of the
/// SOAP `Body` and the `wsu:Timestamp`, and verifies with the public key of the certificate it
/// is given.
enum XMLSecVerifier {
    static let isInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/xmlsec1")
    static let shouldRun = ProcessInfo.processInfo.environment["CI"] == "true" || isInstalled

    /// Whether `xmlsec1 --verify` accepts `envelope` with `certificate`'s key.
    static func verifies(_ envelope: Data, certificate: String, soapNamespace: String) throws -> Bool {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xmlsec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let envelopeFile = folder.appendingPathComponent("envelope.xml")
        let certificateFile = folder.appendingPathComponent("certificate.pem")
        try envelope.write(to: envelopeFile)
        try Data(certificate.utf8).write(to: certificateFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xmlsec1")
        process.arguments = [
            "--verify", "--pubkey-cert-pem", certificateFile.path,
            "--id-attr:Id", "\(soapNamespace):Body",
            "--id-attr:Id", "\(WSSecurityHeaderNamespaces.utility):Timestamp",
            envelopeFile.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// ``verifies(_:certificate:soapNamespace:)`` on a thread of its own.
    static func verifiesOffThePool(_ envelope: Data, certificate: String, soapNamespace: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try verifies(envelope, certificate: certificate, soapNamespace: soapNamespace) })
            }
            thread.name = "ResourceLoaderXMLSignatureTests.xmlsec1"
            thread.start()
        }
    }
}

/// The WS-Security utility namespace, which `xmlsec1` needs to find `wsu:Timestamp`.
enum WSSecurityHeaderNamespaces {
    static let utility = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
}
#endif
