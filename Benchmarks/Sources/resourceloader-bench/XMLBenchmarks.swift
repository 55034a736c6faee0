import Foundation
import ResourceLoader
import SWXMLHash
import XMLCoder

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The seeds' user: nine text fields.
struct User: Codable, Hashable, Sendable {
    var city = ""
    var email = ""
    var faxNumber = ""
    var firstName = ""
    var lastName = ""
    var phoneNumber = ""
    var postCode = ""
    var street1 = ""
    var street2 = ""

    /// The user the generator writes as record `index`.
    static func expected(_ index: Int) -> User {
        User(
            city: "London", email: "user\(index)@example.com", faxNumber: "1234567891",
            firstName: "Fred\(index)", lastName: "Jones", phoneNumber: "1234567891",
            postCode: "IG1 1YT", street1: "\(index) High Street", street2: "street2")
    }
}

// MARK: - Input

/// A getUserDetails SOAP 1.1 response holding `count` `userModel` records (about 280 bytes
/// each), built deterministically in memory.
func userDetailsDocument(count: Int) -> Data {
    var text = ""
    text.reserveCapacity(300 + count * 300)
    text += #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
    text += #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">"#
    text += "<soap:Body><getUserDetailsResponse><getUserDetails>\n"
    for index in 0..<count {
        let user = User.expected(index)
        text += "<userModel>\n"
        text += "  <city>\(user.city)</city>\n"
        text += "  <email>\(user.email)</email>\n"
        text += "  <faxNumber>\(user.faxNumber)</faxNumber>\n"
        text += "  <firstName>\(user.firstName)</firstName>\n"
        text += "  <lastName>\(user.lastName)</lastName>\n"
        text += "  <phoneNumber>\(user.phoneNumber)</phoneNumber>\n"
        text += "  <postCode>\(user.postCode)</postCode>\n"
        text += "  <street1>\(user.street1)</street1>\n"
        text += "  <street2>\(user.street2)</street2>\n"
        text += "</userModel>\n"
    }
    text += "</getUserDetails></getUserDetailsResponse></soap:Body></soap:Envelope>\n"
    return Data(text.utf8)
}

/// Whether `users` is exactly what ``userDetailsDocument(count:)`` wrote.
func isExpected(_ users: [User], count: Int) -> Bool {
    guard users.count == count else { return false }
    for index in [0, count / 2, count - 1] where index >= 0 && index < count {
        guard users[index] == User.expected(index) else { return false }
    }
    return true
}

// MARK: - (a) Our element tree, mapped by hand

/// The user list built from the element tree with the public look-up API.
struct UserListFromTree: NetworkResourceType, XMLResourceType {
    var url: URL { URL(string: "http://127.0.0.1/UserService")! }

    func model(from document: XMLTree) -> [User]? {
        guard let list = document.root.element(atPath: ["Body", "getUserDetailsResponse", "getUserDetails"]) else {
            return nil
        }
        return list.children(named: "userModel").map { record in
            var user = User()
            for field in record.children {
                switch field.name {
                case "city": user.city = field.text
                case "email": user.email = field.text
                case "faxNumber": user.faxNumber = field.text
                case "firstName": user.firstName = field.text
                case "lastName": user.lastName = field.text
                case "phoneNumber": user.phoneNumber = field.text
                case "postCode": user.postCode = field.text
                case "street1": user.street1 = field.text
                case "street2": user.street2 = field.text
                default: break
                }
            }
            return user
        }
    }
}

// MARK: - (b) Our Decodable path

/// The getUserDetails SOAP call, decoding every `userModel`.
struct GetUserDetails: SOAPResourceType {
    struct Root: Decodable { let userModel: [User] }
    var url: URL { URL(string: "http://127.0.0.1/UserService")! }
    var operation: String { "getUserDetails" }
    var responsePath: [String] { ["getUserDetailsResponse", "getUserDetails"] }
    func model(from root: Root) -> [User] { root.userModel }
}

// MARK: - (c) Raw SAX: the floor

/// An `XMLParser` delegate writing straight into `User` values.
final class RawSAXUserParser: NSObject, XMLParserDelegate {
    private(set) var users: [User] = []
    private var current = User()
    private var text = ""
    private var failed = false

    static func parse(_ data: Data) -> [User]? {
        // `XMLParser(data:)` stops at 10,000,000 bytes on Linux; a stream has no such limit.
        let parser = XMLParser(stream: InputStream(data: data))
        let delegate = RawSAXUserParser()
        parser.delegate = delegate
        guard parser.parse(), !delegate.failed else { return nil }
        return delegate.users
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String]) {
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        switch elementName {
        case "city": current.city = text
        case "email": current.email = text
        case "faxNumber": current.faxNumber = text
        case "firstName": current.firstName = text
        case "lastName": current.lastName = text
        case "phoneNumber": current.phoneNumber = text
        case "postCode": current.postCode = text
        case "street1": current.street1 = text
        case "street2": current.street2 = text
        case "userModel":
            users.append(current)
            current = User()
        default: break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        failed = true
    }
}

// MARK: - (d) SWXMLHash

func parseWithSWXMLHash(_ data: Data) -> [User] {
    let xml = XMLHash.parse(data)
    return xml["soap:Envelope"]["soap:Body"]["getUserDetailsResponse"]["getUserDetails"]["userModel"].all.map { record in
        User(
            city: record["city"].element?.text ?? "",
            email: record["email"].element?.text ?? "",
            faxNumber: record["faxNumber"].element?.text ?? "",
            firstName: record["firstName"].element?.text ?? "",
            lastName: record["lastName"].element?.text ?? "",
            phoneNumber: record["phoneNumber"].element?.text ?? "",
            postCode: record["postCode"].element?.text ?? "",
            street1: record["street1"].element?.text ?? "",
            street2: record["street2"].element?.text ?? "")
    }
}

// MARK: - (e) XMLCoder

private struct CoderEnvelope: Decodable {
    struct Body: Decodable { let getUserDetailsResponse: Response }
    struct Response: Decodable { let getUserDetails: List }
    struct List: Decodable { let userModel: [User] }
    let Body: Body
}

func parseWithXMLCoder(_ data: Data) throws -> [User] {
    let decoder = XMLDecoder()
    decoder.shouldProcessNamespaces = true
    return try decoder.decode(CoderEnvelope.self, from: data).Body.getUserDetailsResponse.getUserDetails.userModel
}

// MARK: - Contenders

enum XMLContender: String, CaseIterable {
    case rawSAX = "raw XMLParser SAX"
    case tree = "ResourceLoader element tree"
    case decodable = "ResourceLoader Decodable"
    case swxmlhash = "SWXMLHash"
    case xmlcoder = "XMLCoder"

    /// The identifier used on the child's command line and in the JSON.
    var key: String {
        switch self {
        case .rawSAX: "raw-sax"
        case .tree: "tree"
        case .decodable: "decodable"
        case .swxmlhash: "swxmlhash"
        case .xmlcoder: "xmlcoder"
        }
    }

    /// Parses `data` into users (the work being measured). Our two paths go through
    /// `result(from:)`, exactly what ``ResourceService`` runs on a response body.
    func parse(_ data: Data) throws -> [User] {
        switch self {
        case .rawSAX:
            guard let users = RawSAXUserParser.parse(data) else { throw HarnessError("raw SAX parse failed") }
            return users
        case .tree:
            return try UserListFromTree().result(from: data).get()
        case .decodable:
            return try GetUserDetails().result(from: data).get()
        case .swxmlhash:
            return parseWithSWXMLHash(data)
        case .xmlcoder:
            return try parseWithXMLCoder(data)
        }
    }
}
