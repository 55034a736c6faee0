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
/// What the outcome reports is true of the files once every receiver has finished. A live
/// receiver that has its answer's head (``receiverAnswered()``) may be writing to, cutting back
/// or removing the partial file an earlier one kept: when the wait runs out, that partial file
/// is no longer reported, and is removed once the receiver finishes. One with no head yet never
/// touches a file after the wait has run out: the partial file is reported as the earlier
/// receiver left it, and stays so.
///
/// Each attempt continues the partial file the attempts before it left (for the first, the
/// resource's ``DownloadResourceType/resumeFrom``): what the latest receiver leaves, even nothing
/// (it removed the file, or kept none), replaces what an earlier one kept, and is what the next
/// attempt asks the rest of (``resumePoint``), under the validator of the answer that wrote it.
/// With nothing left, the next attempt starts from the first byte. The file a receiver staged
/// (an answer the resource accepts, which a pipeline's ``RetryPolicy`` may still retry, a `202`
/// say) is removed once a later receiver finishes: the outcome is the last attempt's.
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
        /// What the receivers left to resume, for the outcome: until one has finished, the
        /// resource's partial file, when it is there.
        var resumable: ResumableDownload?
        /// The partial file the next attempt continues: the resource's until a receiver has
        /// finished, then what the latest one left.
        var resumePoint: ResumableDownload?
        var live = 0
        var waiters: [@Sendable () -> Void] = []
        /// The live receivers that have their answer's head: each may be changing the partial
        /// file it continues.
        var answering = 0
        /// Whether the wait ran out with a receiver still live: the outcome went without it.
        var abandoned = false
        /// The partial file an earlier receiver kept that was not reported, because a receiver
        /// was changing it when the wait ran out: removed once the last receiver finishes.
        var unreported: URL?
    }

    // `state` is a `Locked`: its lock guards every field of `State`.
    private let state: Locked<State>
    /// How long ``settled()`` waits for a receiver to finish: 10 seconds unless a test injects
    /// a shorter one.
    let bound: Duration

    /// Creates the staging of a download that resumes `resumeFrom`, or starts from the first
    /// byte when it is `nil`.
    init(bound: Duration = .seconds(10), resumeFrom: ResumableDownload? = nil) {
        self.bound = bound
        let kept = resumeFrom.flatMap { FileManager.default.fileExists(atPath: $0.partialFile.path) ? $0 : nil }
        self.state = Locked(State(resumable: kept, resumePoint: resumeFrom))
    }

    /// The partial file the next attempt continues, asking for the bytes after it under its
    /// validator; `nil` when it starts from the first byte.
    var resumePoint: ResumableDownload? {
        state.withLock { $0.resumePoint }
    }

    /// A receiver was made and will finish once; returns the partial file it continues
    /// (``resumePoint``), since the receiver of the attempt before it has finished.
    func receiverStarted() -> ResumableDownload? {
        state.withLock { state in
            state.live += 1
            return state.resumePoint
        }
    }

    /// A receiver has its answer's head and is about to act on it, which may write to, cut back
    /// or remove the partial file it continues. Returns `false` once the staging was abandoned:
    /// the receiver then leaves every file as it is, since the outcome may have reported that
    /// partial file.
    func receiverAnswered() -> Bool {
        state.withLock { state in
            guard !state.abandoned else { return false }
            state.answering += 1
            return true
        }
    }

    /// A receiver has finished, leaving a staged file, a partial file kept to resume, or
    /// neither: what it leaves replaces what an earlier one kept or staged, and is what the next
    /// attempt continues. A partial file kept, or a file staged, by an earlier attempt and not
    /// reused is removed. What a
    /// receiver leaves after the staging was abandoned is removed, unless it is the partial file
    /// already handed over. `answered` says whether ``receiverAnswered()`` let it act on a head.
    func receiverFinished(staged: Staged?, resumable: ResumableDownload?, answered: Bool) {
        let (waiters, strays) = state.withLock { state -> ([@Sendable () -> Void], [URL]) in
            state.live -= 1
            if answered { state.answering -= 1 }
            if state.abandoned {
                let handedOver = state.resumable?.partialFile
                var strays = [staged?.url, resumable?.partialFile].compactMap { $0 }.filter { $0 != handedOver }
                if state.live <= 0, let unreported = state.unreported {
                    strays.append(unreported)
                    state.unreported = nil
                }
                return ([], strays)
            }
            var strays: [URL] = []
            if let previous = state.resumable?.partialFile, previous != resumable?.partialFile, previous != staged?.url {
                strays.append(previous)
            }
            // A file an earlier attempt finished is not what this one ended with.
            if let previous = state.staged?.url, previous != staged?.url, previous != resumable?.partialFile {
                strays.append(previous)
            }
            state.resumable = resumable
            state.resumePoint = resumable
            state.staged = staged
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
                guard state.live > 0 else { return }
                state.abandoned = true
                // A receiver acting on its answer may be changing the partial file kept before
                // it: the outcome does not report it.
                if state.answering > 0, let kept = state.resumable {
                    state.unreported = kept.partialFile
                    state.resumable = nil
                }
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

    /// The partial file kept to resume, if any: the one being resumed while no receiver has
    /// finished (the download failed before its first attempt had an answer, or made none).
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
}
