import Foundation

/// Reads the test fixtures in `Fixtures/`.
enum Fixtures {
    static func data(_ name: String, extension fileExtension: String = "xml") throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: fileExtension, subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }

    static func string(_ name: String, extension fileExtension: String = "xml") throws -> String {
        String(decoding: try data(name, extension: fileExtension), as: UTF8.self)
    }
}
