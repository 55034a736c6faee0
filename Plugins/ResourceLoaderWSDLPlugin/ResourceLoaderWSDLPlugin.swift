import Foundation
import PackagePlugin

/// A build-tool plugin that generates SOAP resources and models from the one `.wsdl` file in a
/// target, with the target's `resourceloader-wsdl.json` as configuration if it has one.
///
/// It runs `resourceloader-wsdl generate` into the plugin's work folder; the files it writes
/// have fixed names, so the build graph is known before anything is generated. The build
/// fails, saying why, when the target has no `.wsdl` file or several, or several
/// configurations, and when generation reports an error diagnostic.
@main
struct ResourceLoaderWSDLPlugin: BuildToolPlugin {
    /// The files `resourceloader-wsdl generate` writes (`WSDLGenerator.fileNames`).
    static let outputFileNames = ["Types.swift", "Types2.swift", "Types3.swift", "Types4.swift", "Operations.swift"]
    /// The configuration's file name.
    static let configurationFileName = "resourceloader-wsdl.json"

    /// Why the plugin cannot run for a target.
    struct PluginError: Error, CustomStringConvertible {
        var description: String
    }

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles.map(\.url)
        let documents = files.filter { $0.pathExtension.lowercased() == "wsdl" }
        let configurations = files.filter { $0.lastPathComponent == Self.configurationFileName }
        guard documents.count == 1, let document = documents.first else {
            throw PluginError(
                description: documents.isEmpty
                    ? "ResourceLoaderWSDLPlugin: the target \(target.name) has no .wsdl file; add the one to generate from"
                    : "ResourceLoaderWSDLPlugin: the target \(target.name) has \(documents.count) .wsdl files (\(documents.map(\.lastPathComponent).sorted().joined(separator: ", "))); keep exactly one")
        }
        guard configurations.count <= 1 else {
            throw PluginError(description: "ResourceLoaderWSDLPlugin: the target \(target.name) has \(configurations.count) \(Self.configurationFileName) files; keep at most one")
        }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("GeneratedSources")
        var arguments = ["generate", document.path, "--output-directory", output.path]
        if let configuration = configurations.first { arguments += ["--config", configuration.path] }
        // The schemas next to the WSDL are inputs too, so that changing one generates again.
        let schemas = files.filter { $0.pathExtension.lowercased() == "xsd" }
        return [
            .buildCommand(
                displayName: "Generating SOAP resources from \(document.lastPathComponent)",
                executable: try context.tool(named: "ResourceLoaderWSDLTool").url,
                arguments: arguments,
                inputFiles: [document] + configurations + schemas,
                outputFiles: Self.outputFileNames.map { output.appendingPathComponent($0) })
        ]
    }
}
