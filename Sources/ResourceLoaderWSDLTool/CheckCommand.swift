import Foundation
import ResourceLoaderWSDL

/// `resourceloader-wsdl check <wsdl> [--schema-location <url>=<path>]…`: reads a WSDL and prints
/// what it holds and every diagnostic, as a compiler prints them.
///
/// Exits with 0 when there is no error diagnostic, 1 when there is one or the document cannot be
/// read, and 64 (`EX_USAGE`) for arguments it does not understand.
struct CheckCommand: Equatable {
    /// The WSDL to read.
    var path: String
    /// Remote locations mapped to local files.
    var schemaLocations: [String: String] = [:]

    /// The usage text.
    static let usage = """
        USAGE: resourceloader-wsdl check <wsdl> [--schema-location <url>=<path>]...

        Reads a WSDL 1.1 document and the local schemas it imports, fetching nothing, and prints
        its services, bindings and operations and every diagnostic.

        OPTIONS:
          --schema-location <url>=<path>
                                  Read the remote schemaLocation <url> from the local file <path>
                                  (relative to the WSDL's folder). Repeatable.
          -h, --help              Show this help.
        """

    /// Why the arguments were refused.
    enum UsageError: Error, Equatable {
        case help
        case message(String)
    }

    /// Parses the arguments after the subcommand name.
    init(arguments: [String]) throws(UsageError) {
        var path: String?
        var schemaLocations: [String: String] = [:]
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                throw .help
            case "--schema-location":
                guard let value = remaining.popFirst() else { throw .message("--schema-location needs <url>=<path>") }
                guard let equals = value.firstIndex(of: "="), equals != value.startIndex, value.index(after: equals) != value.endIndex else {
                    throw .message("--schema-location needs <url>=<path>, not \(value)")
                }
                schemaLocations[String(value[..<equals])] = String(value[value.index(after: equals)...])
            default:
                if argument.hasPrefix("-") && argument != "-" { throw .message("unknown option \(argument)") }
                guard path == nil else { throw .message("one WSDL at a time; \(argument) is one too many") }
                path = argument
            }
        }
        guard let path else { throw .message("no WSDL given") }
        self.path = path
        self.schemaLocations = schemaLocations
    }

    /// Reads the document and returns the report and the exit status.
    func run() -> (output: String, status: Int32) {
        let reader = WSDLReader(options: WSDLReaderOptions(schemaLocations: schemaLocations))
        let document: WSDLDocument
        do {
            document = try reader.read(contentsOf: URL(fileURLWithPath: path))
        } catch {
            return ("error: \(error)\n", 1)
        }
        return (Self.report(document), document.diagnostics.contains { $0.severity == .error } ? 1 : 0)
    }

    /// The report: one line per file, service, binding and operation, then the diagnostics and a
    /// count of each severity.
    static func report(_ document: WSDLDocument) -> String {
        var lines: [String] = []
        lines.append("files: \(document.files.count)")
        for file in document.files { lines.append("  \(file)") }
        for service in document.services {
            lines.append("service \(service.name.name)")
            for port in service.ports {
                lines.append("  port \(port.name): \(port.binding.name) at \(port.address ?? "no address")")
            }
        }
        lines.append(
            "schemas: \(document.schemas.schemas.count), types: \(document.schemas.types.count), elements: \(document.schemas.elements.count)")
        for binding in document.bindings {
            let version = binding.soapVersion == .v1_1 ? "SOAP 1.1" : "SOAP 1.2"
            lines.append("binding \(binding.name.name) (\(version)): \(counted(binding.operations.count, "operation"))")
            for operation in binding.operations {
                let headers = (operation.input?.headers.count ?? 0) + (operation.output?.headers.count ?? 0)
                var facts = [operation.style.rawValue]
                if headers > 0 { facts.append(counted(headers, "header")) }
                if !operation.faults.isEmpty { facts.append(counted(operation.faults.count, "fault")) }
                if operation.isOneWay { facts.append("one-way") }
                lines.append("  \(operation.name): \(facts.joined(separator: ", "))")
            }
        }
        for diagnostic in document.diagnostics { lines.append(diagnostic.description) }
        let errors = document.diagnostics.filter { $0.severity == .error }.count
        let warnings = document.diagnostics.count - errors
        lines.append("\(counted(errors, "error")), \(counted(warnings, "warning"))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `count` and `noun`, plural unless the count is 1: `1 fault`, `2 faults`.
    static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
