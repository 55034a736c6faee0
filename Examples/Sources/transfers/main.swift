// `swift run --package-path Examples transfers [<file>]`: uploads a file (a generated one unless
// a path is given) to the embedded server as multipart/form-data, then downloads a 3 MiB file
// with a progress bar on the standard error. The demo asks the server to cut the first download
// part-way; it keeps the partial file, resumes it with Range and If-Range, and checks the
// SHA-256 of the result. Files go to a folder of the temporary directory, printed at the end.
import DemoSupport
import ExampleResources
import Foundation
import ResourceLoader

let status = await Demo.run(usage: "transfers [<file to upload>] [--base-url URL] [--transport T]") { directory, arguments in
    guard arguments.style == .async else {
        throw Demo.UsageError(message: "transfers runs with async only")
    }
    let file = arguments.positional.first.map { URL(fileURLWithPath: $0) }
    let workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("resourceloader-transfers", isDirectory: true)
    let demo = TransferDemo(endpoints: directory.endpoints, transport: arguments.transport.session, workDirectory: workDirectory)
    return try await demo.run(uploading: file).description
}
exit(status)
