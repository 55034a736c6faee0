/// Hands out unique names in one scope, deterministically: the first claim of a name gets it,
/// later claims of the same name (compared case-insensitively, so that files and case-insensitive
/// tools never confuse them) get a suffix, then a number.
struct NameRegistry {
    private var taken: Set<String>

    /// A scope in which `reserved` are already taken.
    init(reserved: Set<String> = []) {
        taken = Set(reserved.map { $0.lowercased() })
    }

    /// `base` if it is free, else `base + suffix`, else `base + suffix + 2`, `3`…
    mutating func claim(_ base: String, suffix: String = "") -> String {
        var candidate = base
        if taken.contains(candidate.lowercased()) {
            candidate = base + suffix
            var counter = 2
            while taken.contains(candidate.lowercased()) {
                candidate = base + suffix + String(counter)
                counter += 1
            }
        }
        taken.insert(candidate.lowercased())
        return candidate
    }
}
