// `swift run --package-path Examples user-details 12345`: calls the SOAP operation
// getUserDetails through the WorldDirectory facade, from the embedded server unless --base-url
// names a real service, and prints the user's profile.
import DemoSupport
import ExampleResources
import Foundation
import ResourceLoader

let status = await Demo.run(usage: "user-details <userID> [--base-url URL] [--via async|completion|operation] [--transport url-session|async-http-client]") {
    directory, arguments in
    guard let userID = arguments.positional.first else {
        throw Demo.UsageError(message: "name a user ID, for example 12345")
    }
    let profile: UserProfile
    switch arguments.style {
    case .async:
        profile = try await directory.profile(for: userID)
    case .completion:
        profile = try await withCheckedContinuation { continuation in
            directory.profile(for: userID, callbackQueue: .main) { result in
                continuation.resume(returning: result)
            }
        }.get()
    case .operation:
        let queue = OperationQueue()
        let operation = directory.userOperation(for: userID)
        queue.addOperation(operation)
        profile = UserProfile(userID: userID, user: try await operation.value)
    }
    return """
        User \(profile.userID) (loaded with \(arguments.style.rawValue) over \(arguments.transport.rawValue)):
          Name:     \(profile.displayName)
          Email:    \(profile.email ?? "—")
          Phone:    \(profile.phoneNumber ?? "—")
          Fax:      \(profile.faxNumber ?? "—")
          Address:  \(profile.address.singleLine)
        """
}
exit(status)
