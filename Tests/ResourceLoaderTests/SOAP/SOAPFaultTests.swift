import Foundation
import ResourceLoader
import ResourceLoaderTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("SOAPFault codes")
struct SOAPFaultTests {
    static let soap11 = SOAPVersion.v1_1.envelopeNamespace
    static let soap12 = SOAPVersion.v1_2.envelopeNamespace

    /// The Fault a 1.1 response with this `faultcode` element reports.
    private func fault11(envelopePrefix: String = "soap", faultcode: String, extraDeclarations: String = "") throws -> SOAPFault {
        let p = envelopePrefix
        let response = """
            <\(p):Envelope xmlns:\(p)="\(Self.soap11)"\(extraDeclarations)><\(p):Body><\(p):Fault>\
            \(faultcode)<faultstring>No such user</faultstring>\
            </\(p):Fault></\(p):Body></\(p):Envelope>
            """
        return try faultOf(response)
    }

    private func faultOf(_ response: String) throws -> SOAPFault {
        do {
            _ = try UserDetailsCall().model(from: Data(response.utf8))
        } catch let error as ResourceError {
            if case .soapFault(let fault) = error { return fault }
            Issue.record("expected soapFault, got \(error)")
        }
        throw CancellationError()
    }

    @Test("A Fault in UTF-16 (which begins with a byte order mark), with an error status, is a soapFault",
        arguments: [String.Encoding.utf16LittleEndian, .utf16BigEndian])
    func aFaultInUTF16WithAnErrorStatus(encoding: String.Encoding) async throws {
        let envelope = """
            <soap:Envelope xmlns:soap="\(Self.soap11)"><soap:Body><soap:Fault>\
            <faultcode>soap:Server</faultcode><faultstring>No such user</faultstring>\
            </soap:Fault></soap:Body></soap:Envelope>
            """
        var body = Data(encoding == .utf16LittleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF])
        body.append(try #require(envelope.data(using: encoding)))
        let session = FakeURLSession()
        session.stub(.any, with: .status(500, headers: ["Content-Type": "text/xml"], body: body))
        do {
            _ = try await ResourceService<UserDetailsCall>(session: session).fetch(UserDetailsCall())
            Issue.record("a Fault was not reported")
        } catch .soapFault(let fault) {
            #expect(fault.reason == "No such user")
        } catch {
            Issue.record("expected soapFault, got \(error)")
        }
    }

    // MARK: SOAP 1.1

    @Test(arguments: ["soap", "SOAP-ENV", "soap11env", "S", "env"])
    func aSOAP11CodeResolvesWhateverThePrefix(prefix: String) throws {
        // GIVEN the same fault from servers that name the envelope's prefix differently
        let fault = try fault11(envelopePrefix: prefix, faultcode: "<faultcode>\(prefix):Client</faultcode>")
        // THEN the raw text keeps the prefix, and the resolved code and class do not depend on it
        #expect(fault.code == "\(prefix):Client")
        #expect(fault.resolvedCode == SOAPFault.Code(namespaceURI: Self.soap11, localName: "Client"))
        #expect(fault.resolvedCode.text == "\(prefix):Client")
        #expect(fault.standardCode == .sender)
        #expect(fault.resolvedSubcodes.isEmpty)
    }

    @Test(arguments: [
        ("Client", SOAPFault.StandardCode.sender), ("Server", .receiver),
        ("VersionMismatch", .versionMismatch), ("MustUnderstand", .mustUnderstand),
        ("Client.UnknownUser", .sender), ("Server.Database.Timeout", .receiver),
    ])
    func theSOAP11ClassesAndDottedSuffixes(localName: String, expected: SOAPFault.StandardCode) throws {
        let fault = try fault11(faultcode: "<faultcode>soap:\(localName)</faultcode>")
        #expect(fault.standardCode == expected)
        #expect(fault.resolvedCode.localName == localName)
    }

    @Test func aPrefixDeclaredOnTheFaultcodeElementItselfResolves() throws {
        let fault = try fault11(faultcode: #"<faultcode xmlns:x="\#(Self.soap11)"> x:Server </faultcode>"#)
        #expect(fault.code == "x:Server")
        #expect(fault.standardCode == .receiver)
    }

    @Test func anUnprefixedCodeTakesTheDefaultNamespace() throws {
        // An unprefixed QName is in the default namespace in scope (XML Schema's rule).
        let declared = try fault11(faultcode: #"<faultcode xmlns="\#(Self.soap11)">Client</faultcode>"#)
        #expect(declared.resolvedCode.namespaceURI == Self.soap11)
        #expect(declared.standardCode == .sender)
        // Without a default namespace, a bare `Client` is in no namespace: not the standard class.
        let bare = try fault11(faultcode: "<faultcode>Client</faultcode>")
        #expect(bare.resolvedCode == SOAPFault.Code(namespaceURI: nil, localName: "Client"))
        #expect(bare.standardCode == nil)
    }

    @Test func anUnboundPrefixResolvesToNoNamespace() throws {
        let fault = try fault11(faultcode: "<faultcode>nowhere:Client</faultcode>")
        #expect(fault.code == "nowhere:Client")
        #expect(fault.resolvedCode.namespaceURI == nil)
        #expect(fault.resolvedCode.localName == "Client")
        #expect(fault.standardCode == nil)
    }

    @Test func aCodeInAnotherNamespaceIsNotStandard() throws {
        let fault = try fault11(faultcode: "<faultcode>app:Client</faultcode>", extraDeclarations: #" xmlns:app="urn:app""#)
        #expect(fault.resolvedCode == SOAPFault.Code(namespaceURI: "urn:app", localName: "Client"))
        #expect(fault.standardCode == nil)
        // A SOAP 1.2 name in the 1.1 namespace is not a 1.1 class either.
        #expect(try fault11(faultcode: "<faultcode>soap:Sender</faultcode>").standardCode == nil)
    }

    @Test func aMissingFaultcodeHasNoCode() throws {
        let fault = try fault11(faultcode: "")
        #expect(fault.code == "")
        #expect(fault.standardCode == nil)
    }

    // MARK: SOAP 1.2

    private func fault12(value: String, subcodes: [String] = [], declarations: String = "") throws -> SOAPFault {
        // Nest the subcodes: each one inside the previous Subcode.
        var nested = "<e:Value>\(value)</e:Value>"
        var closing = ""
        for subcode in subcodes {
            nested += "<e:Subcode><e:Value>\(subcode)</e:Value>"
            closing += "</e:Subcode>"
        }
        let response = """
            <e:Envelope xmlns:e="\(Self.soap12)"\(declarations)><e:Body><e:Fault>\
            <e:Code>\(nested)\(closing)</e:Code><e:Reason><e:Text xml:lang="en">No</e:Text></e:Reason>\
            </e:Fault></e:Body></e:Envelope>
            """
        return try faultOf(response)
    }

    @Test(arguments: [
        ("Sender", SOAPFault.StandardCode.sender), ("Receiver", .receiver),
        ("VersionMismatch", .versionMismatch), ("MustUnderstand", .mustUnderstand),
        ("DataEncodingUnknown", .dataEncodingUnknown),
    ])
    func theSOAP12Classes(localName: String, expected: SOAPFault.StandardCode) throws {
        #expect(try fault12(value: "e:\(localName)").standardCode == expected)
        // SOAP 1.1 names are not SOAP 1.2 codes.
        #expect(try fault12(value: "e:Client").standardCode == nil)
    }

    @Test func subcodesResolveAgainstTheirOwnScope() throws {
        // GIVEN subcodes whose prefixes are declared at different levels, one of them reusing `e`
        let fault = try fault12(
            value: "e:Sender",
            subcodes: ["m:InvalidUser", #"n:UnknownID"#],
            declarations: #" xmlns:m="urn:app:errors" xmlns:n="urn:app:ids""#)
        #expect(fault.standardCode == .sender)
        #expect(fault.subcodes == ["m:InvalidUser", "n:UnknownID"])
        #expect(fault.resolvedSubcodes == [
            SOAPFault.Code(namespaceURI: "urn:app:errors", localName: "InvalidUser"),
            SOAPFault.Code(namespaceURI: "urn:app:ids", localName: "UnknownID"),
        ])
        // AND a subcode's prefix declared on its own Value element wins over an outer one
        let response = """
            <env:Envelope xmlns:env="\(Self.soap12)" xmlns:m="urn:outer"><env:Body><env:Fault>\
            <env:Code><env:Value>env:Receiver</env:Value><env:Subcode>\
            <env:Value xmlns:m="urn:inner">m:Busy</env:Value></env:Subcode></env:Code>\
            <env:Reason><env:Text xml:lang="en">Busy</env:Text></env:Reason></env:Fault></env:Body></env:Envelope>
            """
        let inner = try faultOf(response)
        #expect(inner.standardCode == .receiver)
        #expect(inner.resolvedSubcodes == [SOAPFault.Code(namespaceURI: "urn:inner", localName: "Busy")])
        #expect(inner.resolvedSubcodes.first?.text == "m:Busy")
    }

    @Test func theSeedFixturesResolve() throws {
        let fault11 = try faultOf(try Fixtures.string("soap11-fault"))
        #expect(fault11.standardCode == .sender)
        let fault12 = try faultOf(try Fixtures.string("soap12-fault"))
        #expect(fault12.standardCode == .sender)
        #expect(fault12.resolvedSubcodes.map(\.namespaceURI) == ["urn:example:errors", "urn:example:errors"])
        #expect(fault12.resolvedSubcodes.map(\.localName) == ["InvalidUser", "UnknownID"])
    }

    // MARK: Values

    @Test func codesCompareByNamespaceAndLocalNameOnly() {
        let a = SOAPFault.Code(namespaceURI: Self.soap11, localName: "Client", text: "soap:Client")
        let b = SOAPFault.Code(namespaceURI: Self.soap11, localName: "Client", text: "SOAP-ENV:Client")
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a != SOAPFault.Code(namespaceURI: Self.soap12, localName: "Client"))
    }

    @Test func aFaultMadeFromTextHasNoNamespaceAndAFaultMadeFromCodesHasOne() {
        let text = SOAPFault(code: "soap:Client", subcodes: ["m:X"], reason: "r")
        #expect(text.resolvedCode == SOAPFault.Code(namespaceURI: nil, localName: "Client"))
        #expect(text.resolvedSubcodes.map(\.localName) == ["X"])
        #expect(text.standardCode == nil)
        let resolved = SOAPFault(
            code: SOAPFault.Code(namespaceURI: Self.soap12, localName: "Receiver", text: "env:Receiver"),
            subcodes: [SOAPFault.Code(namespaceURI: "urn:m", localName: "X")],
            reason: "r")
        #expect(resolved.code == "env:Receiver")
        #expect(resolved.subcodes == ["X"])
        #expect(resolved.standardCode == .receiver)
    }
}
