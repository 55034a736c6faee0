import Foundation

/// What the receivers of one download leave for the service: the finished file waiting to be
/// placed, or the partial file kept to resume; and whether every receiver has finished.
///
/// A download's outcome is delivered only once its receivers have finished (a cancelled
/// transfer completes a little after the cancellation), so that whoever receives the outcome
/// finds the temporary file already removed or kept.
final class DownloadStaging: Sendable {
    /// A finished, verified file, not yet at its destination.
    struct Staged: Sendable {
        let url: URL
        let head: ResponseHead
        /// The file as a partial download to resume, when the resource keeps partial files and
        /// it has a validator: what is kept if it cannot be placed.
        let resumable: ResumableDownload?
    }

    private struct State {
        var staged: Staged?
        var resumable: ResumableDownload?
        var live = 0
        var waiters: [@Sendable () -> Void] = []
    }

    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state = Locked(State())

    /// A receiver was made and will finish once.
    func receiverStarted() {
        state.withLock { $0.live += 1 }
    }

    /// A receiver has finished, leaving a staged file, a partial file kept to resume, or
    /// neither. A partial kept by an earlier attempt and not reused is removed.
    func receiverFinished(staged: Staged?, resumable: ResumableDownload?) {
        let (waiters, stray) = state.withLock { state -> ([@Sendable () -> Void], URL?) in
            var stray: URL?
            if let previous = state.resumable?.partialFile,
                previous != resumable?.partialFile, previous != staged?.url, staged != nil || resumable != nil
            {
                stray = previous
            }
            if staged != nil || resumable != nil { state.resumable = resumable }
            if let staged { state.staged = staged }
            state.live -= 1
            guard state.live <= 0 else { return ([], stray) }
            defer { state.waiters = [] }
            return (state.waiters, stray)
        }
        if let stray { DownloadFile.remove(stray) }
        for waiter in waiters { waiter() }
    }

    /// Runs `body` once every receiver has finished, or after `bound` if one has not (a
    /// transport that completes late); at once if none is running.
    func whenSettled(within bound: Duration = .seconds(10), _ body: @escaping @Sendable () -> Void) {
        let once = Locked(false)
        let run: @Sendable () -> Void = {
            let first = once.withLock { ran -> Bool in
                defer { ran = true }
                return !ran
            }
            if first { body() }
        }
        let runsNow = state.withLock { state -> Bool in
            guard state.live > 0 else { return true }
            state.waiters.append(run)
            return false
        }
        if runsNow {
            run()
            return
        }
        let (seconds, attoseconds) = bound.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: run)
    }

    /// Waits until every receiver has finished (within ``whenSettled(within:_:)``'s bound).
    func settled() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            whenSettled { continuation.resume() }
        }
    }

    /// The staged file, handed over once.
    func takeStaged() -> Staged? {
        state.withLock { state in
            defer { state.staged = nil }
            return state.staged
        }
    }

    /// The partial file kept to resume, if any.
    var resumable: ResumableDownload? {
        state.withLock { $0.resumable }
    }

    /// Removes a staged file that will not be placed (the fetch failed or was cancelled after
    /// the body had all arrived).
    func discardStaged() {
        if let staged = takeStaged() { DownloadFile.remove(staged.url) }
    }
}
