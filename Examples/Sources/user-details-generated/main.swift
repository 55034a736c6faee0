// `swift run --package-path Examples user-details-generated 12345`: calls the SOAP operation
// getUserDetails through the GetUserDetails resource that the build plugin generates from
// UserService.wsdl (the UserServiceClient module), from the embedded server unless --base-url
// names a real service, and prints the user.
import DemoSupport
import Foundation
import ResourceLoader
import UserServiceClient

let status = await Demo.run(usage: "user-details-generated <userID> [--base-url URL] [--transport url-session|async-http-client]") {
    directory, arguments in
    guard let userID = arguments.positional.first else {
        throw Demo.UsageError(message: "name a user ID, for example 12345")
    }
    // The generated resource: the request is the operation's element, the model its response's.
    let service = ResourceService<GetUserDetails>(session: arguments.transport.session)
    let response = try await service.fetch(GetUserDetails(GetUserDetailsType(userID: userID), url: directory.endpoints.users))
    let user = response.getUserDetails.userModel
    return """
        User \(userID) (generated from UserService.wsdl, over \(arguments.transport.rawValue)):
          Name:     \(user.firstName) \(user.lastName)
          Email:    \(user.email)
          Phone:    \(user.phoneNumber)
          Address:  \([user.street1, user.street2, user.city, user.postCode].filter { !$0.isEmpty }.joined(separator: ", "))
        """
}
exit(status)
