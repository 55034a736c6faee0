import ResourceLoaderWSDL
import Testing

@Suite("Generator: names like generated locals")
struct GeneratorLocalNameTests {
    @Test func fieldsNamedLikeLocalsAndMembersAreQualified() throws {
        let output = try GeneratorSnippets.generate(GeneratorSnippets.hostile)
        let text = output.files.map(\.contents).joined(separator: "\n")
        let derived = try #require(GeneratorSnippets.declaration("Derived", in: text))
        #expect(derived.contains("self.other = try container.decode(String.self, forKey: .other)"))
        #expect(derived.contains("self.container = try container.decodeIfPresent(String.self, forKey: .container)"))
        #expect(derived.contains("try container.encodeIfPresent(self.container, forKey: .container)"))
        #expect(derived.contains("self.other == other.other"))
        #expect(derived.contains("hasher.combine(self.hasher)"))
        let base = try #require(GeneratorSnippets.declaration("Base", in: text))
        #expect(base.contains("let self2: String") && base.contains("let self3: Int32"))
        #expect(!base.contains("`self`"))
        #expect(base.contains("Swift.type(of: self) == Swift.type(of: other)"))
        #expect(!base.contains("let hashValue:"))
        let holder = try #require(GeneratorSnippets.declaration("HolderType", in: text))
        #expect(holder.contains("var self2: String") && !holder.contains("`self`"))
        #expect(!holder.contains("var hashValue:"))
    }
}
