import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The nine fields of the seeds' user.
struct SeedUser: Decodable, Hashable, Sendable {
    let city: String
    let email: String
    let faxNumber: String
    let firstName: String
    let lastName: String
    let phoneNumber: String
    let postCode: String
    let street1: String
    let street2: String
}

/// Builds a `[String: String]` from the leaf elements below `userModel`, like the seeds' parser
/// and factory.
struct TreeResource: NetworkResourceType, XMLResourceType {
    var url = URL(string: "https://api.example.com/user.xml")!
    var xmlParsingOptions = XMLParsingOptions()

    func model(from document: XMLTree) -> [String: String]? {
        document.root.leafTexts(below: "userModel")
    }
}

/// Decodes the seed user from the element at a path.
struct DecodedUserResource: NetworkResourceType, XMLDecodableResourceType {
    typealias Model = SeedUser
    var url = URL(string: "https://api.example.com/user.xml")!
    var elementPath = ["Body", "getUserDetailsResponse", "getUserDetails", "userModel"]
}

/// A SOAP call with configurable version, namespace, action and parameters.
struct UserDetailsCall: SOAPResourceType {
    typealias Model = SeedUser
    var userID = "12345"
    var soapVersion: SOAPVersion = .v1_1
    var operationNamespace: String?
    var soapAction: String? = "getUserDetails"
    var extraParameters = SOAPParameters()

    var url: URL { URL(string: "https://example.com/services/UserService")! }
    var operation: String { "getUserDetails" }
    var parameters: SOAPParameters {
        var parameters: SOAPParameters = ["userID": .text(userID)]
        parameters.entries += extraParameters.entries
        return parameters
    }
    var responsePath: [String] { ["getUserDetailsResponse", "getUserDetails", "userModel"] }
}

extension SeedUser {
    static let fred = SeedUser(
        city: "London", email: "fred.jones@example.com", faxNumber: "1234567891", firstName: "Fred",
        lastName: "Jones", phoneNumber: "1234567891", postCode: "IG1 1YT", street1: "street1", street2: "street2")
}

/// The error `XMLTree` refuses a document with, or `nil` when it parses.
func treeParsingError(_ data: Data, options: XMLParsingOptions = XMLParsingOptions()) -> XMLParsingError? {
    do {
        _ = try XMLTree(data: data, options: options)
        return nil
    } catch {
        return error
    }
}

/// The error `XMLTree` refuses a document given as text with, or `nil` when it parses.
func treeParsingError(_ text: String, options: XMLParsingOptions = XMLParsingOptions()) -> XMLParsingError? {
    treeParsingError(Data(text.utf8), options: options)
}
