import Foundation
import PackagePlugin

/// A command plugin that generates SOAP resources and models into the source tree, for code that
/// is checked in: for each target with a `.wsdl` file (or those named by `--target`), it runs
/// `resourceloader-wsdl generate` with the target's `resourceloader-wsdl.json` if it has one, and
/// writes `Types.swift` to `Types4.swift` and `Operations.swift` into the target's `Generated` folder.
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

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let tool = try context.tool(named: "ResourceLoaderWSDLTool").url
        var generated = 0
        for case let target as SourceModuleTarget in targets {
            let files = target.sourceFiles.map(\.url)
            let documents = files.filter { $0.pathExtension.lowercased() == "wsdl" }
            guard let document = documents.first else {
                if !names.isEmpty { throw CommandError(description: "the target \(target.name) has no .wsdl file") }
                continue
            }
            guard documents.count == 1 else {
                throw CommandError(description: "the target \(target.name) has \(documents.count) .wsdl files; keep exactly one")
            }
            let configurations = files.filter { $0.lastPathComponent == "resourceloader-wsdl.json" }
            guard configurations.count <= 1 else {
                throw CommandError(description: "the target \(target.name) has \(configurations.count) resourceloader-wsdl.json files; keep at most one")
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
}
