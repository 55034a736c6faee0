import Foundation

/// What the receivers of one download leave for the service: the finished file waiting to be
/// placed, or the partial file kept to resume; and whether every receiver has finished.
///
/// A download's outcome is delivered only once its receivers have finished (a cancelled
/// transfer completes a little after the cancellation), so that whoever receives the outcome
/// finds the temporary file already removed or kept. The wait is bounded (``bound``): once it
/// has run out with a receiver still live, the staging is abandoned, and a receiver that
/// finishes afterwards has what it leaves (a finished file, a partial file kept to resume)
/// removed, since nobody will place or resume it.
///
/// Every attempt of a resumed download works on the one partial file being resumed: what the
/// latest receiver leaves, even nothing (it removed the file), replaces what an earlier one kept.
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
        /// Whether the wait ran out with a receiver still live: the outcome went without it.
        var abandoned = false
    }

    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state = Locked(State())
    /// How long ``settled()`` waits for a receiver to finish: 10 seconds unless a test injects
    /// a shorter one.
    let bound: Duration
    /// Whether the download resumes a partial file, which every receiver works on.
    let resumesPartialFile: Bool

    init(bound: Duration = .seconds(10), resumesPartialFile: Bool = false) {
        self.bound = bound
        self.resumesPartialFile = resumesPartialFile
    }

    /// A receiver was made and will finish once.
    func receiverStarted() {
        state.withLock { $0.live += 1 }
    }

    /// A receiver has finished, leaving a staged file, a partial file kept to resume, or
    /// neither. A partial kept by an earlier attempt and not reused is removed; for a resumed
    /// download, one the latest receiver removed is no longer kept. What a receiver
    /// leaves after the staging was abandoned is removed, unless it is the partial file already
    /// handed over.
    func receiverFinished(staged: Staged?, resumable: ResumableDownload?) {
        let (waiters, strays) = state.withLock { state -> ([@Sendable () -> Void], [URL]) in
            state.live -= 1
            if state.abandoned {
                let handedOver = state.resumable?.partialFile
                return ([], [staged?.url, resumable?.partialFile].compactMap { $0 }.filter { $0 != handedOver })
            }
            var strays: [URL] = []
            if let previous = state.resumable?.partialFile,
                previous != resumable?.partialFile, previous != staged?.url, staged != nil || resumable != nil
            {
                strays.append(previous)
            }
            if staged != nil || resumable != nil || resumesPartialFile { state.resumable = resumable }
            if let staged { state.staged = staged }
            guard state.live <= 0 else { return ([], strays) }
            defer { state.waiters = [] }
            return (state.waiters, strays)
        }
        for url in Set(strays) { DownloadFile.remove(url) }
        for waiter in waiters { waiter() }
    }

    /// Runs `body` once every receiver has finished, or after ``bound`` if one has not (a
    /// transport that completes late), abandoning the staging; at once if none is running.
    func whenSettled(_ body: @escaping @Sendable () -> Void) {
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
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [state] in
            state.withLock { state in
                if state.live > 0 { state.abandoned = true }
            }
            run()
        }
    }

    /// Waits until every receiver has finished (within ``bound``).
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

    /// Removes the partial file kept to resume: the download failed, and its resource does not
    /// keep partial files. A receiver that finishes after an abandoned wait then has what it
    /// leaves removed too.
    func discardResumable() {
        let kept = state.withLock { state -> ResumableDownload? in
            defer { state.resumable = nil }
            return state.resumable
        }
        if let kept { DownloadFile.remove(kept.partialFile) }
    }

    /// Removes a staged file that will not be placed (the fetch failed or was cancelled after
    /// the body had all arrived).
    func discardStaged() {
        if let staged = takeStaged() { DownloadFile.remove(staged.url) }
    }
}
