/// Where a construct is in the documents read: the file and the path of elements leading to it.
///
/// The path names each element as written, with its `name` attribute when it has one, such as
/// `/wsdl:definitions/wsdl:binding[@name='OrderBinding']/wsdl:operation[@name='Place']`. It
/// stays stable when the file is reformatted, which a line number would not.
public struct WSDLSourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file, as the reader was given it or resolved it from a `schemaLocation` or `location`.
    public var file: String
    /// The path of elements from the root to the construct.
    public var path: String

    /// Makes a location.
    public init(file: String, path: String) {
        self.file = file
        self.path = path
    }

    /// `file` and `path`, joined by a colon.
    public var description: String { "\(file):\(path)" }

    /// Orders by file, then by path.
    public static func < (lhs: WSDLSourceLocation, rhs: WSDLSourceLocation) -> Bool {
        (lhs.file, lhs.path) < (rhs.file, rhs.path)
    }
}
