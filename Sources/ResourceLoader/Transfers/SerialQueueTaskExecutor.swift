import Dispatch

/// A task executor that runs every job of the tasks preferring it on a serial Dispatch queue of
/// its own.
///
/// The task that iterates a ``RequestBodyStream`` prefers one: its sequence then runs, and hands
/// its chunks to the sending thread, without waiting for a thread of Swift's cooperative pool,
/// which synchronous work elsewhere in the process can hold. (A serial queue gets a thread when it
/// has work, whatever the pool is doing.) Task executors need macOS 15, iOS 18, tvOS 18, watchOS 11
/// or visionOS 2 on Apple platforms; on earlier ones the task runs on the global executor.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class SerialQueueTaskExecutor: TaskExecutor {
    /// Where the jobs run.
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
