import Foundation
import PackagePlugin

/// A build-tool plugin that generates SOAP resources and models from the `.wsdl` file in a
/// target, with the target's `resourceloader-wsdl.json` as configuration if it has one. A target
/// with several `.wsdl` files (a WSDL and the WSDLs it imports) names the one to generate from
/// in the configuration's `document` key.
///
/// It runs `resourceloader-wsdl generate` into the plugin's work folder; the files it writes
/// have fixed names, so the build graph is known before anything is generated. The build
/// fails, saying why, when the target has no `.wsdl` file, several without a `document` that
/// names one of them, or several configurations, and when generation reports an error
/// diagnostic.
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
        guard configurations.count <= 1 else {
            throw PluginError(description: "ResourceLoaderWSDLPlugin: the target \(target.name) has \(configurations.count) \(Self.configurationFileName) files; keep at most one")
        }
        let document: URL
        do {
            document = try Self.document(among: documents, configuration: configurations.first)
        } catch {
            throw PluginError(description: "ResourceLoaderWSDLPlugin: the target \(target.name) \(error.description)")
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
                inputFiles: documents + configurations + schemas,
                outputFiles: Self.outputFileNames.map { output.appendingPathComponent($0) })
        ]
    }

    /// The WSDL to generate from: the one of `documents`, or the one the configuration's
    /// `document` key names, relative to the configuration's folder. (`GenerateSOAPResources` has the same
    /// function: a plugin can depend on no library to share it through.)
    ///
    /// - Throws: ``PluginError`` saying, after the target's name, why none can be chosen.
    static func document(among documents: [URL], configuration: URL?) throws(PluginError) -> URL {
        let named: String?
        if let configuration {
            guard let data = try? Data(contentsOf: configuration),
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            else { throw PluginError(description: "has a \(configurationFileName) that is not a JSON object") }
            guard object["document"] == nil || object["document"] is String else {
                throw PluginError(description: "has a \(configurationFileName) whose document is not a string")
            }
            named = object["document"] as? String
        } else {
            named = nil
        }
        let list = documents.map(\.lastPathComponent).sorted().joined(separator: ", ")
        if let named, let configuration {
            let wanted = configuration.deletingLastPathComponent().appendingPathComponent(named).standardizedFileURL.path
            guard let document = documents.first(where: { $0.standardizedFileURL.path == wanted }) else {
                throw PluginError(description: "has no .wsdl file \(named), which \(configurationFileName) names as its document (it has: \(list.isEmpty ? "none" : list))")
            }
            return document
        }
        guard let document = documents.first else { throw PluginError(description: "has no .wsdl file; add the one to generate from") }
        guard documents.count == 1 else {
            throw PluginError(description: "has \(documents.count) .wsdl files (\(list)); name the one to generate from as \"document\" in \(configurationFileName)")
        }
        return document
    }
}
