import Foundation
import PackagePlugin

/// A command plugin that generates SOAP resources and models into the source tree, for code that
/// is checked in: for each target with a `.wsdl` file (or those named by `--target`), it runs
/// `resourceloader-wsdl generate` with the target's `resourceloader-wsdl.json` if it has one, and
/// writes `Types.swift` to `Types4.swift` and `Operations.swift` into the target's `Generated` folder.
/// A target with several `.wsdl` files (a WSDL and the WSDLs it imports) names the one to
/// generate from in the configuration's `document` key.
///
/// ```
/// swift package --allow-writing-to-package-directory generate-soap-resources --target Orders
/// ```
@main
struct GenerateSOAPResources: CommandPlugin {
    /// Why the command stopped.
    struct CommandError: Error, CustomStringConvertible {
        var description: String
    }

    /// The configuration's file name.
    static let configurationFileName = "resourceloader-wsdl.json"

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let tool = try context.tool(named: "ResourceLoaderWSDLTool").url
        var generated = 0
        for case let target as SourceModuleTarget in targets {
            let files = target.sourceFiles.map(\.url)
            let documents = files.filter { $0.pathExtension.lowercased() == "wsdl" }
            guard !documents.isEmpty else {
                if !names.isEmpty { throw CommandError(description: "the target \(target.name) has no .wsdl file") }
                continue
            }
            let configurations = files.filter { $0.lastPathComponent == Self.configurationFileName }
            guard configurations.count <= 1 else {
                throw CommandError(description: "the target \(target.name) has \(configurations.count) \(Self.configurationFileName) files; keep at most one")
            }
            let document: URL
            do {
                document = try Self.document(among: documents, configuration: configurations.first)
            } catch {
                throw CommandError(description: "the target \(target.name) \(error.description)")
            }
            let output = target.directoryURL.appendingPathComponent("Generated")
            var toolArguments = ["generate", document.path, "--output-directory", output.path]
            if let configuration = configurations.first { toolArguments += ["--config", configuration.path] }
            let process = Process()
            process.executableURL = tool
            process.arguments = toolArguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CommandError(description: "generating \(target.name) from \(document.lastPathComponent) reported errors (see above)")
            }
            generated += 1
        }
        guard generated > 0 else { throw CommandError(description: "no target has a .wsdl file") }
    }

    /// The WSDL to generate from: the one of `documents`, or the one the configuration's
    /// `document` key names, relative to the configuration's folder. (`ResourceLoaderWSDLPlugin` has the same
    /// function: a plugin can depend on no library to share it through.)
    ///
    /// - Throws: ``CommandError`` saying, after the target's name, why none can be chosen.
    static func document(among documents: [URL], configuration: URL?) throws(CommandError) -> URL {
        let named: String?
        if let configuration {
            guard let data = try? Data(contentsOf: configuration),
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            else { throw CommandError(description: "has a \(configurationFileName) that is not a JSON object") }
            guard object["document"] == nil || object["document"] is String else {
                throw CommandError(description: "has a \(configurationFileName) whose document is not a string")
            }
            named = object["document"] as? String
        } else {
            named = nil
        }
        let list = documents.map(\.lastPathComponent).sorted().joined(separator: ", ")
        if let named, let configuration {
            let wanted = configuration.deletingLastPathComponent().appendingPathComponent(named).standardizedFileURL.path
            guard let document = documents.first(where: { $0.standardizedFileURL.path == wanted }) else {
                throw CommandError(description: "has no .wsdl file \(named), which \(configurationFileName) names as its document (it has: \(list.isEmpty ? "none" : list))")
            }
            return document
        }
        guard let document = documents.first else { throw CommandError(description: "has no .wsdl file; add the one to generate from") }
        guard documents.count == 1 else {
            throw CommandError(description: "has \(documents.count) .wsdl files (\(list)); name the one to generate from as \"document\" in \(configurationFileName)")
        }
        return document
    }
}
