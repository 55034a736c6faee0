// The code blocks of ObservingOnAServer.md, verbatim, so that they are compiled when the traits
// are on (`swift test --traits Logging,Metrics,Tracing`). `DocumentationSnippetTests` checks that
// each block stands here unchanged, with the traits on or off.
#if Logging && Metrics && Tracing
import Foundation
import Logging
import Metrics
import ResourceLoader
import ResourceLoaderLogging
import ResourceLoaderMetrics
import ResourceLoaderTracing
import Tracing

enum ObservingOnAServerSnippets {
    static func logging() -> ResourcePipeline {
        var logger = Logger(label: "cities-client")
        logger.logLevel = .info          // successes (debug) are not written, failures and retries are
        let pipeline = ResourcePipeline(monitors: [LoggerFetchMonitor(logger: logger)])
        return pipeline
    }

    static func metrics() -> ResourcePipeline {
        // After MetricsSystem.bootstrap(...) with your backend, once per process:
        let pipeline = ResourcePipeline(monitors: [MetricsFetchMonitor()])
        return pipeline
    }

    static func tracing() -> ResourcePipeline {
        // After InstrumentationSystem.bootstrap(...) with your tracer, once per process:
        let tracing = TracingFetchMonitor()
        let pipeline = ResourcePipeline(adapters: [tracing], monitors: [tracing])
        return pipeline
    }

    static func everything(logger: Logger, session: any URLSessionType) async throws -> [City] {
        let tracing = TracingFetchMonitor()
        let pipeline = ResourcePipeline(
            session: session,
            adapters: [tracing],
            retryPolicy: RetryPolicy(maximumAttempts: 3),
            monitors: [tracing, MetricsFetchMonitor(), LoggerFetchMonitor(logger: logger)]
        )
        let cities = ResourceService<Cities>(pipeline: pipeline)
        return try await withSpan("list cities") { _ in
            try await cities.fetch(Cities(continent: "europe"))
        }
    }
}
#endif
