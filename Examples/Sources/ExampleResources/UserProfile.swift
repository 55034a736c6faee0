/// What an app shows about a user: a typed response object built from the service's ``User``.
///
/// The service sends nine strings named after its own fields; the app gets values shaped for
/// use. Empty fields become `nil` or disappear, the address is one value with its lines in
/// order, and nothing of the service's wire format — element names, empty strings — leaks out.
public struct UserProfile: Hashable, Sendable {
    /// A postal address.
    public struct Address: Hashable, Sendable {
        /// The street lines, without empty ones.
        public let streetLines: [String]
        /// The city.
        public let city: String
        /// The postcode.
        public let postCode: String

        /// Creates an address.
        public init(streetLines: [String], city: String, postCode: String) {
            self.streetLines = streetLines
            self.city = city
            self.postCode = postCode
        }

        /// The address on one line: `street1, street2, City POSTCODE`.
        public var singleLine: String {
            (streetLines + ["\(city) \(postCode)".trimmingCharacters(in: .whitespaces)])
                .filter { !$0.isEmpty }
                .joined(separator: ", ")
        }
    }

    /// The user's ID.
    public let userID: String
    /// First and last name, as one would address the user.
    public let displayName: String
    /// The email address, if the service has one.
    public let email: String?
    /// The phone number, if the service has one.
    public let phoneNumber: String?
    /// The fax number, if the service has one.
    public let faxNumber: String?
    /// The postal address.
    public let address: Address

    /// Shapes a service ``User`` for the app.
    public init(userID: String, user: User) {
        func present(_ text: String) -> String? {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        self.userID = userID
        displayName = [user.firstName, user.lastName].compactMap(present).joined(separator: " ")
        email = present(user.email)
        phoneNumber = present(user.phoneNumber)
        faxNumber = present(user.faxNumber)
        address = Address(
            streetLines: [user.street1, user.street2].compactMap(present),
            city: present(user.city) ?? "",
            postCode: present(user.postCode) ?? "")
    }
}
