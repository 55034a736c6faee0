import Foundation

/// Reads the SHA-256 a response declares in `Content-Digest` or `Repr-Digest` (RFC 9530).
///
/// Both fields are structured-field dictionaries (RFC 8941) whose members name an algorithm and
/// carry a byte sequence, as in `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`. Only
/// `sha-256` is read; other algorithms are ignored. A field that is not a valid dictionary, or
/// whose `sha-256` member is not a 32-byte byte sequence, is ignored as a whole, as RFC 8941
/// says for a field that fails to parse.
enum DigestFields {
    /// The `sha-256` digest in the value of a `Content-Digest` or `Repr-Digest` field, if any.
    static func sha256(in fieldValue: String) -> SHA256Digest? {
        var found: SHA256Digest?
        for member in fieldValue.split(separator: ",", omittingEmptySubsequences: false) {
            let member = member.trimmingCharacters(in: .whitespaces)
            guard let equals = member.firstIndex(of: "=") else {
                // A bare key is a boolean member: valid, but no digest.
                guard Self.isKey(Substring(member)) else { return nil }
                continue
            }
            let key = member[..<equals]
            guard Self.isKey(key) else { return nil }
            var value = member[member.index(after: equals)...]
            // Parameters follow a `;`; a byte sequence never contains one.
            if let semicolon = value.firstIndex(of: ";") { value = value[..<semicolon] }
            guard key == "sha-256" else { continue }
            guard value.count >= 2, value.first == ":", value.last == ":",
                let bytes = Data(base64Encoded: String(value.dropFirst().dropLast())),
                let digest = SHA256Digest(bytes: bytes)
            else { return nil }
            found = digest
        }
        return found
    }

    /// `true` for an RFC 8941 key: a lowercase letter or `*`, then lowercase letters, digits,
    /// `_`, `-`, `.` and `*`.
    private static func isKey(_ key: Substring) -> Bool {
        guard let first = key.unicodeScalars.first, first == "*" || ("a"..."z").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_-.*".unicodeScalars.contains($0) }
    }
}
