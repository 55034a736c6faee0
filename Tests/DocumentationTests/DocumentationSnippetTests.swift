import Foundation
import Testing

/// Keeps the DocC articles, the README and `Docs/` honest: every `swift` code block in them must
/// stand, line for line (ignoring indentation), in one of the snippet files of this target, which
/// the compiler checks. A block whose first line is `// Package.swift` is a manifest fragment and is
/// exempt.
@Suite("Documentation snippets")
struct DocumentationSnippetTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let catalog = testsDirectory
        .appendingPathComponent("../../Sources/ResourceLoader/ResourceLoader.docc").standardized

    static let readme = testsDirectory.appendingPathComponent("../../README.md").standardized

    /// The reference documents of `Docs/`.
    static func references() throws -> [URL] {
        let folder = testsDirectory.appendingPathComponent("../../Docs").standardized
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func articles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The `swift` fenced blocks of a Markdown text, each as its lines with indentation removed.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                if current!.first != "// Package.swift" { blocks.append(current!) }
                current = nil
            } else if current != nil {
                current!.append(trimmed)
            }
        }
        return blocks
    }

    static func snippetLines() throws -> [String] {
        try FileManager.default.contentsOfDirectory(at: testsDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent != "DocumentationSnippetTests.swift" }
            .flatMap { try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "\n") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func theCatalogHasArticlesWithCode() throws {
        let articles = try Self.articles()
        #expect(articles.contains { $0.lastPathComponent == "GettingStarted.md" })
        let blocks = try articles.flatMap { Self.swiftBlocks(in: try String(contentsOf: $0, encoding: .utf8)) }
        #expect(blocks.count >= 4)
    }

    @Test func everyArticleCodeBlockIsCompiledBySomeSnippetFile() throws {
        let lines = try Self.snippetLines()
        for article in try Self.articles() + [Self.readme] + Self.references() {
            for block in Self.swiftBlocks(in: try String(contentsOf: article, encoding: .utf8)) {
                let found = lines.indices.contains { start in
                    start + block.count <= lines.count && Array(lines[start..<start + block.count]) == block
                }
                #expect(found, "\(article.lastPathComponent): a code block is not in any snippet file:\n\(block.joined(separator: "\n"))")
            }
        }
    }

    @Test func theCheckFindsABlockThatIsMissing() throws {
        let blocks = Self.swiftBlocks(
            in: "Text\n```swift\nlet x = 1\n  print(x)\n```\n```\nnot swift\n```\n```swift\n// Package.swift\nlet p = 1\n```")
        #expect(blocks == [["let x = 1", "print(x)"]])
        let lines = try Self.snippetLines()
        let block = ["let definitelyNotInAnySnippet = 42"]
        #expect(!lines.indices.contains { Array(lines[$0..<min($0 + 1, lines.count)]) == block })
    }
}
