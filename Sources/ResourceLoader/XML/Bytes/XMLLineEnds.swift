/// Lines as XML 1.0 (§2.11) ends them, for the line and column of an error: LF, CR LF and a
/// lone CR each end one line. Columns count bytes from the line's start.
struct XMLLineEnds {
    /// The current line, from 1.
    var line = 1
    /// The offset where the current line starts.
    var lineStart = 0
    /// Whether the last byte counted was a CR (an LF right after it ends no other line).
    var afterCarriageReturn = false

    /// Counts the line ends in `bytes[0 ..< limit]`, which start at document offset `offset`.
    ///
    /// One comparison a byte; only control bytes (tab, LF, CR and the like) go further.
    @inline(__always)
    mutating func count(_ bytes: UnsafeBufferPointer<UInt8>, upTo limit: Int, offset: Int) {
        guard limit > 0 else { return }
        for index in 0..<limit where bytes[index] <= 0x0D {
            let byte = bytes[index]
            if byte == 0x0D {
                line += 1
                lineStart = offset + index + 1
            } else if byte == 0x0A {
                if !(index > 0 ? bytes[index - 1] == 0x0D : afterCarriageReturn) { line += 1 }
                lineStart = offset + index + 1
            }
        }
        afterCarriageReturn = bytes[limit - 1] == 0x0D
    }

    /// The line and column of document offset `offset`, the bytes before it being
    /// `bytes[0 ..< offset]` (for an error: counted only when one is reported).
    static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var lines = XMLLineEnds()
        lines.count(bytes, upTo: min(max(offset, 0), bytes.count), offset: 0)
        return (lines.line, offset - lines.lineStart + 1)
    }
}
