import Foundation

/// The command-line entry point: `resourceloader-wsdl <subcommand> …`.
@main
enum Tool {
    static let usage = """
        USAGE: resourceloader-wsdl <subcommand>

        SUBCOMMANDS:
          check <wsdl>            Read a WSDL and print its operations and diagnostics.
          generate <wsdl> [--config <json>] --output-directory <dir>
                                  Generate Swift resources and models from a WSDL.

        See 'resourceloader-wsdl <subcommand> --help'.
        """

    static func main() {
        let (output, status) = run(Array(CommandLine.arguments.dropFirst()))
        FileHandle.standardOutput.write(Data(output.utf8))
        exit(status)
    }

    /// Runs the subcommand `arguments` name and returns what to print and the exit status.
    static func run(_ arguments: [String]) -> (output: String, status: Int32) {
        guard let subcommand = arguments.first else { return (usage + "\n", 64) }
        switch subcommand {
        case "check":
            do throws(CheckCommand.UsageError) {
                return try CheckCommand(arguments: Array(arguments.dropFirst())).run()
            } catch {
                switch error {
                case .help: return (CheckCommand.usage + "\n", 0)
                case .message(let message): return ("error: \(message)\n\n\(CheckCommand.usage)\n", 64)
                }
            }
        case "generate":
            do throws(CheckCommand.UsageError) {
                return try GenerateCommand(arguments: Array(arguments.dropFirst())).run()
            } catch {
                switch error {
                case .help: return (GenerateCommand.usage + "\n", 0)
                case .message(let message): return ("error: \(message)\n\n\(GenerateCommand.usage)\n", 64)
                }
            }
        case "-h", "--help", "help":
            return (usage + "\n", 0)
        default:
            return ("error: unknown subcommand \(subcommand)\n\n\(usage)\n", 64)
        }
    }
}
