/// A user as the SOAP user service describes one: the nine fields of its `userModel` element.
public struct User: Decodable, Hashable, Sendable {
    /// The city of the user's address.
    public let city: String
    /// The user's email address.
    public let email: String
    /// The user's fax number.
    public let faxNumber: String
    /// The user's first name.
    public let firstName: String
    /// The user's last name.
    public let lastName: String
    /// The user's phone number.
    public let phoneNumber: String
    /// The postcode of the user's address.
    public let postCode: String
    /// The first line of the user's street address.
    public let street1: String
    /// The second line of the user's street address.
    public let street2: String

    /// Creates a user from its nine fields.
    public init(
        city: String, email: String, faxNumber: String, firstName: String, lastName: String,
        phoneNumber: String, postCode: String, street1: String, street2: String
    ) {
        self.city = city
        self.email = email
        self.faxNumber = faxNumber
        self.firstName = firstName
        self.lastName = lastName
        self.phoneNumber = phoneNumber
        self.postCode = postCode
        self.street1 = street1
        self.street2 = street2
    }
}
