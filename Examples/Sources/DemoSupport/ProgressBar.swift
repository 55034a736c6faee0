import Foundation
import ResourceLoader

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress bar for a transfer, drawn on the standard error.
///
/// On a terminal the bar is redrawn in place (a carriage return, then the new line) for every
/// value; anywhere else (a pipe, a log file) it writes one line each time another tenth of the
/// transfer is done, or another MiB when the total is unknown, so that a log stays short.
/// ``finish()`` ends the bar's line.
///
/// ```
/// download [##########################··············]  65%   1.9 MiB of 3.0 MiB
/// ```
public final class ProgressBar: @unchecked Sendable {
    /// What the bar says before the bar itself, such as `"upload"`.
    public let label: String
    /// The number of cells of the bar.
    public let width: Int
    /// Whether the bar is redrawn in place (on a terminal) rather than written line by line.
    public let redrawsInPlace: Bool

    private let write: @Sendable (String) -> Void
    // `lock` guards `lastStep` and `drawn`.
    private let lock = NSLock()
    private var lastStep: Int64 = -1
    private var drawn = false

    /// Creates a bar.
    ///
    /// - Parameters:
    ///   - label: What the bar says before the bar itself.
    ///   - width: The number of cells of the bar. Default: 40.
    ///   - redrawsInPlace: Whether to redraw in place. Default: whether the standard error is a
    ///     terminal.
    ///   - write: Where the text goes. Default: the standard error.
    public init(
        label: String,
        width: Int = 40,
        redrawsInPlace: Bool = ProgressBar.standardErrorIsTerminal,
        write: @escaping @Sendable (String) -> Void = ProgressBar.writeToStandardError
    ) {
        self.label = label
        self.width = max(width, 1)
        self.redrawsInPlace = redrawsInPlace
        self.write = write
    }

    /// Shows `progress`.
    public func report(_ progress: TransferProgress) {
        let text = Self.line(label: label, width: width, progress: progress)
        lock.withLock {
            if redrawsInPlace {
                write("\r" + text)
                drawn = true
                return
            }
            let step: Int64
            if let fraction = progress.fractionCompleted {
                step = Int64(fraction * 10)
            } else {
                step = progress.completedBytes / (1024 * 1024)
            }
            guard step > lastStep else { return }
            lastStep = step
            write(text + "\n")
        }
    }

    /// Ends the bar's line on a terminal; does nothing otherwise.
    public func finish() {
        lock.withLock {
            if redrawsInPlace && drawn { write("\n") }
            drawn = false
            lastStep = -1
        }
    }

    /// One line of the bar for `progress`: the label, the bar, the percentage and the bytes, or,
    /// when the total is unknown, the label and the bytes done.
    public static func line(label: String, width: Int, progress: TransferProgress) -> String {
        let done = byteText(progress.completedBytes)
        guard let fraction = progress.fractionCompleted, let total = progress.totalBytes else {
            return "\(label) \(done)"
        }
        let clamped = min(max(fraction, 0), 1)
        let filled = Int((clamped * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled)
        let percent = String(Int((clamped * 100).rounded(.down)))
        let padded = String(repeating: " ", count: max(0, 3 - percent.count)) + percent
        return "\(label) [\(bar)] \(padded)% \(done) of \(byteText(total))"
    }

    /// `count` bytes in MiB with one decimal, or in bytes below 1 KiB, or in KiB.
    public static func byteText(_ count: Int64) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return String(format: "%.1f KiB", Double(count) / 1024) }
        return String(format: "%.1f MiB", Double(count) / (1024 * 1024))
    }

    /// Whether the standard error is a terminal.
    public static var standardErrorIsTerminal: Bool {
        isatty(STDERR_FILENO) != 0
    }

    /// Writes `text` to the standard error as it is, without a newline.
    @Sendable public static func writeToStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
