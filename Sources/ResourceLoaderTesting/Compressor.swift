import CResourceLoaderZlib

/// Makes compressed bodies with zlib's own `deflate`, for the content decoding tests and the
/// transport conformance checks, so that no binary fixture is checked in.
package enum Compressor {
    /// The container around the deflate data.
    package enum Format {
        /// gzip (RFC 1952): a 10-byte header, the data, CRC-32 and ISIZE.
        case gzip
        /// A zlib stream (RFC 1950): a 2-byte header, the data, Adler-32.
        case zlib
        /// Raw deflate (RFC 1951), with no header or trailer.
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: 16 + 15
            case .zlib: 15
            case .raw: -15
            }
        }
    }

    /// `bytes` compressed whole in `format`.
    package static func compress(_ bytes: [UInt8], _ format: Format, level: Int32 = 6) -> [UInt8] {
        var deflater = Deflater(format, level: level)
        return deflater.deflate(bytes, flush: Z_FINISH)
    }

    /// A body in `format` that decodes to `mebibytes` MiB of zeros, made from one compressed MiB
    /// repeated, in about a thousandth of that: zlib compresses a run of zeros at most about
    /// 1030 to 1. A full flush ends each copy on a byte boundary with the compressor's state
    /// reset, so the copies are independent and can follow each other. The trailer is zeros: a
    /// decoder that honours its limit stops long before it.
    package static func zeros(mebibytes: Int, _ format: Format) -> [UInt8] {
        var deflater = Deflater(.raw, level: 9)
        let block = deflater.deflate([UInt8](repeating: 0, count: 1 << 20), flush: Z_FULL_FLUSH)
        let end = deflater.deflate([], flush: Z_FINISH)
        var body: [UInt8]
        switch format {
        case .gzip: body = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        case .zlib: body = [0x78, 0xDA]
        case .raw: body = []
        }
        body.reserveCapacity(body.count + block.count * mebibytes + end.count + 8)
        for _ in 0..<mebibytes { body += block }
        body += end
        switch format {
        case .gzip: body += [UInt8](repeating: 0, count: 8)
        case .zlib: body += [UInt8](repeating: 0, count: 4)
        case .raw: break
        }
        return body
    }

    /// One deflate stream, fed in pieces.
    private struct Deflater: ~Copyable {
        let stream: UnsafeMutablePointer<z_stream>

        init(_ format: Format, level: Int32) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let code = CResourceLoaderZlib_deflateInit2(stream, level, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY)
            precondition(code == Z_OK, "deflateInit2 failed with \(code)")
        }

        deinit {
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }

        /// Compresses `bytes` and returns the output `flush` makes available.
        mutating func deflate(_ bytes: [UInt8], flush: Int32) -> [UInt8] {
            var input = bytes
            var result: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            input.withUnsafeMutableBufferPointer { input in
                stream.pointee.next_in = input.baseAddress
                stream.pointee.avail_in = UInt32(input.count)
                while true {
                    let code = buffer.withUnsafeMutableBufferPointer { output in
                        stream.pointee.next_out = output.baseAddress
                        stream.pointee.avail_out = UInt32(output.count)
                        return CResourceLoaderZlib.deflate(stream, flush)
                    }
                    precondition(code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR, "deflate failed with \(code)")
                    result += buffer[0..<(buffer.count - Int(stream.pointee.avail_out))]
                    if stream.pointee.avail_out != 0 || code == Z_STREAM_END { break }
                }
                stream.pointee.next_in = nil
            }
            return result
        }
    }
}
