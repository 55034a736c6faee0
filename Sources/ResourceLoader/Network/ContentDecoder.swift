import CResourceLoaderZlib
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decodes one response body in a ``ContentCoding`` as its bytes arrive, under a size limit.
///
/// Make one decoder per response, pass it the body's bytes in the order they arrive, chunk by
/// chunk, with ``decode(_:into:)`` (or a convenience built on it), and call ``finish()`` when the
/// body has ended: a decoder only knows a body is whole when its compressed stream has ended, and
/// ``finish()`` is where a body cut short fails.
///
/// - gzip bodies are decoded with zlib's own gzip wrapper, which checks each member's CRC-32 and
///   ISIZE trailer. A body may hold several gzip members one after the other (RFC 1952 allows
///   it, and the gzip tool decodes them so): their contents are decoded in order, as one body.
///   Bytes after a member that do not start another one (`1f`, gzip's first magic byte) are
///   ``ContentDecodingError/trailingData(offset:)``, and so is anything after the end of a
///   deflate stream.
/// - deflate bodies are zlib streams (RFC 1950), checked by their Adler-32 trailer. Some servers
///   (old IIS among them) send raw deflate data (RFC 1951) under that name; as browsers do, a
///   body whose first two bytes are not a valid zlib header is decoded as raw deflate, which
///   carries no checksum: only its end-of-stream mark proves it whole.
/// - identity bodies pass through unchanged, counted against the limit.
///
/// A body of no bytes at all decodes to no bytes in every coding (servers label empty answers
/// such as `204 No Content` with the coding of the resource).
///
/// The output is bounded as it is produced: zlib is never asked for more than one byte past
/// `limit`, and the call that would take the total past `limit` throws
/// ``ResourceError/responseTooLarge(limit:)`` without inflating the rest, so a body of gigabytes
/// of zeros compressed into a few megabytes fails after `limit` bytes, in the memory of one
/// output buffer (``outputBufferSize``). The sink never receives more than `limit` bytes in all.
///
/// A corrupt or truncated body throws ``ResourceError/transport(_:underlying:)`` with the code
/// `URLError.Code.cannotDecodeContentData` and a ``ContentDecodingError`` saying why. Errors are
/// final: once a call has thrown, every later call throws the same error.
///
/// The decoder is not `Sendable`: it belongs to the one task that reads the body.
package final class ContentDecoder {
    /// The size of the buffer zlib inflates into; the sink receives at most this many bytes a call.
    package static let outputBufferSize = 64 * 1024

    /// The coding the body is decoded from.
    package let coding: ContentCoding
    /// The most decoded bytes the body may have.
    package let limit: Int
    /// The decoded bytes passed to the sink so far.
    package private(set) var decodedByteCount = 0
    /// The bytes of the body (before decoding) consumed so far.
    package private(set) var encodedByteCount = 0

    /// zlib's state, at a fixed address (zlib keeps a pointer back to it); `nil` for identity.
    private let stream: UnsafeMutablePointer<z_stream>?
    /// The buffer zlib inflates into; empty for identity.
    private let output: UnsafeMutableRawBufferPointer
    /// Whether `inflateInit2` succeeded on `stream`, so that `inflateEnd` is owed exactly once.
    private var isInflating = false
    /// Whether the current gzip member or zlib or raw deflate stream has ended.
    private var streamEnded = false
    /// deflate only: the body's first byte, while the second (which decides between a zlib
    /// stream and raw deflate) has not arrived.
    private var pendingHeaderByte: UInt8?
    /// The error a call threw; every later call throws it again.
    private var failure: (any Error)?

    /// Creates a decoder for one body in `coding` that may decode to at most `limit` bytes.
    package init(coding: ContentCoding, limit: Int) {
        self.coding = coding
        self.limit = max(0, limit)
        if coding == .identity {
            stream = nil
            output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        } else {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            self.stream = stream
            output = .allocate(byteCount: Self.outputBufferSize, alignment: 16)
        }
    }

    deinit {
        if let stream {
            if isInflating { inflateEnd(stream) }
            stream.deinitialize(count: 1)
            stream.deallocate()
            output.deallocate()
        }
    }

    /// Decodes the next chunk of the body, passing the decoded bytes to `sink` in order, in one
    /// or more calls (none while the chunk only completes a header or a trailer).
    ///
    /// - Throws: ``ResourceError/responseTooLarge(limit:)`` when the body decodes to more than
    ///   ``limit`` bytes; ``ResourceError/transport(_:underlying:)`` with
    ///   `URLError.Code.cannotDecodeContentData` and a ``ContentDecodingError`` when it is not a
    ///   valid body in its coding; whatever `sink` throws.
    package func decode(_ chunk: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let failure { throw failure }
        guard !chunk.isEmpty else { return }
        do {
            guard let stream else { return try pass(chunk, to: sink) }
            try feed(chunk, through: stream, to: sink)
        } catch let error as ContentDecodingError {
            let wrapped = ResourceError.transport(.cannotDecodeContentData, underlying: error)
            failure = wrapped
            throw wrapped
        } catch {
            failure = error
            throw error
        }
    }

    /// Ends the body: succeeds when its compressed stream has ended (or no byte arrived at all).
    ///
    /// - Throws: ``ResourceError/transport(_:underlying:)`` with
    ///   `URLError.Code.cannotDecodeContentData` and ``ContentDecodingError/truncated`` when the
    ///   body stopped inside a compressed stream; the error an earlier call threw.
    package func finish() throws {
        if let failure { throw failure }
        guard coding != .identity else { return }
        if pendingHeaderByte != nil || (isInflating && !streamEnded) {
            let error = ResourceError.transport(.cannotDecodeContentData, underlying: ContentDecodingError.truncated)
            failure = error
            throw error
        }
    }

    // MARK: - Identity

    private func pass(_ chunk: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard chunk.count <= limit - decodedByteCount else { throw ResourceError.responseTooLarge(limit: limit) }
        encodedByteCount += chunk.count
        decodedByteCount += chunk.count
        try sink(chunk)
    }

    // MARK: - Inflating

    private func feed(
        _ chunk: UnsafeRawBufferPointer, through stream: UnsafeMutablePointer<z_stream>,
        to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var input = chunk
        if !isInflating {
            switch coding {
            case .gzip:
                try start(stream, windowBits: 16 + 15)
            case .deflate:
                // The first two bytes decide between a zlib stream and raw deflate.
                let header: (UInt8, UInt8)
                if let pending = pendingHeaderByte {
                    header = (pending, input[0])
                } else if input.count >= 2 {
                    header = (input[0], input[1])
                } else {
                    pendingHeaderByte = input[0]
                    return
                }
                try start(stream, windowBits: Self.isZlibHeader(header.0, header.1) ? 15 : -15)
                if let pending = pendingHeaderByte {
                    pendingHeaderByte = nil
                    _ = try withUnsafeBytes(of: pending) { try inflate(stream, $0, to: sink) }
                }
            case .identity:
                preconditionFailure("an identity body is never inflated")
            }
        }
        while !input.isEmpty {
            if streamEnded {
                // Only another gzip member may follow; it starts with gzip's magic byte 1f.
                guard coding == .gzip, input[0] == 0x1f else {
                    throw ContentDecodingError.trailingData(offset: encodedByteCount)
                }
                inflateReset(stream)
                streamEnded = false
            }
            let consumed = try inflate(stream, input, to: sink)
            input = UnsafeRawBufferPointer(rebasing: input[consumed...])
        }
    }

    private func start(_ stream: UnsafeMutablePointer<z_stream>, windowBits: Int32) throws {
        let code = CResourceLoaderZlib_inflateInit2(stream, windowBits)
        guard code == Z_OK else { throw ContentDecodingError.decompressorFailure(code: code) }
        isInflating = true
    }

    /// Inflates `input` until it is used up or the stream ends; returns how many of its bytes
    /// zlib consumed.
    @discardableResult
    private func inflate(
        _ stream: UnsafeMutablePointer<z_stream>, _ input: UnsafeRawBufferPointer,
        to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        let given = UInt32(clamping: input.count)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = given
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        while true {
            // Never ask for more than one byte past the limit, so that a bomb stops there.
            let remaining = limit - decodedByteCount
            let room = remaining >= output.count ? output.count : remaining + 1
            stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = UInt32(room)
            let availableBefore = stream.pointee.avail_in
            let code = CResourceLoaderZlib.inflate(stream, Z_NO_FLUSH)
            encodedByteCount += Int(availableBefore - stream.pointee.avail_in)
            let produced = room - Int(stream.pointee.avail_out)
            switch code {
            case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
                break
            case Z_NEED_DICT:
                throw ContentDecodingError.invalidHeader
            case Z_DATA_ERROR:
                throw dataError(stream)
            default:
                throw ContentDecodingError.decompressorFailure(code: code)
            }
            if produced > 0 {
                guard produced <= remaining else { throw ResourceError.responseTooLarge(limit: limit) }
                decodedByteCount += produced
                try sink(UnsafeRawBufferPointer(start: output.baseAddress, count: produced))
            }
            if code == Z_STREAM_END {
                streamEnded = true
                break
            }
            // A full buffer may leave output pending; otherwise zlib stops only for more input.
            if stream.pointee.avail_out == 0 { continue }
            if stream.pointee.avail_in == 0 { break }
            // Room and input left, yet no progress: zlib's contract rules it out.
            guard code != Z_BUF_ERROR else { throw ContentDecodingError.decompressorFailure(code: code) }
        }
        return Int(given - stream.pointee.avail_in)
    }

    /// The case of `Z_DATA_ERROR` zlib's message names. zlib has one return code for every kind
    /// of bad data; its messages tell them apart, and are the same in every zlib since 1.2.
    private func dataError(_ stream: UnsafeMutablePointer<z_stream>) -> ContentDecodingError {
        let message = stream.pointee.msg.map { String(cString: $0) } ?? ""
        switch message {
        case "incorrect data check":
            return .checksumMismatch
        case "incorrect length check":
            return .lengthMismatch
        case "incorrect header check", "unknown compression method", "invalid window size",
            "unknown header flags set", "header crc mismatch":
            return .invalidHeader
        default:
            return .corrupt(offset: encodedByteCount)
        }
    }

    /// Whether two bytes start a zlib stream (RFC 1950): method 8 (deflate), a window of at most
    /// 32 KiB, and a header that is a multiple of 31.
    static func isZlibHeader(_ first: UInt8, _ second: UInt8) -> Bool {
        first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }
}

// MARK: - Conveniences

extension ContentDecoder {
    /// Decodes the next chunk of the body and appends the decoded bytes to `body`.
    ///
    /// - Throws: what ``decode(_:into:)`` throws. `body` then holds the bytes decoded before.
    package func decode(_ chunk: UnsafeRawBufferPointer, appendingTo body: inout Data) throws {
        try decode(chunk) { decoded in
            body.append(decoded.baseAddress!.assumingMemoryBound(to: UInt8.self), count: decoded.count)
        }
    }

    /// Decodes the next chunk of the body and returns its decoded bytes.
    package func decode(_ chunk: UnsafeRawBufferPointer) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try decode(chunk) { bytes.append(contentsOf: $0) }
        return bytes
    }
}

/// A decoder holds zlib's state for one body, read by one task.
@available(*, unavailable)
extension ContentDecoder: Sendable {}
