#if AsyncHTTPClient
import Foundation
import NIOCore

extension ByteBuffer {
    /// Pieces at least this large are handed on without a copy (see ``sharedData``).
    static let sharingThreshold = 16 * 1024

    /// The readable bytes as `Data`: sharing the buffer's storage when there are at least
    /// ``sharingThreshold`` of them, copied when fewer.
    ///
    /// A shared `Data` keeps the storage alive until it is released. NIO never writes into
    /// storage that another value still holds (it copies first), so the bytes cannot change
    /// under the `Data`. A small piece is copied instead, so that a few bytes do not keep a
    /// whole receive buffer alive and NIO can reuse that buffer for the next read.
    var sharedData: Data {
        let count = readableBytes
        return withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            guard count >= Self.sharingThreshold, let base = bytes.baseAddress else { return Data(bytes) }
            let owner = storage.takeUnretainedValue()
            return Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: count,
                deallocator: .custom { _, _ in withExtendedLifetime(owner) {} })
        }
    }
}
#endif
