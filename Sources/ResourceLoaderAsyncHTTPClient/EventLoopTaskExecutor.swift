#if AsyncHTTPClient
import NIOCore

/// A task executor that runs every job of the tasks preferring it on one NIO event loop.
///
/// A traced hop runs in a Swift task (see `AsyncHTTPClientTransport+Tracing.swift`). On the
/// global executor that task waits for a thread of the cooperative pool, one per core, which
/// synchronous work elsewhere in the process can hold for as long as it likes; the delegate path,
/// driven by the event loop, never waits for it. With this executor as the task's preference the
/// hop runs where the delegate's callbacks run, and every continuation AsyncHTTPClient resumes
/// brings it back there. The hop only hands bytes to `Transfer`'s callbacks, which take a lock
/// briefly and never block, so the event loop stays free for its I/O.
///
/// swift-nio 2.101 offers no task executor over an event loop (only a serial executor, for
/// actors), so this is ours. Task executors need macOS 15, iOS 18, tvOS 18, watchOS 11 or
/// visionOS 2 on Apple platforms; on earlier ones the hop runs on the global executor.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class EventLoopTaskExecutor: TaskExecutor {
    /// Where the jobs run.
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
#endif
