import ExampleResources
import FixtureServer
import Foundation
import ResourceLoader
import ResourceLoaderAsyncHTTPClient

/// The parts every demo command shares: arguments, the embedded server, printing and exit codes.
public enum Demo {
    /// How a demo loads its resource.
    public enum Style: String, CaseIterable, Sendable {
        /// `try await` on the facade.
        case async
        /// The facade's completion handler, delivered on the main queue.
        case completion
        /// A `ResourceOperation` on an `OperationQueue`.
        case operation
    }

    /// Which transport a demo sends its requests through.
    public enum Transport: String, CaseIterable, Sendable {
        /// `URLSessionTransport.shared`, the default.
        case urlSession = "url-session"
        /// `AsyncHTTPClientTransport.shared`, from the `ResourceLoaderAsyncHTTPClient` product.
        case asyncHTTPClient = "async-http-client"

        /// The shared transport of this kind.
        public var session: any HTTPTransport {
            switch self {
            case .urlSession: URLSessionTransport.shared
            case .asyncHTTPClient: AsyncHTTPClientTransport.shared
            }
        }
    }

    /// A demo's parsed command line.
    public struct Arguments: Sendable {
        /// The arguments that are not options.
        public var positional: [String] = []
        /// `--base-url URL`: a real service to use instead of the embedded server.
        public var baseURL: URL?
        /// `--via async|completion|operation`. Default: `async`.
        public var style: Style = .async
        /// `--transport url-session|async-http-client`. Default: `url-session`.
        public var transport: Transport = .urlSession

        /// Parses `arguments` (without the program name).
        public init(parsing arguments: [String]) throws(UsageError) {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--base-url":
                    guard let value = remaining.popFirst(), let url = URL(string: value),
                        url.scheme == "http" || url.scheme == "https"
                    else { throw UsageError(message: "--base-url needs an http or https URL") }
                    baseURL = url
                case "--via":
                    guard let value = remaining.popFirst(), let style = Style(rawValue: value) else {
                        throw UsageError(message: "--via needs one of: async, completion, operation")
                    }
                    self.style = style
                case "--transport":
                    guard let value = remaining.popFirst(), let transport = Transport(rawValue: value) else {
                        throw UsageError(message: "--transport needs one of: url-session, async-http-client")
                    }
                    self.transport = transport
                case "-h", "--help":
                    throw UsageError(message: nil)
                default:
                    guard !argument.hasPrefix("--") else { throw UsageError(message: "unknown option \(argument)") }
                    positional.append(argument)
                }
            }
        }
    }

    /// A command line the demo cannot run; `message` is `nil` when help was asked for.
    public struct UsageError: Error {
        /// What is wrong, or `nil` for `--help`.
        public let message: String?

        /// Creates a usage error; `nil` asks for the help text.
        public init(message: String?) {
            self.message = message
        }
    }

    /// Runs a demo: parses the arguments, starts the embedded server unless `--base-url` names
    /// a service, runs `body`, prints its output or its error, and returns the exit code.
    ///
    /// - Returns: 0 on success, 1 when loading failed, 2 for a usage error.
    public static func run(
        usage: String,
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        _ body: (WorldDirectory, Arguments) async throws -> String
    ) async -> Int32 {
        let parsed: Arguments
        do {
            parsed = try Arguments(parsing: arguments)
        } catch {
            if let message = error.message { printError("error: \(message)") }
            printError("usage: \(usage)\n  --base-url URL   use the service at URL instead of the embedded server\n  --via STYLE      load with async (default), completion or operation\n  --transport T    send with url-session (default) or async-http-client")
            return error.message == nil ? 0 : 2
        }
        var server: FixtureServer?
        let baseURL: URL
        if let url = parsed.baseURL {
            baseURL = url
        } else {
            do {
                server = try FixtureServer()
            } catch {
                printError("error: could not start the embedded server: \(error)")
                return 1
            }
            baseURL = server!.baseURL
            print("Embedded fixture server at \(baseURL.absoluteString)")
        }
        defer { server?.stop() }
        let directory = WorldDirectory(baseURL: baseURL, session: parsed.transport.session)
        do {
            print(try await body(directory, parsed))
            return 0
        } catch let error as ResourceError {
            printError("error: \(describe(error))")
            return 1
        } catch let error as UsageError {
            printError("error: \(error.message ?? "")\nusage: \(usage)")
            return 2
        } catch {
            printError("error: \(error)")
            return 1
        }
    }

    /// A readable account of a ``ResourceError``: a SOAP Fault prints its reason.
    public static func describe(_ error: ResourceError) -> String {
        switch error {
        case .soapFault(let fault):
            return "the service answered with a SOAP Fault (\(fault.code)): \(fault.reason)"
        case .httpStatus(let failure):
            return "the service answered HTTP \(failure.statusCode)"
        case .serviceLevel(let underlying):
            return "the service reported an error: \(underlying)"
        default:
            return error.description
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
