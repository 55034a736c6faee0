/// A term of a content model with how often it occurs (`minOccurs`, `maxOccurs`).
public struct XSDParticle: Sendable, Hashable {
    /// The least number of occurrences; 1 unless written.
    public var minOccurs: Int
    /// The greatest number of occurrences, or `nil` for `unbounded`; 1 unless written.
    public var maxOccurs: Int?
    /// What occurs.
    public var term: XSDTerm

    /// Makes a particle.
    public init(minOccurs: Int = 1, maxOccurs: Int? = 1, term: XSDTerm) {
        self.minOccurs = minOccurs
        self.maxOccurs = maxOccurs
        self.term = term
    }

    /// Whether it may be absent.
    public var isOptional: Bool { minOccurs == 0 }

    /// Whether it may occur more than once.
    public var isRepeated: Bool { maxOccurs.map { $0 > 1 } ?? true }
}
