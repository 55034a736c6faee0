import Foundation

/// Where a reading takes its files from: the file system, or files given in memory by path.
enum DocumentSource: Sendable {
    /// Files on disk, by absolute or relative path.
    case fileSystem
    /// Files in memory, by path.
    case memory([String: Data])

    /// The bytes of the file at `path`, or why there are none.
    func data(atPath path: String) -> Result<Data, DocumentSourceFailure> {
        switch self {
        case .fileSystem:
            do {
                return .success(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                return .failure(DocumentSourceFailure(reason: FileManager.default.fileExists(atPath: path) ? "not readable" : "no such file"))
            }
        case .memory(let files):
            guard let data = files[path] else { return .failure(DocumentSourceFailure(reason: "no such file")) }
            return .success(data)
        }
    }

    /// `location` resolved against the folder of `file`, with `.` and `..` segments removed.
    static func resolve(_ location: String, relativeTo file: String) -> String {
        if location.hasPrefix("/") { return normalized(location) }
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        return normalized(folder.isEmpty ? location : folder.joined(separator: "/") + "/" + location)
    }

    /// `path` without `.` segments, and with each `..` removing the segment before it (kept at
    /// the start of a relative path).
    static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var segments: [Substring] = []
        for segment in path.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..":
                if let last = segments.last, last != ".." { segments.removeLast() } else if !absolute { segments.append(segment) }
            default: segments.append(segment)
            }
        }
        return (absolute ? "/" : "") + segments.joined(separator: "/")
    }
}

/// Why a file could not be read.
struct DocumentSourceFailure: Error, Sendable {
    let reason: String
}
