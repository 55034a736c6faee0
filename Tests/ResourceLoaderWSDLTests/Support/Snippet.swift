import Foundation
import ResourceLoaderWSDL

/// Small WSDL documents written for one construct each, read from memory.
enum Snippet {
    /// The namespace the snippets' definitions and schemas are in.
    static let namespace = "urn:test"

    /// `body` inside a `wsdl:definitions` that declares the usual prefixes and `tns` = `urn:test`.
    static func wsdl(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <wsdl:definitions name="Test" targetNamespace="urn:test" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"
            xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/"
            xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:test"
            xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">
        \(body)
        </wsdl:definitions>
        """
    }

    /// `body` as the only schema of `wsdl:types`, in `urn:test`, elements qualified.
    static func types(_ body: String, schemaAttributes: String = #"elementFormDefault="qualified""#) -> String {
        """
        <wsdl:types>
          <xsd:schema targetNamespace="urn:test" \(schemaAttributes)>
        \(body)
          </xsd:schema>
        </wsdl:types>
        """
    }

    /// Reads `main` as `service.wsdl`, with `files` beside it.
    static func read(_ main: String, files: [String: String] = [:], options: WSDLReaderOptions = WSDLReaderOptions()) throws -> WSDLDocument {
        var data = files.mapValues { Data($0.utf8) }
        data["service.wsdl"] = Data(main.utf8)
        return try WSDLReader(options: options).read(path: "service.wsdl", in: data)
    }

    /// Reads a WSDL whose only content is a schema with `body`.
    static func readSchema(_ body: String, schemaAttributes: String = #"elementFormDefault="qualified""#) throws -> WSDLDocument {
        try read(wsdl(types(body, schemaAttributes: schemaAttributes)))
    }

    /// A name in `urn:test`.
    static func name(_ local: String) -> QualifiedName { QualifiedName(namespace: namespace, name: local) }

    /// A name in the XML Schema namespace.
    static func xsd(_ local: String) -> QualifiedName { QualifiedName(namespace: XSDBuiltInType.namespace, name: local) }
}

extension XSDSchemaSet {
    /// The complex type named `name` in `urn:test`, if it is one.
    func complexType(_ local: String) -> XSDComplexType? {
        if case .complex(let type) = types[Snippet.name(local)] { return type }
        return nil
    }

    /// The simple type named `name` in `urn:test`, if it is one.
    func simpleType(_ local: String) -> XSDSimpleType? {
        if case .simple(let type) = types[Snippet.name(local)] { return type }
        return nil
    }
}

extension XSDTerm {
    /// The particles of a sequence, choice or all.
    var particles: [XSDParticle] {
        switch self {
        case .sequence(let particles), .choice(let particles), .all(let particles): particles
        default: []
        }
    }

    /// The local element declaration, if it is one.
    var element: XSDElement? {
        if case .element(let element) = self { return element }
        return nil
    }
}

extension WSDLDocument {
    /// The diagnostics as `severity construct path` lines, for exact comparisons.
    var diagnosticSummary: [String] {
        diagnostics.map { "\($0.severity.rawValue) \($0.construct.rawValue) \($0.location.path)" }
    }
}
