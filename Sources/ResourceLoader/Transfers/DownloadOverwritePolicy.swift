/// What a download does when a file is already at its destination.
///
/// The check is made when the response head arrives, before the body is fetched, and again when
/// the finished, verified file is moved into place, atomically: ``failIfExists`` never replaces a
/// file that appeared while the body was arriving.
public enum DownloadOverwritePolicy: Sendable, Hashable {
    /// Fail with ``ResourceError/fileSystem(_:)`` (operation
    /// ``ResourceError/FileSystemFailure/Operation/place``, code `EEXIST`) and leave the file that
    /// is there as it is. The default.
    case failIfExists
    /// Replace the file that is there, in one atomic rename.
    case replace
}
