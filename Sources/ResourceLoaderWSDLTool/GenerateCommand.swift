import Foundation
import ResourceLoaderWSDL

/// `resourceloader-wsdl generate <wsdl> [--config <json>] --output-directory <dir>`: reads a
/// WSDL, generates the Swift files and writes them into the folder, printing every diagnostic.
///
/// Exits with 0 when there is no error diagnostic, 1 when there is one or something cannot be
/// read or written, and 64 (`EX_USAGE`) for arguments it does not understand. The files are
/// written all the same when diagnostics have errors, without what the errors name. Every
/// destination is checked and every changed file written before any is renamed into place: when
/// one cannot be written, none replaces what the folder held, and the diagnostics are printed.
struct GenerateCommand: Equatable {
    /// The WSDL to read.
    var path: String
    /// The JSON configuration, if one is given.
    var configPath: String?
    /// The folder the files are written to.
    var outputDirectory: String

    /// The usage text.
    static let usage = """
        USAGE: resourceloader-wsdl generate <wsdl> [--config <json>] --output-directory <dir>

        Reads a WSDL 1.1 document and the local schemas it imports, fetching nothing, and writes
        Types.swift, Types2.swift, Types3.swift, Types4.swift and Operations.swift into <dir>: the
        models (a large service's spread over the four Types files) and a SOAPResourceType per
        operation. Prints every diagnostic.

        OPTIONS:
          --config <json>         A configuration: accessModifier, typeNamePrefix, filter,
                                  nameOverrides, schemaLocations, additionalImports.
          --output-directory <dir>
                                  The folder to write into (created if missing).
          -h, --help              Show this help.
        """

    /// Parses the arguments after the subcommand name.
    init(arguments: [String]) throws(CheckCommand.UsageError) {
        var path: String?
        var configPath: String?
        var outputDirectory: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                throw .help
            case "--config":
                guard let value = remaining.popFirst() else { throw .message("--config needs a file") }
                configPath = value
            case "--output-directory":
                guard let value = remaining.popFirst() else { throw .message("--output-directory needs a folder") }
                outputDirectory = value
            default:
                if argument.hasPrefix("-") && argument != "-" { throw .message("unknown option \(argument)") }
                guard path == nil else { throw .message("one WSDL at a time; \(argument) is one too many") }
                path = argument
            }
        }
        guard let path else { throw .message("no WSDL given") }
        guard let outputDirectory else { throw .message("no --output-directory given") }
        self.path = path
        self.configPath = configPath
        self.outputDirectory = outputDirectory
    }

    /// Generates and writes the files; returns the report and the exit status.
    func run() -> (output: String, status: Int32) {
        var configuration = WSDLGeneratorConfiguration()
        if let configPath {
            do {
                configuration = try WSDLGeneratorConfiguration(json: Data(contentsOf: URL(fileURLWithPath: configPath)))
            } catch {
                return ("error: the configuration \(configPath) cannot be read: \(error)\n", 1)
            }
        }
        let document: WSDLDocument
        do {
            document = try WSDLReader(options: configuration.readerOptions).read(contentsOf: URL(fileURLWithPath: path))
        } catch {
            return ("error: \(error)\n", 1)
        }
        let output = WSDLGenerator(configuration: configuration).generate(document)
        let folder = URL(fileURLWithPath: outputDirectory, isDirectory: true)
        var lines: [String] = []
        var status: Int32 = 0
        do {
            for url in try Self.write(output.files, into: folder) { lines.append("wrote \(url.path)") }
        } catch {
            lines.append("error: cannot write into \(outputDirectory): \(error)")
            status = 1
        }
        for diagnostic in output.diagnostics { lines.append(diagnostic.description) }
        let errors = output.diagnostics.filter { $0.severity == .error }.count
        lines.append("\(CheckCommand.counted(errors, "error")), \(CheckCommand.counted(output.diagnostics.count - errors, "warning"))")
        return (lines.joined(separator: "\n") + "\n", errors > 0 ? 1 : status)
    }

    /// Writes `files` into `folder` (made if missing): each changed file is written beside its
    /// destination first, and only once every one is written (and no destination is a folder)
    /// are they renamed into place. An unchanged file is left alone, so that a build does not
    /// compile it again.
    /// Returns the files' URLs.
    static func write(_ files: [GeneratedFile], into folder: URL) throws -> [URL] {
        let manager = FileManager.default
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        var staged: [(temporary: URL, destination: URL)] = []
        defer { for file in staged { try? manager.removeItem(at: file.temporary) } }
        for file in files {
            let destination = folder.appendingPathComponent(file.name)
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: destination.path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: destination.path])
            }
            let data = Data(file.contents.utf8)
            if (try? Data(contentsOf: destination)) == data { continue }
            let temporary = folder.appendingPathComponent(".\(file.name).\(UUID().uuidString).tmp")
            try data.write(to: temporary)
            staged.append((temporary, destination))
        }
        for file in staged {
            guard rename(file.temporary.path, file.destination.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.destination.path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
            }
        }
        staged = []
        return files.map { folder.appendingPathComponent($0.name) }
    }
}
