import CResourceLoaderZlib
import Foundation
import ResourceLoader

// MARK: - gzip decoding

/// The decoded size of the gzip group's body.
let gzipDecodedBytes = 100_000_000
/// The size of the chunks the body arrives in, and of both contenders' output buffers.
let gzipChunkBytes = 64 * 1024

/// Decodes a 100 MB XML body, gzip-compressed about 4 to 1, arriving in 64 KiB chunks: `ContentDecoder` (as
/// the transfer rules run it, into a counting sink, and into `Data` as the collector does) against
/// zlib's own `inflate` loop on the same chunks with an output buffer of the same size.
func runGzip(_ recorder: Recorder, quick: Bool) throws {
    let size = quick ? gzipDecodedBytes / 10 : gzipDecodedBytes
    let document = variedUsersDocument(bytes: size)
    let body = try gzipCompress(document)
    log("gzip: \(document.count) bytes decoded from a \(body.count)-byte gzip body, in \(gzipChunkBytes)-byte chunks")

    let expected = document.count
    let decoderSink = Contender(name: "ContentDecoder") {
        let decoded = try decodeWithContentDecoder(body)
        guard decoded == expected else { throw HarnessError("ContentDecoder decoded \(decoded) bytes, expected \(expected)") }
        return decoded
    }
    let decoderData = Contender(name: "ContentDecoder into Data") {
        let decoded = try decodeWithContentDecoderIntoData(body)
        guard decoded == expected else { throw HarnessError("ContentDecoder into Data decoded \(decoded) bytes") }
        return decoded
    }
    let zlib = Contender(name: "zlib inflate loop") {
        let decoded = try decodeWithZlib(body)
        guard decoded == expected else { throw HarnessError("zlib decoded \(decoded) bytes, expected \(expected)") }
        return decoded
    }
    // Both decode the body whole, and the body is the same: check once, outside the timing.
    guard try decodeWithContentDecoderBytes(body) == document else { throw HarnessError("ContentDecoder's output differs from the document") }

    let timings = try interleave([decoderSink, decoderData, zlib], rounds: quick ? 3 : 9, sampleSeconds: quick ? 0.2 : 1.0)
    let scenario = "\(document.count / 1_000_000) MB XML from \(body.count / 1_000_000) MB of gzip, \(gzipChunkBytes / 1024) KiB chunks"
    for contender in [decoderSink, decoderData, zlib] {
        let timing = timings[contender.name]!
        recorder.measurements.append(Measurement(
            group: "gzip", scenario: scenario, contender: contender.name,
            secondsPerIteration: timing.secondsPerIteration,
            megabytesPerSecond: Double(document.count) / megabyte / timing.secondsPerIteration,
            allocationsPerIteration: timing.allocations,
            allocatedMegabytesPerIteration: timing.allocatedBytes.map { $0 / megabyte }))
    }
    let ratio = pairedSpeedRatio(timings[decoderSink.name]!.samples, timings[zlib.name]!.samples)
    let throughput = { (name: String) in Double(document.count) / megabyte / timings[name]!.secondsPerIteration }
    recorder.target(
        "gzip.contentdecoder_vs_zlib_inflate", ratio: ratio.ratio, atLeast: 0.8,
        detail: String(format: "decoded MB/s, ContentDecoder vs zlib's own inflate loop, %@ (median of per-round ratios; %@; "
                       + "%.0f vs %.0f MB/s, into Data %.0f MB/s)",
                       scenario, ratio.spread, throughput(decoderSink.name), throughput(zlib.name), throughput(decoderData.name)))
}

/// `bytes` bytes of XML records whose values vary (seeded, the same in every run), so that the
/// body compresses as a real listing does, about 4 to 1, rather than the 40 to 1 of one record
/// repeated.
func variedUsersDocument(bytes: Int) -> [UInt8] {
    var generator = Shuffler()
    var text: [UInt8] = Array(#"<?xml version="1.0" encoding="utf-8"?>"#.utf8) + Array("\n<users>\n".utf8)
    text.reserveCapacity(bytes + 256)
    let cities = ["London", "Paris", "Berlin", "Madrid", "Rome", "Vienna", "Prague", "Lisbon", "Dublin", "Oslo"]
    while text.count < bytes {
        let id = generator.next() % 10_000_000
        let balance = generator.next() % 1_000_000
        let phone = generator.next() % 1_000_000_000
        text += Array("""
              <user id="\(id)"><name>User \(id % 100_003)</name><email>user\(id)@example.com</email>\
            <city>\(cities[Int(generator.next() % 10)])</city><phone>+44 \(phone)</phone>\
            <balance>\(balance / 100).\(balance % 100)</balance></user>

            """.utf8)
    }
    return Array(text.prefix(bytes))
}

/// The body decoded by `ContentDecoder` in `gzipChunkBytes` chunks, into a sink that counts.
@inline(never)
func decodeWithContentDecoder(_ body: [UInt8]) throws -> Int {
    let decoder = ContentDecoder(coding: .gzip, limit: .max)
    var decoded = 0
    try body.withUnsafeBytes { body in
        for start in stride(from: 0, to: body.count, by: gzipChunkBytes) {
            let chunk = UnsafeRawBufferPointer(rebasing: body[start..<min(start + gzipChunkBytes, body.count)])
            try decoder.decode(chunk) { decoded += $0.count }
        }
    }
    try decoder.finish()
    return decoded
}

/// The same, appending into one `Data`, as the collector of a response body does.
@inline(never)
func decodeWithContentDecoderIntoData(_ body: [UInt8]) throws -> Int {
    let decoder = ContentDecoder(coding: .gzip, limit: .max)
    var data = Data()
    try body.withUnsafeBytes { body in
        for start in stride(from: 0, to: body.count, by: gzipChunkBytes) {
            let chunk = UnsafeRawBufferPointer(rebasing: body[start..<min(start + gzipChunkBytes, body.count)])
            try decoder.decode(chunk, appendingTo: &data)
        }
    }
    try decoder.finish()
    return data.count
}

/// The decoded bytes themselves, to check the output once.
func decodeWithContentDecoderBytes(_ body: [UInt8]) throws -> [UInt8] {
    let decoder = ContentDecoder(coding: .gzip, limit: .max)
    var bytes: [UInt8] = []
    try body.withUnsafeBytes { try decoder.decode($0) { bytes += $0 } }
    try decoder.finish()
    return bytes
}

/// The floor: zlib's `inflate` over the same chunks, into an output buffer of the same size,
/// checking only what zlib checks (the gzip trailer).
@inline(never)
func decodeWithZlib(_ body: [UInt8]) throws -> Int {
    // At a fixed address: zlib keeps a pointer back to its stream.
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { stream.deallocate() }
    guard CResourceLoaderZlib_inflateInit2(stream, 16 + 15) == Z_OK else { throw HarnessError("inflateInit2 failed") }
    defer { inflateEnd(stream) }
    let output = UnsafeMutablePointer<Bytef>.allocate(capacity: gzipChunkBytes)
    defer { output.deallocate() }
    var decoded = 0
    var ended = false
    try body.withUnsafeBufferPointer { body in
        for start in stride(from: 0, to: body.count, by: gzipChunkBytes) {
            stream.pointee.next_in = UnsafeMutablePointer(mutating: body.baseAddress! + start)
            stream.pointee.avail_in = UInt32(min(gzipChunkBytes, body.count - start))
            repeat {
                stream.pointee.next_out = output
                stream.pointee.avail_out = UInt32(gzipChunkBytes)
                let code = inflate(stream, Z_NO_FLUSH)
                guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else { throw HarnessError("inflate failed with \(code)") }
                decoded += gzipChunkBytes - Int(stream.pointee.avail_out)
                if code == Z_STREAM_END {
                    ended = true
                    break
                }
            } while stream.pointee.avail_out == 0
        }
    }
    guard ended else { throw HarnessError("zlib: the body ended early") }
    return decoded
}

/// `bytes` as one gzip member, at zlib's default level.
func gzipCompress(_ bytes: [UInt8]) throws -> [UInt8] {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { stream.deallocate() }
    guard CResourceLoaderZlib_deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
        throw HarnessError("deflateInit2 failed")
    }
    defer { deflateEnd(stream) }
    var result = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(bytes.count))))
    var input = bytes
    let code = input.withUnsafeMutableBufferPointer { input in
        result.withUnsafeMutableBufferPointer { output in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            stream.pointee.next_out = output.baseAddress
            stream.pointee.avail_out = UInt32(output.count)
            return deflate(stream, Z_FINISH)
        }
    }
    guard code == Z_STREAM_END else { throw HarnessError("deflate failed with \(code)") }
    result.removeLast(Int(stream.pointee.avail_out))
    return result
}
