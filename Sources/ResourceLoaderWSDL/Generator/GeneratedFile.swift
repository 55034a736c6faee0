/// A Swift source file the generator writes: a fixed name and its text.
public struct GeneratedFile: Sendable, Hashable {
    /// The file's name, such as `Types.swift`: the same for every document, so a build graph can
    /// name the outputs before generating.
    public var name: String
    /// The Swift source.
    public var contents: String

    /// Makes a file.
    public init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}
